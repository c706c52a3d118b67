#!/usr/bin/env python3
"""Writes random-weight GGUF files of the qwen2 architecture and their NumPy reference outputs.

The Rust crate crates/localmodel runs these files and must reproduce the reference logits and
greedy tokens (its tests read the committed fixtures, so CI needs no Python packages).

    python3 scripts/localmodel/make_tiny_gguf.py                 # tiny fixtures (committed)
    python3 scripts/localmodel/make_tiny_gguf.py --shape 0.5b --out /work/tmp-localmodel
                                                                   # the real 0.5B shape, speed only

Needs: pip install gguf numpy tokenizers

What it writes into --out (default crates/localmodel/tests/fixtures):
  tokenizer.json             byte-level BPE trained here on a small code corpus, Qwen2-style
                             pre-tokenizer, ChatML special tokens
  tiny-q8_0.gguf, tiny-q4_0.gguf
                             2 layers, GQA (4 query heads, 2 key/value heads), q/k/v biases,
                             tied embeddings, every matrix in the named quantization
  reference.json             the prompt text and ids, per file the greedy continuation and
                             the names of the logits files
  <file>.logits-ggml.f32     logits (little-endian f32, one row of vocab size per step:
                             the prompt's last position, then each greedy step) computed the
                             way ggml computes a quantized matmul: the activation row is itself
                             quantized to Q8_0 blocks before the dot product
  <file>.logits-float.f32    the same with f32 activations (dequantized weights only)

The forward pass below is written from the architecture's definition (Qwen2: RMSNorm, rotary
embedding on the two halves of each head, grouped-query attention with biases on q/k/v, SwiGLU
MLP, tied output embedding); it shares no code with the Rust side.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

import gguf
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

F32 = np.float32
BLOCK = 32  # elements per Q8_0 / Q4_0 block

# The split Qwen2's tokenizer applies before byte-level BPE (contractions, letters, single
# digits, punctuation runs, newlines, other spaces): part of the tokenizer format, so it is
# reproduced here to make the tiny tokenizer behave like the real one.
QWEN2_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]

# A short ChatML template in Jinja (the form GGUF files carry in tokenizer.chat_template).
# A short ChatML template in Jinja (the form GGUF files carry in tokenizer.chat_template),
# meant for the trim_blocks/lstrip_blocks settings chat templates are rendered with.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

SYSTEM = "Predict the output. Answer inside [ANSWER] and [/ANSWER]."
USER = "def f(xs):\n    return [x * 2 for x in xs if x % 3]\n\nassert f([1, 2, 3, 4]) == ??"

# Text the tiny BPE learns its merges from: short Python programs like the benchmark's.
CORPUS = [
    "def f(x):\n    return x + 1\n",
    "def f(text):\n    return text.upper()\n",
    "def f(nums):\n    result = []\n    for n in nums:\n        if n % 2 == 0:\n            result.append(n)\n    return result\n",
    "def f(s, ch):\n    return s.count(ch) + len(s)\n",
    "assert f([1, 2, 3]) == [2, 4, 6]\n",
    "assert f('hello') == 'HELLO'\n",
    "[ANSWER]assert f(3) == 4[/ANSWER]\n",
    "for i in range(10):\n    print(i * i)\n",
    "while x > 0:\n    x = x // 2\n",
    "return {k: v for k, v in items if v is not None}\n",
] * 4

SHAPES = {
    # name: (layers, hidden, heads, kv heads, ffn, context, rope base); vocab comes from the tokenizer
    "tiny": dict(layers=2, hidden=64, heads=4, kv_heads=2, ffn=128, context=4096, rope_base=1_000_000.0),
    # Qwen2.5-Coder-0.5B: 24 layers, 896 wide, 14 query heads over 2 key/value heads, 4864 MLP
    "0.5b": dict(layers=24, hidden=896, heads=14, kv_heads=2, ffn=4864, context=32768, rope_base=1_000_000.0),
}
REAL_VOCAB = 151936  # the 0.5B's embedding rows (its tokenizer pads to this)
RMS_EPS = 1e-6
GREEDY_STEPS = 8


# ---------------------------------------------------------------- ggml block quantization

def f16_round(x: np.ndarray) -> np.ndarray:
    """The f32 value of x stored as IEEE half (ggml keeps block scales as f16)."""
    return x.astype(np.float16).astype(F32)


def round_half_away(v: np.ndarray) -> np.ndarray:
    """C's roundf / Rust's f32::round (NumPy's round is half-to-even)."""
    t = np.trunc(v)
    return np.where(np.abs(v - t) >= 0.5, t + np.sign(v), t).astype(F32)


def quantize_q8_0(w: np.ndarray) -> np.ndarray:
    """Rows of f32 -> Q8_0 bytes: per 32 values one f16 scale amax/127 and 32 int8."""
    rows, cols = w.shape
    b = w.reshape(rows, cols // BLOCK, BLOCK).astype(F32)
    d = (np.abs(b).max(axis=2, keepdims=True) / F32(127)).astype(F32)
    inv = np.divide(F32(1), d, out=np.zeros_like(d), where=d != 0)
    q = round_half_away(b * inv).astype(np.int8)
    out = np.empty((rows, cols // BLOCK, 2 + BLOCK), dtype=np.uint8)
    out[:, :, :2] = d.astype(np.float16).view(np.uint8).reshape(rows, cols // BLOCK, 2)
    out[:, :, 2:] = q.view(np.uint8)
    return out.reshape(rows, -1)


def dequantize_q8_0(raw: np.ndarray, cols: int) -> np.ndarray:
    rows = raw.shape[0]
    b = raw.reshape(rows, cols // BLOCK, 2 + BLOCK)
    d = b[:, :, :2].copy().view(np.float16).astype(F32)
    q = b[:, :, 2:].copy().view(np.int8).astype(F32)
    return (q * d).reshape(rows, cols)


def quantize_q4_0(w: np.ndarray) -> np.ndarray:
    """Rows of f32 -> Q4_0 bytes: the signed value of largest magnitude sets d = max/-8; values
    become 4-bit 0..15 (offset 8); byte j holds element j (low nibble) and j+16 (high)."""
    rows, cols = w.shape
    b = w.reshape(rows, cols // BLOCK, BLOCK).astype(F32)
    idx = np.abs(b).argmax(axis=2)[..., None]
    mx = np.take_along_axis(b, idx, axis=2)
    d = (mx / F32(-8)).astype(F32)
    inv = np.divide(F32(1), d, out=np.zeros_like(d), where=d != 0)
    q = np.minimum(15, np.trunc(b * inv + F32(8.5))).astype(np.uint8)
    packed = q[:, :, :16] | (q[:, :, 16:] << 4)
    out = np.empty((rows, cols // BLOCK, 2 + 16), dtype=np.uint8)
    out[:, :, :2] = d.astype(np.float16).view(np.uint8).reshape(rows, cols // BLOCK, 2)
    out[:, :, 2:] = packed
    return out.reshape(rows, -1)


def dequantize_q4_0(raw: np.ndarray, cols: int) -> np.ndarray:
    rows = raw.shape[0]
    b = raw.reshape(rows, cols // BLOCK, 2 + 16)
    d = b[:, :, :2].copy().view(np.float16).astype(F32)
    qs = b[:, :, 2:]
    lo = (qs & 0x0F).astype(F32) - 8
    hi = (qs >> 4).astype(F32) - 8
    return (np.concatenate([lo, hi], axis=2) * d).reshape(rows, cols)


QUANTS = {
    "q8_0": (gguf.GGMLQuantizationType.Q8_0, quantize_q8_0, dequantize_q8_0, gguf.LlamaFileType.MOSTLY_Q8_0),
    "q4_0": (gguf.GGMLQuantizationType.Q4_0, quantize_q4_0, dequantize_q4_0, gguf.LlamaFileType.MOSTLY_Q4_0),
}


def q8_activations(x: np.ndarray) -> np.ndarray:
    """What a ggml Q8_0/Q4_0 matmul actually multiplies: each activation row rounded to Q8_0."""
    shape = x.shape
    b = x.reshape(-1, BLOCK).astype(F32)
    d = (np.abs(b).max(axis=1, keepdims=True) / F32(127)).astype(F32)
    inv = np.divide(F32(1), d, out=np.zeros_like(d), where=d != 0)
    q = round_half_away(b * inv)
    return (q * f16_round(d)).reshape(shape)


# ---------------------------------------------------------------- tokenizer

def make_tokenizer(vocab_size: int) -> Tokenizer:
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2_SPLIT), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(CORPUS, trainer)
    tok.add_special_tokens(SPECIAL_TOKENS)
    return tok


def vocab_in_order(tok: Tokenizer) -> list[str]:
    by_id = {i: t for t, i in tok.get_vocab(with_added_tokens=True).items()}
    assert sorted(by_id) == list(range(len(by_id))), "token ids must be dense"
    return [by_id[i] for i in range(len(by_id))]


def merges_of(tok: Tokenizer) -> list[str]:
    merges = json.loads(tok.to_str())["model"]["merges"]
    return [m if isinstance(m, str) else " ".join(m) for m in merges]


# ---------------------------------------------------------------- weights and forward pass

def random_weights(shape: dict, vocab: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    h, ffn = shape["hidden"], shape["ffn"]
    hd = h // shape["heads"]
    kv = shape["kv_heads"] * hd

    def mat(rows, cols, scale=1.0):
        return (rng.standard_normal((rows, cols)) * scale / np.sqrt(cols)).astype(F32)

    def vec(n, mean, scale):
        return (mean + scale * rng.standard_normal(n)).astype(F32)

    w = {"token_embd.weight": (rng.standard_normal((vocab, h)) * 0.5).astype(F32),
         "output_norm.weight": vec(h, 1.0, 0.1)}
    for i in range(shape["layers"]):
        p = f"blk.{i}."
        w[p + "attn_norm.weight"] = vec(h, 1.0, 0.1)
        w[p + "attn_q.weight"] = mat(h, h)
        w[p + "attn_k.weight"] = mat(kv, h)
        w[p + "attn_v.weight"] = mat(kv, h)
        w[p + "attn_q.bias"] = vec(h, 0.0, 0.2)
        w[p + "attn_k.bias"] = vec(kv, 0.0, 0.5)
        w[p + "attn_v.bias"] = vec(kv, 0.0, 0.2)
        # outputs of attention and MLP outweigh the token's own embedding in the residual
        # stream, so that tied embeddings do not just repeat the last token
        w[p + "attn_output.weight"] = mat(h, h, 4.0)
        w[p + "ffn_norm.weight"] = vec(h, 1.0, 0.1)
        w[p + "ffn_gate.weight"] = mat(ffn, h)
        w[p + "ffn_up.weight"] = mat(ffn, h)
        w[p + "ffn_down.weight"] = mat(h, ffn, 4.0)
    return w


def rms_norm(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return (x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + F32(RMS_EPS)) * w).astype(F32)


def rope(x: np.ndarray, base: float) -> np.ndarray:
    """x: (heads, T, head_dim). Qwen2 rotates element i with element i + head_dim/2."""
    _, t, hd = x.shape
    half = hd // 2
    inv_freq = (1.0 / np.power(F32(base), np.arange(0, hd, 2, dtype=F32) / F32(hd))).astype(F32)
    ang = (np.arange(t, dtype=F32)[:, None] * inv_freq[None, :]).astype(F32)
    cos, sin = np.cos(ang), np.sin(ang)
    a, b = x[..., :half], x[..., half:]
    return np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=-1).astype(F32)


def forward(w: dict, shape: dict, ids: list[int], ggml_activations: bool) -> np.ndarray:
    """Logits (vocab,) of the last position; w holds dequantized f32 matrices."""
    h, nh, nkv = shape["hidden"], shape["heads"], shape["kv_heads"]
    hd = h // nh
    t = len(ids)

    def linear(x, name):
        xin = q8_activations(x) if ggml_activations else x
        return (xin @ w[name].T).astype(F32)

    x = w["token_embd.weight"][ids]
    causal = np.triu(np.full((t, t), -np.inf, dtype=F32), k=1)
    for i in range(shape["layers"]):
        p = f"blk.{i}."
        a = rms_norm(x, w[p + "attn_norm.weight"])
        q = linear(a, p + "attn_q.weight") + w[p + "attn_q.bias"]
        k = linear(a, p + "attn_k.weight") + w[p + "attn_k.bias"]
        v = linear(a, p + "attn_v.weight") + w[p + "attn_v.bias"]
        q = rope(q.reshape(t, nh, hd).transpose(1, 0, 2), shape["rope_base"])
        k = rope(k.reshape(t, nkv, hd).transpose(1, 0, 2), shape["rope_base"])
        v = v.reshape(t, nkv, hd).transpose(1, 0, 2)
        group = nh // nkv  # query head j reads key/value head j // group
        k = np.repeat(k, group, axis=0)
        v = np.repeat(v, group, axis=0)
        s = (q @ k.transpose(0, 2, 1)) / F32(np.sqrt(hd)) + causal
        s = np.exp(s - s.max(axis=-1, keepdims=True))
        s = (s / s.sum(axis=-1, keepdims=True)).astype(F32)
        o = (s @ v).transpose(1, 0, 2).reshape(t, h)
        x = (x + linear(o, p + "attn_output.weight")).astype(F32)
        m = rms_norm(x, w[p + "ffn_norm.weight"])
        g = linear(m, p + "ffn_gate.weight")
        u = linear(m, p + "ffn_up.weight")
        x = (x + linear((g / (1 + np.exp(-g))) * u, p + "ffn_down.weight")).astype(F32)
    x = rms_norm(x[-1:], w["output_norm.weight"])
    return linear(x, "token_embd.weight")[0]  # tied embeddings: the output matrix is token_embd


def greedy(w: dict, shape: dict, prompt: list[int], steps: int, ggml_activations: bool):
    ids, rows = list(prompt), []
    for _ in range(steps + 1):
        logits = forward(w, shape, ids, ggml_activations)
        rows.append(logits)
        ids.append(int(np.argmax(logits)))
    return ids[len(prompt):len(prompt) + steps], np.stack(rows)


def top2_margin(rows: np.ndarray) -> float:
    s = np.sort(rows, axis=1)
    return float((s[:, -1] - s[:, -2]).min())


# ---------------------------------------------------------------- file writing

def write_gguf(path, shape, tok, quant, quantized, vocab_size):
    qtype, _, _, file_type = QUANTS[quant]
    vocab = vocab_in_order(tok)
    wr = gguf.GGUFWriter(path, "qwen2")
    wr.add_name(f"execbench random-weight qwen2 ({os.path.basename(path)})")
    wr.add_file_type(file_type)
    wr.add_context_length(shape["context"])
    wr.add_embedding_length(shape["hidden"])
    wr.add_block_count(shape["layers"])
    wr.add_feed_forward_length(shape["ffn"])
    wr.add_head_count(shape["heads"])
    wr.add_head_count_kv(shape["kv_heads"])
    wr.add_rope_freq_base(shape["rope_base"])
    wr.add_layer_norm_rms_eps(RMS_EPS)
    wr.add_tokenizer_model("gpt2")
    wr.add_tokenizer_pre("qwen2")
    tokens = vocab + [f"[PAD{i}]" for i in range(len(vocab), vocab_size)]
    types = [gguf.TokenType.CONTROL if t in SPECIAL_TOKENS else gguf.TokenType.NORMAL for t in vocab]
    types += [gguf.TokenType.USER_DEFINED] * (vocab_size - len(vocab))
    wr.add_token_list(tokens)
    wr.add_token_types(types)
    wr.add_token_merges(merges_of(tok))
    ids = {t: i for i, t in enumerate(vocab)}
    wr.add_bos_token_id(ids["<|endoftext|>"])
    wr.add_eos_token_id(ids["<|im_end|>"])
    wr.add_pad_token_id(ids["<|endoftext|>"])
    wr.add_add_bos_token(False)
    wr.add_chat_template(CHAT_TEMPLATE)
    for name, arr in quantized.items():
        if arr.dtype == np.uint8:
            wr.add_tensor(name, arr, raw_dtype=qtype)
        else:
            wr.add_tensor(name, arr)
    wr.write_header_to_file()
    wr.write_kv_data_to_file()
    wr.write_tensors_to_file()
    wr.close()


def quantize_all(weights: dict, quant: str):
    """-> (what goes in the file, the f32 matrices a reader dequantizes them to)."""
    qtype, quantize, dequantize, _ = QUANTS[quant]
    stored, seen = {}, {}
    for name, arr in weights.items():
        if arr.ndim == 2:
            raw = quantize(arr)
            deq = dequantize(raw, arr.shape[1])
            # our decoder must agree bit for bit with the gguf package's (ggml's layout)
            assert np.array_equal(deq, gguf.quants.dequantize(raw, qtype).reshape(arr.shape)), name
            stored[name], seen[name] = raw, deq
        else:
            stored[name], seen[name] = arr, arr
    return stored, seen


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", choices=sorted(SHAPES), default="tiny")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "crates",
                                                   "localmodel", "tests", "fixtures"))
    ap.add_argument("--seed", type=int, default=4)  # the first seed whose continuations vary and have no near ties
    args = ap.parse_args()
    shape = SHAPES[args.shape]
    os.makedirs(args.out, exist_ok=True)

    tok = make_tokenizer(vocab_size=320)
    tok.save(os.path.join(args.out, "tokenizer.json"))
    vocab_size = len(vocab_in_order(tok)) if args.shape == "tiny" else REAL_VOCAB
    prompt_text = (f"<|im_start|>system\n{SYSTEM}<|im_end|>\n"
                   f"<|im_start|>user\n{USER}<|im_end|>\n<|im_start|>assistant\n")
    prompt_ids = tok.encode(prompt_text).ids
    rng = np.random.default_rng(args.seed)
    weights = random_weights(shape, vocab_size, rng)

    if args.shape != "tiny":  # speed measurement only: no reference pass over the real shape
        for quant in QUANTS:
            stored, _ = quantize_all(weights, quant)
            path = os.path.join(args.out, f"{args.shape}-{quant}.gguf")
            write_gguf(path, shape, tok, quant, stored, vocab_size)
            print(f"wrote {path} ({os.path.getsize(path) / 1e6:.1f} MB)")
        return 0

    reference = {
        "system": SYSTEM, "user": USER, "prompt_text": prompt_text, "prompt_ids": prompt_ids,
        "vocab_size": vocab_size, "greedy_steps": GREEDY_STEPS, "models": {},
    }
    for quant in QUANTS:
        stored, seen = quantize_all(weights, quant)
        name = f"tiny-{quant}.gguf"
        write_gguf(os.path.join(args.out, name), shape, tok, quant, stored, vocab_size)
        tokens, ggml_rows = greedy(seen, shape, prompt_ids, GREEDY_STEPS, ggml_activations=True)
        # the float pass scores the same sequence (teacher forcing), so rows line up
        float_rows = np.stack([forward(seen, shape, prompt_ids + tokens[:i], False)
                               for i in range(GREEDY_STEPS + 1)])
        margin = top2_margin(ggml_rows)
        # a near tie would make "same greedy tokens" depend on summation order
        assert margin > 0.05, f"{name}: top-2 logit margin {margin} too small; change --seed"
        assert len(set(tokens)) >= 4, f"{name}: greedy tokens {tokens} barely vary; change --seed"
        for kind, rows in (("ggml", ggml_rows), ("float", float_rows)):
            rows.astype("<f4").tofile(os.path.join(args.out, f"{name}.logits-{kind}.f32"))
        reference["models"][name] = {
            "greedy_tokens": tokens,
            "greedy_text": tok.decode(tokens, skip_special_tokens=False),
            "logits_ggml": f"{name}.logits-ggml.f32",
            "logits_float": f"{name}.logits-float.f32",
            "min_top2_margin": round(margin, 4),
            "max_abs_ggml_vs_float": float(np.abs(ggml_rows - float_rows).max()),
        }
        print(f"{name}: greedy {tokens}, min top-2 margin {margin:.3f}, "
              f"ggml vs float max |diff| {np.abs(ggml_rows - float_rows).max():.4f}")
    with open(os.path.join(args.out, "reference.json"), "w") as f:
        json.dump(reference, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
