//! Model providers, sans I/O: this crate builds the HTTP requests for three wire formats (OpenAI
//! Chat Completions and every compatible server, Anthropic Messages, Gemini) and reads what comes
//! back: whole responses, Server-Sent-Event streams fed in arbitrary chunks, and error bodies,
//! which it sorts into kinds that say whether to retry, slow down or stop the run.
//!
//! No networking, no async, no clock: the caller (the browser app or the CLI) sends the
//! [`HttpRequest`] and hands the bytes back. Keys are passed in separately and never stored in
//! anything serializable ([`Endpoint`] holds none; [`HttpRequest::redacted`] masks them).

pub mod address;
pub mod batch;
pub mod capabilities;
pub mod connection;
pub mod error;
pub mod http;
pub mod models;
pub mod params;
pub mod presets;
pub mod request;
pub mod response;
pub mod stream;

mod util;

pub use address::{
    Address, KeyScope, KeyUse, TrustedEndpoints, key_use, plain_http_refusal, redact_base_url,
    serialize_redacted_base_url, shared_origin_warning,
};
pub use batch::{BatchInput, BatchLimits, BatchPhase, BatchResult, BatchStatus};
pub use capabilities::{NotSent, fit};
pub use connection::{ConnectionVerdict, HttpOutcome, connection_test_request, connection_verdict};
pub use error::{Disposition, ErrorKind, ProviderError, classify_error, retry_after_ms};
pub use http::HttpRequest;
pub use models::{models_request, parse_models};
pub use params::{Endpoint, GenerationParams, MaxTokensField, Message};
pub use presets::{Auth, Preset, WireFormat, cors_advice, preset, presets};
pub use request::{BuiltRequest, build_request};
pub use response::{Completion, Usage, parse_response};
pub use stream::{StreamDelta, StreamParser};
