//! The HTTP server: routing, CORS, checks, faults, latency, and the handle tests hold.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use execbench_core::Sample;
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::batch::{BatchBook, BatchScript};

mod batch_routes;
use crate::answer::{CONNECTION_TEST_ANSWER, Dataset, Task, UNIDENTIFIED_ANSWER, answer_text, is_connection_test};
use crate::config::{AnswerPolicy, Cors, Fault, MockConfig};
use crate::stats::{FlightGuard, RequestRecord, SharedCounters, Stats, TrackedBody};
use crate::wire::{self, ChatRequest, ErrorSpec, Format, Ids, Reply};

/// The largest request body read.
const BODY_LIMIT: usize = 32 << 20;

/// The request headers a preflight allows (besides `*`, which does not cover `Authorization`).
pub const ALLOWED_HEADERS: &str = "*, authorization, content-type, x-api-key, api-key, x-goog-api-key, anthropic-version, anthropic-dangerous-direct-browser-access, x-goog-upload-protocol, x-goog-upload-command, x-goog-upload-header-content-length, x-goog-upload-header-content-type, x-goog-upload-offset";
/// The response headers a page may read (Gemini's upload address among them, as Google exposes
/// it to the pages it allows).
pub const EXPOSED_HEADERS: &str = "retry-after, retry-after-ms, x-goog-upload-url, x-goog-upload-status";
pub const ALLOWED_METHODS: &str = "POST, GET, OPTIONS";

/// The model names listed by `GET /v1/models` when the configuration names none.
pub const DEFAULT_MODELS: [&str; 1] = ["mock-model"];

pub(crate) struct Shared {
    dataset: Dataset,
    config: RwLock<MockConfig>,
    counters: Arc<SharedCounters>,
    next_id: AtomicU64,
    batches: Mutex<BatchBook>,
}

impl Shared {
    fn new(dataset: Vec<Sample>, config: MockConfig) -> Shared {
        Shared {
            dataset: Dataset::new(dataset),
            config: RwLock::new(config),
            counters: Arc::default(),
            next_id: AtomicU64::new(1),
            batches: Mutex::default(),
        }
    }

    fn config(&self) -> MockConfig {
        self.config.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set_config(&self, config: MockConfig) {
        *self.config.write().unwrap_or_else(|p| p.into_inner()) = config;
    }

    fn stats(&self) -> Stats {
        self.counters.lock().stats.clone()
    }

    fn reset(&self) {
        self.counters.lock().reset();
    }

    pub(crate) fn book(&self) -> MutexGuard<'_, BatchBook> {
        self.batches.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A running mock model server on 127.0.0.1. Dropping the handle stops accepting connections.
pub struct MockServer {
    shared: Arc<Shared>,
    addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
}

impl MockServer {
    /// Binds 127.0.0.1:`port` (0: any free port) and serves on a task of the current tokio
    /// runtime.
    pub async fn start(dataset: Vec<Sample>, config: MockConfig, port: u16) -> std::io::Result<MockServer> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::new(dataset, config));
        let (shutdown, stop) = oneshot::channel();
        tokio::spawn(serve(listener, shared.clone(), stop));
        Ok(MockServer { shared, addr, shutdown: Some(shutdown) })
    }

    /// Like [`MockServer::start`], for callers without a runtime: the server runs on its own
    /// runtime on a thread of its own.
    pub fn start_blocking(dataset: Vec<Sample>, config: MockConfig, port: u16) -> std::io::Result<MockServer> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("execbench-mock-server")
            .enable_all()
            .build()?;
        let shared = Arc::new(Shared::new(dataset, config));
        let (shutdown, stop) = oneshot::channel();
        let served = shared.clone();
        std::thread::Builder::new().name("execbench-mock-server".into()).spawn(move || {
            runtime.block_on(async move {
                match tokio::net::TcpListener::from_std(listener) {
                    Ok(listener) => serve(listener, served, stop).await,
                    Err(e) => eprintln!("mock model server: cannot serve on {addr}: {e}"),
                }
            });
        })?;
        Ok(MockServer { shared, addr, shutdown: Some(shutdown) })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn stats(&self) -> Stats {
        self.shared.stats()
    }

    /// Zeroes the counters and the attempt numbers (requests still in flight stay counted).
    pub fn reset(&self) {
        self.shared.reset();
    }

    /// Replaces the configuration; requests already being handled keep the one they started with.
    pub fn set_config(&self, config: MockConfig) {
        self.shared.set_config(config);
    }

    pub fn config(&self) -> MockConfig {
        self.shared.config()
    }

    /// Moves the batch services' clock on (nothing else moves it).
    pub fn advance_batch_clock(&self, seconds: u64) {
        let mut book = self.shared.book();
        book.clock_s = book.clock_s.saturating_add(seconds);
    }

    /// How batches created from now on behave.
    pub fn set_batch_script(&self, script: BatchScript) {
        self.shared.book().script = script;
    }

    /// The current answer policy.
    pub fn policy(&self) -> AnswerPolicy {
        self.shared.config().answers
    }

    pub fn dataset(&self) -> &Dataset {
        &self.shared.dataset
    }

    /// What the server makes of a prompt: see [`Dataset::identify`].
    pub fn identify(&self, prompt: &str) -> Option<(usize, Task)> {
        self.shared.dataset.identify(prompt)
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

async fn serve(listener: tokio::net::TcpListener, shared: Arc<Shared>, stop: oneshot::Receiver<()>) {
    let app = Router::new().fallback(dispatch).with_state(shared);
    tokio::select! {
        result = axum::serve(listener, app) => {
            if let Err(e) = result {
                eprintln!("mock model server stopped: {e}");
            }
        }
        _ = stop => {}
    }
}

/// CORS around every route.
async fn dispatch(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let origin = request.headers().get(header::ORIGIN).and_then(|v| v.to_str().ok()).map(str::to_string);
    let cors = shared.config().cors;
    if request.method() == Method::OPTIONS {
        shared.counters.lock().stats.preflights += 1;
    }
    let allow_origin = match (&cors, &origin) {
        (Cors::Loopback, Some(origin)) => {
            if !is_loopback_origin(origin) {
                return plain(StatusCode::FORBIDDEN, "");
            }
            Some(origin.clone())
        }
        (Cors::Loopback, None) => None,
        (Cors::AllowAll, _) => Some("*".to_string()),
        (Cors::None, _) => None,
        (Cors::Origins(list), Some(origin)) => {
            if !list.iter().any(|o| o.trim_end_matches('/') == origin) {
                return plain(StatusCode::FORBIDDEN, "");
            }
            Some(origin.clone())
        }
        (Cors::Origins(_), None) => None,
    };
    let mut response = if request.method() == Method::OPTIONS {
        let private_network = header_str(request.headers(), "access-control-request-private-network") == Some("true");
        let mut response = plain(StatusCode::NO_CONTENT, "");
        if allow_origin.is_some() {
            let headers = response.headers_mut();
            headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static(ALLOWED_METHODS));
            headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static(ALLOWED_HEADERS));
            headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
            // Chrome's Private Network Access preflight, for pages that are not on loopback.
            if private_network {
                headers.insert("access-control-allow-private-network", HeaderValue::from_static("true"));
            }
        }
        response
    } else {
        route(shared, request).await
    };
    if let Some(allow) = allow_origin {
        let headers = response.headers_mut();
        if let Ok(value) = HeaderValue::from_str(&allow) {
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
        }
        // A route may have chosen what to expose (the mock's hidden Gemini upload address).
        headers.entry(header::ACCESS_CONTROL_EXPOSE_HEADERS).or_insert(HeaderValue::from_static(EXPOSED_HEADERS));
        if allow != "*" {
            headers.insert(header::VARY, HeaderValue::from_static("Origin"));
        }
    }
    response
}

/// An `Origin` on this machine: `http(s)://` a loopback host (any port), nothing after it.
fn is_loopback_origin(origin: &str) -> bool {
    execbench_providers::Address::parse(origin)
        .is_ok_and(|a| a.is_loopback() && a.path == "/" && !origin.contains(['?', '#']))
}

/// What `GET /_mock/config` shows: the configuration, with whether a key is expected in place of
/// the key itself (`api_key_set`), so no page or log that reads it learns the key.
pub(crate) fn config_view(config: &MockConfig) -> Value {
    let mut view = serde_json::to_value(config).unwrap_or_default();
    if let Some(fields) = view.as_object_mut() {
        fields.remove("api_key");
        fields.insert("api_key_set".to_string(), Value::Bool(config.api_key.is_some()));
    }
    view
}

/// Where a model request goes.
enum ModelRoute {
    OpenAi { deployment: Option<String> },
    Anthropic,
    Gemini { model: String, stream: bool },
}

async fn route(shared: Arc<Shared>, request: Request) -> Response {
    let path = request.uri().path().to_string();
    let method = request.method().clone();
    let get = method == Method::GET || method == Method::HEAD;
    let post = method == Method::POST;
    match path.as_str() {
        "/" if get => plain(
            StatusCode::OK,
            "execbench mock model server (OpenAI: /v1, Anthropic: /v1/messages, Gemini: /v1beta)\n",
        ),
        "/_mock/stats" if get => {
            json_response(StatusCode::OK, &serde_json::to_value(shared.stats()).unwrap_or_default())
        }
        "/_mock/config" if get => json_response(StatusCode::OK, &config_view(&shared.config())),
        "/_mock/reset" if post => {
            shared.reset();
            json_response(StatusCode::OK, &json!({"ok": true}))
        }
        "/_mock/config" if post => {
            let bytes = axum::body::to_bytes(request.into_body(), BODY_LIMIT).await.unwrap_or_default();
            match serde_json::from_slice::<MockConfig>(&bytes) {
                Ok(config) => {
                    shared.set_config(config);
                    json_response(StatusCode::OK, &json!({"ok": true}))
                }
                Err(e) => json_response(
                    StatusCode::BAD_REQUEST,
                    &json!({"error": {"message": format!("not a mock configuration: {e}")}}),
                ),
            }
        }
        "/_mock/batch_clock" if post => {
            let bytes = axum::body::to_bytes(request.into_body(), BODY_LIMIT).await.unwrap_or_default();
            let advance = serde_json::from_slice::<Value>(&bytes).ok().and_then(|v| v["advance_s"].as_u64());
            match advance {
                Some(s) => {
                    let mut book = shared.book();
                    book.clock_s = book.clock_s.saturating_add(s);
                    json_response(StatusCode::OK, &json!({"clock_s": book.clock_s}))
                }
                None => json_response(
                    StatusCode::BAD_REQUEST,
                    &json!({"error": {"message": "advance_s: a whole number of seconds is required"}}),
                ),
            }
        }
        _ if batch_routes::is_batch_route(&method, &path) => batch_routes::handle(&shared, request).await,
        "/rows" if get => {
            json_response(StatusCode::OK, &rows_page(shared.dataset.samples(), request.uri().query().unwrap_or("")))
        }
        "/v1/models" | "/models" if get => {
            let format =
                if request.headers().contains_key("anthropic-version") { Format::Anthropic } else { Format::OpenAi };
            json_response(StatusCode::OK, &wire::models_body(format, &model_list(&shared)))
        }
        "/v1beta/models" | "/v1/models" if get => {
            json_response(StatusCode::OK, &wire::models_body(Format::Gemini, &model_list(&shared)))
        }
        "/v1/chat/completions" | "/chat/completions" if post => {
            chat(shared, ModelRoute::OpenAi { deployment: None }, request).await
        }
        "/v1/messages" if post => chat(shared, ModelRoute::Anthropic, request).await,
        _ if post && path.starts_with("/openai/deployments/") && path.ends_with("/chat/completions") => {
            let deployment = path["/openai/deployments/".len()..path.len() - "/chat/completions".len()].to_string();
            chat(shared, ModelRoute::OpenAi { deployment: Some(deployment) }, request).await
        }
        _ if post && (path.starts_with("/v1beta/models/") || path.starts_with("/v1/models/")) => {
            let last = path.rsplit('/').next().unwrap_or("");
            match last.split_once(':') {
                Some((model, "generateContent")) => {
                    chat(shared, ModelRoute::Gemini { model: model.to_string(), stream: false }, request).await
                }
                Some((model, "streamGenerateContent")) => {
                    chat(shared, ModelRoute::Gemini { model: model.to_string(), stream: true }, request).await
                }
                _ => not_found(&method, &path),
            }
        }
        _ => not_found(&method, &path),
    }
}

/// Hugging Face's dataset viewer `rows` API over the server's dataset (CRUXEval's columns):
/// `?offset=O&length=L` (at most 100 rows), the page shaped as the API shapes it, so the page's
/// "load by name" can be tested without the network. The dataset, config and split asked for
/// are not checked.
fn rows_page(samples: &[Sample], query: &str) -> Value {
    let number = |key: &str, default: usize| {
        query
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .unwrap_or(default)
    };
    let (offset, length) = (number("offset", 0), number("length", 100).min(100));
    let features: Vec<Value> = ["id", "code", "input", "output"]
        .iter()
        .enumerate()
        .map(|(i, name)| json!({"feature_idx": i, "name": name, "type": {"dtype": "string", "_type": "Value"}}))
        .collect();
    let rows: Vec<Value> = samples
        .iter()
        .enumerate()
        .skip(offset)
        .take(length)
        .map(|(i, s)| json!({"row_idx": i, "row": {"id": s.id, "code": s.code, "input": s.input, "output": s.output}, "truncated_cells": []}))
        .collect();
    json!({"features": features, "rows": rows, "num_rows_total": samples.len(), "partial": false})
}

fn model_list(shared: &Shared) -> Vec<String> {
    shared.config().models.unwrap_or_else(|| DEFAULT_MODELS.iter().map(|m| m.to_string()).collect())
}

fn not_found(method: &Method, path: &str) -> Response {
    let message = format!(
        "the mock model server has no {method} {path}; it serves POST /v1/chat/completions, POST /v1/messages, POST /v1beta/models/MODEL:generateContent (and :streamGenerateContent), GET /_mock/stats"
    );
    json_response(
        StatusCode::NOT_FOUND,
        &json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": "unknown_url"}}),
    )
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    if !text.is_empty() {
        response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    }
    response
}

fn json_response(status: StatusCode, value: &Value) -> Response {
    text_response(status, value.to_string(), "application/json")
}

fn text_response(status: StatusCode, text: String, content_type: &'static str) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// What a model request gets, decided before any waiting.
enum Planned {
    /// A whole body at once.
    Whole { status: u16, body: String, headers: Vec<(&'static str, String)> },
    /// A 200 stream of these events.
    Stream { events: Vec<String>, content_type: &'static str },
}

/// What the prompt was.
enum Subject {
    ConnectionTest,
    Sample(usize, Task),
    Unidentified,
}

async fn chat(shared: Arc<Shared>, route: ModelRoute, request: Request) -> Response {
    let guard = FlightGuard::new(shared.counters.clone());
    let config = shared.config();
    let created = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let ids = Ids { number: shared.next_id.fetch_add(1, Ordering::Relaxed), created };
    let format = record_format(&route);
    let mut record = RequestRecord {
        format: format.name().to_string(),
        path: request.uri().path().to_string(),
        ..RequestRecord::default()
    };
    let (planned, hang_ms) = plan(&shared, &config, route, request, &ids, &mut record).await;
    record.status = match &planned {
        Planned::Whole { status, .. } => *status,
        Planned::Stream { .. } => 200,
    };
    shared.counters.lock().record(record);
    if hang_ms > 0 {
        tokio::time::sleep(Duration::from_millis(hang_ms)).await;
    }
    let latency = Duration::from_millis(config.latency_ms);
    match planned {
        Planned::Whole { status, body, headers } => {
            if !latency.is_zero() {
                tokio::time::sleep(latency).await;
            }
            let mut response = Response::new(Body::new(TrackedBody::new(Body::from(body), guard)));
            *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let map = response.headers_mut();
            map.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            for (name, value) in headers {
                if let Ok(value) = HeaderValue::from_str(&value) {
                    map.insert(name, value);
                }
            }
            response
        }
        Planned::Stream { events, content_type } => {
            let delay = if events.is_empty() { Duration::ZERO } else { latency / events.len() as u32 };
            let stream = futures::stream::iter(events).then(move |event| async move {
                if !delay.is_zero() {
                    tokio::time::sleep(delay).await;
                }
                Ok::<Bytes, Infallible>(Bytes::from(event))
            });
            let mut response = Response::new(Body::new(TrackedBody::new(Body::from_stream(stream), guard)));
            let map = response.headers_mut();
            map.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
            map.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            response
        }
    }
}

fn error_planned(spec: &ErrorSpec, format: Format, ids: &Ids) -> Planned {
    Planned::Whole {
        status: spec.status,
        body: spec.body(format, &ids.request()).to_string(),
        headers: spec.headers.clone(),
    }
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The key a request carries, by its format's conventions.
fn key_of(format: Format, headers: &HeaderMap, query: Option<&str>) -> Option<String> {
    let bearer = header_str(headers, "authorization")
        .and_then(|a| a.strip_prefix("Bearer ").or_else(|| a.strip_prefix("bearer ")))
        .map(|k| k.trim().to_string());
    let named = |name: &str| header_str(headers, name).map(|k| k.trim().to_string());
    match format {
        Format::OpenAi => bearer.or_else(|| named("api-key")),
        Format::Anthropic => named("x-api-key").or(bearer),
        Format::Gemini => named("x-goog-api-key")
            .or_else(|| query.and_then(|q| q.split('&').find_map(|p| p.strip_prefix("key=").map(str::to_string)))),
    }
}

/// 401 for a missing or wrong key.
pub(crate) fn bad_key(missing: bool) -> ErrorSpec {
    let message = if missing {
        "No API key provided (mock server)."
    } else {
        "Incorrect API key provided (mock server). API key not valid. Please pass a valid API key."
    };
    ErrorSpec::new(401, message, "invalid_request_error", "authentication_error", "UNAUTHENTICATED")
        .code("invalid_api_key")
        .detail(json!({"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}))
}

/// The error a fault answers with, if it is an error status.
fn fault_error(fault: &Fault, model: &str) -> Option<ErrorSpec> {
    Some(match fault {
        Fault::RateLimit { retry_after_s, retry_after_ms } => {
            let mut spec = ErrorSpec::new(429, format!("Rate limit reached for {model} (mock server) on requests per min. Please slow down."), "requests", "rate_limit_error", "RESOURCE_EXHAUSTED")
                .code("rate_limit_exceeded");
            if let Some(s) = retry_after_s {
                spec = spec.header("retry-after", s.to_string());
            }
            if let Some(ms) = retry_after_ms {
                spec = spec.header("retry-after-ms", ms.to_string());
            }
            spec
        }
        Fault::RateLimitBodyDelay { seconds } => ErrorSpec::new(
            429,
            format!("Rate limit reached for {model} (mock server) on requests per min: Limit 3, Used 3, Requested 1. Please try again in {seconds}s."),
            "requests",
            "rate_limit_error",
            "RESOURCE_EXHAUSTED",
        )
        .code("rate_limit_exceeded")
        .detail(json!({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": format!("{seconds}s")})),
        Fault::ServerError => ErrorSpec::new(500, "The server had an error while processing your request (mock server).", "server_error", "api_error", "INTERNAL"),
        Fault::Overloaded => ErrorSpec::new(529, "Overloaded", "server_error", "overloaded_error", "UNAVAILABLE").code("overloaded"),
        Fault::Unavailable => ErrorSpec::new(503, "The model is overloaded. Please try again later.", "server_error", "api_error", "UNAVAILABLE").code("service_unavailable"),
        Fault::InsufficientQuota => ErrorSpec::new(
            429,
            "You exceeded your current quota, please check your plan and billing details (mock server).",
            "insufficient_quota",
            // Anthropic has no quota error type; a billing problem is its nearest.
            "billing_error",
            "RESOURCE_EXHAUSTED",
        )
        .code("insufficient_quota")
        .detail(json!({
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}],
        })),
        Fault::BadKey => bad_key(false),
        _ => return None,
    })
}

/// The error that [`Fault::ErrorEventAfter200`] puts in a 200.
fn error_in_200() -> ErrorSpec {
    ErrorSpec::new(503, "Overloaded", "server_error", "overloaded_error", "UNAVAILABLE").code("overloaded")
}

/// Reads, checks, identifies, counts, and decides the response (and how long to hang first).
async fn plan(
    shared: &Shared,
    config: &MockConfig,
    route: ModelRoute,
    request: Request,
    ids: &Ids,
    record: &mut RequestRecord,
) -> (Planned, u64) {
    let format = record_format(&route);
    let (parts, body) = request.into_parts();
    let headers = &parts.headers;
    let bytes = match axum::body::to_bytes(body, BODY_LIMIT).await {
        Ok(bytes) => bytes,
        Err(e) => {
            return (error_planned(&ErrorSpec::bad_request(format!("cannot read the body: {e}")), format, ids), 0);
        }
    };
    if format == Format::Anthropic {
        if headers.contains_key(header::ORIGIN)
            && header_str(headers, "anthropic-dangerous-direct-browser-access") != Some("true")
        {
            let spec = ErrorSpec::new(
                401,
                "CORS requests must set 'anthropic-dangerous-direct-browser-access' header",
                "invalid_request_error",
                "authentication_error",
                "UNAUTHENTICATED",
            );
            return (error_planned(&spec, format, ids), 0);
        }
        if !headers.contains_key("anthropic-version") {
            return (error_planned(&ErrorSpec::bad_request("anthropic-version: header is required"), format, ids), 0);
        }
    }
    if let Some(want) = &config.api_key {
        let got = key_of(format, headers, parts.uri.query());
        if got.as_deref() != Some(want.as_str()) {
            return (error_planned(&bad_key(got.is_none()), format, ids), 0);
        }
    }
    let value: Value = match serde_json::from_slice(&bytes) {
        Ok(value) => value,
        Err(e) => {
            return (
                error_planned(&ErrorSpec::bad_request(format!("the body is not valid JSON: {e}")), format, ids),
                0,
            );
        }
    };
    let parsed = match &route {
        ModelRoute::OpenAi { deployment } => wire::parse_openai(&value, deployment.as_deref()),
        ModelRoute::Anthropic => wire::parse_anthropic(&value),
        ModelRoute::Gemini { model, stream } => {
            let sse = parts.uri.query().is_some_and(|q| q.split('&').any(|p| p == "alt=sse"));
            wire::parse_gemini(&value, model, *stream, sse)
        }
    };
    let request = match parsed {
        Ok(request) => request,
        Err(message) => return (error_planned(&ErrorSpec::bad_request(message), format, ids), 0),
    };
    record.model = request.model.clone();
    record.n = request.n;
    record.stream = request.stream;
    record.max_tokens = request.max_tokens;
    record.temperature = request.temperature;
    record.top_p = request.top_p;
    if let Some(models) = &config.models
        && !models.contains(&request.model)
    {
        let spec = ErrorSpec::new(
            404,
            format!("The model `{}` does not exist or you do not have access to it.", request.model),
            "invalid_request_error",
            "not_found_error",
            "NOT_FOUND",
        )
        .code("model_not_found");
        return (error_planned(&spec, format, ids), 0);
    }

    let subject = if is_connection_test(&request.prompt) {
        Subject::ConnectionTest
    } else {
        match shared.dataset.identify(&request.prompt) {
            Some((index, task)) => Subject::Sample(index, task),
            None => Subject::Unidentified,
        }
    };
    let sample = match subject {
        Subject::Sample(index, _) => shared.dataset.get(index),
        _ => None,
    };
    let attempt = {
        let mut c = shared.counters.lock();
        let key = match (&subject, sample) {
            (Subject::Sample(..), Some(s)) => {
                *c.stats.per_sample.entry(s.id.clone()).or_insert(0) += 1;
                s.id.clone()
            }
            (Subject::ConnectionTest, _) => {
                c.stats.connection_tests += 1;
                "\u{0}connection-test".to_string()
            }
            _ => {
                c.stats.unidentified += 1;
                "\u{0}unidentified".to_string()
            }
        };
        let attempt = c.attempts.entry(key).or_insert(0);
        *attempt += 1;
        *attempt
    };
    record.attempt = attempt;
    record.sample_id = sample.map(|s| s.id.clone());
    if let Subject::Sample(_, task) = subject {
        record.task = Some(task);
    }

    let matched = match subject {
        Subject::Sample(index, _) => sample.map(|s| (index, s.id.as_str())),
        _ => None,
    };
    let fault = config
        .faults
        .iter()
        .find(|rule| rule.sample.matches(matched) && (rule.attempts.is_empty() || rule.attempts.contains(&attempt)))
        .map(|rule| rule.fault.clone());
    if let Some(fault) = &fault {
        shared.counters.lock().stats.faults_served += 1;
        record.fault = Some(fault.name().to_string());
    }

    let (text, right) = match (&subject, sample) {
        (Subject::ConnectionTest, _) => (CONNECTION_TEST_ANSWER.to_string(), None),
        (Subject::Sample(index, task), Some(s)) => {
            let right = config.answers.is_right_on(*index, &s.id, attempt);
            (answer_text(s, *task, right), Some(right))
        }
        _ => (UNIDENTIFIED_ANSWER.to_string(), None),
    };
    let hang_ms = match &fault {
        Some(Fault::Hang { ms }) => *ms,
        _ => 0,
    };
    if matches!(fault, Some(Fault::EchoHeaders)) {
        let echoed: Vec<String> =
            headers.iter().map(|(name, value)| format!("{name}: {}", value.to_str().unwrap_or("?"))).collect();
        let spec = ErrorSpec::bad_request(format!("the proxy could not forward this request: {}", echoed.join("; ")));
        return (error_planned(&spec, format, ids), 0);
    }
    if let Some(spec) = fault.as_ref().and_then(|f| fault_error(f, &request.model)) {
        return (error_planned(&spec, format, ids), hang_ms);
    }
    record.right = right;
    let reply = match fault {
        Some(Fault::EmptyLength) => Reply::empty_length(&request.prompt, request.max_tokens),
        _ => Reply::new(&text, &request.prompt, request.max_tokens),
    };
    let planned = match fault {
        Some(Fault::StreamCut { after_chunks }) if request.stream => {
            let mut events = stream_of(&request, &reply, ids, None);
            let keep = (after_chunks as usize).min(events.len().saturating_sub(1));
            events.truncate(keep);
            Planned::Stream { events, content_type: stream_type(&request) }
        }
        Some(Fault::StreamCut { .. }) => {
            let body = wire::full_body(&request, &reply, ids).to_string();
            let half = body.char_indices().map(|(i, _)| i).find(|&i| i >= body.len() / 2).unwrap_or(0);
            Planned::Whole { status: 200, body: body[..half].to_string(), headers: Vec::new() }
        }
        Some(Fault::ErrorEventAfter200) if request.stream => Planned::Stream {
            events: stream_of(&request, &reply, ids, Some(&error_in_200())),
            content_type: stream_type(&request),
        },
        Some(Fault::ErrorEventAfter200) => Planned::Whole {
            status: 200,
            body: error_in_200().body(format, &ids.request()).to_string(),
            headers: Vec::new(),
        },
        _ if request.stream => {
            Planned::Stream { events: stream_of(&request, &reply, ids, None), content_type: stream_type(&request) }
        }
        _ => Planned::Whole {
            status: 200,
            body: wire::full_body(&request, &reply, ids).to_string(),
            headers: Vec::new(),
        },
    };
    (planned, hang_ms)
}

fn record_format(route: &ModelRoute) -> Format {
    match route {
        ModelRoute::OpenAi { .. } => Format::OpenAi,
        ModelRoute::Anthropic => Format::Anthropic,
        ModelRoute::Gemini { .. } => Format::Gemini,
    }
}

fn stream_type(request: &ChatRequest) -> &'static str {
    if request.json_array_stream { "application/json" } else { "text/event-stream" }
}

/// The stream's events; for Gemini without `alt=sse`, the pieces of one JSON array instead.
fn stream_of(request: &ChatRequest, reply: &Reply, ids: &Ids, error: Option<&ErrorSpec>) -> Vec<String> {
    let events = wire::stream_events(request, reply, ids, error);
    if !request.json_array_stream {
        return events;
    }
    let count = events.len();
    events
        .into_iter()
        .enumerate()
        .map(|(i, event)| {
            let json = event.trim_start_matches("data: ").trim_end();
            let open = if i == 0 { "[" } else { ",\r\n" };
            let close = if i + 1 == count { "]" } else { "" };
            format!("{open}{json}{close}")
        })
        .collect()
}

/// One batch line answered as a live request would be: the same identification, attempt count
/// and answer policy (faults and latency are live-only). (status, body in `format`).
pub(crate) fn answer_line(
    shared: &Shared,
    config: &MockConfig,
    format: Format,
    model: &str,
    body: &Value,
) -> (u16, Value) {
    let ids = Ids { number: shared.next_id.fetch_add(1, Ordering::Relaxed), created: 0 };
    let parsed = match format {
        Format::OpenAi => wire::parse_openai(body, None),
        Format::Anthropic => wire::parse_anthropic(body),
        Format::Gemini => wire::parse_gemini(body, model, false, false),
    };
    let request = match parsed {
        Ok(request) => request,
        Err(message) => {
            let spec = ErrorSpec::bad_request(message);
            return (spec.status, spec.body(format, &ids.request()));
        }
    };
    let identified = shared.dataset.identify(&request.prompt);
    let sample = identified.and_then(|(index, _)| shared.dataset.get(index));
    let text = match (identified, sample) {
        (Some((index, task)), Some(s)) => {
            let attempt = {
                let mut c = shared.counters.lock();
                *c.stats.per_sample.entry(s.id.clone()).or_insert(0) += 1;
                let attempt = c.attempts.entry(s.id.clone()).or_insert(0);
                *attempt += 1;
                *attempt
            };
            answer_text(s, task, config.answers.is_right_on(index, &s.id, attempt))
        }
        _ => {
            shared.counters.lock().stats.unidentified += 1;
            UNIDENTIFIED_ANSWER.to_string()
        }
    };
    let reply = Reply::new(&text, &request.prompt, request.max_tokens);
    (200, wire::full_body(&request, &reply, &ids))
}
