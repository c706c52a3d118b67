//! Connection verdicts: one table from a transport outcome (or a response) to the verdict and
//! the sentence the page shows.

use execbench_providers::*;
use serde_json::json;

fn ep(provider: &str, model: &str) -> Endpoint {
    let base = preset(provider).map_or("http://10.0.0.5:8000/v1", |p| p.base_url);
    Endpoint { provider: provider.into(), base_url: base.into(), model: model.into() }
}

fn response(status: u16, body: serde_json::Value) -> Result<HttpOutcome, ProviderError> {
    Ok((status, vec![], body.to_string()))
}

fn transport(kind: ErrorKind, message: &str) -> Result<HttpOutcome, ProviderError> {
    Err(ProviderError::new(kind, None, message))
}

const ORIGIN: &str = "https://execbench.example";

#[test]
fn verdicts_table() {
    type Check = fn(&ConnectionVerdict) -> bool;
    type Row = (&'static str, Endpoint, Result<HttpOutcome, ProviderError>, Check, &'static [&'static str]);
    let cases: Vec<Row> = vec![
        (
            "openai answers",
            ep("openai", "gpt-4o-mini"),
            response(
                200,
                json!({"model": "gpt-4o-mini-2024-07-18", "choices": [{"index": 0, "message": {"content": "OK"}, "finish_reason": "stop"}]}),
            ),
            |v| matches!(v, ConnectionVerdict::Ok { model, latency_ms: 412 } if model == "gpt-4o-mini-2024-07-18"),
            &["OK: gpt-4o-mini-2024-07-18 answered in 412 ms"],
        ),
        (
            "a reasoning model spends its 16 tokens thinking: still OK",
            ep("openai", "o4-mini"),
            response(200, json!({"choices": [{"index": 0, "message": {"content": ""}, "finish_reason": "length"}]})),
            |v| matches!(v, ConnectionVerdict::Ok { model, .. } if model == "o4-mini"),
            &["OK: o4-mini answered"],
        ),
        (
            "gemini answers",
            ep("gemini", "gemini-2.5-flash"),
            response(
                200,
                json!({"candidates": [{"content": {"parts": [{"text": "OK"}]}, "finishReason": "STOP"}], "modelVersion": "gemini-2.5-flash"}),
            ),
            ConnectionVerdict::is_ok,
            &["OK: gemini-2.5-flash"],
        ),
        (
            "bad key",
            ep("openai", "gpt-4o-mini"),
            response(
                401,
                json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}),
            ),
            |v| matches!(v, ConnectionVerdict::BadKey(s) if s == "401: Incorrect API key provided"),
            &["Bad key: the provider refused it (401: Incorrect API key provided)."],
        ),
        (
            "gemini bad key is a 400",
            ep("gemini", "gemini-2.5-flash"),
            response(
                400,
                json!({"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT", "details": [{"reason": "API_KEY_INVALID"}]}}),
            ),
            |v| matches!(v, ConnectionVerdict::BadKey(_)),
            &["Bad key", "API key not valid."],
        ),
        (
            "unknown model",
            ep("anthropic", "claude-9"),
            response(404, json!({"type": "error", "error": {"type": "not_found_error", "message": "model: claude-9"}})),
            |v| matches!(v, ConnectionVerdict::UnknownModel(_)),
            &["Unknown model", "model: claude-9", "base URL"],
        ),
        (
            "no credits",
            ep("openrouter", "x/y"),
            response(402, json!({"error": {"code": 402, "message": "Insufficient credits"}})),
            |v| matches!(v, ConnectionVerdict::NoCredits(_)),
            &["No credits", "Insufficient credits"],
        ),
        (
            "quota exhausted counts as no credits",
            ep("openai", "gpt-4o-mini"),
            response(
                429,
                json!({"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "code": "insufficient_quota"}}),
            ),
            |v| matches!(v, ConnectionVerdict::NoCredits(_)),
            &["No credits or quota left", "429"],
        ),
        (
            "rate limited",
            ep("gemini", "gemini-2.5-pro"),
            response(
                429,
                json!({"error": {"code": 429, "message": "Quota exceeded per minute", "status": "RESOURCE_EXHAUSTED"}}),
            ),
            |v| matches!(v, ConnectionVerdict::RateLimited(_)),
            &["Rate limited", "settings work"],
        ),
        (
            "browser blocked",
            ep("ollama", "llama3"),
            transport(ErrorKind::Blocked, "Failed to fetch"),
            |v| matches!(v, ConnectionVerdict::Blocked(_)),
            &["Blocked by the browser", "OLLAMA_ORIGINS", ORIGIN],
        ),
        (
            "ollama refuses the origin with 403",
            ep("ollama", "llama3"),
            Ok((403, vec![], String::new())),
            |v| matches!(v, ConnectionVerdict::Blocked(_)),
            &["403", "OLLAMA_ORIGINS"],
        ),
        (
            "a remote 403 is about the key",
            ep("anthropic", "claude-sonnet-4-5"),
            response(
                403,
                json!({"type": "error", "error": {"type": "permission_error", "message": "Your API key does not have permission to use the specified resource."}}),
            ),
            |v| matches!(v, ConnectionVerdict::BadKey(_)),
            &["Bad key", "permission"],
        ),
        (
            "network error: unreachable, the transport's words kept",
            ep("vllm", "qwen"),
            transport(ErrorKind::Network, "could not reach http://localhost:8000 (Failed to fetch)"),
            |v| matches!(v, ConnectionVerdict::Unreachable(_)),
            &["Unreachable", "localhost:8000", "Failed to fetch", "Check the base URL"],
        ),
        (
            "timeout",
            ep("openai-compatible", "m"),
            transport(ErrorKind::Timeout, ""),
            |v| matches!(v, ConnectionVerdict::Unreachable(_)),
            &["Unreachable", "127.0.0.1:8000", "timed out"],
        ),
        (
            "a 200 HTML page: wrong base URL",
            ep("openai-compatible", "m"),
            Ok((200, vec![], "<html><title>Router login</title></html>".into())),
            |v| matches!(v, ConnectionVerdict::Failed(_)),
            &["Failed", "base URL"],
        ),
        (
            "a bad request",
            ep("openai", "o3"),
            response(
                400,
                json!({"error": {"message": "Unsupported parameter: 'max_tokens'", "type": "invalid_request_error"}}),
            ),
            |v| matches!(v, ConnectionVerdict::Failed(_)),
            &["Failed: bad request (400): Unsupported parameter: 'max_tokens'."],
        ),
        (
            "a server error",
            ep("deepseek", "deepseek-chat"),
            Ok((503, vec![], "Service Unavailable".into())),
            |v| matches!(v, ConnectionVerdict::Failed(_)),
            &["Failed: overloaded (503): Service Unavailable."],
        ),
    ];
    for (what, endpoint, outcome, check, words) in cases {
        let v = connection_verdict(&endpoint, outcome, 412, ORIGIN);
        assert!(check(&v), "{what}: {v:?}");
        let sentence = v.describe();
        for w in words {
            assert!(sentence.contains(w), "{what}: {w:?} not in {sentence:?}");
        }
        assert_eq!(v.is_ok(), matches!(v, ConnectionVerdict::Ok { .. }));
        assert!(!sentence.ends_with(".."), "{what}: {sentence}");
    }
}

#[test]
fn cors_advice_per_provider() {
    let cases: &[(&str, &str, &[&str])] = &[
        ("ollama", "http://localhost:5173", &["OLLAMA_ORIGINS=http://localhost:5173", "\"*\""]),
        ("vllm", "http://127.0.0.1:8080", &["--allowed-origins", "http://127.0.0.1:8080", "'[\"*\"]'"]),
        ("azure", ORIGIN, &["execbench run --provider azure", "AZURE_OPENAI_API_KEY"]),
        ("anthropic", ORIGIN, &["anthropic-dangerous-direct-browser-access"]),
        ("openai", ORIGIN, &["https://api.openai.com/v1"]),
        ("deepseek", ORIGIN, &["not known", "execbench run --provider deepseek", "DEEPSEEK_API_KEY"]),
        (
            "openai-compatible",
            ORIGIN,
            &["Access-Control-Allow-Origin: https://execbench.example", "Authorization", "Content-Type", "Chrome asks"],
        ),
        ("some-gateway", "", &["Access-Control-Allow-Origin: this page's origin"]),
        ("sglang", "http://127.0.0.1:8080", &["30000"]),
        ("llamacpp", ORIGIN, &["8080", "Chrome asks"]),
    ];
    for (id, origin, words) in cases {
        let advice = cors_advice(id, origin);
        for w in *words {
            assert!(advice.contains(w), "{id}: {w:?} not in {advice:?}");
        }
    }
    // Loopback pages need no Local Network Access note; remote providers never get it.
    assert!(!cors_advice("ollama", "http://127.0.0.1:8080").contains("Chrome asks"));
    assert!(!cors_advice("ollama", "https://localhost:8080").contains("Chrome asks"));
    assert!(!cors_advice("openai", ORIGIN).contains("Chrome asks"));
    assert!(cors_advice("ollama", ORIGIN).contains("Chrome asks"));
}
