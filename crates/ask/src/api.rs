//! Asking a provider for one sample's n responses: requests built and parsed by
//! `execbench-providers`, sent through the caller's HTTP client, with time-outs, bounded retries,
//! rate-limit waits and streaming.

use std::cell::RefCell;

use execbench_providers::{
    Completion, ErrorKind, HttpRequest, Message, ProviderError, StreamParser, Usage, WireFormat, build_request,
    classify_error, parse_response,
};
use futures::FutureExt;

use crate::backoff::{Decision, Jitter, decide};
use crate::gate::Gate;
use crate::status::Live;
use execbench_io::{Clock, HttpClient, ResponseBody, read_all};
use execbench_runs::record::AttemptRecord;
pub use execbench_runs::settings::{ApiSettings, LocalModelFile};

/// A model behind a provider's API. The key lives only here, in memory: it is never serialized
/// (the settings that are, `ApiSettings`, have none) and goes only into requests to the
/// endpoint's own host.
#[derive(Clone)]
pub struct ApiModel {
    pub settings: ApiSettings,
    pub key: Option<String>,
}

impl std::fmt::Debug for ApiModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiModel")
            .field("settings", &self.settings)
            .field("key", &self.key.as_ref().map(|_| "***"))
            .finish()
    }
}

impl ApiModel {
    pub fn name(&self) -> String {
        format!("{} ({})", self.settings.endpoint.model, self.settings.endpoint.provider)
    }
}

/// A sample's n responses.
#[derive(Clone, Debug, PartialEq)]
pub struct Answered {
    pub texts: Vec<String>,
    pub finish_reasons: Vec<Option<String>>,
    pub usage: Usage,
    /// The parameters of the (first) request, as sent.
    pub sent: serde_json::Value,
    pub attempts: Vec<AttemptRecord>,
}

/// Why a sample got no responses.
#[derive(Clone, Debug, PartialEq)]
pub struct AskFailure {
    pub error: ProviderError,
    /// The run cannot go on (bad key, no credits, quota, blocked, unknown model).
    pub stop_run: bool,
    pub attempts: Vec<AttemptRecord>,
    pub sent: Option<serde_json::Value>,
}

/// What one request needs from the run.
pub struct RequestContext<'a, H, C> {
    pub http: &'a H,
    pub clock: &'a C,
    pub gate: &'a Gate,
    pub live: &'a Live,
    pub jitter: &'a RefCell<Jitter>,
}

/// Asks for `n` responses: one request with `n` choices where the provider supports it, else `n`
/// requests of one (sent concurrently, each within the gate). All or nothing: a sample whose
/// requests do not all succeed is an error, retried as a whole by "Retry errors".
/// `on_delta(choice, text)` receives streamed text as it arrives; `text` is `None` when a
/// choice starts over (a retry after a stream broke off).
pub async fn ask<H: HttpClient, C: Clock>(
    ctx: &RequestContext<'_, H, C>,
    model: &ApiModel,
    messages: &[Message],
    n: u32,
    on_delta: &dyn Fn(u32, Option<&str>),
) -> Result<Answered, AskFailure> {
    let settings = &model.settings;
    let redactor = KeyRedactor::new(model.key.as_deref());
    let per_request = if settings.endpoint.supports_n() { n } else { 1 };
    let requests = n.div_ceil(per_request.max(1));
    let mut built = Vec::new();
    for _ in 0..requests {
        match build_request(&settings.endpoint, model.key.as_deref(), &settings.params, messages, per_request) {
            Ok(b) => built.push(b),
            Err(message) => {
                let message = redactor.text(&message);
                let error = ProviderError { kind: ErrorKind::BadRequest, status: None, message, retry_after_ms: None };
                return Err(AskFailure { error, stop_run: true, attempts: Vec::new(), sent: None });
            }
        }
    }
    let sent = built[0].sent.clone();
    let wire = settings.endpoint.wire();
    let outcomes = futures::future::join_all(built.iter().enumerate().map(|(i, b)| {
        let offset = i as u32 * per_request;
        let on_delta = move |choice: u32, text: Option<&str>| on_delta(offset + choice, text);
        with_retries(ctx, settings, &redactor, wire, &b.http, b.choices, on_delta)
    }))
    .await;
    let mut answered = Answered {
        texts: Vec::new(),
        finish_reasons: Vec::new(),
        usage: Usage::default(),
        sent: sent.clone(),
        attempts: Vec::new(),
    };
    let mut failure: Option<(ProviderError, bool)> = None;
    for outcome in outcomes {
        match outcome {
            Ok((completion, attempts)) => {
                answered.texts.extend(completion.texts);
                answered.finish_reasons.extend(completion.finish_reasons);
                answered.usage.add(&completion.usage);
                answered.attempts.extend(attempts);
            }
            Err((error, stop_run, attempts)) => {
                answered.attempts.extend(attempts);
                // A run-stopping error outranks a failed sample.
                if failure.as_ref().is_none_or(|(_, stop)| !stop && stop_run) {
                    failure = Some((error, stop_run));
                }
            }
        }
    }
    match failure {
        None => {
            answered.texts.truncate(n as usize);
            answered.finish_reasons.truncate(n as usize);
            Ok(answered)
        }
        Some((error, stop_run)) => Err(AskFailure { error, stop_run, attempts: answered.attempts, sent: Some(sent) }),
    }
}

type Failed = (ProviderError, bool, Vec<AttemptRecord>);

/// One request, sent again after faults as the retry policy decides.
async fn with_retries<H: HttpClient, C: Clock>(
    ctx: &RequestContext<'_, H, C>,
    settings: &ApiSettings,
    redactor: &KeyRedactor,
    wire: WireFormat,
    request: &HttpRequest,
    choices: u32,
    on_delta: impl Fn(u32, Option<&str>),
) -> Result<(Completion, Vec<AttemptRecord>), Failed> {
    let id = ctx.live.request_id();
    let mut attempts = Vec::new();
    let (mut failures, mut rate_limit_waits) = (0u32, 0u32);
    loop {
        let permit = ctx.gate.acquire(ctx.clock).await;
        ctx.live.started();
        // Also when this future is dropped mid-request (Stop, or the run stopping).
        let running = OnDrop(|| ctx.live.ended());
        let started = ctx.clock.now_ms();
        if failures > 0 {
            for choice in 0..choices {
                on_delta(choice, None);
            }
        }
        let result = {
            let attempt = attempt(ctx.http, redactor, wire, request, settings.params.stream, choices, &on_delta).fuse();
            let timeout = ctx.clock.sleep(settings.timeout_ms).fuse();
            futures::pin_mut!(attempt, timeout);
            futures::select! {
                r = attempt => r,
                _ = timeout => Err(ProviderError { kind: ErrorKind::Timeout, status: None, message: format!("no complete response within {} s", settings.timeout_ms / 1000), retry_after_ms: None }),
            }
        };
        drop(running);
        drop(permit);
        // Before the error is recorded, retried, shown or stops the run: whatever the provider or
        // a proxy echoed of the key is gone.
        let result = result.map_err(|e| redactor.error(e));
        let ms = ctx.clock.now_ms() - started;
        match result {
            Ok(completion) => {
                ctx.gate.on_success(ctx.clock.now_ms());
                ctx.live.add_usage(&completion.usage);
                attempts.push(AttemptRecord { ms, error: None });
                return Ok((completion, attempts));
            }
            Err(error) => {
                ctx.live.attempt_failed();
                attempts.push(AttemptRecord { ms, error: Some(error.clone()) });
                failures += 1;
                if error.kind.disposition() == execbench_providers::Disposition::RateLimit {
                    rate_limit_waits += 1;
                }
                let jitter = ctx.jitter.borrow_mut().next_fraction();
                match decide(&settings.retry, &error, failures, rate_limit_waits, jitter) {
                    Decision::Retry { after_ms, rate_limited } => {
                        let now = ctx.clock.now_ms();
                        if rate_limited {
                            // Alone, this wait is only this request's; repeated, the gate lowers
                            // the run's concurrency and pauses every start.
                            ctx.gate.on_rate_limited(now, started, after_ms, rate_limit_waits > 1);
                        }
                        let k = if rate_limited { rate_limit_waits } else { failures - rate_limit_waits };
                        let max =
                            if rate_limited { settings.retry.max_rate_limit_waits } else { settings.retry.max_retries };
                        ctx.live.waiting(id, now + after_ms as f64, rate_limited, (k, max));
                        let waiting = OnDrop(|| ctx.live.done_waiting(id));
                        ctx.clock.sleep(after_ms).await;
                        drop(waiting);
                    }
                    Decision::GiveUp => return Err((error, false, attempts)),
                    Decision::StopRun => return Err((error, true, attempts)),
                }
            }
        }
    }
}

/// Runs its closure when dropped: the live counts of a request stay true when its future is
/// dropped before it ends by itself.
struct OnDrop<F: FnMut()>(F);

impl<F: FnMut()> Drop for OnDrop<F> {
    fn drop(&mut self) {
        (self.0)()
    }
}

/// One try: send, then read the whole body (or the stream, event by event).
async fn attempt<H: HttpClient>(
    http: &H,
    redactor: &KeyRedactor,
    wire: WireFormat,
    request: &HttpRequest,
    stream: bool,
    choices: u32,
    on_delta: &impl Fn(u32, Option<&str>),
) -> Result<Completion, ProviderError> {
    let mut head = http.send(request).await?;
    if !(200..300).contains(&head.status) {
        let body = read_all(&mut head.body).await.unwrap_or_default();
        // Redacted whole, before the message is cut short (a cut could leave half a key).
        let body = redactor.text(&String::from_utf8_lossy(&body));
        return Err(classify_error(wire, head.status, &head.headers, &body));
    }
    // A gateway that echoes the request's headers into a 200 would put the key into the answer,
    // and from there into records and shared run files: answers are redacted as errors are.
    let completion = if stream {
        let mut parser = StreamParser::new(wire, choices);
        while let Some(bytes) = head.body.chunk().await? {
            for delta in parser.push(&bytes)? {
                on_delta(delta.index, Some(&redactor.text(&delta.text)));
            }
        }
        parser.finish()
    } else {
        let body = read_all(&mut head.body).await?;
        parse_response(wire, head.status, &head.headers, &String::from_utf8_lossy(&body))
    }?;
    // Whole texts too: a key split between two deltas is whole here.
    Ok(Completion { texts: completion.texts.iter().map(|t| redactor.text(t)).collect(), ..completion })
}

/// Takes the key out of what a provider (or a proxy in front of it) says back. A server that
/// echoes the request's headers into its error body would otherwise put the key into records,
/// the page and the terminal. Every occurrence becomes `***`: the key itself (so `Bearer KEY`
/// too), the key inside base64 text at any alignment (an echoed header encoded whole, `Basic`
/// credentials, `base64(KEY)` itself; standard and URL-safe alphabets), and a key's beginning
/// left at the end of a message cut short with "...".
#[derive(Clone, Debug, Default)]
pub struct KeyRedactor {
    /// The spellings to replace, longest first.
    secrets: Vec<String>,
    /// The key itself, for the beginning of a key at a cut.
    key: String,
}

/// Keys shorter than this are not looked for in base64 (a few characters would match text by
/// chance); the key itself always is.
const SHORTEST_KEY_FOR_BASE64: usize = 8;

/// A key's beginning this long or longer, left before a cut's "...", is replaced too.
const SHORTEST_PREFIX_AT_CUT: usize = 4;

impl KeyRedactor {
    pub fn new(key: Option<&str>) -> KeyRedactor {
        let key = key.map(str::trim).unwrap_or("");
        if key.is_empty() {
            return KeyRedactor::default();
        }
        let mut secrets = vec![key.to_string()];
        if key.len() >= SHORTEST_KEY_FOR_BASE64 {
            for skipped in 0..3 {
                let inner = base64_inner(key.as_bytes(), skipped);
                secrets.push(inner.replace('+', "-").replace('/', "_"));
                secrets.push(inner);
            }
        }
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        KeyRedactor { secrets, key: key.to_string() }
    }

    /// `text` with every spelling of the key replaced by `***`.
    pub fn text(&self, text: &str) -> String {
        if self.key.is_empty() {
            return text.to_string();
        }
        let mut out = text.to_string();
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), "***");
            }
        }
        // A message cut short ("..."): the key's first characters may stand just before the cut.
        if let Some(head) = out.strip_suffix("...") {
            let longest = (SHORTEST_PREFIX_AT_CUT..self.key.len())
                .rev()
                .find(|&n| self.key.is_char_boundary(n) && head.ends_with(&self.key[..n]));
            if let Some(n) = longest {
                out = format!("{}***...", &head[..head.len() - n]);
            }
        }
        out
    }

    /// The error with its message redacted.
    pub fn error(&self, error: ProviderError) -> ProviderError {
        ProviderError { message: self.text(&error.message), ..error }
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The characters of `base64(P + bytes + S)` that depend on `bytes` alone, for any `skipped`
/// (0 to 2) bytes before them (`P`) and anything after (`S`): the same whichever text the key
/// was encoded inside. Each character is 6 bits; the ones that straddle the key's edges drop.
fn base64_inner(bytes: &[u8], skipped: usize) -> String {
    let mut padded = vec![0u8; skipped];
    padded.extend_from_slice(bytes);
    let bits = padded.len() * 8;
    // Characters wholly inside the key's bits: from the first at or after bit 8*skipped to the
    // last that ends at or before the key's end.
    let first = (8 * skipped).div_ceil(6);
    let last = bits / 6;
    (first..last)
        .map(|c| {
            let bit = c * 6;
            let (byte, offset) = (bit / 8, bit % 8);
            let pair = (u16::from(padded[byte]) << 8) | u16::from(padded.get(byte + 1).copied().unwrap_or(0));
            let index = (pair >> (10 - offset)) & 0x3f;
            BASE64[index as usize] as char
        })
        .collect()
}
