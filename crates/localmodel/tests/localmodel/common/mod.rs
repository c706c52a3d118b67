//! Reading the fixtures that scripts/localmodel/make_tiny_gguf.py wrote.
#![allow(dead_code)] // each test file uses a part

use std::path::PathBuf;

use execbench_localmodel::LocalModel;
use serde_json::Value;

pub const MODELS: [&str; 2] = ["tiny-q8_0.gguf", "tiny-q4_0.gguf"];

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub fn read(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub fn reference() -> Value {
    serde_json::from_slice(&read("reference.json")).expect("reference.json")
}

pub fn ids(v: &Value) -> Vec<u32> {
    v.as_array().expect("list of ids").iter().map(|x| x.as_u64().expect("id") as u32).collect()
}

pub fn logit_rows(name: &str, vocab: usize) -> Vec<Vec<f32>> {
    let bytes = read(name);
    let all: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    all.chunks(vocab).map(<[f32]>::to_vec).collect()
}

pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

pub fn load(model: &str) -> LocalModel {
    LocalModel::load(&read(model), &read("tokenizer.json")).unwrap_or_else(|e| panic!("{model}: {e}"))
}

/// Logits for the prompt's last position, then for each given token appended (the KV cache path).
pub fn teacher_forced(model: &mut LocalModel, prompt: &[u32], tokens: &[u32]) -> Vec<Vec<f32>> {
    let mut rows = vec![model.prefill(prompt).unwrap()];
    for &t in tokens {
        rows.push(model.step(t).unwrap());
    }
    rows
}
