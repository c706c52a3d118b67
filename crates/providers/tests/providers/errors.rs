//! Error bodies of every shape → kind, message and delay; retry-after parsing; dispositions.

use execbench_providers::*;
use serde_json::json;

use ErrorKind::*;
use WireFormat::*;

struct Case {
    what: &'static str,
    wire: WireFormat,
    status: u16,
    headers: &'static [(&'static str, &'static str)],
    body: String,
    kind: ErrorKind,
    /// The message must contain this.
    message: &'static str,
    retry_after_ms: Option<u64>,
}

fn cases() -> Vec<Case> {
    let c = |what, wire, status, headers, body: String, kind, message, retry_after_ms| Case {
        what,
        wire,
        status,
        headers,
        body,
        kind,
        message,
        retry_after_ms,
    };
    vec![
        c(
            "openai 429 per minute",
            OpenAiChat,
            429,
            &[],
            json!({"error": {"message": "Rate limit reached for gpt-4o-mini in organization org-x on tokens per min (TPM): Limit 200000, Used 199000, Requested 1500. Please try again in 10.384s. Visit https://platform.openai.com/account/rate-limits to learn more.", "type": "tokens", "param": null, "code": "rate_limit_exceeded"}}).to_string(),
            RateLimited,
            "Please try again in 10.384s",
            Some(10_384),
        ),
        c(
            "openai 429 insufficient quota",
            OpenAiChat,
            429,
            &[],
            json!({"error": {"message": "You exceeded your current quota, please check your plan and billing details.", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}).to_string(),
            QuotaExhausted,
            "exceeded your current quota",
            None,
        ),
        c(
            "openai 429 with a header delay in ms",
            OpenAiChat,
            429,
            &[("Retry-After-Ms", "250"), ("retry-after", "9")],
            json!({"error": {"message": "Please try again in 20s.", "type": "requests", "code": "rate_limit_exceeded"}}).to_string(),
            RateLimited,
            "try again",
            Some(250),
        ),
        c(
            "openai 401",
            OpenAiChat,
            401,
            &[],
            json!({"error": {"message": "Incorrect API key provided: sk-abc***xyz. You can find your API key at https://platform.openai.com/account/api-keys.", "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}}).to_string(),
            BadKey,
            "Incorrect API key provided",
            None,
        ),
        c(
            "openai 404 model",
            OpenAiChat,
            404,
            &[],
            json!({"error": {"message": "The model `gpt-9` does not exist or you do not have access to it.", "type": "invalid_request_error", "param": null, "code": "model_not_found"}}).to_string(),
            UnknownModel,
            "gpt-9",
            None,
        ),
        c(
            "openai 400 unsupported temperature",
            OpenAiChat,
            400,
            &[],
            json!({"error": {"message": "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.", "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}}).to_string(),
            BadRequest,
            "'temperature' does not support 0.2",
            None,
        ),
        c(
            "openai 500",
            OpenAiChat,
            500,
            &[],
            json!({"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}).to_string(),
            ServerError,
            "server had an error",
            None,
        ),
        c(
            "openai 408 from a proxy",
            OpenAiChat,
            408,
            &[],
            "request timeout".into(),
            Timeout,
            "request timeout",
            None,
        ),
        c(
            "azure 429 per minute",
            OpenAiChat,
            429,
            &[],
            json!({"error": {"code": "429", "message": "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 45 seconds."}}).to_string(),
            RateLimited,
            "retry after 45 seconds",
            Some(45_000),
        ),
        c(
            "azure 429 daily (retry-after a day)",
            OpenAiChat,
            429,
            &[("retry-after", "86400")],
            json!({"error": {"code": "429", "message": "Requests to the ChatCompletions_Create Operation have exceeded the daily limit."}}).to_string(),
            QuotaExhausted,
            "daily limit",
            Some(86_400_000),
        ),
        c(
            "azure 401 access denied",
            OpenAiChat,
            401,
            &[],
            json!({"error": {"code": "401", "message": "Access denied due to invalid subscription key or wrong API endpoint."}}).to_string(),
            BadKey,
            "invalid subscription key",
            None,
        ),
        c(
            "openrouter 402",
            OpenAiChat,
            402,
            &[],
            json!({"error": {"code": 402, "message": "Insufficient credits. Add more using https://openrouter.ai/credits"}}).to_string(),
            NoCredits,
            "Insufficient credits",
            None,
        ),
        c(
            "openrouter 429 upstream, metadata.raw kept",
            OpenAiChat,
            429,
            &[],
            json!({"error": {"code": 429, "message": "Provider returned error", "metadata": {"raw": "model is temporarily rate-limited upstream", "provider_name": "X"}}}).to_string(),
            RateLimited,
            "temporarily rate-limited upstream",
            None,
        ),
        c(
            "deepseek 402 insufficient balance",
            OpenAiChat,
            402,
            &[],
            json!({"error": {"message": "Insufficient Balance", "type": "unknown_error", "param": null, "code": "invalid_request_error"}}).to_string(),
            NoCredits,
            "Insufficient Balance",
            None,
        ),
        c(
            "vllm flat 404",
            OpenAiChat,
            404,
            &[],
            json!({"object": "error", "message": "The model `qwen` does not exist.", "type": "NotFoundError", "param": null, "code": 404}).to_string(),
            UnknownModel,
            "does not exist",
            None,
        ),
        c(
            "vllm flat 400 context too long",
            OpenAiChat,
            400,
            &[],
            json!({"object": "error", "message": "This model's maximum context length is 4096 tokens. However, you requested 6000 tokens.", "type": "BadRequestError", "param": null, "code": 400}).to_string(),
            BadRequest,
            "maximum context length",
            None,
        ),
        c(
            "ollama 404 string error",
            OpenAiChat,
            404,
            &[],
            json!({"error": "model \"llama9\" not found, try pulling it first"}).to_string(),
            UnknownModel,
            "try pulling it first",
            None,
        ),
        c("ollama 403 empty body (origin refused)", OpenAiChat, 403, &[], "".into(), Forbidden, "", None),
        c(
            "fastapi 422 detail list",
            OpenAiChat,
            422,
            &[],
            json!({"detail": [{"loc": ["body", "messages"], "msg": "field required", "type": "value_error.missing"}]}).to_string(),
            BadRequest,
            "field required",
            None,
        ),
        c("plain-text 502 from a proxy", OpenAiChat, 502, &[], "Bad Gateway\n".into(), ServerError, "Bad Gateway", None),
        c(
            "html 503 page",
            OpenAiChat,
            503,
            &[],
            "<!DOCTYPE html><html><head><TITLE>503 Service Temporarily Unavailable</TITLE></head><body>...</body></html>".into(),
            Overloaded,
            "503 Service Temporarily Unavailable",
            None,
        ),
        c(
            "anthropic 529 overloaded",
            Anthropic,
            529,
            &[],
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_1"}).to_string(),
            Overloaded,
            "Overloaded",
            None,
        ),
        c(
            "anthropic 429 with retry-after header",
            Anthropic,
            429,
            &[("retry-after", "17")],
            json!({"type": "error", "error": {"type": "rate_limit_error", "message": "This request would exceed the rate limit for your organization of 50,000 input tokens per minute."}}).to_string(),
            RateLimited,
            "exceed the rate limit",
            Some(17_000),
        ),
        c(
            "anthropic 401",
            Anthropic,
            401,
            &[],
            json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}).to_string(),
            BadKey,
            "invalid x-api-key",
            None,
        ),
        c(
            "anthropic 400 low credit",
            Anthropic,
            400,
            &[],
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}).to_string(),
            NoCredits,
            "credit balance is too low",
            None,
        ),
        c(
            "anthropic 404 model",
            Anthropic,
            404,
            &[],
            json!({"type": "error", "error": {"type": "not_found_error", "message": "model: claude-9"}}).to_string(),
            UnknownModel,
            "claude-9",
            None,
        ),
        c(
            "anthropic 400 temperature with thinking",
            Anthropic,
            400,
            &[],
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": "`temperature` may only be set to 1 when thinking is enabled."}}).to_string(),
            BadRequest,
            "may only be set to 1",
            None,
        ),
        c(
            "anthropic 403 permission",
            Anthropic,
            403,
            &[],
            json!({"type": "error", "error": {"type": "permission_error", "message": "Your API key does not have permission to use the specified resource."}}).to_string(),
            Forbidden,
            "does not have permission",
            None,
        ),
        c(
            "gemini 429 per minute with RetryInfo",
            Gemini,
            429,
            &[],
            json!({"error": {"code": 429, "message": "You exceeded your current quota, please check your plan and billing details. Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10", "status": "RESOURCE_EXHAUSTED", "details": [
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", "quotaValue": "10"}]},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "38s"}
            ]}}).to_string(),
            RateLimited,
            "Quota exceeded for metric",
            Some(38_000),
        ),
        c(
            "gemini 429 per day",
            Gemini,
            429,
            &[],
            json!({"error": {"code": 429, "message": "You exceeded your current quota. Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 50", "status": "RESOURCE_EXHAUSTED", "details": [
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier", "quotaValue": "50"}]},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1.5s"}
            ]}}).to_string(),
            QuotaExhausted,
            "limit: 50",
            Some(1_500),
        ),
        c(
            "gemini 400 bad key",
            Gemini,
            400,
            &[],
            json!({"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}]}}).to_string(),
            BadKey,
            "API key not valid",
            None,
        ),
        c(
            "gemini 404 model",
            Gemini,
            404,
            &[],
            json!({"error": {"code": 404, "message": "models/gemini-9 is not found for API version v1beta, or is not supported for generateContent.", "status": "NOT_FOUND"}}).to_string(),
            UnknownModel,
            "is not found for API version",
            None,
        ),
        c(
            "gemini 503 overloaded",
            Gemini,
            503,
            &[],
            json!({"error": {"code": 503, "message": "The model is overloaded. Please try again later.", "status": "UNAVAILABLE"}}).to_string(),
            Overloaded,
            "overloaded",
            None,
        ),
        c(
            "gemini 400 location",
            Gemini,
            400,
            &[],
            json!({"error": {"code": 400, "message": "User location is not supported for the API use.", "status": "FAILED_PRECONDITION"}}).to_string(),
            Forbidden,
            "location is not supported",
            None,
        ),
        c(
            "gemini array-wrapped (stream endpoint) 500",
            Gemini,
            500,
            &[],
            json!([{"error": {"code": 500, "message": "An internal error has occurred.", "status": "INTERNAL"}}]).to_string(),
            ServerError,
            "internal error",
            None,
        ),
        c("unknown JSON shape", OpenAiChat, 400, &[], json!({"oops": true}).to_string(), BadRequest, "oops", None),
        c("weird status 302", OpenAiChat, 302, &[], "".into(), Unreadable, "", None),
        c("status 600", OpenAiChat, 600, &[], "".into(), ServerError, "", None),
    ]
}

#[test]
fn error_bodies_table() {
    for case in cases() {
        let headers: Vec<(String, String)> = case.headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let e = classify_error(case.wire, case.status, &headers, &case.body);
        assert_eq!(e.kind, case.kind, "{}: {e}", case.what);
        assert_eq!(e.status, Some(case.status), "{}", case.what);
        assert!(e.message.contains(case.message), "{}: {:?}", case.what, e.message);
        assert_eq!(e.retry_after_ms, case.retry_after_ms, "{}", case.what);
        // parse_response gives the same for a non-2xx.
        assert_eq!(parse_response(case.wire, case.status, &headers, &case.body), Err(e), "{}", case.what);
    }
}

#[test]
fn long_bodies_are_shortened() {
    let body = "x".repeat(100_000);
    let e = classify_error(OpenAiChat, 500, &[], &body);
    assert!(e.message.len() < 1000, "{}", e.message.len());
}

#[test]
fn retry_after_table() {
    let h = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    };
    type Headers = Vec<(String, String)>;
    let cases: Vec<(Headers, &str, Option<u64>)> = vec![
        (h(&[("retry-after-ms", "1234")]), "", Some(1234)),
        (h(&[("RETRY-AFTER-MS", " 12.6 ")]), "", Some(13)),
        (h(&[("Retry-After", "2")]), "", Some(2000)),
        (h(&[("retry-after", "0.5")]), "", Some(500)),
        (h(&[("retry-after", "Wed, 21 Oct 2026 07:28:00 GMT")]), "", None),
        (h(&[("retry-after", "Wed, 21 Oct 2026 07:28:00 GMT")]), "Please try again in 3s.", Some(3000)),
        (h(&[("retry-after", "-5")]), "", None),
        (h(&[("retry-after", "1e3")]), "", None),
        (h(&[("x-ratelimit-reset-requests", "6m0s")]), "", None),
        (vec![], "Please try again in 10.384s.", Some(10_384)),
        (vec![], "Please try again in 250ms.", Some(250)),
        (vec![], "Please try again in 6m0s.", Some(360_000)),
        (vec![], "Please try again in 1m30.5s", Some(90_500)),
        (vec![], "Please retry after 45 seconds.", Some(45_000)),
        (vec![], "Retry after 2 minutes", Some(120_000)),
        (vec![], "Please retry in 38.02s.", Some(38_020)),
        (vec![], "try again in a moment, or retry after 5 seconds", Some(5000)),
        (
            vec![],
            r#"{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"38s"}]}}"#,
            Some(38_000),
        ),
        (vec![], r#"[{"error":{"details":[{"retryDelay":"1.5s"}]}}]"#, Some(1500)),
        (vec![], r#"{"error":{"details":[{"retryDelay":"soon"}]}}"#, None),
        (vec![], "try again later", None),
        (vec![], "", None),
        (vec![], "try again in 99999999999999999999999999999 hours", Some(u64::MAX)),
    ];
    for (headers, body, want) in cases {
        assert_eq!(retry_after_ms(&headers, body), want, "{headers:?} {body:?}");
    }
}

#[test]
fn labels_are_distinct_and_plain() {
    let all = [
        RateLimited,
        QuotaExhausted,
        BadKey,
        Forbidden,
        NoCredits,
        UnknownModel,
        BadRequest,
        Overloaded,
        ServerError,
        Timeout,
        Network,
        Blocked,
        StreamCut,
        StreamError,
        EmptyOutput,
        Unreadable,
    ];
    let labels: std::collections::HashSet<&str> = all.iter().map(|k| k.label()).collect();
    assert_eq!(labels.len(), all.len());
    for k in all {
        assert!(k.label().chars().all(|c| c.is_ascii_lowercase() || c == ' '), "{k:?}");
    }
    assert_eq!(RateLimited.label(), "rate limited");
    assert_eq!(QuotaExhausted.label(), "quota exhausted");
    assert_eq!(BadKey.label(), "bad key");
}
