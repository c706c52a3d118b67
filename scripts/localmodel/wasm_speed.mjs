// Speed of the wasm build (examples/wasm_entry.rs) under Node on a GGUF file, e.g. the random-weight
// 0.5B shape from make_tiny_gguf.py --shape 0.5b. Decode = (time for N tokens - time for 1) / (N - 1).
//   node scripts/localmodel/wasm_speed.mjs wasm_entry.wasm MODEL.gguf tokenizer.json PROMPT_TOKENS N
// Imports are wasm-bindgen placeholders; only getrandom (hash seeds) is reached, and a no-op will do.
import { readFileSync } from "node:fs";
const [wasmPath, gguf, tokPath, promptLen, decodeLen] = process.argv.slice(2);
const module = await WebAssembly.compile(readFileSync(wasmPath));
const imports = {};
for (const imp of WebAssembly.Module.imports(module)) { imports[imp.module] ??= {}; imports[imp.module][imp.name] = () => {}; }
const { exports: x } = await WebAssembly.instantiate(module, imports);
const put = (b) => { const p = x.lm_alloc(b.length); new Uint8Array(x.memory.buffer, p, b.length).set(b); return p; };
const g = readFileSync(gguf), t = readFileSync(tokPath);
let t0 = performance.now();
if (x.lm_load(put(g), g.length, put(t), t.length) !== 0) throw new Error("load failed");
console.log(`load ${(performance.now() - t0).toFixed(0)} ms`);
const prompt = Uint32Array.from({ length: +promptLen }, (_, i) => 100 + (i % 200));
const p = put(new Uint8Array(prompt.buffer));
t0 = performance.now();
const n0 = x.lm_generate(p, prompt.length, 1);
const t1 = performance.now();
const n = x.lm_generate(p, prompt.length, +decodeLen);
const t2 = performance.now();
const prefill = t1 - t0; // prefill + 1 token
const decode = (t2 - t1 - prefill) / (n - 1); // the second call repeats the prefill
console.log(`prefill ${promptLen} tokens ${(prefill / 1000).toFixed(2)} s = ${(promptLen / prefill * 1000).toFixed(1)} tokens/s; decode ${(1000 / decode).toFixed(2)} tokens/s (${n} tokens), wasm memory ${(x.memory.buffer.byteLength / 2 ** 20).toFixed(0)} MiB`);
