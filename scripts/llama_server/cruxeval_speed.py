#!/usr/bin/env python3
"""llama.cpp's own server answering CRUXEval chats one after another, greedy, on one thread: the
reference of the benchmark's `realmodel` section (crates/bench/src/real_model.rs), which asks
execbench's in-process engine the very same chats.

    PY scripts/llama_server/cruxeval_speed.py --model F.gguf --chats CHATS.json [--max-tokens 160]
        [--threads 1]

PY is the venv python that scripts/llama_server/fetch.sh prints (it has xllamacpp). CHATS.json is
a list of {"key": ..., "messages": [{"role", "content"}, ...]}. Each is sent as an OpenAI chat
completion (temperature 0, max_tokens, stop "[/ANSWER]") to scripts/llama_server/serve.py, in
order, so the server's prompt cache keeps what consecutive prompts share, as ours does.

stdout: one JSON list, a row per chat: key, text, finish_reason, wall_s, and llama.cpp's own
timings (prompt_n, prompt_ms, predicted_n, predicted_ms, cache_n).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--chats", required=True)
    ap.add_argument("--max-tokens", type=int, default=160)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    with open(args.chats, encoding="utf-8") as f:
        chats = json.load(f)
    server = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "serve.py"), "--model", args.model, "--threads", str(args.threads),
         "--ctx", "4096", "--alias", os.path.basename(args.model)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    rows = []
    try:
        base = server.stdout.readline().strip()
        if not base.startswith("http://"):
            print(f"cruxeval_speed.py: serve.py did not start (printed {base!r})", file=sys.stderr)
            return 1
        for chat in chats:
            body = {"model": os.path.basename(args.model), "messages": chat["messages"], "temperature": 0,
                    "max_tokens": args.max_tokens, "stop": ["[/ANSWER]"]}
            request = urllib.request.Request(base + "/chat/completions", data=json.dumps(body).encode(),
                                             headers={"Content-Type": "application/json"})
            started = time.perf_counter()
            with urllib.request.urlopen(request, timeout=1200) as response:
                reply = json.load(response)
            wall_s = time.perf_counter() - started
            choice = reply["choices"][0]
            timings = reply.get("timings", {})
            rows.append({
                "key": chat["key"],
                "text": choice["message"]["content"],
                "finish_reason": choice["finish_reason"],
                "wall_s": wall_s,
                **{k: timings.get(k) for k in ("prompt_n", "prompt_ms", "predicted_n", "predicted_ms", "cache_n")},
            })
            print(f"cruxeval_speed.py: {chat['key']}: {wall_s:.1f} s", file=sys.stderr, flush=True)
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
