//! The providers' batch services, mocked: OpenAI files + batches, Anthropic message batches,
//! Gemini batch jobs, each with its own states, on a clock only the test moves
//! ([`crate::MockServer::advance_batch_clock`], or `POST /_mock/batch_clock {"advance_s": S}`).
//!
//! A batch's answers are decided when it is created, by the same logic (and attempt counters) as
//! live requests, so a batch run's answers equal a live run's against the same server. What the
//! clock then does, per [`BatchScript`]: validating for `validate_s`, then lines finish evenly over
//! `run_s` (in progress), finalizing for `finalize_s` (OpenAI), completed. A batch still running
//! at `expire_s` expires with its unfinished lines; `fail_validation` fails it at `validate_s`;
//! cancel ends it at once with what finished. Results come in reverse order, and every
//! `errored_every`-th line (1-based) is a 500 server error; `rate_limit_status` refuses every
//! k-th status check with 429 and a Retry-After, as a provider does to an impolite poller.
//!
//! Gemini's input files go through the Files API's resumable upload (a start that answers with
//! the upload address in `x-goog-upload-url`, then the bytes with `upload, finalize`); a batch
//! made from one answers with a responses file, downloadable for `results_keep_s` (48 h) after
//! the batch ended, then 404.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::wire::{ErrorSpec, Format};

/// How the mock's batches behave over the test's clock (seconds).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BatchScript {
    pub validate_s: u64,
    pub run_s: u64,
    pub finalize_s: u64,
    /// The completion window (24 h).
    pub expire_s: u64,
    pub fail_validation: bool,
    pub errored_every: Option<usize>,
    /// Every k-th status check is refused with 429 and `retry-after: S`: (k, S).
    pub rate_limit_status: Option<(u64, u64)>,
    /// How long a Gemini responses file stays downloadable after its batch ended (the Files API
    /// keeps a file 48 h); after that its download is 404.
    pub results_keep_s: u64,
    /// The origin Gemini's upload start names for the bytes (None: the server's own), to test
    /// that a client refuses to upload to another origin.
    pub upload_origin: Option<String>,
    /// Gemini's upload start answers without exposing `x-goog-upload-url` to pages (CORS), as a
    /// server or proxy that hides it would: a browser cannot read the upload address.
    pub upload_url_hidden_from_pages: bool,
}

impl Default for BatchScript {
    fn default() -> Self {
        BatchScript {
            validate_s: 60,
            run_s: 3600,
            finalize_s: 60,
            expire_s: 86_400,
            fail_validation: false,
            errored_every: None,
            rate_limit_status: None,
            results_keep_s: 172_800,
            upload_origin: None,
            upload_url_hidden_from_pages: false,
        }
    }
}

/// One line's decided answer: (custom id, HTTP status, body in the line's format).
#[derive(Clone, Debug)]
pub(crate) struct Line {
    pub custom_id: String,
    pub status: u16,
    pub body: Value,
}

#[derive(Clone, Debug)]
pub(crate) struct Batch {
    pub format: Format,
    pub id: String,
    pub created_s: u64,
    pub cancelled_s: Option<u64>,
    pub script: BatchScript,
    pub lines: Vec<Line>,
    /// Gemini: made from an uploaded input file, so its responses are a file too.
    pub from_file: bool,
}

/// Where a batch is at a moment, and how many lines finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Validating,
    Running,
    Finalizing,
    Completed,
    Failed,
    Expired,
    Cancelled,
}

impl Batch {
    fn phase(&self, now: u64) -> (Phase, usize) {
        let s = &self.script;
        let total = self.lines.len();
        let at = |t: u64| -> usize {
            let ran = t.saturating_sub(self.created_s + s.validate_s);
            if s.run_s == 0 {
                total
            } else {
                ((total as u128 * ran as u128) / s.run_s as u128).min(total as u128) as usize
            }
        };
        let age = now.saturating_sub(self.created_s);
        if let Some(c) = self.cancelled_s {
            return (Phase::Cancelled, at(c));
        }
        if age < s.validate_s {
            return (Phase::Validating, 0);
        }
        if s.fail_validation {
            return (Phase::Failed, 0);
        }
        let ran_out = s.validate_s + s.run_s;
        if age >= s.expire_s && ran_out > s.expire_s {
            return (Phase::Expired, at(self.created_s + s.expire_s));
        }
        if age < ran_out {
            return (Phase::Running, at(now));
        }
        if age < ran_out + s.finalize_s {
            return (Phase::Finalizing, total);
        }
        (Phase::Completed, total)
    }

    /// When the batch ended (None while it runs).
    fn ended_at(&self, now: u64) -> Option<u64> {
        let s = &self.script;
        let end = match self.phase(now).0 {
            Phase::Cancelled => self.cancelled_s?,
            Phase::Failed => self.created_s + s.validate_s,
            Phase::Expired => self.created_s + s.expire_s,
            Phase::Completed => self.created_s + s.validate_s + s.run_s + s.finalize_s,
            _ => return None,
        };
        Some(end)
    }

    /// Gemini's responses file of a batch made from a file: `files/batch-out-ID`.
    pub fn responses_file(&self) -> String {
        format!("files/batch-out-{}", self.id.trim_start_matches("batches/"))
    }

    /// The responses file's JSONL (`{key, response}` or `{key, error}` per finished line, in
    /// reverse order: never the input's), while it is kept; None once it expired.
    pub fn responses_file_body(&self, now: u64) -> Option<String> {
        let ended = self.ended_at(now)?;
        if now >= ended + self.script.results_keep_s {
            return None;
        }
        let (_, finished) = self.phase(now);
        let mut text = String::new();
        for line in self.lines[..finished].iter().rev() {
            let v = if line.status == 200 {
                json!({"key": line.custom_id, "response": line.body})
            } else {
                json!({"key": line.custom_id, "error": line.body["error"]})
            };
            text.push_str(&v.to_string());
            text.push('\n');
        }
        Some(text)
    }

    fn counts(&self, now: u64) -> (Phase, usize, usize, usize) {
        let (phase, done) = self.phase(now);
        let errored = self.lines[..done].iter().filter(|l| l.status != 200).count();
        (phase, self.lines.len(), done - errored, errored)
    }

    /// The batch object each provider answers create, status and cancel with.
    pub fn status_body(&self, now: u64) -> Value {
        let (phase, total, succeeded, errored) = self.counts(now);
        let unfinished = total - succeeded - errored;
        match self.format {
            Format::OpenAi => {
                let status = match phase {
                    Phase::Validating => "validating",
                    Phase::Running => "in_progress",
                    Phase::Finalizing => "finalizing",
                    Phase::Completed => "completed",
                    Phase::Failed => "failed",
                    Phase::Expired => "expired",
                    Phase::Cancelled => "cancelled",
                };
                let ended = matches!(phase, Phase::Completed | Phase::Expired | Phase::Cancelled);
                let failed =
                    if matches!(phase, Phase::Expired | Phase::Cancelled) { errored + unfinished } else { errored };
                let mut v = json!({
                    "id": self.id, "object": "batch", "endpoint": "/v1/chat/completions", "status": status,
                    "input_file_id": format!("file-in-{}", self.id), "completion_window": "24h",
                    "created_at": self.created_s,
                    "request_counts": {"total": if phase == Phase::Validating { 0 } else { total }, "completed": succeeded, "failed": failed},
                });
                if ended {
                    v["output_file_id"] = json!(format!("file-out-{}", self.id));
                    if failed > 0 {
                        v["error_file_id"] = json!(format!("file-err-{}", self.id));
                    }
                }
                if phase == Phase::Failed {
                    v["errors"] = json!({"object": "list", "data": [{"code": "invalid_request", "message": "the mock's batch script fails this batch at validation", "line": null}]});
                }
                v
            }
            Format::Anthropic => {
                let (state, canceled, expired) = match phase {
                    Phase::Cancelled => ("ended", unfinished, 0),
                    Phase::Expired => ("ended", 0, unfinished),
                    Phase::Completed | Phase::Finalizing | Phase::Failed => ("ended", 0, 0),
                    _ => ("in_progress", 0, 0),
                };
                let processing = if state == "ended" { 0 } else { unfinished };
                json!({
                    "id": self.id, "type": "message_batch", "processing_status": state,
                    "request_counts": {"processing": processing, "succeeded": succeeded, "errored": errored, "canceled": canceled, "expired": expired},
                    "results_url": if state == "ended" { json!(format!("/v1/messages/batches/{}/results", self.id)) } else { Value::Null },
                    // Anthropic's times are RFC 3339 strings; a batch expires 24 hours after it is made.
                    "created_at": rfc3339(self.created_s),
                    "expires_at": rfc3339(self.created_s + 86_400),
                    "ended_at": if state == "ended" { self.ended_at(now).map(rfc3339) } else { None },
                })
            }
            Format::Gemini => {
                let state = match phase {
                    Phase::Validating => "BATCH_STATE_PENDING",
                    Phase::Running | Phase::Finalizing => "BATCH_STATE_RUNNING",
                    Phase::Completed => "BATCH_STATE_SUCCEEDED",
                    Phase::Failed => "BATCH_STATE_FAILED",
                    Phase::Expired => "BATCH_STATE_EXPIRED",
                    Phase::Cancelled => "BATCH_STATE_CANCELLED",
                };
                let done = matches!(phase, Phase::Completed | Phase::Failed | Phase::Expired | Phase::Cancelled);
                let stats = json!({
                    "requestCount": total.to_string(), "successfulRequestCount": succeeded.to_string(),
                    "failedRequestCount": errored.to_string(), "pendingRequestCount": unfinished.to_string(),
                });
                let mut v = json!({
                    "name": self.id, "done": done,
                    "metadata": {"@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch", "name": self.id, "state": state, "batchStats": stats},
                });
                if done && phase != Phase::Failed && self.from_file {
                    let file = self.responses_file();
                    v["metadata"]["output"] = json!({"responsesFile": file});
                    v["response"] = json!({"@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput", "responsesFile": file});
                } else if done && phase != Phase::Failed {
                    // In input order, each with its key (the real service keeps the order).
                    let (_, finished) = self.phase(now);
                    let responses: Vec<Value> = self.lines[..finished]
                        .iter()
                        .map(|l| {
                            if l.status == 200 {
                                json!({"response": l.body, "metadata": {"key": l.custom_id}})
                            } else {
                                json!({"error": l.body["error"], "metadata": {"key": l.custom_id}})
                            }
                        })
                        .collect();
                    v["response"] = json!({"@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput", "inlinedResponses": {"inlinedResponses": responses}});
                }
                if phase == Phase::Failed {
                    v["error"] =
                        json!({"code": 3, "message": "the mock's batch script fails this batch at validation"});
                }
                v
            }
        }
    }

    /// OpenAI's output (`errors` false) or error file; Anthropic's results. Reverse order: never
    /// the input's.
    pub fn results(&self, now: u64, errors: bool) -> String {
        let (phase, finished) = self.phase(now);
        let mut out = Vec::new();
        for (i, line) in self.lines.iter().enumerate().rev() {
            let ran = i < finished;
            let v = match self.format {
                Format::OpenAi => {
                    let ok = ran && line.status == 200;
                    let error_line = !ok;
                    if error_line != errors {
                        continue;
                    }
                    if ran {
                        json!({"id": format!("batch_req_{i}"), "custom_id": line.custom_id, "response": {"status_code": line.status, "request_id": format!("req_{i}"), "body": line.body}, "error": null})
                    } else {
                        let code = if phase == Phase::Cancelled { "batch_cancelled" } else { "batch_expired" };
                        json!({"id": format!("batch_req_{i}"), "custom_id": line.custom_id, "response": null, "error": {"code": code, "message": "This request was not run before the batch ended."}})
                    }
                }
                Format::Anthropic => {
                    let result = if !ran {
                        json!({"type": if phase == Phase::Cancelled { "canceled" } else { "expired" }})
                    } else if line.status == 200 {
                        json!({"type": "succeeded", "message": line.body})
                    } else {
                        json!({"type": "errored", "error": line.body})
                    };
                    json!({"custom_id": line.custom_id, "result": result})
                }
                Format::Gemini => continue,
            };
            out.push(v.to_string());
        }
        let mut text = out.join("\n");
        if !text.is_empty() {
            text.push('\n');
        }
        text
    }

    pub fn ended(&self, now: u64) -> bool {
        matches!(self.phase(now).0, Phase::Completed | Phase::Failed | Phase::Expired | Phase::Cancelled)
    }

    pub fn cancel(&mut self, now: u64) {
        if !self.ended(now) {
            self.cancelled_s = Some(now);
        }
    }
}

/// Every batch and uploaded file the server holds.
#[derive(Debug, Default)]
pub(crate) struct BatchBook {
    pub clock_s: u64,
    pub script: BatchScript,
    /// Uploaded files by id (OpenAI `file-in-…`, Gemini `files/…`).
    pub files: HashMap<String, String>,
    /// Gemini resumable uploads started and not yet finalized: upload id → declared bytes.
    pub uploads: HashMap<String, usize>,
    pub batches: BTreeMap<String, Batch>,
    pub next: u64,
    pub status_checks: u64,
}

impl BatchBook {
    pub fn new_id(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{:06}", self.next)
    }
}

/// The JSONL content of a `multipart/form-data` upload's `file` part.
pub(crate) fn multipart_file(content_type: &str, body: &str) -> Option<String> {
    let boundary = content_type.split(';').find_map(|p| p.trim().strip_prefix("boundary="))?.trim_matches('"');
    let delimiter = format!("--{boundary}");
    body.split(delimiter.as_str()).find_map(|part| {
        let (head, content) = part.split_once("\r\n\r\n")?;
        head.to_ascii_lowercase()
            .contains("name=\"file\"")
            .then(|| content.strip_suffix("\r\n").unwrap_or(content).to_string())
    })
}

/// The lines of a batch's input, each as (custom id, the live request body it carries).
pub(crate) fn input_lines(format: Format, body: &str) -> Result<Vec<(String, Value)>, String> {
    match format {
        Format::OpenAi => body
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                let v: Value = serde_json::from_str(l).map_err(|e| format!("line {}: not JSON: {e}", i + 1))?;
                let id = v["custom_id"].as_str().ok_or(format!("line {}: no custom_id", i + 1))?;
                if v["url"] != "/v1/chat/completions" || v["method"] != "POST" {
                    return Err(format!("line {}: url must be /v1/chat/completions and method POST", i + 1));
                }
                Ok((id.to_string(), v["body"].clone()))
            })
            .collect(),
        Format::Anthropic => {
            let v: Value = serde_json::from_str(body).map_err(|e| format!("the body is not valid JSON: {e}"))?;
            let requests = v["requests"].as_array().ok_or("requests: an array is required")?;
            requests
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let id = r["custom_id"].as_str().ok_or(format!("requests.{i}.custom_id: required"))?;
                    Ok((id.to_string(), r["params"].clone()))
                })
                .collect()
        }
        Format::Gemini => {
            let v: Value = serde_json::from_str(body).map_err(|e| format!("the body is not valid JSON: {e}"))?;
            let requests = v["batch"]["inputConfig"]["requests"]["requests"]
                .as_array()
                .ok_or("batch.inputConfig.requests.requests: an array is required")?;
            requests
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let id = r["metadata"]["key"].as_str().unwrap_or_default().to_string();
                    if id.is_empty() {
                        return Err(format!("requests.{i}.metadata.key: required"));
                    }
                    Ok((id, r["request"].clone()))
                })
                .collect()
        }
    }
}

/// The lines of a Gemini batch input file (`{key, request}` each), as (key, request).
pub(crate) fn gemini_file_lines(text: &str) -> Result<Vec<(String, Value)>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let v: Value = serde_json::from_str(l).map_err(|e| format!("input file line {}: not JSON: {e}", i + 1))?;
            let key = v["key"].as_str().filter(|k| !k.is_empty());
            let key = key.ok_or(format!("input file line {}: key: required", i + 1))?;
            if !v["request"].is_object() {
                return Err(format!("input file line {}: request: an object is required", i + 1));
            }
            Ok((key.to_string(), v["request"].clone()))
        })
        .collect()
}

/// The error every `errored_every`-th line gets.
pub(crate) fn scripted_error() -> ErrorSpec {
    ErrorSpec::new(
        500,
        "The server had an error processing this batch request (mock server).",
        "server_error",
        "api_error",
        "INTERNAL",
    )
}

/// `seconds` since 1970 as an RFC 3339 time in UTC ("1970-01-01T02:00:00Z"): the batch clock's
/// times as Anthropic writes them.
pub fn rfc3339(seconds: u64) -> String {
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = execbench_core::calendar::civil_from_days(days as i64);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest % 3600 / 60, rest % 60)
}
