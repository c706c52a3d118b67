#!/usr/bin/env python3
"""llama.cpp's prefill and greedy decode speed on a GGUF file, for the benchmark's localmodel
section (crates/bench/src/local_model.rs), which runs execbench's own engine on the same file and
the same token ids.

    python3 llamacpp_speed.py MODEL.gguf PROMPT_IDS.json DECODE_TOKENS THREADS

Prints one JSON object: {"prefill_s": ..., "decode_s": ..., "prompt_tokens": ..., "decode_tokens": ...,
"first_tokens": [...]} (the first greedy tokens, which a caller may compare with its own).
Needs: pip install llama-cpp-python numpy
"""

from __future__ import annotations

import json
import sys
import time

import llama_cpp
import numpy as np
from llama_cpp import Llama


def main() -> int:
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    model_path, ids_path, decode_tokens, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with open(ids_path) as f:
        prompt = [int(i) for i in json.load(f)]
    llm = Llama(
        model_path=model_path,
        n_ctx=len(prompt) + decode_tokens + 16,
        n_batch=len(prompt),
        n_ubatch=len(prompt),
        n_threads=threads,
        n_threads_batch=threads,
        verbose=False,
    )
    started = time.perf_counter()
    llm.eval(prompt)
    prefill_s = time.perf_counter() - started
    tokens = []
    started = time.perf_counter()
    vocab = llm.n_vocab()
    for _ in range(decode_tokens):
        # The last evaluated position's logits, straight from llama.cpp (the wrapper's own copy
        # keeps only n_batch rows).
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(vocab,))
        nxt = int(np.argmax(logits))
        tokens.append(nxt)
        llm.eval([nxt])
    decode_s = time.perf_counter() - started
    print(json.dumps({
        "prefill_s": prefill_s,
        "decode_s": decode_s,
        "prompt_tokens": len(prompt),
        "decode_tokens": decode_tokens,
        "first_tokens": tokens[:8],
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
