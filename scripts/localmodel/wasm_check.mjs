// Runs the wasm build of crates/localmodel (examples/wasm_entry.rs) under Node on the tiny
// fixtures and compares with the NumPy reference: same greedy tokens, prefill logits within
// the tolerance of tests/reference.rs.
//   node scripts/localmodel/wasm_check.mjs path/to/wasm_entry.wasm
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "../../crates/localmodel/tests/fixtures");
const wasmPath = process.argv[2];
if (!wasmPath) throw new Error("usage: node wasm_check.mjs wasm_entry.wasm");
const module = await WebAssembly.compile(readFileSync(wasmPath));
// The module's imports are wasm-bindgen's (no glue here): only getrandom's getRandomValues is
// called, to seed ahash's hash maps, and leaving the bytes as they are only fixes that seed.
const imports = {};
for (const imp of WebAssembly.Module.imports(module)) {
  imports[imp.module] ??= {};
  imports[imp.module][imp.name] = imp.name.includes("getRandomValues")
    ? () => {}
    : () => { throw new Error(`import ${imp.module}.${imp.name} called`); };
}
const reference = JSON.parse(readFileSync(join(fixtures, "reference.json"), "utf8"));
const vocab = reference.vocab_size;
let failures = 0;
for (const [name, ref] of Object.entries(reference.models)) {
  const { exports: x } = await WebAssembly.instantiate(module, imports);
  const put = (bytes) => { const p = x.lm_alloc(bytes.length); new Uint8Array(x.memory.buffer, p, bytes.length).set(bytes); return p; };
  const gguf = readFileSync(join(fixtures, name));
  const tok = readFileSync(join(fixtures, "tokenizer.json"));
  const started = performance.now();
  if (x.lm_load(put(gguf), gguf.length, put(tok), tok.length) !== 0) {
    throw new Error(new TextDecoder().decode(new Uint8Array(x.memory.buffer, x.lm_error_ptr(), x.lm_error_len())));
  }
  const prompt = Uint32Array.from(reference.prompt_ids);
  const p = put(new Uint8Array(prompt.buffer));
  const n = x.lm_generate(p, prompt.length, ref.greedy_tokens.length);
  if (n < 0) throw new Error(new TextDecoder().decode(new Uint8Array(x.memory.buffer, x.lm_error_ptr(), x.lm_error_len())));
  const tokens = Array.from(new Uint32Array(x.memory.buffer, x.lm_output_ptr(), n));
  const logits = new Float32Array(x.memory.buffer, x.lm_logits_ptr(), x.lm_logits_len());
  const want = new Float32Array(readFileSync(join(fixtures, ref.logits_ggml)).buffer.slice(0, vocab * 4));
  let worst = 0;
  for (let i = 0; i < vocab; i++) worst = Math.max(worst, Math.abs(logits[i] - want[i]));
  const same = JSON.stringify(tokens) === JSON.stringify(ref.greedy_tokens);
  console.log(`${name}: greedy ${same ? "same" : "DIFFERENT"} (${tokens}), prefill max |logit - reference| ${worst.toExponential(2)}, ${(performance.now() - started).toFixed(0)} ms`);
  if (!same || worst > 0.3) failures++;
}
console.log(`${Object.keys(reference.models).length - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
