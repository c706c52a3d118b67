//! A mock model server on 127.0.0.1 that speaks the three wire formats the run engine uses
//! (OpenAI Chat Completions, Anthropic Messages, Gemini generateContent), streamed and not, and
//! answers CRUXEval prompts deterministically from the dataset: right, or wrong on purpose. Tests
//! start it in-process ([`MockServer::start`], [`MockServer::start_blocking`]); users run the
//! `execbench-mock-server` binary. Native only: never a dependency of the web app.
//!
//! # Endpoints
//! - OpenAI: `POST /v1/chat/completions`, `POST /chat/completions`, Azure-style
//!   `POST /openai/deployments/{deployment}/chat/completions` (the deployment is the model).
//! - Anthropic: `POST /v1/messages` (needs `anthropic-version`, and from a page, i.e. with an
//!   `Origin`, `anthropic-dangerous-direct-browser-access: true`, as the real API: else 400 / 401).
//!   `max_tokens` is required, as in the real API.
//! - Gemini: `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`
//!   (without `alt=sse`: a streamed JSON array). `/v1/models/...` works too.
//! - Model lists: `GET /v1/models` (OpenAI shape, Anthropic shape with `anthropic-version`),
//!   `GET /v1beta/models` (Gemini shape): the configured models, else `mock-model`.
//! - Batch services ([`batch`]): OpenAI `POST /v1/files`, `POST /v1/batches`,
//!   `GET /v1/batches/{id}`, `POST /v1/batches/{id}/cancel`, `GET /v1/files/{id}/content`;
//!   Anthropic `POST /v1/messages/batches`, `GET /v1/messages/batches/{id}`, `.../cancel`,
//!   `.../results`; Gemini `POST /v1beta/models/{m}:batchGenerateContent`,
//!   `GET /v1beta/batches/{id}`, `POST /v1beta/batches/{id}:cancel`. Their clock moves only
//!   when told: `POST /_mock/batch_clock {"advance_s": S}`.
//! - Control: `GET /_mock/stats`, `POST /_mock/reset`, `GET`/`POST /_mock/config` (JSON of
//!   [`MockConfig`]; `GET` shows `api_key_set: true|false` in place of the key).
//! - CORS ([`Cors`]): by default only pages on this machine (loopback origins, any port) get CORS
//!   headers; another `Origin` gets 403 on every route. Every origin (`*`) only when configured.
//!
//! # Answers
//! The prompt is the text of every message (system first; each text part its own piece), joined
//! with a blank line (`"\n\n"`), the same text as execbench-eval's `Prompt::text()`. A prompt
//! containing "Reply with the word OK" (any case) is a connection test and gets `OK`. Otherwise
//! [`Dataset::identify`] finds the sample and task, and [`answer_text`] gives the answer, right
//! unless the [`AnswerPolicy`] says wrong; every choice of a request gets the same answer. A
//! prompt tied to no sample gets [`UNIDENTIFIED_ANSWER`] and counts in [`Stats::unidentified`].
//!
//! # Usage numbers
//! [`token_count`]`(text) = ceil(chars / 4)`. Prompt tokens: `token_count(prompt)`. Completion
//! tokens: `token_count(answer)` per choice, summed over the `n` choices (OpenAI `n`, Gemini
//! `candidateCount`; Anthropic always 1). An answer longer than the request's `max_tokens` /
//! `max_completion_tokens` / `maxOutputTokens` is cut to its first `4 × max` characters and
//! stops for length (`length`, `max_tokens`, `MAX_TOKENS`). `total_tokens` is the sum.
//!
//! # Streams
//! The answer goes out in up to four pieces of nearly equal length. OpenAI: a role chunk per
//! choice, the pieces (each choice in turn), a finish chunk per choice, with
//! `stream_options.include_usage` a usage chunk with `choices: []` (and `"usage": null` on the
//! others), then `data: [DONE]`. Anthropic: `message_start` (usage.input_tokens, output_tokens 0),
//! `content_block_start`, the `content_block_delta`s with a `ping` after the first,
//! `content_block_stop`, `message_delta` (stop_reason, usage.output_tokens), `message_stop`.
//! Gemini: one `data:` chunk per piece, ended by `\r\n\r\n`, the last with `finishReason` and
//! `usageMetadata`; no `[DONE]`. Latency is spread evenly over the events; headers come at once.
//!
//! # Faults ([`Fault`]), per format
//! | fault | status | OpenAI `error` type / code | Anthropic `error.type` | Gemini `error.status` | more |
//! |---|---|---|---|---|---|
//! | `RateLimit` | 429 | `requests` / `rate_limit_exceeded` | `rate_limit_error` | `RESOURCE_EXHAUSTED` | headers `retry-after`, `retry-after-ms` as configured |
//! | `RateLimitBodyDelay{s}` | 429 | same | same | same | message "... Please try again in {s}s."; Gemini `RetryInfo.retryDelay` "{s}s"; no header |
//! | `ServerError` | 500 | `server_error` / null | `api_error` | `INTERNAL` | |
//! | `Overloaded` | 529 | `server_error` / `overloaded` | `overloaded_error` | `UNAVAILABLE` | message "Overloaded" |
//! | `Unavailable` | 503 | `server_error` / `service_unavailable` | `api_error` | `UNAVAILABLE` | |
//! | `InsufficientQuota` | 429 | `insufficient_quota` / `insufficient_quota` | `billing_error` | `RESOURCE_EXHAUSTED` | "You exceeded your current quota, ..."; Gemini `QuotaFailure` detail (daily free tier) |
//! | `BadKey` (and a wrong key) | 401 | `invalid_request_error` / `invalid_api_key` | `authentication_error` | `UNAUTHENTICATED` | Gemini `ErrorInfo` reason `API_KEY_INVALID` (the real Gemini says 400) |
//! | unknown model | 404 | `invalid_request_error` / `model_not_found` | `not_found_error` | `NOT_FOUND` | "The model `X` does not exist or you do not have access to it." |
//! | bad body | 400 | `invalid_request_error` | `invalid_request_error` | `INVALID_ARGUMENT` | |
//! | `StreamCut{k}` | 200 | | | | stream: the first `k` events (at most all but the terminator), then a clean end of body; not streamed: the JSON body cut at half its length |
//! | `ErrorEventAfter200` | 200 | `data: {"error":{..., "type":"server_error","code":"overloaded"}}` | `event: error` with `overloaded_error` | `data: {"error":{"code":503,...,"status":"UNAVAILABLE"}}` | after the first piece of text, then the end; not streamed: the error object as a 200 body |
//! | `EmptyLength` | 200 | content `""`, `length` | `content: []`, `max_tokens` | no `parts`, `MAX_TOKENS` | the whole `max_tokens` (0 without one) counted as spent: OpenAI `completion_tokens` (and `reasoning_tokens`), Anthropic `output_tokens`, Gemini `thoughtsTokenCount` |
//! | `Hang{ms}` | | | | | waits `ms` (before the latency), then answers normally |
//!
//! Error bodies: OpenAI `{"error":{message,type,param,code}}`, Anthropic
//! `{"type":"error","error":{type,message},"request_id"}`, Gemini
//! `{"error":{code,message,status,details?}}`.

pub mod answer;
pub mod batch;
pub mod config;
pub mod server;
pub mod stats;
pub mod wire;

use std::path::{Path, PathBuf};

use execbench_core::Sample;

pub use answer::{
    CONNECTION_TEST_ANSWER, CONNECTION_TEST_PHRASE, Dataset, Task, UNIDENTIFIED_ANSWER, answer_text,
    is_connection_test, token_count,
};
pub use batch::BatchScript;
pub use config::{AnswerPolicy, Cors, Fault, FaultRule, MockConfig, SampleMatch};
pub use server::MockServer;
pub use stats::{RequestRecord, Stats};

/// The dataset bundled with the app: `public/data/cruxeval/cruxeval.jsonl` in the workspace.
pub fn bundled_dataset_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../public/data/cruxeval/cruxeval.jsonl")
}

/// Reads a JSONL dataset; rows with errors are skipped, and a file with no good row is an error.
pub fn load_dataset(path: &Path) -> std::io::Result<Vec<Sample>> {
    let bytes = std::fs::read(path)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let report = execbench_core::load_jsonl_bytes(&name, &bytes);
    if report.samples.is_empty() {
        let first =
            report.errors.first().map(|e| format!(": {} line {}: {}", e.file, e.line, e.message)).unwrap_or_default();
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} holds no usable sample{first}", path.display()),
        ));
    }
    Ok(report.samples)
}

/// The bundled dataset (for tests).
pub fn bundled_dataset() -> std::io::Result<Vec<Sample>> {
    load_dataset(&bundled_dataset_path())
}
