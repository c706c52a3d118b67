//! What went wrong with a call, and what to do about it: error bodies of every shape sorted
//! into kinds, each kind with a disposition (retry, slow down, stop the run, fail the attempt),
//! and the delay a provider asks for.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::presets::WireFormat;
use crate::util::{header, shorten, str_field};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// 429 (not quota)
    RateLimited,
    /// OpenAI 429 insufficient_quota, daily quotas (Gemini per-day quota, a retry-after of an
    /// hour or more)
    QuotaExhausted,
    /// 401, Anthropic authentication_error, Gemini API_KEY_INVALID
    BadKey,
    /// 403 (origin not allowed / permission)
    Forbidden,
    /// 402 (OpenRouter), Anthropic "credit balance is too low" or `billing_error`
    NoCredits,
    /// 404, or codes/messages like model_not_found / "does not exist"
    UnknownModel,
    /// other 4xx (the provider's message is kept)
    BadRequest,
    /// 529 overloaded_error, 503
    Overloaded,
    /// other 5xx
    ServerError,
    /// set by the caller (transport); also HTTP 408
    Timeout,
    /// set by the caller (transport)
    Network,
    /// the browser refused the request (CORS): set by the caller
    Blocked,
    /// a stream that ended without its terminator
    StreamCut,
    /// an error event/object inside a 200 stream
    StreamError,
    /// a 200 with no text: an error of the attempt, not an answer
    EmptyOutput,
    /// a 2xx body that is not the expected JSON
    Unreadable,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Disposition {
    /// Bounded retries with backoff.
    Retry,
    /// Retry after the delay, and lower concurrency.
    RateLimit,
    /// Stop the whole run at once.
    StopRun,
    /// This sample's attempt fails, not retried.
    FailAttempt,
}

impl ErrorKind {
    pub fn disposition(self) -> Disposition {
        use ErrorKind::*;
        match self {
            RateLimited => Disposition::RateLimit,
            QuotaExhausted | BadKey | Forbidden | NoCredits | UnknownModel | Blocked => Disposition::StopRun,
            BadRequest | EmptyOutput => Disposition::FailAttempt,
            Overloaded | ServerError | Timeout | Network | StreamCut | StreamError | Unreadable => Disposition::Retry,
        }
    }

    /// Short words for messages and tables.
    pub fn label(self) -> &'static str {
        use ErrorKind::*;
        match self {
            RateLimited => "rate limited",
            QuotaExhausted => "quota exhausted",
            BadKey => "bad key",
            Forbidden => "forbidden",
            NoCredits => "no credits",
            UnknownModel => "unknown model",
            BadRequest => "bad request",
            Overloaded => "overloaded",
            ServerError => "server error",
            Timeout => "timed out",
            Network => "network error",
            Blocked => "blocked by the browser",
            StreamCut => "stream cut off",
            StreamError => "error in stream",
            EmptyOutput => "empty output",
            Unreadable => "unreadable response",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProviderError {
    pub kind: ErrorKind,
    pub status: Option<u16>,
    /// The provider's own message when there is one.
    pub message: String,
    pub retry_after_ms: Option<u64>,
}

impl ProviderError {
    pub fn new(kind: ErrorKind, status: Option<u16>, message: impl Into<String>) -> ProviderError {
        ProviderError { kind, status, message: message.into(), retry_after_ms: None }
    }
}

impl fmt::Display for ProviderError {
    /// "rate limited (429): Please try again in 10.384s"
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.label())?;
        if let Some(s) = self.status {
            write!(f, " ({s})")?;
        }
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for ProviderError {}

/// Longest provider message kept (bodies can be whole HTML pages).
const MAX_MESSAGE: usize = 600;
/// A delay this long means a daily quota, not a burst limit.
const QUOTA_DELAY_MS: u64 = 3_600_000;

/// The parts of an error body that matter, whatever its shape.
#[derive(Debug, Default)]
pub(crate) struct ErrorFields {
    pub message: String,
    /// type, code, status and detail reasons, lowercased and joined: matched against known words.
    pub hints: String,
    /// A numeric code inside the body (OpenRouter, Gemini: the HTTP status again).
    pub code: Option<u16>,
}

/// Reads the error out of a JSON body of any of the known shapes: `{"error":{...}}` (OpenAI,
/// Gemini, Anthropic inside `{"type":"error",...}`), `{"error":"text"}` (Ollama, llama.cpp),
/// the flat vLLM/SGLang `{"object":"error","message",...}`, FastAPI's `{"detail":...}`, and
/// Gemini's array-wrapped `[{"error":...}]`. None when the value holds no error.
pub(crate) fn error_fields(v: &Value) -> Option<ErrorFields> {
    let v = match v {
        Value::Array(items) => items.iter().find(|i| i.get("error").is_some())?,
        other => other,
    };
    let obj = v.as_object()?;
    match obj.get("error") {
        Some(e @ Value::Object(_)) => Some(fields_of(e)),
        Some(Value::String(s)) => {
            let mut f = fields_of(v);
            f.message = s.clone();
            Some(f)
        }
        _ if str_field(v, "object") == Some("error") || str_field(v, "type") == Some("error") => Some(fields_of(v)),
        _ => match obj.get("detail") {
            Some(Value::String(s)) => Some(ErrorFields { message: s.clone(), ..Default::default() }),
            // FastAPI validation errors: [{"loc":..., "msg":...}]
            Some(Value::Array(items)) => Some(ErrorFields {
                message: items.iter().filter_map(|i| str_field(i, "msg")).collect::<Vec<_>>().join("; "),
                ..Default::default()
            }),
            _ => None,
        },
    }
}

fn fields_of(e: &Value) -> ErrorFields {
    let mut hints: Vec<String> = vec![];
    let mut code = None;
    for key in ["type", "code", "status"] {
        match e.get(key) {
            Some(Value::String(s)) => hints.push(s.to_ascii_lowercase()),
            Some(Value::Number(n)) => {
                if let Some(c) = n.as_u64().and_then(|c| u16::try_from(c).ok()) {
                    code = code.or(Some(c));
                }
            }
            _ => {}
        }
    }
    // Gemini: details[].reason ("API_KEY_INVALID") and quota violations' quotaId ("...PerDay...").
    if let Some(Value::Array(details)) = e.get("details") {
        for d in details {
            if let Some(r) = str_field(d, "reason") {
                hints.push(r.to_ascii_lowercase());
            }
            if let Some(Value::Array(vs)) = d.get("violations") {
                for v in vs {
                    if let Some(q) = str_field(v, "quotaId") {
                        hints.push(q.to_ascii_lowercase());
                    }
                }
            }
        }
    }
    let mut message = str_field(e, "message").unwrap_or("").to_string();
    // OpenRouter puts the upstream provider's words in metadata.raw.
    if let Some(raw) = e.get("metadata").and_then(|m| m.get("raw")).and_then(Value::as_str)
        && !raw.is_empty()
        && !message.contains(raw)
    {
        message = if message.is_empty() { raw.to_string() } else { format!("{message} ({raw})") };
    }
    ErrorFields { message, hints: hints.join(" "), code }
}

/// The kind the words of an error say, given an HTTP status when there is one. None when
/// nothing specific matched (the caller picks the fallback).
pub(crate) fn kind_from(
    status: Option<u16>,
    fields: &ErrorFields,
    body_lc: &str,
    retry_ms: Option<u64>,
) -> Option<ErrorKind> {
    use ErrorKind::*;
    let hints = fields.hints.as_str();
    let msg = fields.message.to_ascii_lowercase();
    let status = status.or(fields.code.filter(|c| (400..600).contains(c)));
    let has = |words: &[&str]| words.iter().any(|w| hints.contains(w) || msg.contains(w));

    if has(&[
        "api_key_invalid",
        "invalid_api_key",
        "authentication_error",
        "api key not valid",
        "incorrect api key",
        "invalid api key",
        "invalid x-api-key",
    ]) {
        return Some(BadKey);
    }
    if status == Some(401) {
        return Some(BadKey);
    }
    if status == Some(402)
        || has(&[
            "credit balance is too low",
            "insufficient credits",
            "insufficient balance",
            "insufficient_balance",
            "billing_error",
        ])
    {
        return Some(NoCredits);
    }
    let rate_words =
        status == Some(429) || has(&["rate_limit", "resource_exhausted", "rate limit", "too many requests"]);
    if hints.contains("insufficient_quota")
        || (rate_words && ["perday", "per day", "per_day", "daily"].iter().any(|w| body_lc.contains(w)))
        || (rate_words && retry_ms.is_some_and(|ms| ms >= QUOTA_DELAY_MS))
    {
        return Some(QuotaExhausted);
    }
    if status == Some(403) || has(&["permission_denied", "location is not supported"]) {
        return Some(Forbidden);
    }
    if status == Some(404)
        || has(&[
            "model_not_found",
            "not_found_error",
            "does not exist",
            "model not found",
            "unknown model",
            "no such model",
            "is not found for api version",
            "invalid model",
        ])
    {
        return Some(UnknownModel);
    }
    if status == Some(408) {
        return Some(Timeout);
    }
    if rate_words {
        return Some(RateLimited);
    }
    if matches!(status, Some(503 | 529)) || has(&["overloaded", "unavailable"]) {
        return Some(Overloaded);
    }
    match status {
        Some(s) if (500..600).contains(&s) => Some(ServerError),
        Some(s) if (400..500).contains(&s) => Some(BadRequest),
        _ => None,
    }
}

/// A non-2xx response: kind from status + body (all the error body shapes, and plain text),
/// the provider's message, and retry_after_ms.
pub fn classify_error(_wire: WireFormat, status: u16, headers: &[(String, String)], body: &str) -> ProviderError {
    let retry = retry_after_ms(headers, body);
    let parsed = serde_json::from_str::<Value>(body).ok();
    let mut fields = parsed.as_ref().and_then(error_fields).unwrap_or_default();
    if fields.message.trim().is_empty() {
        fields.message = match &parsed {
            // JSON of an unknown shape: show it, shortened.
            Some(v) if !v.is_null() => v.to_string(),
            _ => plain_text_message(body),
        };
    }
    fields.message = shorten(&fields.message, MAX_MESSAGE);
    let body_lc = body.to_ascii_lowercase();
    let kind = kind_from(Some(status), &fields, &body_lc, retry).unwrap_or(if status >= 600 {
        ErrorKind::ServerError
    } else {
        // 1xx-3xx are not errors this crate can read (a redirect the client did not follow).
        ErrorKind::Unreadable
    });
    ProviderError { kind, status: Some(status), message: fields.message, retry_after_ms: retry }
}

/// An error object met inside a 2xx body or stream. In a stream, only kinds worth a different
/// treatment (rate limits, overload, quota) are kept; everything else is `fallback`.
pub(crate) fn inband_error(fields: ErrorFields, raw: &str, fallback: ErrorKind, status: Option<u16>) -> ProviderError {
    let retry = retry_after_ms(&[], raw);
    let fields = ErrorFields { message: shorten(&fields.message, MAX_MESSAGE), ..fields };
    let kind = match kind_from(None, &fields, &raw.to_ascii_lowercase(), retry) {
        Some(k @ (ErrorKind::RateLimited | ErrorKind::Overloaded | ErrorKind::QuotaExhausted)) => k,
        Some(k) if fallback != ErrorKind::StreamError => k,
        _ => fallback,
    };
    let message = if fields.message.trim().is_empty() { shorten(raw, MAX_MESSAGE) } else { fields.message };
    ProviderError { kind, status, message, retry_after_ms: retry }
}

/// A body that is not JSON: its text, or the title of an HTML page (proxies and wrong URLs).
fn plain_text_message(body: &str) -> String {
    let t = body.trim();
    if t.starts_with('<') {
        let lc = t.to_ascii_lowercase();
        if let (Some(a), Some(b)) = (lc.find("<title>"), lc.find("</title>"))
            && a + 7 <= b
        {
            return format!("an HTML page: {}", t[a + 7..b].trim());
        }
        return "an HTML page, not an API response".into();
    }
    t.to_string()
}

/// The delay a response asks for, in ms: header retry-after-ms, else header retry-after
/// (seconds, possibly fractional; HTTP dates ignored), else the body ("try again in 10.384s",
/// "try again in 250ms", "retry after 45 seconds", Gemini details[].retryDelay "38s").
pub fn retry_after_ms(headers: &[(String, String)], body: &str) -> Option<u64> {
    if let Some(ms) = header(headers, "retry-after-ms").and_then(parse_number) {
        return Some(to_ms(ms));
    }
    if let Some(s) = header(headers, "retry-after").and_then(parse_number) {
        return Some(to_ms(s * 1000.0));
    }
    if let Ok(v) = serde_json::from_str::<Value>(body)
        && let Some(ms) = find_retry_delay(&v).and_then(parse_duration_ms)
    {
        return Some(ms);
    }
    let lc = body.to_ascii_lowercase();
    for phrase in ["try again in ", "retry in ", "retry after ", "retry-after: ", "retry after: "] {
        let mut from = 0;
        while let Some(i) = lc[from..].find(phrase) {
            let start = from + i + phrase.len();
            if let Some(ms) = parse_duration_ms(&lc[start..]) {
                return Some(ms);
            }
            from = start;
        }
    }
    None
}

/// A plain non-negative number ("45", "1.5"); None for dates and anything else.
fn parse_number(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.is_empty() || t.len() > 40 || !t.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    t.parse::<f64>().ok().filter(|f| f.is_finite())
}

fn to_ms(ms: f64) -> u64 {
    // Float-to-int casts saturate, so a huge delay cannot overflow.
    ms.max(0.0).round() as u64
}

/// Gemini's RetryInfo: the first string "retryDelay" anywhere in the value.
fn find_retry_delay(v: &Value) -> Option<&str> {
    match v {
        Value::Object(m) => {
            m.get("retryDelay").and_then(Value::as_str).or_else(|| m.values().find_map(find_retry_delay))
        }
        Value::Array(a) => a.iter().find_map(find_retry_delay),
        _ => None,
    }
}

/// Reads a duration at the start of `s`: Go style ("6m0s", "1.5s", "250ms"), or words
/// ("45 seconds", "2 minutes"); a bare number is seconds. None when no number comes first.
pub(crate) fn parse_duration_ms(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut total = 0.0f64;
    let mut any = false;
    loop {
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        let start = i;
        let mut dot = false;
        while i < b.len() && (b[i].is_ascii_digit() || (b[i] == b'.' && !dot)) {
            dot |= b[i] == b'.';
            i += 1;
        }
        // A lone "." (the end of a sentence) is not a number.
        let num = &s[start..i];
        if !num.bytes().any(|c| c.is_ascii_digit()) || num.len() > 40 {
            break;
        }
        let Ok(value) = num.parse::<f64>() else { break };
        if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            return None; // "1.2.3": a version, not a delay
        }
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        let ustart = i;
        while i < b.len() && b[i].is_ascii_alphabetic() {
            i += 1;
        }
        let unit = s[ustart..i].to_ascii_lowercase();
        let factor = match unit.as_str() {
            "" if !any => 1000.0,
            "ms" | "msec" | "msecs" | "millisecond" | "milliseconds" => 1.0,
            "s" | "sec" | "secs" | "second" | "seconds" => 1000.0,
            "m" | "min" | "mins" | "minute" | "minutes" => 60_000.0,
            "h" | "hr" | "hrs" | "hour" | "hours" => 3_600_000.0,
            _ => break,
        };
        total += value * factor;
        any = true;
        if unit.is_empty() {
            break;
        }
    }
    (any && total.is_finite()).then(|| to_ms(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let cases: &[(&str, Option<u64>)] = &[
            ("10.384s. Visit", Some(10_384)),
            ("250ms", Some(250)),
            ("6m0s.", Some(360_000)),
            ("1h2m3.5s", Some(3_723_500)),
            ("45 seconds.", Some(45_000)),
            ("2 minutes", Some(120_000)),
            ("45.", Some(45_000)),
            ("1.5s", Some(1_500)),
            ("3 attempts", None),
            (". later", None),
            ("", None),
            ("99999999999999999999999999999999s", Some(u64::MAX)),
            ("1.2.3s", None),
        ];
        for (s, want) in cases {
            assert_eq!(parse_duration_ms(s), *want, "{s:?}");
        }
    }

    #[test]
    fn dispositions_cover_every_kind() {
        use ErrorKind::*;
        let stop = [BadKey, Forbidden, NoCredits, QuotaExhausted, UnknownModel, Blocked];
        for k in stop {
            assert_eq!(k.disposition(), Disposition::StopRun, "{k:?}");
        }
        assert_eq!(RateLimited.disposition(), Disposition::RateLimit);
        assert_eq!(BadRequest.disposition(), Disposition::FailAttempt);
        assert_eq!(EmptyOutput.disposition(), Disposition::FailAttempt);
        for k in [Overloaded, ServerError, Timeout, Network, StreamCut, StreamError, Unreadable] {
            assert_eq!(k.disposition(), Disposition::Retry, "{k:?}");
        }
    }

    #[test]
    fn display() {
        let mut e = ProviderError::new(ErrorKind::RateLimited, Some(429), "Please try again in 10.384s");
        assert_eq!(e.to_string(), "rate limited (429): Please try again in 10.384s");
        e.message.clear();
        assert_eq!(e.to_string(), "rate limited (429)");
        e.status = None;
        assert_eq!(e.to_string(), "rate limited");
        let json = serde_json::to_value(ProviderError::new(ErrorKind::StreamCut, None, "x")).unwrap();
        assert_eq!(json["kind"], "stream_cut");
    }
}
