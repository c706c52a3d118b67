#!/usr/bin/env python3
"""Record llama.cpp's own tokenization and chat-template rendering of every CRUXEval prompt into
crates/localmodel/tests/fixtures/llama_cpp_tokenizer.json, the reference of
crates/localmodel/tests/localmodel/gguf_tokenizer.rs (which then runs without the server).

    python3 scripts/llama_server/record_tokenizer.py [--prompts FILE] [--out FILE] [--model F.gguf]

With --model, another GGUF is recorded instead of the Qwen file (SmolLM2, from
scripts/llama_server/fetch_smollm2.sh, into llama_cpp_tokenizer_smollm2.json for
crates/localmodel/tests/localmodel/llama_architecture.rs); the server still comes from fetch.sh.

What it does
  1. scripts/llama_server/fetch.sh: the real Qwen2.5-Coder-0.5B-Instruct GGUF and xllamacpp.
  2. The prompts, exactly as the test builds them (the crate's own prompt code, the bundled
     CRUXEval, both tasks, the built-in direct templates): written by the test binary's ignored
     `write_prompts_for_the_recorder` (cargo, niced), unless --prompts names such a file.
  3. scripts/llama_server/serve.py on the GGUF; for each prompt, POST /apply-template with its
     messages (llama.cpp renders the GGUF's template) and POST /tokenize of that text
     ({"add_special": false, "parse_special": true}: the template's special tokens stay single ids
     and nothing is added, as the crate encodes a rendered prompt).
  4. The fixture: some other texts tokenized alone (TEXTS below); per prompt, SHA-256 of the rendered text (UTF-8) and of the ids (decimal, joined
     by commas) and the token count; the full ids of 20 prompts (the first 5 of each task and up to
     10 with non-ASCII text); three chats (system + user, user only, several turns) rendered and
     tokenized in full. About 300 kB.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_OUT = os.path.join(ROOT, "crates", "localmodel", "tests", "fixtures", "llama_cpp_tokenizer.json")
FIRST_OF_EACH_TASK = 5
NON_ASCII = 10

CHATS = [
    ("system and user", [
        {"role": "system", "content": "You are a careful Python programmer. Answer with one assertion."},
        {"role": "user", "content": "def f(x):\n    return x * 2\n\nassert f(3) == ??"},
    ]),
    ("user only", [
        {"role": "user", "content": "Héllo — what does `'{}'.format(\"日本\")` give?\n\t  \n"},
    ]),
    ("several turns", [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What is 12 + 30?"},
        {"role": "assistant", "content": "42"},
        {"role": "user", "content": "And 42 * 2?\n"},
    ]),
]

# Texts beyond CRUXEval, tokenized alone: end-of-turn names of other models (llama.cpp treats a
# vocabulary's "</s>" as a control token), user-defined tokens, text that Unicode normalization
# would change, other scripts' letters and digits, unusual spaces and line ends, contractions.
TEXTS = [
    "</s>", "a</s>b", "<|endoftext|>x<|im_end|>", "<tool_call>\n{}\n</tool_call>", "<|fim_prefix|>def<|fim_suffix|>",
    "<|eot_id|> <|end|> <end_of_turn> <EOT>", "<|im_start|", "<s>",
    "e\u0301 \u00e9 \ufb01 \u2126 Å", "ǅ ß ΣΑΣ ﬁ",
    "١٢٣ ٤٥ ①② ½ Ⅻ 𝟙𝟚", "日本語のテキスト、中文文本。한국어", "emoji 👩‍💻🚀 and 🇫🇷",
    "a\u00a0b\u3000c\u2028d\u2029e\u0085f\u200bg\tz\x0b\x0c",
    "x\r\ny\rz\n\n\n  \n \t\n", "    ", "   x", "  \n\n  ", "\n",
    "It's we'LL I'M 'ſ 'S they've'd", "don't'", "Hello, world! ... ??? $$$ 100% #1",
    "def f(s):\n\treturn s[::-1] + '\\x00' * 3  # done\n",
    "\x00\x01\x7f\ud7ff\ue000\uffff\U0010ffff",
]


def log(msg: str) -> None:
    print(f"record_tokenizer.py: {msg}", file=sys.stderr, flush=True)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def ids_sha256(ids: list[int]) -> str:
    return sha256(",".join(str(i) for i in ids).encode())


def post(base: str, path: str, body: dict) -> dict:
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as resp:
        return json.load(resp)


def write_prompts(path: str) -> None:
    env = dict(os.environ, EXECBENCH_PROMPTS_OUT=path)
    env.setdefault("CARGO_TARGET_DIR", os.path.join(os.path.expanduser("~"), ".cache", "execbench-target"))
    cmd = ["nice", "-n", "15", "cargo", "test", "--release", "--workspace", "--locked", "--test", "localmodel",
           "--", "--ignored", "--exact", "gguf_tokenizer::write_prompts_for_the_recorder"]
    log("writing the prompts: " + " ".join(cmd))
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdout=sys.stderr)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prompts", help="JSON Lines the test's write_prompts_for_the_recorder wrote (default: run it)")
    ap.add_argument("--out", default=DEFAULT_OUT, help="the fixture to write")
    ap.add_argument("--model", help="the GGUF to record (default: fetch.sh's Qwen2.5-Coder-0.5B)")
    args = ap.parse_args()

    fetched = subprocess.run(["bash", os.path.join(ROOT, "scripts", "llama_server", "fetch.sh")],
                             check=True, stdout=subprocess.PIPE, text=True).stdout.split()
    python, model = fetched[-2], args.model or fetched[-1]

    with tempfile.TemporaryDirectory() as tmp:
        prompts_path = args.prompts or os.path.join(tmp, "prompts.jsonl")
        if not args.prompts:
            write_prompts(prompts_path)
        with open(prompts_path, encoding="utf-8") as f:
            prompts = [json.loads(line) for line in f if line.strip()]
    log(f"{len(prompts)} prompts")

    server = subprocess.Popen([python, os.path.join(ROOT, "scripts", "llama_server", "serve.py"), "--model", model,
                               "--threads", "1", "--ctx", "4096"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        base = server.stdout.readline().strip()
        if not base.startswith("http://"):
            raise SystemExit(f"serve.py did not start (printed {base!r})")
        base = base.removesuffix("/v1")
        log(f"llama.cpp's server at {base}")

        def render_and_tokenize(messages: list[dict]) -> tuple[str, list[int]]:
            text = post(base, "/apply-template", {"messages": messages})["prompt"]
            ids = post(base, "/tokenize", {"content": text, "add_special": False, "parse_special": True})["tokens"]
            return text, ids

        records, full = [], {}
        seen_tasks: dict[str, int] = {}
        non_ascii = 0
        for n, p in enumerate(prompts):
            text, ids = render_and_tokenize(p["messages"])
            key = f"{p['task']}/{p['sample']}"
            records.append({"key": key, "template": p["template"], "tokens": len(ids),
                            "text_sha256": sha256(text.encode()), "ids_sha256": ids_sha256(ids)})
            seen_tasks[p["task"]] = seen_tasks.get(p["task"], 0) + 1
            if seen_tasks[p["task"]] <= FIRST_OF_EACH_TASK:
                full[key] = ids
            elif non_ascii < NON_ASCII and not text.isascii():
                full[key] = ids
                non_ascii += 1
            if (n + 1) % 200 == 0:
                log(f"{n + 1} of {len(prompts)}")
        texts = []
        for text in TEXTS:
            ids = post(base, "/tokenize", {"content": text, "add_special": False, "parse_special": True})["tokens"]
            texts.append({"text": text, "ids": ids})
        chats = []
        for name, messages in CHATS:
            text, ids = render_and_tokenize(messages)
            chats.append({"name": name, "messages": messages, "text": text, "ids": ids})
    finally:
        server.stdin.close()
        server.wait(timeout=30)

    version = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('xllamacpp'))"],
                             check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    head = {
        "about": "llama.cpp's tokenization and chat-template rendering of the CRUXEval prompts, recorded by "
                 "scripts/llama_server/record_tokenizer.py; ids_sha256 is the SHA-256 of the ids in decimal "
                 "joined by commas, text_sha256 that of the rendered prompt's UTF-8",
        "server": f"xllamacpp {version}",
        "gguf": os.path.basename(model),
        "gguf_bytes": os.path.getsize(model),
    }
    # One prompt per line, so a re-recording's diff shows which moved.
    lines = ["{"]
    lines += [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()]
    lines.append('  "chats": ' + json.dumps(chats, ensure_ascii=False) + ",")
    lines.append('  "texts": [')
    lines.append(",\n".join("    " + json.dumps(t, ensure_ascii=False) for t in texts))
    lines.append("  ],")
    lines.append('  "full": {')
    lines.append(",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in full.items()))
    lines.append("  },")
    lines.append('  "prompts": [')
    lines.append(",\n".join("    " + json.dumps(r) for r in records))
    lines.append("  ]")
    lines.append("}")
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    log(f"wrote {args.out} ({os.path.getsize(args.out)} bytes; {len(records)} prompts, {len(full)} in full)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
