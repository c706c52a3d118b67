//! A small quantized Qwen2 code model run in-process: the engine of the in-browser provider
//! (issue 36). It reads a GGUF file (weights, hyper-parameters, chat template and tokenizer, or
//! the model's tokenizer.json when one is given) from bytes, so the same code runs natively and in
//! a Web Worker (wasm32).
//!
//! - [`LocalModel`]: load, tokenize, render the chat template, prefill and decode steps.
//! - [`ModelTokenizer`]: the tokenizer and chat template alone, from the GGUF file's metadata
//!   (no weights read).
//! - [`generate`]: the decoding loop (greedy or seeded temperature/top-p sampling, stop on end
//!   tokens, stop texts and a token budget); [`generate_timed`] also times prefill and decode.
//! - [`chat_api`]: an OpenAI chat-completions request body answered by the model, so callers
//!   reach it through the run engine's `HttpClient` seam with the usual wire format.
//!
//! No clock is read here (`std::time::Instant` panics in wasm32-unknown-unknown): callers time
//! prefill and decode themselves.

mod attention;
mod chat;
pub mod chat_api;
mod error;
mod generate;
mod model;
mod q8_matrix;
mod repack;
mod sampling;
mod tokenizer;
mod transformer;
mod weight;

pub use chat::ChatMessage;
pub use error::LocalModelError;
pub use generate::{GenerateOptions, Generation, StopReason, Timings, generate, generate_timed};
pub use model::{LocalModel, ModelInfo};
pub use sampling::{Sampler, Sampling};
pub use tokenizer::{ModelTokenizer, TokenizerSource, known_pre_tokenizers};
