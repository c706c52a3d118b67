//! The providers' batch services, sans I/O: a run's requests put in the shape each batch API
//! takes (split by its limits), the calls that submit, poll, cancel and collect a batch, and
//! what comes back read into one common status and one result per line.
//!
//! - OpenAI: the lines `{custom_id, method, url, body}` uploaded as a JSONL file (`purpose=batch`),
//!   then `POST /batches {input_file_id, endpoint, completion_window: "24h"}`; results in the
//!   output and error files, in any order.
//! - Anthropic Message Batches: `POST /messages/batches {requests: [{custom_id, params}]}`;
//!   results from `/messages/batches/{id}/results`, one JSONL line per request.
//! - Gemini: `POST /models/{m}:batchGenerateContent` with inline requests
//!   `{request, metadata: {key}}` while they fit in its 20 MB inline limit; the responses come in
//!   the batch itself. Beyond it, the lines `{key, request}` go as a JSONL file through the Files
//!   API's resumable upload (start, then the bytes to the address it gives, on the same origin)
//!   and the batch names it (`inputConfig.fileName`); the responses come as a file
//!   (`responsesFile`), downloaded from `/download/v1beta/files/ID:download?alt=media`.
//!
//! The bodies are the ones live runs send ([`crate::build_request`]), so a batch asks exactly
//! what a live run would. Each line's `custom_id` names the sample and the answer it starts at
//! ([`custom_id`]); results are matched by it, never by their order.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::error::{ErrorKind, ProviderError, classify_error};
use crate::http::HttpRequest;
use crate::params::Endpoint;
use crate::presets::WireFormat;
use crate::request::{BuiltRequest, auth_headers};
use crate::response::{Completion, parse_response};
use crate::util::{count, shorten, str_field};

/// How much one batch may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchLimits {
    pub max_requests: usize,
    /// Bytes of the encoded input (the JSONL file, or the create call's body).
    pub max_bytes: usize,
    /// A provider that takes requests inline up to `max_bytes` and an uploaded JSONL file beyond
    /// (Gemini): the bytes one such file may hold. None: inline only (or always a file, OpenAI).
    pub file_bytes: Option<usize>,
}

/// Gemini's documented limit on a batch's inline requests: 20 MB in all (Batch API guide).
pub const GEMINI_INLINE_LIMIT_20_MB: usize = 20 * 1_000_000;
/// The inline requests execbench sends at most: the documented limit less 5 %, so that a batch
/// at the edge is not refused for bytes Google counts differently (its own encoding).
pub const GEMINI_INLINE_MAX_BYTES: usize = GEMINI_INLINE_LIMIT_20_MB / 100 * 95;
/// Gemini's documented limit on a batch input file: 2 GB (the Files API's per-file maximum).
pub const GEMINI_FILE_LIMIT_2_GB: usize = 2_000_000_000;
/// One input file's bytes at most: the documented limit less 5 %.
pub const GEMINI_FILE_MAX_BYTES: usize = GEMINI_FILE_LIMIT_2_GB / 100 * 95;

/// The inline threshold in force when set lower for tests (0: [`GEMINI_INLINE_MAX_BYTES`]).
static GEMINI_INLINE_OVERRIDE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Sets the bytes above which a Gemini batch goes as a file instead of inline (`None`: the
/// documented limit with its margin). The command line sets it from
/// `EXECBENCH_GEMINI_INLINE_BYTES`, so a test can take the file path without 20 MB of requests.
pub fn set_gemini_inline_max_bytes(bytes: Option<usize>) {
    let bytes = bytes.map_or(0, |b| b.clamp(1, GEMINI_INLINE_MAX_BYTES));
    GEMINI_INLINE_OVERRIDE.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

/// The bytes of inline requests one Gemini batch holds at most, now.
pub fn gemini_inline_max_bytes() -> usize {
    match GEMINI_INLINE_OVERRIDE.load(std::sync::atomic::Ordering::Relaxed) {
        0 => GEMINI_INLINE_MAX_BYTES,
        set => set,
    }
}

/// Each provider's documented limits (OpenAI: 50,000 lines and 200 MB a file; Anthropic:
/// 100,000 requests and 256 MB a batch; Gemini: 20 MB of inline requests, no count limit, else
/// an input file of up to 2 GB).
pub fn batch_limits(wire: WireFormat) -> BatchLimits {
    match wire {
        WireFormat::OpenAiChat => BatchLimits { max_requests: 50_000, max_bytes: 200 * 1_000_000, file_bytes: None },
        WireFormat::Anthropic => BatchLimits { max_requests: 100_000, max_bytes: 256 * 1_000_000, file_bytes: None },
        WireFormat::Gemini => BatchLimits {
            max_requests: usize::MAX,
            max_bytes: gemini_inline_max_bytes(),
            file_bytes: Some(GEMINI_FILE_MAX_BYTES),
        },
    }
}

/// Whether `endpoint` has a batch service this crate speaks: Azure's deployments batch through
/// another API, so they are refused with a message saying so.
pub fn batch_supported(endpoint: &Endpoint) -> Result<(), String> {
    if endpoint.preset().is_some_and(|p| p.id == "azure") {
        return Err(
            "batch: Azure OpenAI batches through its own deployment API, which execbench does not speak; run live"
                .into(),
        );
    }
    Ok(())
}

/// The id of the line asking for `sample_index`'s answers from `first_answer` on:
/// `s{sample}-a{answer}`, which every provider accepts (Anthropic: `[A-Za-z0-9_-]{1,64}`).
pub fn custom_id(sample_index: usize, first_answer: u32) -> String {
    format!("s{sample_index}-a{first_answer}")
}

/// (sample index, first answer) of a [`custom_id`]; None for any other text.
pub fn parse_custom_id(id: &str) -> Option<(usize, u32)> {
    let (sample, answer) = id.strip_prefix('s')?.split_once("-a")?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(sample) || !digits(answer) {
        return None;
    }
    Some((sample.parse().ok()?, answer.parse().ok()?))
}

/// One batch's input: the lines it holds and the bytes to send.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchInput {
    /// The custom ids, in the order they were put in (Gemini's results come in this order).
    pub custom_ids: Vec<String>,
    /// A JSONL file to upload before the create call (OpenAI always; Gemini beyond its inline
    /// limit): the lines. Otherwise the create call's JSON body (Anthropic, Gemini inline).
    pub payload: String,
    /// The payload is a file to upload ([`upload_request`]).
    pub file: bool,
}

/// The run's requests as few batches as `endpoint`'s limits allow. `lines` are (custom id, the
/// request a live run would send). Errors: a provider without a batch service, a repeated
/// custom id, a single line larger than a whole batch may be.
pub fn batch_inputs(endpoint: &Endpoint, lines: &[(String, BuiltRequest)]) -> Result<Vec<BatchInput>, String> {
    batch_supported(endpoint)?;
    batch_inputs_within(endpoint, lines, batch_limits(endpoint.wire()))
}

/// [`batch_inputs`] without input files: Gemini's lines as inline batches only, for a client that
/// cannot do the Files API's upload (a browser the upload's answer is not exposed to).
pub fn inline_inputs(endpoint: &Endpoint, lines: &[(String, BuiltRequest)]) -> Result<Vec<BatchInput>, String> {
    batch_supported(endpoint)?;
    batch_inputs_within(endpoint, lines, BatchLimits { file_bytes: None, ..batch_limits(endpoint.wire()) })
}

/// How one line is encoded.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// OpenAI's JSONL file line.
    OpenAiLine,
    /// An item of Anthropic's `requests`.
    AnthropicItem,
    /// An item of Gemini's inline `requests`.
    GeminiInline,
    /// A line of Gemini's input file: `{key, request}`.
    GeminiFileLine,
}

impl Shape {
    fn encode(self, id: &str, body: Value) -> String {
        match self {
            Shape::OpenAiLine => {
                json!({"custom_id": id, "method": "POST", "url": "/v1/chat/completions", "body": body})
            }
            Shape::AnthropicItem => json!({"custom_id": id, "params": body}),
            Shape::GeminiInline => json!({"request": body, "metadata": {"key": id}}),
            Shape::GeminiFileLine => json!({"key": id, "request": body}),
        }
        .to_string()
    }

    fn is_file(self) -> bool {
        matches!(self, Shape::OpenAiLine | Shape::GeminiFileLine)
    }
}

/// [`batch_inputs`] with the limits given (tests use small ones). Gemini's lines go inline when
/// they all fit in one inline batch, else as input files of up to `limits.file_bytes` each (when
/// set; else as several inline batches).
pub fn batch_inputs_within(
    endpoint: &Endpoint,
    lines: &[(String, BuiltRequest)],
    limits: BatchLimits,
) -> Result<Vec<BatchInput>, String> {
    let wire = endpoint.wire();
    let mut seen = std::collections::HashSet::new();
    let mut bodies = Vec::with_capacity(lines.len());
    for (id, built) in lines {
        if !seen.insert(id.as_str()) {
            return Err(format!("batch: custom id {id} appears twice"));
        }
        let body: Value = serde_json::from_str(&built.http.body)
            .map_err(|e| format!("batch: the request body of {id} is not JSON: {e}"))?;
        bodies.push((id, body));
    }
    let shape = match wire {
        WireFormat::OpenAiChat => Shape::OpenAiLine,
        WireFormat::Anthropic => Shape::AnthropicItem,
        WireFormat::Gemini => Shape::GeminiInline,
    };
    let items: Vec<(&String, String)> = bodies.iter().map(|(id, body)| (*id, shape.encode(id, body.clone()))).collect();
    let overhead = envelope(wire, endpoint, &[]).len();
    let inline_bytes = overhead + items.iter().map(|(_, item)| item.len() + 1).sum::<usize>();
    if let (WireFormat::Gemini, Some(file_bytes)) = (wire, limits.file_bytes)
        && inline_bytes > limits.max_bytes
    {
        let lines = bodies.into_iter().map(|(id, body)| (id, Shape::GeminiFileLine.encode(id, body))).collect();
        let file_limits = BatchLimits { max_bytes: file_bytes, file_bytes: None, ..limits };
        return split(endpoint, Shape::GeminiFileLine, lines, file_limits);
    }
    split(endpoint, shape, items, limits)
}

/// Puts encoded items into as few inputs as `limits` allow, in order.
fn split(
    endpoint: &Endpoint,
    shape: Shape,
    items: Vec<(&String, String)>,
    limits: BatchLimits,
) -> Result<Vec<BatchInput>, String> {
    let wire = endpoint.wire();
    let mut parts: Vec<(Vec<String>, Vec<String>, usize)> = Vec::new();
    // Bytes of the envelope around the items (Anthropic's and Gemini's create bodies).
    let overhead = if shape.is_file() { 0 } else { envelope(wire, endpoint, &[]).len() };
    for (id, item) in items {
        // A newline (files) or a comma (the others) between items.
        let cost = item.len() + 1;
        if overhead + cost > limits.max_bytes {
            return Err(format!(
                "batch: the request {id} alone is {} bytes, more than a batch may hold ({} bytes)",
                cost, limits.max_bytes
            ));
        }
        let fits = parts.last().is_some_and(|(ids, _, bytes)| {
            ids.len() < limits.max_requests && overhead + bytes + cost <= limits.max_bytes
        });
        if !fits {
            parts.push((Vec::new(), Vec::new(), 0));
        }
        if let Some((ids, items, bytes)) = parts.last_mut() {
            ids.push(id.clone());
            items.push(item);
            *bytes += cost;
        }
    }
    Ok(parts
        .into_iter()
        .map(|(custom_ids, items, _)| {
            let payload = if shape.is_file() { items.join("\n") + "\n" } else { envelope(wire, endpoint, &items) };
            BatchInput { custom_ids, payload, file: shape.is_file() }
        })
        .collect())
}

/// The create call's body around already encoded items (Anthropic, Gemini); "" for OpenAI.
fn envelope(wire: WireFormat, endpoint: &Endpoint, items: &[String]) -> String {
    let joined = items.join(",");
    match wire {
        WireFormat::OpenAiChat => String::new(),
        WireFormat::Anthropic => format!("{{\"requests\":[{joined}]}}"),
        WireFormat::Gemini => {
            let name = json!(format!("execbench {}", endpoint.model.trim()));
            format!(
                "{{\"batch\":{{\"displayName\":{name},\"inputConfig\":{{\"requests\":{{\"requests\":[{joined}]}}}}}}}}"
            )
        }
    }
}

/// The base URL without a pasted method path (`/chat/completions`, `/messages`): the canonical
/// root of the checked address ([`crate::Address::root`]), so what is appended stays under the
/// origin the key was bound to. The batch APIs take no query parameters.
fn api_base(endpoint: &Endpoint) -> Result<String, String> {
    batch_supported(endpoint)?;
    let address = crate::Address::parse(&endpoint.base_url).map_err(|e| format!("base URL: {e}"))?;
    let base = address.root();
    let base = base.strip_suffix("/chat/completions").or_else(|| base.strip_suffix("/messages")).unwrap_or(&base);
    Ok(base.to_string())
}

fn call(
    endpoint: &Endpoint,
    key: Option<&str>,
    method: &str,
    url: String,
    body: String,
) -> Result<HttpRequest, String> {
    let mut headers = auth_headers(endpoint, key)?;
    if !body.is_empty() {
        headers.insert(0, ("content-type".into(), "application/json".into()));
    }
    Ok(HttpRequest { method: method.into(), url, headers, body })
}

/// A batch or file id a provider gave: only these characters go into a URL path (Gemini's names
/// are `batches/ID` and `files/ID`).
fn checked_id(id: &str) -> Result<&str, String> {
    let plain = |id: &str| {
        !id.is_empty()
            && id.len() <= 200
            && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    let ok = plain(id) || ["batches/", "files/"].iter().any(|p| id.strip_prefix(p).is_some_and(plain));
    if ok { Ok(id) } else { Err(format!("batch: the provider's id \"{}\" is not a plain id", shorten(id, 60))) }
}

/// Gemini's Files API sits beside the API version: (`https://host[/prefix]`, `v1beta`) of a base
/// URL `https://host[/prefix]/v1beta`, for `/upload/v1beta/files` and `/download/v1beta/...`.
fn gemini_root_and_version(endpoint: &Endpoint) -> Result<(String, String), String> {
    let base = api_base(endpoint)?;
    let has_path = crate::Address::parse(&base).is_ok_and(|a| a.path != "/");
    let split = base.rsplit_once('/').filter(|(_, version)| {
        has_path && version.len() > 1 && version.starts_with('v') && version.as_bytes()[1].is_ascii_digit()
    });
    match split {
        Some((root, version)) => Ok((root.to_string(), version.to_string())),
        None => Err(format!(
            "base URL: a Gemini batch file goes to the Files API beside the API version, so the base URL must end in it (…/v1beta), not \"{}\"",
            crate::redact_base_url(&base)
        )),
    }
}

/// The multipart boundary of an upload (not in any JSONL line: those are JSON objects).
const BOUNDARY: &str = "execbench-batch-boundary-7f3a9c";

/// The first call of an input file's upload, or None for an input sent in the create call.
/// OpenAI: `POST /files` (multipart, `purpose=batch`), answered with the file. Gemini: the Files
/// API's resumable upload, started with `POST /upload/v1beta/files` (the file's size and type
/// in `X-Goog-Upload-Header-*`), answered with the address to send the bytes to
/// ([`parse_upload`] makes that second call).
pub fn upload_request(
    endpoint: &Endpoint,
    key: Option<&str>,
    input: &BatchInput,
) -> Result<Option<HttpRequest>, String> {
    if !input.file {
        return Ok(None);
    }
    match endpoint.wire() {
        WireFormat::OpenAiChat => {
            let base = api_base(endpoint)?;
            let body = format!(
                "--{BOUNDARY}\r\ncontent-disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n\
                 --{BOUNDARY}\r\ncontent-disposition: form-data; name=\"file\"; filename=\"execbench-batch.jsonl\"\r\n\
                 content-type: application/jsonl\r\n\r\n{}\r\n--{BOUNDARY}--\r\n",
                input.payload
            );
            let mut request = call(endpoint, key, "POST", format!("{base}/files"), String::new())?;
            request.headers.insert(0, ("content-type".into(), format!("multipart/form-data; boundary={BOUNDARY}")));
            request.body = body;
            Ok(Some(request))
        }
        WireFormat::Gemini => {
            let (root, version) = gemini_root_and_version(endpoint)?;
            let name = format!("execbench batch input, {} requests", input.custom_ids.len());
            let body = json!({"file": {"displayName": name}}).to_string();
            let mut request = call(endpoint, key, "POST", format!("{root}/upload/{version}/files"), body)?;
            request.headers.extend([
                ("x-goog-upload-protocol".to_string(), "resumable".to_string()),
                ("x-goog-upload-command".to_string(), "start".to_string()),
                ("x-goog-upload-header-content-length".to_string(), input.payload.len().to_string()),
                ("x-goog-upload-header-content-type".to_string(), GEMINI_FILE_TYPE.to_string()),
            ]);
            Ok(Some(request))
        }
        WireFormat::Anthropic => Err("batch: Anthropic takes its requests in the create call, not as a file".into()),
    }
}

/// The media type of a Gemini batch input file.
const GEMINI_FILE_TYPE: &str = "application/jsonl";

/// What an upload call's answer leads to.
#[derive(Clone, Debug, PartialEq)]
pub enum Uploaded {
    /// The file is stored: its id (OpenAI `file-…`, Gemini `files/…`), for the create call.
    File(String),
    /// The next call of the upload (Gemini: the bytes, to the address the start call gave).
    Next(HttpRequest),
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.trim()).filter(|v| !v.is_empty())
}

/// Reads the answer to an upload call ([`upload_request`], or an [`Uploaded::Next`] call) of
/// `input`. Gemini's start is answered with the upload address in `x-goog-upload-url`: it must
/// be on the base URL's origin (the one the user confirmed for the key), else it is refused; the
/// bytes go there with no key (the address itself names the upload). An answer without that
/// header is `Blocked`: a browser reads it only when the server exposes it to the page (CORS).
pub fn parse_upload(
    endpoint: &Endpoint,
    input: &BatchInput,
    status: u16,
    headers: &[(String, String)],
    body: &str,
) -> Result<Uploaded, ProviderError> {
    let wire = endpoint.wire();
    if !(200..300).contains(&status) {
        return Err(classify_error(wire, status, headers, body));
    }
    if wire != WireFormat::Gemini {
        return parse_file_id(status, headers, body).map(Uploaded::File);
    }
    let v: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    if let Some(name) = v.get("file").and_then(|f| str_field(f, "name")) {
        return match checked_id(name) {
            Ok(name) if name.starts_with("files/") => Ok(Uploaded::File(name.to_string())),
            _ => Err(unreadable(status, "the uploaded file's name is not files/ID", body)),
        };
    }
    let Some(url) = header(headers, "x-goog-upload-url") else {
        return Err(ProviderError::new(
            ErrorKind::Blocked,
            Some(status),
            "the Files API's answer to the upload's start has no readable x-goog-upload-url header (a browser reads it only when the server exposes it to the page)",
        ));
    };
    let base = api_base(endpoint).map_err(|e| ProviderError::new(ErrorKind::BadRequest, None, e))?;
    let upload = crate::Address::parse(url);
    let origin = |url: &str| crate::Address::parse(url).map(|a| a.origin());
    match (upload.as_ref().map(|a| a.origin()), origin(&base)) {
        (Ok(upload), Ok(base)) if upload == base => {}
        (upload, base) => {
            return Err(ProviderError::new(
                ErrorKind::BadRequest,
                Some(status),
                format!(
                    "the Files API named an upload address on {} instead of the base URL's origin {}: the upload is refused (the key and the requests go only to the origin you confirmed)",
                    upload.unwrap_or_else(|_| "an unreadable address".into()),
                    base.unwrap_or_default()
                ),
            ));
        }
    }
    // The address that was checked, as the standard writes it (never the header's own text).
    let url = upload.map(|a| a.canonical().to_string()).unwrap_or_default();
    Ok(Uploaded::Next(HttpRequest {
        method: "POST".into(),
        url,
        headers: vec![
            ("content-type".into(), GEMINI_FILE_TYPE.into()),
            ("x-goog-upload-command".into(), "upload, finalize".into()),
            ("x-goog-upload-offset".into(), "0".into()),
        ],
        body: input.payload.clone(),
    }))
}

/// The id of an uploaded file (`{id, ...}`), or the provider's error.
pub fn parse_file_id(status: u16, headers: &[(String, String)], body: &str) -> Result<String, ProviderError> {
    if !(200..300).contains(&status) {
        return Err(classify_error(WireFormat::OpenAiChat, status, headers, body));
    }
    let v: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    str_field(&v, "id")
        .filter(|id| checked_id(id).is_ok())
        .map(str::to_string)
        .ok_or_else(|| unreadable(status, "the file upload's answer holds no file id", body))
}

/// The call that creates a batch from `input` (from its uploaded `file_id` when it is a file).
pub fn create_request(
    endpoint: &Endpoint,
    key: Option<&str>,
    input: &BatchInput,
    file_id: Option<&str>,
) -> Result<HttpRequest, String> {
    let base = api_base(endpoint)?;
    match endpoint.wire() {
        WireFormat::OpenAiChat => {
            let file_id = checked_id(file_id.ok_or("batch: OpenAI needs the uploaded file's id")?)?;
            let body =
                json!({"input_file_id": file_id, "endpoint": "/v1/chat/completions", "completion_window": "24h"});
            call(endpoint, key, "POST", format!("{base}/batches"), body.to_string())
        }
        WireFormat::Anthropic => call(endpoint, key, "POST", format!("{base}/messages/batches"), input.payload.clone()),
        WireFormat::Gemini => {
            let model = endpoint.model.trim();
            let model = model.strip_prefix("models/").unwrap_or(model);
            if model.is_empty() || !model.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
            {
                return Err(format!("model: \"{model}\" cannot name a Gemini model in a batch"));
            }
            let body = if input.file {
                let file = checked_id(file_id.ok_or("batch: a Gemini input file needs the uploaded file's name")?)?;
                let name = format!("execbench {model}");
                json!({"batch": {"displayName": name, "inputConfig": {"fileName": file}}}).to_string()
            } else {
                input.payload.clone()
            };
            call(endpoint, key, "POST", format!("{base}/models/{model}:batchGenerateContent"), body)
        }
    }
}

/// The call that reads a batch's status.
pub fn status_request(endpoint: &Endpoint, key: Option<&str>, batch_id: &str) -> Result<HttpRequest, String> {
    let base = api_base(endpoint)?;
    let id = checked_id(batch_id)?;
    let url = match endpoint.wire() {
        WireFormat::OpenAiChat => format!("{base}/batches/{id}"),
        WireFormat::Anthropic => format!("{base}/messages/batches/{id}"),
        WireFormat::Gemini => format!("{base}/{}", gemini_name(id)),
    };
    call(endpoint, key, "GET", url, String::new())
}

/// The call that cancels a batch (what finished stays collectable).
pub fn cancel_request(endpoint: &Endpoint, key: Option<&str>, batch_id: &str) -> Result<HttpRequest, String> {
    let base = api_base(endpoint)?;
    let id = checked_id(batch_id)?;
    let url = match endpoint.wire() {
        WireFormat::OpenAiChat => format!("{base}/batches/{id}/cancel"),
        WireFormat::Anthropic => format!("{base}/messages/batches/{id}/cancel"),
        WireFormat::Gemini => format!("{base}/{}:cancel", gemini_name(id)),
    };
    call(endpoint, key, "POST", url, String::new())
}

fn gemini_name(id: &str) -> String {
    if id.starts_with("batches/") { id.to_string() } else { format!("batches/{id}") }
}

/// Where a batch is, in words every provider's states map to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchPhase {
    /// Accepted, not started (OpenAI validating, Gemini pending).
    Validating,
    InProgress,
    /// Done running, results being written (OpenAI).
    Finalizing,
    Cancelling,
    /// Every line ran (some may have errored).
    Completed,
    /// The batch was refused as a whole (OpenAI failed validation, Gemini failed).
    Failed,
    /// The 24 h window ended with lines unfinished.
    Expired,
    Cancelled,
}

impl BatchPhase {
    /// No more change will come: results (if any) can be collected.
    pub fn ended(self) -> bool {
        matches!(self, BatchPhase::Completed | BatchPhase::Failed | BatchPhase::Expired | BatchPhase::Cancelled)
    }

    pub fn label(self) -> &'static str {
        match self {
            BatchPhase::Validating => "validating",
            BatchPhase::InProgress => "in progress",
            BatchPhase::Finalizing => "finalizing",
            BatchPhase::Cancelling => "cancelling",
            BatchPhase::Completed => "completed",
            BatchPhase::Failed => "failed",
            BatchPhase::Expired => "expired",
            BatchPhase::Cancelled => "cancelled",
        }
    }
}

/// A batch's status, the same for every provider.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchStatus {
    pub id: String,
    pub phase: BatchPhase,
    /// The provider's own word ("in_progress", "ended", "BATCH_STATE_RUNNING").
    pub provider_state: String,
    pub total: u64,
    /// Lines answered.
    pub succeeded: u64,
    /// Lines errored, expired or cancelled.
    pub failed: u64,
    /// Where the results are read (OpenAI: the output and error file ids; empty for the others,
    /// whose results have one fixed place).
    pub result_files: Vec<String>,
    /// Why a failed batch failed, as the provider said.
    pub reason: Option<String>,
}

impl BatchStatus {
    /// Lines not yet answered nor failed.
    pub fn pending(&self) -> u64 {
        self.total.saturating_sub(self.succeeded + self.failed)
    }
}

fn unreadable(status: u16, why: &str, body: &str) -> ProviderError {
    ProviderError::new(ErrorKind::Unreadable, Some(status), format!("{why}: {}", shorten(body, 200)))
}

/// Reads the answer to a create or status call. Non-2xx: the provider's error (with any
/// Retry-After, so polling slows down as asked).
pub fn parse_status(
    wire: WireFormat,
    status: u16,
    headers: &[(String, String)],
    body: &str,
) -> Result<BatchStatus, ProviderError> {
    if !(200..300).contains(&status) {
        return Err(classify_error(wire, status, headers, body));
    }
    let v: Value =
        serde_json::from_str(body).map_err(|_| unreadable(status, "a batch status that is not JSON", body))?;
    let read = match wire {
        WireFormat::OpenAiChat => openai_status(&v),
        WireFormat::Anthropic => anthropic_status(&v),
        WireFormat::Gemini => gemini_status(&v),
    };
    let status_ = read.ok_or_else(|| unreadable(status, "not a batch status", body))?;
    checked_id(&status_.id).map_err(|e| unreadable(status, &e, body))?;
    Ok(status_)
}

/// A count that Gemini writes as a string (int64 in JSON) and the others as a number.
fn number(v: Option<&Value>) -> u64 {
    match v {
        Some(Value::String(s)) => s.trim().parse().unwrap_or(0),
        other => count(other),
    }
}

fn openai_status(v: &Value) -> Option<BatchStatus> {
    let id = str_field(v, "id")?.to_string();
    let state = str_field(v, "status")?;
    let phase = match state {
        "validating" => BatchPhase::Validating,
        "in_progress" => BatchPhase::InProgress,
        "finalizing" => BatchPhase::Finalizing,
        "cancelling" => BatchPhase::Cancelling,
        "completed" => BatchPhase::Completed,
        "failed" => BatchPhase::Failed,
        "expired" => BatchPhase::Expired,
        "cancelled" => BatchPhase::Cancelled,
        _ => return None,
    };
    let counts = v.get("request_counts");
    let total = number(counts.and_then(|c| c.get("total")));
    let succeeded = number(counts.and_then(|c| c.get("completed")));
    let failed = number(counts.and_then(|c| c.get("failed")));
    let result_files = ["output_file_id", "error_file_id"]
        .iter()
        .filter_map(|k| str_field(v, k))
        .filter(|id| !id.is_empty())
        .map(str::to_string)
        .collect();
    let reason = v
        .get("errors")
        .and_then(|e| e.get("data"))
        .and_then(Value::as_array)
        .map(|errors| errors.iter().filter_map(|e| str_field(e, "message")).collect::<Vec<_>>().join("; "))
        .filter(|s| !s.is_empty());
    Some(BatchStatus { id, phase, provider_state: state.into(), total, succeeded, failed, result_files, reason })
}

fn anthropic_status(v: &Value) -> Option<BatchStatus> {
    let id = str_field(v, "id")?.to_string();
    let state = str_field(v, "processing_status")?;
    let counts = v.get("request_counts")?;
    let get = |k: &str| number(counts.get(k));
    let (processing, succeeded) = (get("processing"), get("succeeded"));
    let (errored, canceled, expired) = (get("errored"), get("canceled"), get("expired"));
    let phase = match state {
        "in_progress" => BatchPhase::InProgress,
        "canceling" => BatchPhase::Cancelling,
        // "ended" covers every ending: the counts say which.
        "ended" if expired > 0 => BatchPhase::Expired,
        "ended" if canceled > 0 => BatchPhase::Cancelled,
        "ended" => BatchPhase::Completed,
        _ => return None,
    };
    Some(BatchStatus {
        id,
        phase,
        provider_state: state.into(),
        total: processing + succeeded + errored + canceled + expired,
        succeeded,
        failed: errored + canceled + expired,
        result_files: Vec::new(),
        reason: None,
    })
}

fn gemini_status(v: &Value) -> Option<BatchStatus> {
    // An operation (`{name, metadata: batch, done, response}`) or the batch itself.
    let batch = v.get("metadata").filter(|m| m.get("state").is_some()).unwrap_or(v);
    let id = str_field(v, "name").or_else(|| str_field(batch, "name"))?.to_string();
    let state = str_field(batch, "state")?;
    let word = state.strip_prefix("BATCH_STATE_").or_else(|| state.strip_prefix("JOB_STATE_")).unwrap_or(state);
    let phase = match word {
        "PENDING" | "QUEUED" => BatchPhase::Validating,
        "RUNNING" => BatchPhase::InProgress,
        "CANCELLING" => BatchPhase::Cancelling,
        "SUCCEEDED" => BatchPhase::Completed,
        "FAILED" => BatchPhase::Failed,
        "EXPIRED" => BatchPhase::Expired,
        "CANCELLED" => BatchPhase::Cancelled,
        _ => return None,
    };
    let stats = batch.get("batchStats");
    let get = |k: &str| number(stats.and_then(|s| s.get(k)));
    let reason = v.get("error").and_then(|e| str_field(e, "message")).map(str::to_string);
    // A batch made from an input file writes its responses to a file: the operation's response,
    // or the batch's output, names it.
    let result_files = [v.get("response"), batch.get("output")]
        .into_iter()
        .flatten()
        .find_map(|o| str_field(o, "responsesFile"))
        .filter(|f| !f.is_empty())
        .map(|f| vec![f.to_string()])
        .unwrap_or_default();
    Some(BatchStatus {
        id,
        phase,
        provider_state: state.into(),
        total: get("requestCount"),
        succeeded: get("successfulRequestCount"),
        failed: get("failedRequestCount"),
        result_files,
        reason,
    })
}

/// The calls that fetch an ended batch's results: OpenAI one per result file, Anthropic the
/// batch's results, Gemini its responses file (`GET /download/v1beta/files/ID:download?alt=media`)
/// or, for an inline batch, the batch itself (its inline responses).
pub fn results_requests(
    endpoint: &Endpoint,
    key: Option<&str>,
    status: &BatchStatus,
) -> Result<Vec<HttpRequest>, String> {
    let base = api_base(endpoint)?;
    let id = checked_id(&status.id)?;
    match endpoint.wire() {
        WireFormat::OpenAiChat => status
            .result_files
            .iter()
            .map(|file| {
                call(endpoint, key, "GET", format!("{base}/files/{}/content", checked_id(file)?), String::new())
            })
            .collect(),
        // The documented place, built here: a results_url naming another host would get the key.
        WireFormat::Anthropic => {
            Ok(vec![call(endpoint, key, "GET", format!("{base}/messages/batches/{id}/results"), String::new())?])
        }
        WireFormat::Gemini if !status.result_files.is_empty() => {
            let (root, version) = gemini_root_and_version(endpoint)?;
            status
                .result_files
                .iter()
                .map(|file| {
                    let file = checked_id(file)?;
                    if !file.starts_with("files/") {
                        return Err(format!(
                            "batch: Gemini's responses file \"{}\" is not files/ID",
                            shorten(file, 60)
                        ));
                    }
                    let url = format!("{root}/download/{version}/{file}:download?alt=media");
                    call(endpoint, key, "GET", url, String::new())
                })
                .collect()
        }
        WireFormat::Gemini => Ok(vec![status_request(endpoint, key, id)?]),
    }
}

/// One line's result: the completion, or the error with the provider's reason.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchResult {
    pub custom_id: String,
    pub outcome: Result<Completion, ProviderError>,
}

/// Reads a results body: OpenAI's output or error file, Anthropic's results (JSONL), Gemini's
/// batch with its inline responses or its responses file (`custom_ids`: the batch's ids in input
/// order, for responses that come without their key). Each unreadable line is an `Err` naming
/// its line number.
pub fn parse_results(wire: WireFormat, body: &str, custom_ids: &[String]) -> Vec<Result<BatchResult, String>> {
    match wire {
        WireFormat::Gemini => gemini_results(body, custom_ids),
        _ => body
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(i, line)| {
                let v: Value =
                    serde_json::from_str(line).map_err(|e| format!("results line {}: not JSON: {e}", i + 1))?;
                let read = if wire == WireFormat::Anthropic { anthropic_line(&v) } else { openai_line(&v) };
                read.ok_or_else(|| format!("results line {}: not a batch result: {}", i + 1, shorten(line, 120)))
            })
            .collect(),
    }
}

/// A line that never ran: the batch expired or was cancelled first.
fn unfinished(why: &str) -> ProviderError {
    ProviderError::new(ErrorKind::Timeout, None, why)
}

const EXPIRED: &str = "the batch expired (24 h) before this request ran";
const CANCELLED: &str = "the batch was cancelled before this request ran";

fn openai_line(v: &Value) -> Option<BatchResult> {
    let custom_id = str_field(v, "custom_id")?.to_string();
    let error = v.get("error").filter(|e| !e.is_null());
    let response = v.get("response").filter(|r| !r.is_null());
    let outcome = match (response, error) {
        (Some(r), _) => {
            let status = u16::try_from(number(r.get("status_code"))).unwrap_or(0);
            let body = r.get("body").map(Value::to_string).unwrap_or_default();
            parse_response(WireFormat::OpenAiChat, status, &[], &body)
        }
        (None, Some(e)) => Err(match str_field(e, "code") {
            Some("batch_expired") => unfinished(EXPIRED),
            Some("batch_cancelled") => unfinished(CANCELLED),
            _ => classify_error(WireFormat::OpenAiChat, 400, &[], &json!({"error": e}).to_string()),
        }),
        (None, None) => return None,
    };
    Some(BatchResult { custom_id, outcome })
}

fn anthropic_line(v: &Value) -> Option<BatchResult> {
    let custom_id = str_field(v, "custom_id")?.to_string();
    let result = v.get("result")?;
    let outcome = match str_field(result, "type")? {
        "succeeded" => parse_response(WireFormat::Anthropic, 200, &[], &result.get("message")?.to_string()),
        "errored" => {
            // `{type: "error", error: {type, message}}`, as a live error body.
            let error = result.get("error")?;
            let kind = error.get("error").and_then(|e| str_field(e, "type")).unwrap_or("");
            let status = match kind {
                "authentication_error" => 401,
                "permission_error" => 403,
                "not_found_error" => 404,
                "rate_limit_error" => 429,
                "api_error" => 500,
                "overloaded_error" => 529,
                _ => 400,
            };
            Err(classify_error(WireFormat::Anthropic, status, &[], &error.to_string()))
        }
        "canceled" => Err(unfinished(CANCELLED)),
        "expired" => Err(unfinished(EXPIRED)),
        _ => return None,
    };
    Some(BatchResult { custom_id, outcome })
}

/// Gemini's results: an inline batch (its `inlinedResponses`, each `{response | error,
/// metadata: {key}}`) or the lines of a responses file (each `{key, response | error}`).
fn gemini_results(body: &str, custom_ids: &[String]) -> Vec<Result<BatchResult, String>> {
    let whole = serde_json::from_str::<Value>(body).ok();
    let is_batch =
        whole.as_ref().is_some_and(|v| ["name", "metadata", "done", "output"].iter().any(|k| v.get(k).is_some()));
    if !is_batch && !body.trim().is_empty() {
        return body
            .lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .enumerate()
            .map(|(n, (i, line))| {
                let item: Value = serde_json::from_str(line)
                    .map_err(|e| format!("Gemini results file line {}: not JSON: {e}", i + 1))?;
                let key = str_field(&item, "key").map(str::to_string);
                gemini_item(&item, key, custom_ids.get(n), &format!("results file line {}", i + 1))
            })
            .collect();
    }
    let Some(v) = whole else {
        return vec![Err("Gemini batch results: not JSON".into())];
    };
    let batch = v.get("metadata").filter(|m| m.get("state").is_some()).unwrap_or(&v);
    // The operation's response, or the batch's output.
    let responses = [v.get("response"), batch.get("output")]
        .into_iter()
        .flatten()
        .find_map(|o| o.get("inlinedResponses")?.get("inlinedResponses")?.as_array());
    let Some(responses) = responses else {
        return vec![Err("Gemini batch results: no inlinedResponses in the batch".into())];
    };
    responses
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let key = item.get("metadata").and_then(|m| str_field(m, "key")).map(str::to_string);
            gemini_item(item, key, custom_ids.get(i), &format!("response {}", i + 1))
        })
        .collect()
}

/// One Gemini result: its `response` or `error`, tied to its key (else to the request at its
/// position, `by_position`). `what` names it in errors.
fn gemini_item(
    item: &Value,
    key: Option<String>,
    by_position: Option<&String>,
    what: &str,
) -> Result<BatchResult, String> {
    let custom_id = key
        .or_else(|| by_position.cloned())
        .ok_or_else(|| format!("Gemini batch results: {what} has no key and no request"))?;
    let outcome = if let Some(response) = item.get("response").filter(|r| !r.is_null()) {
        parse_response(WireFormat::Gemini, 200, &[], &response.to_string())
    } else if let Some(error) = item.get("error").filter(|e| !e.is_null()) {
        let code = number(error.get("code"));
        let status = if (400..600).contains(&code) { code as u16 } else { 500 };
        Err(classify_error(WireFormat::Gemini, status, &[], &json!({"error": error}).to_string()))
    } else {
        return Err(format!("Gemini batch results: {what} holds neither response nor error"));
    };
    Ok(BatchResult { custom_id, outcome })
}

#[cfg(test)]
mod tests;
