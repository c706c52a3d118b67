//! The integration tests of `execbench-localmodel`, in one test binary: each module below was a file of
//! `tests/` and its own binary, which linked the crate and its dependencies again. One link per
//! crate saves that time in CI. Run one module with
//! `cargo test --release --workspace --locked --test localmodel MODULE::`.
//!
//! `gguf_tokenizer` and `llama_architecture` compare with llama.cpp through `llama_cpp`.
//!
//! `reference_f32.rs` stays a binary of its own: it sets CANDLE_DEQUANTIZE_ALL for its process. The
//! fixtures stay in `tests/fixtures/`.

mod common;
mod llama_cpp;

mod chat_api;
mod gguf_tokenizer;
mod llama_architecture;
mod prop_chat_request;
mod reference;
