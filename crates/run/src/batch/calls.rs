//! The batch service's HTTP calls: upload (where the provider takes a file), submit in as few
//! batches as its limits allow, refresh a batch's state, cancel; and how often to poll.

use execbench_providers::BuiltRequest;
use execbench_providers::ErrorKind;
use execbench_providers::ProviderError;
use execbench_providers::WireFormat;
use execbench_providers::batch::{self as wire};

use super::plan::PlannedLine;
use crate::api::ApiModel;
use crate::api::KeyRedactor;
use crate::io::HttpClient;
use crate::io::read_all;
use crate::manifest::batch_run::SubmittedBatch;

/// Sends one call and reads its whole answer: (status, headers, body), the key redacted.
pub(super) async fn exchange<H: HttpClient>(
    http: &H,
    redactor: &KeyRedactor,
    request: &execbench_providers::HttpRequest,
) -> Result<(u16, Vec<(String, String)>, String), ProviderError> {
    let mut head = http.send(request).await.map_err(|e| redactor.error(e))?;
    let body = read_all(&mut head.body).await.map_err(|e| redactor.error(e))?;
    Ok((head.status, head.headers, redactor.text(&String::from_utf8_lossy(&body))))
}

/// What [`submit`] did: the batches accepted (kept either way: they are paid for), the error that
/// stopped the rest, and what the user should know about how they went (an input file, or inline
/// batches where a file could not be uploaded).
pub struct Submitted {
    pub accepted: Vec<SubmittedBatch>,
    pub error: Option<ProviderError>,
    pub notes: Vec<String>,
}

/// "19 MB", or "4000 bytes" below a megabyte (a threshold lowered for tests).
fn megabytes(bytes: usize) -> String {
    if bytes >= 1_000_000 { format!("{} MB", bytes / 1_000_000) } else { format!("{bytes} bytes") }
}

/// The most calls one upload takes (Gemini's resumable upload: start, then the bytes).
const UPLOAD_CALLS: usize = 2;

/// Uploads `input` when it is a file: the uploaded file's id, or None for an input sent inline.
async fn upload<H: HttpClient>(
    http: &H,
    model: &ApiModel,
    redactor: &KeyRedactor,
    input: &wire::BatchInput,
) -> Result<Option<String>, ProviderError> {
    let endpoint = &model.settings.endpoint;
    let bad = |message: String| ProviderError::new(ErrorKind::BadRequest, None, redactor.text(&message));
    let mut next = wire::upload_request(endpoint, model.key.as_deref(), input).map_err(bad)?;
    for _ in 0..UPLOAD_CALLS {
        let Some(request) = next.take() else { break };
        let (status, headers, body) = exchange(http, redactor, &request).await?;
        match wire::parse_upload(endpoint, input, status, &headers, &body)? {
            wire::Uploaded::File(id) => return Ok(Some(id)),
            wire::Uploaded::Next(request) => next = Some(request),
        }
    }
    match next {
        None => Ok(None),
        Some(_) => Err(bad(format!("the upload did not end in {UPLOAD_CALLS} calls"))),
    }
}

/// Submits `lines` as few batches as the provider's limits allow. A Gemini input file the client
/// cannot upload (a browser the upload's answer is not exposed to: `Blocked`) is sent as inline
/// batches instead, and a note says so.
pub async fn submit<H: HttpClient>(http: &H, model: &ApiModel, lines: Vec<PlannedLine>) -> Submitted {
    let endpoint = &model.settings.endpoint;
    let key = model.key.as_deref();
    let redactor = KeyRedactor::new(key);
    let wire_format = endpoint.wire();
    let pairs: Vec<(String, BuiltRequest)> = lines.into_iter().map(|l| (l.custom_id, l.request)).collect();
    let bad = |message: String| ProviderError::new(ErrorKind::BadRequest, None, redactor.text(&message));
    let mut done = Submitted { accepted: Vec::new(), error: None, notes: Vec::new() };
    let mut inputs: std::collections::VecDeque<wire::BatchInput> = match wire::batch_inputs(endpoint, &pairs) {
        Ok(inputs) => inputs.into(),
        Err(e) => {
            done.error = Some(bad(e));
            return done;
        }
    };
    while let Some(input) = inputs.pop_front() {
        let step = async {
            let file_id = upload(http, model, &redactor, &input).await?;
            let create = wire::create_request(endpoint, key, &input, file_id.as_deref()).map_err(bad)?;
            let (status, headers, body) = exchange(http, &redactor, &create).await?;
            Ok::<_, ProviderError>((file_id, wire::parse_status(wire_format, status, &headers, &body)?))
        };
        match step.await {
            Ok((file_id, status)) => {
                if let (WireFormat::Gemini, Some(file)) = (wire_format, &file_id) {
                    done.notes.push(format!(
                        "batch {}: its {} requests went as the input file {file} (more than the {} of inline requests a Gemini batch is sent with)",
                        status.id,
                        input.custom_ids.len(),
                        megabytes(wire::gemini_inline_max_bytes())
                    ));
                }
                done.accepted.push(SubmittedBatch {
                    id: status.id.clone(),
                    custom_ids: input.custom_ids,
                    status,
                    collected: false,
                })
            }
            Err(e) if input.file && wire_format == WireFormat::Gemini && e.kind == ErrorKind::Blocked => {
                let ids: std::collections::HashSet<&String> = input.custom_ids.iter().collect();
                let rest: Vec<(String, BuiltRequest)> =
                    pairs.iter().filter(|(id, _)| ids.contains(id)).cloned().collect();
                match wire::inline_inputs(endpoint, &rest) {
                    Ok(inline) => {
                        done.notes.push(format!(
                            "the input file of {} requests could not be uploaded from here ({e}): they went as {} inline batch{} of up to {} instead",
                            rest.len(),
                            inline.len(),
                            if inline.len() == 1 { "" } else { "es" },
                            megabytes(wire::gemini_inline_max_bytes())
                        ));
                        for one in inline.into_iter().rev() {
                            inputs.push_front(one);
                        }
                    }
                    Err(message) => {
                        done.error = Some(bad(message));
                        return done;
                    }
                }
            }
            Err(e) => {
                done.error = Some(e);
                return done;
            }
        }
    }
    done
}

/// Sends one call about one batch (its status, or its cancelling) and keeps the provider's answer
/// in `batch`. `call` builds the request from the endpoint, key and batch id.
async fn batch_call<H: HttpClient>(
    http: &H,
    model: &ApiModel,
    batch: &mut SubmittedBatch,
    call: fn(&execbench_providers::Endpoint, Option<&str>, &str) -> Result<execbench_providers::HttpRequest, String>,
) -> Result<(), ProviderError> {
    let endpoint = &model.settings.endpoint;
    let redactor = KeyRedactor::new(model.key.as_deref());
    let request = call(endpoint, model.key.as_deref(), &batch.id)
        .map_err(|e| ProviderError::new(ErrorKind::BadRequest, None, e))?;
    let (status, headers, body) = exchange(http, &redactor, &request).await?;
    batch.status = wire::parse_status(endpoint.wire(), status, &headers, &body)?;
    Ok(())
}

/// Asks the provider where one batch stands and keeps its answer in `batch`.
pub async fn refresh<H: HttpClient>(
    http: &H,
    model: &ApiModel,
    batch: &mut SubmittedBatch,
) -> Result<(), ProviderError> {
    batch_call(http, model, batch, wire::status_request).await
}

/// Cancels one batch at the provider (what finished stays collectable).
pub async fn cancel<H: HttpClient>(
    http: &H,
    model: &ApiModel,
    batch: &mut SubmittedBatch,
) -> Result<(), ProviderError> {
    batch_call(http, model, batch, wire::cancel_request).await
}

/// How long to wait before the next check: 30 s, doubling with each check that found nothing
/// new, at most 10 minutes; a provider's Retry-After wins when longer.
pub fn next_poll_in_ms(unchanged_checks: u32, retry_after_ms: Option<u64>) -> u64 {
    let backoff = 30_000u64.saturating_mul(1 << unchanged_checks.min(5)).min(600_000);
    backoff.max(retry_after_ms.unwrap_or(0))
}
