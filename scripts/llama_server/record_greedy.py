#!/usr/bin/env python3
"""Record llama.cpp's greedy answers (temperature 0) to a few CRUXEval prompts, for the comparison
with the in-process engine in crates/localmodel/tests/localmodel/llama_architecture.rs.

    python3 scripts/llama_server/record_greedy.py --model F.gguf --prompts FILE --out FILE [--per-task 5]
        [--max-tokens 160]

--prompts is the JSON Lines that gguf_tokenizer's ignored `write_prompts_for_the_recorder` writes
(both CRUXEval tasks, as the local provider asks them). The first --per-task prompts of each task
are sent to llama.cpp's own server (scripts/llama_server/serve.py, one thread) as OpenAI chat
completions: the messages, temperature 0, max_tokens, and the stop text "[/ANSWER]" (which the
in-process engine always stops on). The fixture keeps each request body and llama.cpp's answer
text and finish reason.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def log(msg: str) -> None:
    print(f"record_greedy.py: {msg}", file=sys.stderr, flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--prompts", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-task", type=int, default=5)
    ap.add_argument("--max-tokens", type=int, default=160)
    args = ap.parse_args()

    python = subprocess.run(["bash", os.path.join(ROOT, "scripts", "llama_server", "fetch.sh")],
                            check=True, stdout=subprocess.PIPE, text=True).stdout.split()[-2]
    with open(args.prompts, encoding="utf-8") as f:
        prompts = [json.loads(line) for line in f if line.strip()]
    chosen, per_task = [], {}
    for p in prompts:
        per_task[p["task"]] = per_task.get(p["task"], 0) + 1
        if per_task[p["task"]] <= args.per_task:
            chosen.append(p)

    server = subprocess.Popen([python, os.path.join(ROOT, "scripts", "llama_server", "serve.py"), "--model", args.model,
                               "--threads", "1", "--ctx", "4096", "--alias", os.path.basename(args.model)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    answers = []
    try:
        base = server.stdout.readline().strip()
        if not base.startswith("http://"):
            raise SystemExit(f"serve.py did not start (printed {base!r})")
        for p in chosen:
            body = {"model": os.path.basename(args.model), "messages": p["messages"], "temperature": 0,
                    "max_tokens": args.max_tokens, "stop": ["[/ANSWER]"]}
            req = urllib.request.Request(base + "/chat/completions", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=600) as resp:
                reply = json.load(resp)
            choice = reply["choices"][0]
            answers.append({"key": f"{p['task']}/{p['sample']}", "body": body,
                            "text": choice["message"]["content"], "finish_reason": choice["finish_reason"],
                            "completion_tokens": reply.get("usage", {}).get("completion_tokens")})
            log(f"{answers[-1]['key']}: {answers[-1]['finish_reason']}, {answers[-1]['completion_tokens']} tokens")
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    version = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('xllamacpp'))"],
                             check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    out = {
        "about": "llama.cpp's greedy chat answers to CRUXEval prompts, recorded by scripts/llama_server/record_greedy.py",
        "server": f"xllamacpp {version}",
        "gguf": os.path.basename(args.model),
        "gguf_bytes": os.path.getsize(args.model),
        "answers": answers,
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    log(f"wrote {args.out} ({len(answers)} answers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
