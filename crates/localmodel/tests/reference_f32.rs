//! The architecture alone: with every weight dequantized to f32 before the matmuls, the Rust
//! forward pass must equal the NumPy one (f32 activations) up to float summation order. This
//! separates mistakes in the model (RoPE, attention, norms, biases, dequantization) from the
//! rounding of activations that quantized matmuls add (tests/localmodel/reference.rs).
//!
//! Its own test binary: candle reads CANDLE_DEQUANTIZE_ALL once per thread when a model loads,
//! and the variable must not leak into the other tests.

#[path = "localmodel/common/mod.rs"]
mod common;

use common::*;

const TOLERANCE: f32 = 1e-4;

#[test]
fn dequantized_forward_matches_the_numpy_forward() {
    // SAFETY: the only test in this process, set before any thread reads the environment.
    unsafe { std::env::set_var("CANDLE_DEQUANTIZE_ALL", "1") };
    let r = reference();
    let vocab = r["vocab_size"].as_u64().unwrap() as usize;
    let prompt = ids(&r["prompt_ids"]);
    for name in MODELS {
        let m = &r["models"][name];
        let float = logit_rows(m["logits_float"].as_str().unwrap(), vocab);
        let mut model = load(name);
        let rows = teacher_forced(&mut model, &prompt, &ids(&m["greedy_tokens"]));
        let worst = rows.iter().zip(&float).map(|(a, b)| max_abs_diff(a, b)).fold(0f32, f32::max);
        eprintln!("{name}, weights dequantized: max |logit - reference| {worst:.1e}");
        assert!(worst <= TOLERANCE, "{name}: {worst} > {TOLERANCE}");
    }
}
