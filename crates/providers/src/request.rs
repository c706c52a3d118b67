//! Building one request per wire format: URL, the few headers a provider needs, and the body.

use serde_json::{Map, Value, json};

use crate::address::Address;
use crate::http::HttpRequest;
use crate::params::{Endpoint, GenerationParams, MaxTokensField, Message};
use crate::presets::{Auth, WireFormat};

/// The Azure OpenAI API version (GA) this crate speaks.
pub const AZURE_API_VERSION: &str = "2024-10-21";
/// The Messages API version of the `anthropic` SDK 2.15.0 (its `_constants.py`): it takes no
/// sampling parameters for any model (`crate::capabilities`).
pub const ANTHROPIC_VERSION: &str = "2026-10-21";
/// Anthropic's least thinking budget, which must also stay under max tokens (`anthropic` SDK
/// 2.15.0, `ThinkingConfigEnabledParam.budget_tokens`).
const ANTHROPIC_MIN_THINKING: u32 = 1024;
/// OpenAI accepts at most 4 stop sequences, Gemini at most 5.
const OPENAI_MAX_STOP: usize = 4;
const GEMINI_MAX_STOP: usize = 5;

#[derive(Clone, Debug, PartialEq)]
pub struct BuiltRequest {
    pub http: HttpRequest,
    /// The generation parameters actually put in the body (everything except the
    /// messages/contents and the key), as a JSON object. For Gemini, whose model and streaming
    /// live in the URL, "model" and (when streaming) "stream": true are added so reports read
    /// alike. Stored with every result so a report shows any deviation from the protocol.
    pub sent: Value,
    /// Choices this one request asks for (n when the provider supports it, else 1).
    pub choices: u32,
}

/// Builds one request.
///
/// System messages: OpenAI as "system" messages; Anthropic as the top-level "system" field;
/// Gemini as "systemInstruction" (several are joined by a blank line). Anthropic also gets
/// "anthropic-version" (ANTHROPIC_VERSION) and "anthropic-dangerous-direct-browser-access: true". Only
/// the headers a provider needs (content-type plus auth): SDK-style extras fail some CORS
/// preflights. `key` None (or blank): no auth header at all. Azure: `{base}/chat/completions?
/// api-version=2024-10-21` with an `api-key` header. Gemini: `{base}/models/{model}:generateContent`,
/// streamed `:streamGenerateContent?alt=sse`, the key in `x-goog-api-key` (never in the URL).
/// OpenAI streams ask for `stream_options.include_usage` (no token counts otherwise). `n` > 1 on
/// a provider without `supports_n` builds a request for 1 choice (`choices` = 1): the caller
/// sends n of them. Parameters are sent as given (a model that refuses one answers 400, kept as
/// BadRequest with the provider's message).
///
/// Errors (naming the field): empty model, base URL not starting with http:// or https://,
/// n == 0, max tokens 0, a non-finite temperature/top_p, a key that cannot go in a header.
pub fn build_request(
    endpoint: &Endpoint,
    key: Option<&str>,
    params: &GenerationParams,
    messages: &[Message],
    n: u32,
) -> Result<BuiltRequest, String> {
    let model = endpoint.model.trim();
    if model.is_empty() {
        return Err("model: no model name given".into());
    }
    let base = Address::parse(&endpoint.base_url).map_err(|e| format!("base URL: {e}"))?;
    if n == 0 {
        return Err("n: must be at least 1".into());
    }
    if params.max_tokens == 0 {
        return Err("max tokens: must be at least 1".into());
    }
    for (name, v) in [("temperature", params.temperature), ("top_p", params.top_p)] {
        if v.is_some_and(|v| !v.is_finite()) {
            return Err(format!("{name}: not a finite number"));
        }
    }
    let mut headers = auth_headers(endpoint, key)?;
    // Never a setting the model does not take (the run records what was left out, and why).
    let fitted = crate::capabilities::fit(endpoint, params);
    let params = &fitted.params;
    let choices = if n > 1 && fitted.n { n } else { 1 };
    if endpoint.wire() == WireFormat::Anthropic
        && let Some(budget) = params.thinking_budget
        && !(ANTHROPIC_MIN_THINKING..params.max_tokens).contains(&budget)
    {
        return Err(format!(
            "thinking budget: Anthropic takes at least {ANTHROPIC_MIN_THINKING} tokens and fewer than max tokens ({}), got {budget}",
            params.max_tokens
        ));
    }
    let stop: Vec<&str> = params.stop.iter().map(String::as_str).filter(|s| !s.is_empty()).collect();

    let (url, body, sent) = match endpoint.wire() {
        WireFormat::OpenAiChat => openai(endpoint, &base, model, params, messages, choices, &stop),
        WireFormat::Anthropic => anthropic(&base, model, params, messages, &stop),
        WireFormat::Gemini => gemini(&base, model, params, messages, choices, &stop),
    };
    headers.insert(0, ("content-type".to_string(), "application/json".to_string()));
    Ok(BuiltRequest {
        http: HttpRequest { method: "POST".into(), url, headers, body: body.to_string() },
        sent,
        choices,
    })
}

/// The headers every call to `endpoint` carries, content-type aside: the key's header (none when
/// `key` is None or blank) and Anthropic's version headers. Shared by live and batch requests.
pub(crate) fn auth_headers(endpoint: &Endpoint, key: Option<&str>) -> Result<Vec<(String, String)>, String> {
    // An empty key means none; a key with spaces or non-ASCII inside cannot go in a header
    // (fetch would throw), so say so here rather than as a vague network error.
    let key = key.map(str::trim).filter(|k| !k.is_empty());
    if let Some(k) = key
        && !k.bytes().all(|b| b.is_ascii_graphic())
    {
        return Err("API key: contains spaces or characters that cannot be sent in a header".into());
    }
    let auth = endpoint.preset().map_or(Auth::Bearer, |p| p.auth);
    let mut headers = Vec::new();
    if let Some(k) = key {
        headers.push(match auth {
            Auth::Bearer => ("authorization".into(), format!("Bearer {k}")),
            Auth::AzureApiKey => ("api-key".into(), k.into()),
            Auth::AnthropicKey => ("x-api-key".into(), k.into()),
            Auth::GoogApiKey => ("x-goog-api-key".into(), k.into()),
        });
    }
    if endpoint.wire() == WireFormat::Anthropic {
        headers.push(("anthropic-version".into(), ANTHROPIC_VERSION.into()));
        headers.push(("anthropic-dangerous-direct-browser-access".into(), "true".into()));
    }
    Ok(headers)
}

/// The body without the conversation keys: what the report records as "sent".
fn without(body: &Map<String, Value>, keys: &[&str]) -> Map<String, Value> {
    body.iter().filter(|(k, _)| !keys.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect()
}

fn openai(
    endpoint: &Endpoint,
    base: &Address,
    model: &str,
    params: &GenerationParams,
    messages: &[Message],
    choices: u32,
    stop: &[&str],
) -> (String, Value, Value) {
    let id = endpoint.preset().map(|p| p.id);
    let azure = id == Some("azure");
    // A pasted full endpoint URL is accepted as it is.
    let pasted = base.path.trim_end_matches('/').ends_with("/chat/completions");
    let has_version = base.query().is_some_and(|q| q.split('&').any(|p| p.starts_with("api-version=")));
    let version = if azure && !has_version { format!("?api-version={AZURE_API_VERSION}") } else { String::new() };
    let url = base.at(&format!("{}{version}", if pasted { "" } else { "/chat/completions" }));
    let completion_field = match params.max_tokens_field {
        MaxTokensField::MaxTokens => false,
        MaxTokensField::MaxCompletionTokens => true,
        MaxTokensField::Auto => matches!(id, Some("openai" | "azure")),
    };
    let mut b = Map::new();
    b.insert("model".into(), json!(model));
    b.insert(
        "messages".into(),
        Value::Array(messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect()),
    );
    let field = if completion_field { "max_completion_tokens" } else { "max_tokens" };
    b.insert(field.into(), json!(params.max_tokens));
    if let Some(t) = params.temperature {
        b.insert("temperature".into(), json!(t));
    }
    if let Some(p) = params.top_p {
        b.insert("top_p".into(), json!(p));
    }
    if choices > 1 {
        b.insert("n".into(), json!(choices));
    }
    if let Some(e) = &params.reasoning_effort {
        b.insert("reasoning_effort".into(), json!(e));
    }
    if !stop.is_empty() {
        b.insert("stop".into(), json!(stop.iter().take(OPENAI_MAX_STOP).collect::<Vec<_>>()));
    }
    if params.stream {
        b.insert("stream".into(), json!(true));
        // Without this the stream carries no token counts.
        b.insert("stream_options".into(), json!({"include_usage": true}));
    }
    let sent = Value::Object(without(&b, &["messages"]));
    (url, Value::Object(b), sent)
}

fn anthropic(
    base: &Address,
    model: &str,
    params: &GenerationParams,
    messages: &[Message],
    stop: &[&str],
) -> (String, Value, Value) {
    let url = base.at(if base.path.trim_end_matches('/').ends_with("/messages") { "" } else { "/messages" });
    let system: Vec<&str> = messages.iter().filter(|m| m.role == "system").map(|m| m.content.as_str()).collect();
    let turns: Vec<Value> =
        messages.iter().filter(|m| m.role != "system").map(|m| json!({"role": m.role, "content": m.content})).collect();
    let mut b = Map::new();
    b.insert("model".into(), json!(model));
    b.insert("max_tokens".into(), json!(params.max_tokens));
    if !system.is_empty() {
        b.insert("system".into(), json!(system.join("\n\n")));
    }
    b.insert("messages".into(), Value::Array(turns));
    if let Some(t) = params.temperature {
        b.insert("temperature".into(), json!(t));
    }
    if let Some(p) = params.top_p {
        b.insert("top_p".into(), json!(p));
    }
    if !stop.is_empty() {
        b.insert("stop_sequences".into(), json!(stop));
    }
    if let Some(budget) = params.thinking_budget {
        b.insert("thinking".into(), json!({"type": "enabled", "budget_tokens": budget}));
    }
    if params.stream {
        b.insert("stream".into(), json!(true));
    }
    let sent = Value::Object(without(&b, &["messages", "system"]));
    (url, Value::Object(b), sent)
}

fn gemini(
    base: &Address,
    model: &str,
    params: &GenerationParams,
    messages: &[Message],
    choices: u32,
    stop: &[&str],
) -> (String, Value, Value) {
    // "models/gemini-2.5-flash" (as the model list names them) and "gemini-2.5-flash" both work.
    let name = model.strip_prefix("models/").unwrap_or(model);
    let method = if params.stream { "streamGenerateContent?alt=sse" } else { "generateContent" };
    let url = base.at(&format!("/models/{}:{method}", encode_path(name)));

    let system: Vec<&str> = messages.iter().filter(|m| m.role == "system").map(|m| m.content.as_str()).collect();
    let contents: Vec<Value> = messages
        .iter()
        .filter(|m| m.role != "system")
        .map(|m| {
            let role = if m.role == "assistant" { "model" } else { m.role.as_str() };
            json!({"role": role, "parts": [{"text": m.content}]})
        })
        .collect();
    let mut config = Map::new();
    config.insert("maxOutputTokens".into(), json!(params.max_tokens));
    if let Some(t) = params.temperature {
        config.insert("temperature".into(), json!(t));
    }
    if let Some(p) = params.top_p {
        config.insert("topP".into(), json!(p));
    }
    if choices > 1 {
        config.insert("candidateCount".into(), json!(choices));
    }
    if !stop.is_empty() {
        config.insert("stopSequences".into(), json!(stop.iter().take(GEMINI_MAX_STOP).collect::<Vec<_>>()));
    }
    if let Some(budget) = params.thinking_budget {
        config.insert("thinkingConfig".into(), json!({"thinkingBudget": budget}));
    }
    let mut b = Map::new();
    b.insert("contents".into(), Value::Array(contents));
    if !system.is_empty() {
        b.insert("systemInstruction".into(), json!({"parts": [{"text": system.join("\n\n")}]}));
    }
    b.insert("generationConfig".into(), Value::Object(config.clone()));

    let mut sent = Map::new();
    sent.insert("model".into(), json!(name));
    sent.insert("generationConfig".into(), Value::Object(config));
    if params.stream {
        sent.insert("stream".into(), json!(true));
    }
    (url, Value::Object(b), Value::Object(sent))
}

/// Percent-encodes what may not stand in a URL path segment (model names are normally plain).
fn encode_path(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_encoding() {
        assert_eq!(encode_path("gemini-2.5-flash"), "gemini-2.5-flash");
        assert_eq!(encode_path("a b:c"), "a%20b%3Ac");
        assert_eq!(encode_path("é"), "%C3%A9");
    }
}
