//! Checking the settings before a run: a tiny request, and a verdict the page can show.

use crate::error::{ErrorKind, ProviderError};
use crate::params::{Endpoint, GenerationParams, MaxTokensField, Message};
use crate::presets::cors_advice;
use crate::request::{BuiltRequest, build_request};
use crate::response::parse_response;

pub const CONNECTION_TEST_PROMPT: &str = "Reply with the word OK.";

/// A tiny request to check settings: max tokens 16 (max_completion_tokens for openai/azure),
/// no temperature/top_p (so reasoning models accept it), n = 1, no stream.
pub fn connection_test_request(endpoint: &Endpoint, key: Option<&str>) -> Result<BuiltRequest, String> {
    let params = GenerationParams {
        max_tokens: 16,
        temperature: None,
        top_p: None,
        stream: false,
        reasoning_effort: None,
        thinking_budget: None,
        max_tokens_field: MaxTokensField::Auto,
        stop: vec![],
    };
    build_request(endpoint, key, &params, &[Message::user(CONNECTION_TEST_PROMPT)], 1)
}

/// A response as the transport saw it: status, headers, body.
pub type HttpOutcome = (u16, Vec<(String, String)>, String);

#[derive(Clone, Debug, PartialEq)]
pub enum ConnectionVerdict {
    Ok {
        model: String,
        latency_ms: u64,
    },
    /// The status and the provider's message, e.g. "401: Incorrect API key provided".
    BadKey(String),
    UnknownModel(String),
    NoCredits(String),
    RateLimited(String),
    /// The CORS advice for this provider.
    Blocked(String),
    Unreachable(String),
    Failed(String),
}

impl ConnectionVerdict {
    /// One plain sentence for the page.
    pub fn describe(&self) -> String {
        match self {
            ConnectionVerdict::Ok { model, latency_ms } => format!("OK: {model} answered in {latency_ms} ms"),
            ConnectionVerdict::BadKey(s) => format!("Bad key: the provider refused it ({s})."),
            ConnectionVerdict::UnknownModel(s) => {
                format!("Unknown model: check the model name and the base URL ({s}).")
            }
            ConnectionVerdict::NoCredits(s) => {
                format!("No credits or quota left: the key works, but the account cannot pay for requests now ({s}).")
            }
            ConnectionVerdict::RateLimited(s) => {
                format!("Rate limited: the settings work, but the provider asks to slow down ({s}).")
            }
            ConnectionVerdict::Blocked(s) => {
                sentence(&format!("Blocked by the browser (CORS): the server did not allow this page's origin. {s}"))
            }
            ConnectionVerdict::Unreachable(s) => sentence(&format!("Unreachable: {s}")),
            ConnectionVerdict::Failed(s) => sentence(&format!("Failed: {s}")),
        }
    }

    pub fn is_ok(&self) -> bool {
        matches!(self, ConnectionVerdict::Ok { .. })
    }
}

/// Ends `s` with a full stop unless it already ends a sentence.
fn sentence(s: &str) -> String {
    let t = s.trim_end();
    if t.ends_with(['.', '!', '?']) { t.to_string() } else { format!("{t}.") }
}

/// "401: Incorrect API key provided", or just one of the two.
fn status_message(e: &ProviderError) -> String {
    match (e.status, e.message.trim()) {
        (Some(s), "") => s.to_string(),
        (Some(s), m) => format!("{s}: {m}"),
        (None, "") => e.kind.label().to_string(),
        (None, m) => m.to_string(),
    }
}

/// From the test request's outcome: Ok((status, headers, body)) when a response came,
/// Err(error) when the transport failed (kinds Timeout/Network/Blocked).
pub fn connection_verdict(
    endpoint: &Endpoint,
    outcome: Result<HttpOutcome, ProviderError>,
    latency_ms: u64,
    page_origin: &str,
) -> ConnectionVerdict {
    let host = endpoint.host();
    let (status, headers, body) = match outcome {
        Ok(r) => r,
        Err(e) => {
            return match e.kind {
                ErrorKind::Blocked => ConnectionVerdict::Blocked(cors_advice(&endpoint.provider, page_origin)),
                ErrorKind::Timeout => ConnectionVerdict::Unreachable(format!(
                    "no answer from {host} in time ({}); check the base URL and that the server is running",
                    status_message(&e)
                )),
                // The page's fetch client tells a CORS refusal (kind Blocked) from a server that
                // does not answer (it probes the URL), so Network means nothing answered.
                ErrorKind::Network => ConnectionVerdict::Unreachable(format!(
                    "{}. Check the base URL and that the server is running",
                    status_message(&e)
                )),
                _ => ConnectionVerdict::Failed(e.to_string()),
            };
        }
    };
    match parse_response(endpoint.wire(), status, &headers, &body) {
        Ok(c) => {
            ConnectionVerdict::Ok { model: c.model.unwrap_or_else(|| endpoint.model.trim().to_string()), latency_ms }
        }
        // The model answered but ran out of its 16 tokens (reasoning models think first): the
        // settings work.
        Err(e) if e.kind == ErrorKind::EmptyOutput => {
            ConnectionVerdict::Ok { model: endpoint.model.trim().to_string(), latency_ms }
        }
        Err(e) => match e.kind {
            ErrorKind::BadKey => ConnectionVerdict::BadKey(status_message(&e)),
            // Ollama answers 403 to origins it was not told about; elsewhere 403 is the key's
            // permissions.
            ErrorKind::Forbidden => {
                let lc = e.message.to_ascii_lowercase();
                if endpoint.preset().is_some_and(|p| p.local)
                    || lc.contains("origin")
                    || lc.contains("cors")
                    || lc.is_empty()
                {
                    ConnectionVerdict::Blocked(format!(
                        "{} answered 403 ({}). {}",
                        host,
                        status_message(&e),
                        cors_advice(&endpoint.provider, page_origin)
                    ))
                } else {
                    ConnectionVerdict::BadKey(status_message(&e))
                }
            }
            ErrorKind::UnknownModel => ConnectionVerdict::UnknownModel(status_message(&e)),
            ErrorKind::NoCredits | ErrorKind::QuotaExhausted => ConnectionVerdict::NoCredits(status_message(&e)),
            ErrorKind::RateLimited => ConnectionVerdict::RateLimited(status_message(&e)),
            ErrorKind::Unreadable => ConnectionVerdict::Failed(format!(
                "{host} answered, but not with a {} response: is the base URL right? ({e})",
                crate::response::wire_name(endpoint.wire())
            )),
            _ => ConnectionVerdict::Failed(e.to_string()),
        },
    }
}
