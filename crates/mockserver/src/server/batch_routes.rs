//! The batch services' routes: the key and version checks of live requests, then the batch book
//! (`crate::batch`). Every call is counted in `Stats::batch_calls`.

use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use super::{BODY_LIMIT, Shared, bad_key, header_str, json_response, key_of, text_response};
use crate::batch::{Batch, Line, gemini_file_lines, input_lines, multipart_file, scripted_error};
use crate::wire::{ErrorSpec, Format};

/// What a batch call asks.
enum Call {
    Upload,
    /// Gemini's Files API: a resumable upload's start, or (with `upload_id`) its bytes.
    GeminiUpload,
    /// Gemini's Files API: a file's content (`files/ID`).
    Download {
        file: String,
    },
    Create {
        format: Format,
        model: Option<String>,
    },
    Status {
        format: Format,
        id: String,
    },
    Cancel {
        format: Format,
        id: String,
    },
    /// OpenAI file contents (`file-out-ID`, `file-err-ID`) or Anthropic results.
    Results {
        format: Format,
        id: String,
        errors: bool,
    },
}

fn call_of(method: &Method, path: &str) -> Option<Call> {
    let post = method == Method::POST;
    let get = method == Method::GET;
    let tail = |prefix: &str| path.strip_prefix(prefix).filter(|t| !t.is_empty() && !t.contains('/'));
    if post && path == "/v1/files" {
        return Some(Call::Upload);
    }
    if post && path == "/upload/v1beta/files" {
        return Some(Call::GeminiUpload);
    }
    if get && let Some(rest) = tail("/download/v1beta/files/") {
        let id = rest.strip_suffix(":download")?;
        return Some(Call::Download { file: format!("files/{id}") });
    }
    if post && path == "/v1/batches" {
        return Some(Call::Create { format: Format::OpenAi, model: None });
    }
    if post && path == "/v1/messages/batches" {
        return Some(Call::Create { format: Format::Anthropic, model: None });
    }
    if let Some(rest) = path.strip_prefix("/v1/batches/") {
        return match rest.split_once('/') {
            None if get => Some(Call::Status { format: Format::OpenAi, id: rest.into() }),
            Some((id, "cancel")) if post => Some(Call::Cancel { format: Format::OpenAi, id: id.into() }),
            _ => None,
        };
    }
    if let Some(rest) = path.strip_prefix("/v1/files/") {
        let (file, what) = rest.split_once('/')?;
        if !get || what != "content" {
            return None;
        }
        let (errors, id) = match (file.strip_prefix("file-out-"), file.strip_prefix("file-err-")) {
            (Some(id), _) => (false, id),
            (_, Some(id)) => (true, id),
            _ => return None,
        };
        return Some(Call::Results { format: Format::OpenAi, id: id.into(), errors });
    }
    if let Some(rest) = path.strip_prefix("/v1/messages/batches/") {
        return match rest.split_once('/') {
            None if get => Some(Call::Status { format: Format::Anthropic, id: rest.into() }),
            Some((id, "cancel")) if post => Some(Call::Cancel { format: Format::Anthropic, id: id.into() }),
            Some((id, "results")) if get => {
                Some(Call::Results { format: Format::Anthropic, id: id.into(), errors: false })
            }
            _ => None,
        };
    }
    if let Some(rest) = tail("/v1beta/batches/") {
        return match rest.split_once(':') {
            None if get => Some(Call::Status { format: Format::Gemini, id: format!("batches/{rest}") }),
            Some((id, "cancel")) if post => Some(Call::Cancel { format: Format::Gemini, id: format!("batches/{id}") }),
            _ => None,
        };
    }
    if post && let Some(rest) = tail("/v1beta/models/") {
        let (model, verb) = rest.split_once(':')?;
        return (verb == "batchGenerateContent")
            .then(|| Call::Create { format: Format::Gemini, model: Some(model.into()) });
    }
    None
}

pub(super) fn is_batch_route(method: &Method, path: &str) -> bool {
    call_of(method, path).is_some()
}

fn format_of(call: &Call) -> Format {
    match call {
        Call::Upload => Format::OpenAi,
        Call::GeminiUpload | Call::Download { .. } => Format::Gemini,
        Call::Create { format, .. }
        | Call::Status { format, .. }
        | Call::Cancel { format, .. }
        | Call::Results { format, .. } => *format,
    }
}

fn error(spec: &ErrorSpec, format: Format) -> Response {
    json_response(
        StatusCode::from_u16(spec.status).unwrap_or(StatusCode::BAD_REQUEST),
        &spec.body(format, "req_mock_batch"),
    )
}

fn not_found(format: Format, what: &str) -> Response {
    let spec = ErrorSpec::new(
        404,
        format!("No such {what} (mock server)."),
        "invalid_request_error",
        "not_found_error",
        "NOT_FOUND",
    );
    error(&spec, format)
}

pub(super) async fn handle(shared: &Shared, request: Request) -> Response {
    let path = request.uri().path().to_string();
    let Some(call) = call_of(request.method(), &path) else {
        return not_found(Format::OpenAi, "batch route");
    };
    let format = format_of(&call);
    let (parts, body) = request.into_parts();
    let config = shared.config();
    // The bytes of a resumable upload carry no key: the upload id in the address names the
    // upload, as at Google.
    let upload_id = query_value(parts.uri.query(), "upload_id");
    let name = match &call {
        Call::Upload => "upload",
        Call::GeminiUpload if upload_id.is_none() => "upload_start",
        Call::GeminiUpload => "upload",
        Call::Download { .. } => "download",
        Call::Create { .. } => "create",
        Call::Status { .. } => "status",
        Call::Cancel { .. } => "cancel",
        Call::Results { .. } => "results",
    };
    *shared.counters.lock().stats.batch_calls.entry(name.into()).or_insert(0) += 1;
    if format == Format::Anthropic && header_str(&parts.headers, "anthropic-version").is_none() {
        return error(&ErrorSpec::bad_request("anthropic-version: header is required"), format);
    }
    if let Some(want) = config.api_key.as_ref().filter(|_| upload_id.is_none()) {
        let got = key_of(format, &parts.headers, parts.uri.query());
        if got.as_deref() != Some(want.as_str()) {
            return error(&bad_key(got.is_none()), format);
        }
    }
    let bytes = axum::body::to_bytes(body, BODY_LIMIT).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    match call {
        Call::Upload => {
            let content_type = header_str(&parts.headers, "content-type").unwrap_or("");
            let Some(file) = multipart_file(content_type, &text) else {
                return error(
                    &ErrorSpec::bad_request("file: a multipart/form-data part named file is required"),
                    format,
                );
            };
            let mut book = shared.book();
            let id = book.new_id("file-in-");
            let bytes = file.len();
            book.files.insert(id.clone(), file);
            json_response(
                StatusCode::OK,
                &json!({"id": id, "object": "file", "bytes": bytes, "purpose": "batch", "filename": "input.jsonl", "created_at": 0, "status": "processed"}),
            )
        }
        Call::GeminiUpload => gemini_upload(shared, &parts, upload_id, &text),
        Call::Download { file } => {
            let book = shared.book();
            let now = book.clock_s;
            let batch = book.batches.values().find(|b| b.from_file && b.responses_file() == file);
            match batch.and_then(|b| b.responses_file_body(now)) {
                Some(body) => text_response(StatusCode::OK, body, "application/jsonl"),
                None => not_found(format, "file (or it expired: files are kept 48 h)"),
            }
        }
        Call::Create { format, model } => {
            let gemini_file = (format == Format::Gemini)
                .then(|| serde_json::from_str::<Value>(&text).ok())
                .flatten()
                .and_then(|v| v["batch"]["inputConfig"]["fileName"].as_str().map(str::to_string));
            let input = match format {
                Format::OpenAi => {
                    let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                    if v["endpoint"] != "/v1/chat/completions" || v["completion_window"] != "24h" {
                        return error(
                            &ErrorSpec::bad_request("endpoint must be /v1/chat/completions and completion_window 24h"),
                            format,
                        );
                    }
                    let file = v["input_file_id"].as_str().and_then(|id| shared.book().files.get(id).cloned());
                    match file {
                        Some(file) => file,
                        None => return not_found(format, "file"),
                    }
                }
                Format::Gemini if gemini_file.is_some() => {
                    match gemini_file.as_ref().and_then(|name| shared.book().files.get(name).cloned()) {
                        Some(file) => file,
                        None => return not_found(format, "file"),
                    }
                }
                _ => text,
            };
            let lines = match gemini_file {
                Some(_) => gemini_file_lines(&input),
                None => input_lines(format, &input),
            };
            let lines = match lines {
                Ok(lines) => lines,
                Err(message) => return error(&ErrorSpec::bad_request(message), format),
            };
            let script = shared.book().script.clone();
            let model = model.unwrap_or_default();
            let lines: Vec<Line> = lines
                .into_iter()
                .enumerate()
                .map(|(i, (custom_id, body))| {
                    if script.errored_every.is_some_and(|k| k > 0 && (i + 1).is_multiple_of(k)) {
                        let spec = scripted_error();
                        return Line { custom_id, status: spec.status, body: spec.body(format, "req_mock_batch") };
                    }
                    let (status, body) = super::answer_line(shared, &config, format, &model, &body);
                    Line { custom_id, status, body }
                })
                .collect();
            let mut book = shared.book();
            let id = match format {
                Format::OpenAi => book.new_id("batch_mock"),
                Format::Anthropic => book.new_id("msgbatch_mock"),
                Format::Gemini => book.new_id("batches/mock"),
            };
            let from_file = format == Format::Gemini && gemini_file.is_some();
            let batch =
                Batch { format, id: id.clone(), created_s: book.clock_s, cancelled_s: None, script, lines, from_file };
            let body = batch.status_body(book.clock_s);
            book.batches.insert(id, batch);
            json_response(StatusCode::OK, &body)
        }
        Call::Status { id, .. } => {
            let mut book = shared.book();
            book.status_checks += 1;
            if let Some((every, seconds)) = book.script.rate_limit_status
                && every > 0
                && book.status_checks.is_multiple_of(every)
            {
                let spec = ErrorSpec::new(
                    429,
                    "Too many batch status checks (mock server). Please slow down.",
                    "requests",
                    "rate_limit_error",
                    "RESOURCE_EXHAUSTED",
                )
                .code("rate_limit_exceeded");
                let mut response = error(&spec, format);
                if let Ok(value) = axum::http::HeaderValue::from_str(&seconds.to_string()) {
                    response.headers_mut().insert("retry-after", value);
                }
                return response;
            }
            match book.batches.get(&id).filter(|b| b.format == format) {
                Some(batch) => json_response(StatusCode::OK, &batch.status_body(book.clock_s)),
                None => not_found(format, "batch"),
            }
        }
        Call::Cancel { id, .. } => {
            let mut book = shared.book();
            let now = book.clock_s;
            match book.batches.get_mut(&id).filter(|b| b.format == format) {
                Some(batch) => {
                    batch.cancel(now);
                    json_response(StatusCode::OK, &batch.status_body(now))
                }
                None => not_found(format, "batch"),
            }
        }
        Call::Results { id, errors, .. } => {
            let book = shared.book();
            match book.batches.get(&id).filter(|b| b.format == format && b.ended(book.clock_s)) {
                Some(batch) => text_response(StatusCode::OK, batch.results(book.clock_s, errors), "application/jsonl"),
                None => not_found(format, "ended batch"),
            }
        }
    }
}

/// `name`'s value in a query string.
fn query_value(query: Option<&str>, name: &str) -> Option<String> {
    query?.split('&').find_map(|p| p.strip_prefix(name)?.strip_prefix('=')).map(str::to_string)
}

/// Gemini's resumable upload: the start (the size and type declared in `x-goog-upload-header-*`,
/// answered with the address for the bytes in `x-goog-upload-url`), then the bytes
/// (`x-goog-upload-command: upload, finalize` at offset 0, exactly the size declared), answered
/// with the file.
fn gemini_upload(
    shared: &Shared,
    parts: &axum::http::request::Parts,
    upload_id: Option<String>,
    body: &str,
) -> Response {
    let format = Format::Gemini;
    let headers = &parts.headers;
    let command = header_str(headers, "x-goog-upload-command").unwrap_or("").to_ascii_lowercase();
    let Some(upload_id) = upload_id else {
        if header_str(headers, "x-goog-upload-protocol") != Some("resumable") || command != "start" {
            return error(
                &ErrorSpec::bad_request(
                    "x-goog-upload-protocol: resumable and x-goog-upload-command: start are required",
                ),
                format,
            );
        }
        let declared = header_str(headers, "x-goog-upload-header-content-length").and_then(|l| l.trim().parse().ok());
        let Some(declared) = declared else {
            return error(
                &ErrorSpec::bad_request("x-goog-upload-header-content-length: the file's size in bytes is required"),
                format,
            );
        };
        let mut book = shared.book();
        let id = book.new_id("upload-mock");
        book.uploads.insert(id.clone(), declared);
        let origin = match &book.script.upload_origin {
            Some(origin) => origin.trim_end_matches('/').to_string(),
            None => format!("http://{}", header_str(headers, "host").unwrap_or("127.0.0.1")),
        };
        let url = format!("{origin}/upload/v1beta/files?upload_id={id}&upload_protocol=resumable");
        let mut response = json_response(StatusCode::OK, &json!({}));
        for (name, value) in [("x-goog-upload-url", url.as_str()), ("x-goog-upload-status", "active")] {
            if let Ok(value) = axum::http::HeaderValue::from_str(value) {
                response.headers_mut().insert(name, value);
            }
        }
        if book.script.upload_url_hidden_from_pages {
            // The CORS layer keeps an exposure a route set: this one leaves the address out.
            let exposed = axum::http::HeaderValue::from_static("retry-after, retry-after-ms");
            response.headers_mut().insert(axum::http::header::ACCESS_CONTROL_EXPOSE_HEADERS, exposed);
        }
        return response;
    };
    if !(command.contains("upload") && command.contains("finalize")) {
        return error(&ErrorSpec::bad_request("x-goog-upload-command: upload, finalize is required"), format);
    }
    if header_str(headers, "x-goog-upload-offset").map(str::trim) != Some("0") {
        return error(&ErrorSpec::bad_request("x-goog-upload-offset: 0 is required (one chunk)"), format);
    }
    let mut book = shared.book();
    let Some(declared) = book.uploads.remove(&upload_id) else {
        return not_found(format, "upload");
    };
    if body.len() != declared {
        return error(
            &ErrorSpec::bad_request(format!("the upload declared {declared} bytes and sent {}", body.len())),
            format,
        );
    }
    let name = format!("files/{}", book.new_id("mockfile"));
    book.files.insert(name.clone(), body.to_string());
    let mut response = json_response(
        StatusCode::OK,
        &json!({"file": {"name": name, "mimeType": "application/jsonl", "sizeBytes": declared.to_string(), "state": "ACTIVE", "source": "UPLOADED"}}),
    );
    response.headers_mut().insert("x-goog-upload-status", axum::http::HeaderValue::from_static("final"));
    response
}
