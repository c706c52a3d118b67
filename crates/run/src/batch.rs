//! A run answered by a provider's batch service: one more way of getting a run's answers. The
//! run's requests (the ones a live run would send, for the samples without a record) are
//! submitted as few batches as the provider's limits allow; their ids and last known states are
//! kept in the run's entry ([`crate::manifest::RunEntry::batches`], never with a key); polling is
//! the caller's, paced by [`next_poll_in_ms`]; collecting turns each ended batch's results into
//! the same [`SampleRecord`]s, scored the same way, as live answers. Costs are at the batch
//! price ([`batch_price`]).

use std::collections::BTreeMap;

use execbench_core::Sample;
use execbench_providers::batch::{self as wire, BatchPhase, BatchResult, BatchStatus};
use execbench_providers::{
    BuiltRequest, Completion, ErrorKind, Message, ProviderError, Usage, WireFormat, build_request,
};
use serde::{Deserialize, Serialize};

use crate::api::{ApiModel, KeyRedactor};
use crate::cost::{Price, SpendCap};
use crate::engine::EvalJob;
use crate::io::{HttpClient, Python, read_all};
use crate::manifest::{PriceUsed, RunEntry, RunState, Tally};
use crate::record::{SampleError, SampleRecord};
use crate::scoring::{Answers, score_sample};
use crate::store::RunStore;

mod retry;
pub use retry::{RetryVia, retry_errors};

/// A batch the provider accepted, as the run store keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubmittedBatch {
    pub id: String,
    /// The lines' custom ids in input order (Gemini's results may come without them).
    pub custom_ids: Vec<String>,
    /// The provider's latest word on it.
    pub status: BatchStatus,
    /// Its results are in the run's records.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub collected: bool,
}

impl SubmittedBatch {
    /// "batch_abc: in progress, 410 answered, 3 failed of 1000 (provider: in_progress)". Failed
    /// counts errored lines, and (once ended) expired or cancelled ones.
    pub fn describe(&self) -> String {
        let s = &self.status;
        let collected = if self.collected { ", collected" } else { "" };
        format!(
            "{}: {}, {} answered, {} failed of {} (provider: {}){collected}",
            self.id,
            s.phase.label(),
            s.succeeded,
            s.failed,
            if s.total == 0 { self.custom_ids.len() as u64 } else { s.total },
            s.provider_state
        )
    }
}

/// The batch price: half the live price (what every provider's batch service charges; the
/// bundled LiteLLM snapshot carries no `*_batches` fields, which would be taken first).
pub fn batch_price(live: Price) -> Price {
    Price {
        input: live.input / 2.0,
        output: live.output / 2.0,
        cached_input: live.cached_input.map(|p| p / 2.0),
        reasoning: live.reasoning.map(|p| p / 2.0),
    }
}

/// The live price a batch price was made from: the inverse of [`batch_price`], for batch runs
/// stored before their manifest kept the live price.
pub fn live_price_of(batch: Price) -> Price {
    Price {
        input: batch.input * 2.0,
        output: batch.output * 2.0,
        cached_input: batch.cached_input.map(|p| p * 2.0),
        reasoning: batch.reasoning.map(|p| p * 2.0),
    }
}

/// Makes `manifest` a batch run's: costs at the batch price, the live price kept beside it for
/// the answers it may ask live later. The page and the CLI both price a new batch run here.
pub fn price_as_batch_run(manifest: &mut crate::manifest::RunManifest) {
    manifest.live_price = manifest.price.clone();
    manifest.price = batch_price_used(manifest.price.take());
}

/// The price a continuation of `entry` asks at (Resume, Extend, Retry errors live: all live): a
/// batch run's live price (kept beside its batch price, or for a run stored before that was
/// kept, its batch price doubled), a live run's own. What a continued run's plan carries.
pub fn live_price_used(entry: &RunEntry) -> Option<PriceUsed> {
    if !entry.is_batch_run() {
        return entry.manifest.price.clone();
    }
    if let Some(live) = &entry.manifest.live_price {
        return Some(live.clone());
    }
    let batch = entry.manifest.price.as_ref()?;
    Some(PriceUsed { price: live_price_of(batch.price), source: format!("{}, doubled: the live price", batch.source) })
}

/// The spend cap a submission is checked against: the run's limit at its batch price, with what
/// its records already cost (answers asked live counted at the live price).
pub fn batch_spend_cap(entry: &RunEntry) -> Option<SpendCap> {
    let (limit, price) = (entry.manifest.spend_cap?, entry.manifest.price.as_ref()?);
    Some(SpendCap { limit, price: price.price, spent_before: entry.cost().unwrap_or(0.0) })
}

/// One line of a batch: the request a live run would send for `sample_index`'s answers from
/// `first_answer` on.
pub struct PlannedLine {
    pub custom_id: String,
    pub sample_index: usize,
    pub request: BuiltRequest,
}

/// The model as a batch asks it: no streaming (results are whole), the template's stop sequences.
fn batch_model(job: &EvalJob, model: &ApiModel) -> ApiModel {
    let mut model = model.clone();
    model.settings.params.stream = false;
    if model.settings.params.stop.is_empty() {
        model.settings.params.stop = job.template.stop.clone();
    }
    model
}

fn messages(job: &EvalJob, sample: &Sample) -> Vec<Message> {
    job.template
        .render(sample)
        .messages
        .iter()
        .map(|m| Message { role: m.role.clone(), content: m.content.clone() })
        .collect()
}

/// Every request of the samples without a record: one line of n choices where the provider takes
/// `n`, else n lines of one.
pub fn plan_lines(job: &EvalJob, model: &ApiModel) -> Result<Vec<PlannedLine>, String> {
    let model = batch_model(job, model);
    wire::batch_supported(&model.settings.endpoint)?;
    let n = job.n.max(1) as u32;
    let per_request = if model.settings.endpoint.supports_n() { n } else { 1 };
    let mut lines = Vec::new();
    for (index, sample) in job.samples.iter().enumerate().filter(|(_, s)| !job.done.contains(&s.id)) {
        let messages = messages(job, sample);
        for first in (0..n).step_by(per_request as usize) {
            let request = build_request(
                &model.settings.endpoint,
                model.key.as_deref(),
                &model.settings.params,
                &messages,
                per_request.min(n - first),
            )?;
            lines.push(PlannedLine { custom_id: wire::custom_id(index, first), sample_index: index, request });
        }
    }
    Ok(lines)
}

/// The spend cap at submission: a batch whose every answer at the token limit could take the
/// run past the cap is not submitted. `Err` says what it could cost. The cap's price is the batch
/// run's own ([`batch_spend_cap`]), already the batch price: it is not halved again.
pub fn check_cap(job: &EvalJob, model: &ApiModel, lines: &[PlannedLine], cap: Option<&SpendCap>) -> Result<(), String> {
    let Some(cap) = cap else { return Ok(()) };
    let price = cap.price;
    let max_tokens = model.settings.params.max_tokens as u64;
    let worst: f64 = lines
        .iter()
        .map(|line| {
            let prompt_bytes: usize =
                messages(job, &job.samples[line.sample_index]).iter().map(|m| m.content.len()).sum();
            price.worst_case(prompt_bytes as u64, 1, line.request.choices as u64, max_tokens)
        })
        .sum();
    if cap.spent_before + worst > cap.limit {
        return Err(format!(
            "not submitted: the batch could cost up to {} at the batch price (every answer at {} tokens), which with {} already spent passes the spend cap of {}",
            crate::cost::format_usd(worst),
            max_tokens,
            crate::cost::format_usd(cap.spent_before),
            crate::cost::format_usd(cap.limit)
        ));
    }
    Ok(())
}

/// Sends one call and reads its whole answer: (status, headers, body), the key redacted.
async fn exchange<H: HttpClient>(
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

/// What one sample got from a batch: its answers (in answer order) and usage, or why not.
#[derive(Clone, Debug, PartialEq)]
pub enum SampleOutcome {
    Answered { texts: Vec<String>, finish_reasons: Vec<Option<String>>, usage: Usage },
    Failed(ProviderError),
}

/// The results of an ended batch, sample by sample: every line of a sample must have answered;
/// a line that errored gives the provider's reason, a line with no result (the batch expired,
/// failed or was cancelled first) says so. Results are matched by custom id, never by order;
/// an id the batch never held is ignored.
pub fn outcomes(batch: &SubmittedBatch, results: Vec<BatchResult>) -> BTreeMap<usize, SampleOutcome> {
    let mut by_id: BTreeMap<String, Result<Completion, ProviderError>> =
        results.into_iter().map(|r| (r.custom_id, r.outcome)).collect();
    let mut lines: BTreeMap<usize, Vec<(u32, String)>> = BTreeMap::new();
    for id in &batch.custom_ids {
        if let Some((sample, first)) = wire::parse_custom_id(id) {
            lines.entry(sample).or_default().push((first, id.clone()));
        }
    }
    let unfinished = || {
        let why = match batch.status.phase {
            BatchPhase::Failed => {
                format!("the batch failed: {}", batch.status.reason.as_deref().unwrap_or("the provider gave no reason"))
            }
            phase => format!("the batch ended ({}) before this request ran", phase.label()),
        };
        ProviderError::new(ErrorKind::Timeout, None, why)
    };
    lines
        .into_iter()
        .map(|(sample, mut ids)| {
            ids.sort();
            let mut texts = Vec::new();
            let mut finish_reasons = Vec::new();
            let mut usage = Usage::default();
            for (_, id) in ids {
                match by_id.remove(&id) {
                    Some(Ok(c)) => {
                        texts.extend(c.texts);
                        finish_reasons.extend(c.finish_reasons);
                        usage.add(&c.usage);
                    }
                    Some(Err(e)) => return (sample, SampleOutcome::Failed(e)),
                    None => return (sample, SampleOutcome::Failed(unfinished())),
                }
            }
            (sample, SampleOutcome::Answered { texts, finish_reasons, usage })
        })
        .collect()
}

/// Reads an ended batch's results and makes its samples' records, scored as live answers are.
/// `Err`: the results could not be read (nothing is recorded; collecting again retries).
pub async fn collect<P: Python, H: HttpClient>(
    job: &EvalJob,
    model: &ApiModel,
    python: &P,
    http: &H,
    batch: &SubmittedBatch,
) -> Result<Vec<SampleRecord>, ProviderError> {
    let model = batch_model(job, model);
    let endpoint = &model.settings.endpoint;
    let redactor = KeyRedactor::new(model.key.as_deref());
    let mut results = Vec::new();
    if batch.status.phase != BatchPhase::Failed {
        let requests = wire::results_requests(endpoint, model.key.as_deref(), &batch.status)
            .map_err(|e| ProviderError::new(ErrorKind::BadRequest, None, e))?;
        let from_files = !batch.status.result_files.is_empty();
        for request in requests {
            let (status, headers, body) = exchange(http, &redactor, &request).await?;
            if status == 404 && from_files {
                // The provider no longer keeps the results file (Gemini: 48 h, OpenAI: 30 days):
                // the lines it held become error records, which Retry errors asks again.
                let gone = execbench_providers::classify_error(endpoint.wire(), status, &headers, &body);
                let why = format!("the batch's results file is gone at the provider (kept for a limited time): {gone}");
                let error = ProviderError::new(ErrorKind::Timeout, Some(404), why);
                let answered: std::collections::HashSet<String> =
                    results.iter().map(|r: &BatchResult| r.custom_id.clone()).collect();
                for id in batch.custom_ids.iter().filter(|id| !answered.contains(*id)) {
                    results.push(BatchResult { custom_id: id.clone(), outcome: Err(error.clone()) });
                }
                continue;
            }
            if !(200..300).contains(&status) {
                return Err(execbench_providers::classify_error(endpoint.wire(), status, &headers, &body));
            }
            for line in wire::parse_results(endpoint.wire(), &body, &batch.custom_ids) {
                match line {
                    Ok(r) => results.push(r),
                    Err(e) => return Err(ProviderError::new(ErrorKind::Unreadable, Some(status), e)),
                }
            }
        }
    }
    // The parameters a live run records (the same for every sample: the conversation is left out).
    let sent = job
        .samples
        .first()
        .and_then(|s| {
            build_request(endpoint, None, &model.settings.params, &messages(job, s), job.n.max(1) as u32).ok()
        })
        .map(|b| b.sent);
    let mut records = Vec::new();
    for (index, outcome) in outcomes(batch, results) {
        let Some(sample) = job.samples.get(index) else { continue };
        let mut record = SampleRecord::new(&sample.id, index);
        record.sent = sent.clone();
        match outcome {
            SampleOutcome::Answered { mut texts, mut finish_reasons, usage } => {
                texts.truncate(job.n);
                finish_reasons.truncate(job.n);
                let prompt = job.template.render(sample);
                let answers = Answers { prompt: Some(prompt.text()), responses: &texts, extracted: false };
                record.results =
                    score_sample(python, sample, job.template.task, &job.modes, answers, &job.options, &mut || {})
                        .await;
                record.usage = Some(usage);
                record.finish_reasons = finish_reasons;
            }
            SampleOutcome::Failed(error) => {
                let error = redactor.error(error);
                record.error = Some(SampleError { kind: Some(error.kind), message: error.to_string() });
            }
        }
        records.push(record);
    }
    Ok(records)
}

/// Sample indices some not yet collected batch still holds.
pub fn pending_samples(batches: &[SubmittedBatch]) -> std::collections::BTreeSet<usize> {
    batches
        .iter()
        .filter(|b| !b.collected)
        .flat_map(|b| b.custom_ids.iter().filter_map(|id| wire::parse_custom_id(id).map(|(s, _)| s)))
        .collect()
}

/// A batch run's price: the live one halved, its source saying so.
pub fn batch_price_used(live: Option<PriceUsed>) -> Option<PriceUsed> {
    live.map(|p| PriceUsed { price: batch_price(p.price), source: format!("{} at the batch price (half)", p.source) })
}

/// What one submission did: the requests sent, the batches accepted, why the rest were not.
pub struct Submission {
    pub requests: usize,
    /// Each accepted batch's id and how many requests it holds.
    pub accepted: Vec<(String, usize)>,
    pub error: Option<ProviderError>,
    /// How the requests went, when the user should know (see [`Submitted::notes`]).
    pub notes: Vec<String>,
}

/// Submits the run's samples with no record and in no batch (the spend cap checked first at the
/// batch price, [`batch_spend_cap`] of `entry`; `job.spend_cap` is a live session's), and stores
/// the entry with the accepted batches, paused until they are collected,
/// whatever the provider said about the rest. The page and the CLI both submit through here.
pub async fn submit_run<S: RunStore, H: HttpClient>(
    store: &S,
    http: &H,
    model: &ApiModel,
    job: &EvalJob,
    entry: &mut RunEntry,
    now_ms: f64,
) -> Result<Submission, String> {
    let mut job = job.clone();
    let pending = pending_samples(&entry.batches);
    let ids: Vec<String> = pending.iter().filter_map(|&i| job.samples.get(i).map(|s| s.id.clone())).collect();
    job.done.extend(ids);
    let lines = plan_lines(&job, model)?;
    if lines.is_empty() {
        return Ok(Submission { requests: 0, accepted: Vec::new(), error: None, notes: Vec::new() });
    }
    check_cap(&job, model, &lines, batch_spend_cap(entry).as_ref())?;
    let requests = lines.len();
    let Submitted { accepted, error, notes } = submit(http, model, lines).await;
    let ids = accepted.iter().map(|b| (b.id.clone(), b.custom_ids.len())).collect();
    entry.batches.extend(accepted);
    entry.state = RunState::Paused;
    entry.note = Some(match &error {
        None => waiting_summary(&entry.batches).unwrap_or_else(|| format!("submitted {requests} requests in batches")),
        Some(e) => format!("the provider refused the batch: {e}"),
    });
    entry.updated_ms = now_ms;
    store.save_entry(entry).await.map_err(|e| format!("the run could not be stored: {e}"))?;
    Ok(Submission { requests, accepted: ids, error, notes })
}

/// "submitted: 1 batch, 3,200 / 4,000 done, provider says in_progress" for the batches not yet
/// collected; `None` when every batch is collected.
pub fn waiting_summary(batches: &[SubmittedBatch]) -> Option<String> {
    let waiting: Vec<&SubmittedBatch> = batches.iter().filter(|b| !b.collected).collect();
    if waiting.is_empty() {
        return None;
    }
    let done: u64 = waiting.iter().map(|b| b.status.succeeded + b.status.failed).sum();
    let total: u64 =
        waiting.iter().map(|b| if b.status.total == 0 { b.custom_ids.len() as u64 } else { b.status.total }).sum();
    let mut states: Vec<&str> = waiting.iter().map(|b| b.status.provider_state.as_str()).collect();
    states.sort_unstable();
    states.dedup();
    Some(format!(
        "submitted: {} batch{}, {} / {} done, provider says {}",
        waiting.len(),
        if waiting.len() == 1 { "" } else { "es" },
        thousands(done),
        thousands(total),
        states.join(", ")
    ))
}

/// 3200 → "3,200".
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What one check of a batch run found.
#[derive(Default)]
pub struct Check {
    /// A batch's state changed or one was collected (the polling back-off starts again).
    pub changed: bool,
    /// The longest wait a provider asked for.
    pub retry_after_ms: Option<u64>,
    /// Batches collected now, described.
    pub collected: Vec<String>,
    /// Batches that could not be checked or collected (collecting again retries).
    pub problems: Vec<String>,
}

/// A stored batch run as Check now, `--resume` and Stop work on it: its I/O (the store, Python
/// for scoring, HTTP) and its state (the model with its key, the job, the entry and the records
/// so far, both kept up to date).
pub struct StoredBatchRun<'a, S, P, H> {
    pub store: &'a S,
    pub python: &'a P,
    pub http: &'a H,
    pub model: &'a ApiModel,
    pub job: &'a EvalJob,
    pub entry: &'a mut RunEntry,
    pub records: &'a mut Vec<SampleRecord>,
}

/// Asks the provider once about every batch not yet collected and collects the ended ones: each
/// record stored with the entry (`put_record`), scored as live answers are. When none waits, the
/// run is finished (or paused, naming the samples without a record).
pub async fn check_run<S: RunStore, P: Python, H: HttpClient>(
    run: &mut StoredBatchRun<'_, S, P, H>,
    now_ms: f64,
) -> Result<Check, String> {
    let StoredBatchRun { store, python, http, model, job, .. } = *run;
    let (entry, records) = (&mut *run.entry, &mut *run.records);
    let mut check = Check::default();
    let stored = |e: crate::store::StoreError| format!("the run could not be stored: {e}");
    for i in 0..entry.batches.len() {
        if entry.batches[i].collected {
            continue;
        }
        let before = entry.batches[i].status.clone();
        if !before.phase.ended()
            && let Err(e) = refresh(http, model, &mut entry.batches[i]).await
        {
            check.problems.push(format!("cannot check batch {}: {e}", entry.batches[i].id));
            check.retry_after_ms = check.retry_after_ms.max(e.retry_after_ms);
            continue;
        }
        check.changed |= entry.batches[i].status != before;
        let batch = entry.batches[i].clone();
        if !batch.status.phase.ended() {
            continue;
        }
        match collect(job, model, python, http, &batch).await {
            Ok(collected) => {
                for record in collected {
                    records.retain(|r| r.sample_id != record.sample_id);
                    records.push(record.clone());
                    entry.tally = Tally::of(records.iter());
                    store.put_record(entry, &record).await.map_err(stored)?;
                }
                entry.batches[i].collected = true;
                check.changed = true;
                check.collected.push(entry.batches[i].describe());
            }
            Err(e) => check.problems.push(format!("cannot collect batch {} yet: {e}", batch.id)),
        }
    }
    entry.updated_ms = now_ms;
    match waiting_summary(&entry.batches) {
        Some(summary) => entry.note = Some(summary),
        None => {
            let missing = job.samples.len().saturating_sub(records.len());
            entry.state = if missing == 0 { RunState::Finished } else { RunState::Paused };
            entry.note = (missing > 0).then(|| format!("{missing} samples have no record: submit them again"));
        }
    }
    store.save_entry(entry).await.map_err(stored)?;
    Ok(check)
}

/// Cancels every batch of the run still running: one line per batch, what it is now or why it
/// could not be cancelled. What finished stays collectable.
pub async fn cancel_batches<H: HttpClient>(
    http: &H,
    model: &ApiModel,
    batches: &mut [SubmittedBatch],
) -> Vec<Result<String, String>> {
    let mut said = Vec::new();
    for b in batches.iter_mut().filter(|b| !b.collected && !b.status.phase.ended()) {
        said.push(match cancel(http, model, b).await {
            Ok(()) => Ok(b.describe()),
            Err(e) => Err(format!("cannot cancel batch {}: {e}", b.id)),
        });
    }
    said
}

/// Stop on a batch run: its running batches cancelled at the provider, then one check that
/// collects what ended (what finished before the cancel is kept, the rest are error records).
pub async fn stop_run<S: RunStore, P: Python, H: HttpClient>(
    run: &mut StoredBatchRun<'_, S, P, H>,
    now_ms: f64,
) -> Result<Check, String> {
    let cancelled = cancel_batches(run.http, run.model, &mut run.entry.batches).await;
    let mut check = check_run(run, now_ms).await?;
    let refused = cancelled.into_iter().filter_map(Result::err);
    check.problems.splice(0..0, refused);
    Ok(check)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polls_back_off_and_honour_retry_after() {
        // (unchanged checks, Retry-After ms, wait ms)
        let cases = [
            (0, None, 30_000),
            (1, None, 60_000),
            (3, None, 240_000),
            (5, None, 600_000),
            (40, None, 600_000),
            (0, Some(90_000), 90_000),
            (5, Some(1_000), 600_000),
        ];
        for (checks, retry_after, wait) in cases {
            assert_eq!(next_poll_in_ms(checks, retry_after), wait, "{checks} {retry_after:?}");
        }
    }

    #[test]
    fn batch_price_is_half_of_each_part() {
        let live = Price { input: 2e-6, output: 8e-6, cached_input: Some(1e-6), reasoning: None };
        let half = batch_price(live);
        assert_eq!(half, Price { input: 1e-6, output: 4e-6, cached_input: Some(0.5e-6), reasoning: None });
        let usage = Usage { prompt_tokens: 1000, completion_tokens: 100, reasoning_tokens: 0, cached_tokens: 0 };
        assert!((half.cost(&usage) * 2.0 - live.cost(&usage)).abs() < 1e-12);
    }

    fn completion(text: &str, prompt: u64) -> Result<Completion, ProviderError> {
        Ok(Completion {
            texts: vec![text.into()],
            finish_reasons: vec![Some("stop".into())],
            usage: Usage { prompt_tokens: prompt, completion_tokens: 1, ..Usage::default() },
            model: None,
        })
    }

    /// Results in any order become each sample's answers in answer order; an errored line fails
    /// its sample with the provider's reason; a line with no result says how the batch ended.
    #[test]
    fn results_become_per_sample_outcomes() {
        let ids: Vec<String> =
            [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)].iter().map(|&(s, a)| wire::custom_id(s, a)).collect();
        let status = BatchStatus {
            id: "b".into(),
            phase: BatchPhase::Expired,
            provider_state: "expired".into(),
            total: 6,
            succeeded: 3,
            failed: 1,
            result_files: vec![],
            reason: None,
        };
        let batch = SubmittedBatch { id: "b".into(), custom_ids: ids, status, collected: false };
        let result = |id: &str, outcome| BatchResult { custom_id: id.into(), outcome };
        let results = vec![
            result("s0-a1", completion("second", 5)),
            result("s1-a0", completion("x", 5)),
            result("s0-a0", completion("first", 5)),
            result("s1-a1", Err(ProviderError::new(ErrorKind::BadRequest, Some(400), "prompt is too long"))),
            result("s2-a0", completion("only one", 5)),
            result("s9-a0", completion("not in this batch", 5)),
        ];
        let got = outcomes(&batch, results);
        assert_eq!(got.len(), 3);
        match &got[&0] {
            SampleOutcome::Answered { texts, usage, .. } => {
                assert_eq!(texts, &["first", "second"]);
                assert_eq!((usage.prompt_tokens, usage.completion_tokens), (10, 2));
            }
            other => panic!("{other:?}"),
        }
        let failed = |i: usize| match &got[&i] {
            SampleOutcome::Failed(e) => e.to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(failed(1), "bad request (400): prompt is too long");
        assert!(failed(2).contains("the batch ended (expired) before this request ran"), "{}", failed(2));
    }

    fn waiting(id: &str, state: &str, total: u64, done: u64, collected: bool) -> SubmittedBatch {
        SubmittedBatch {
            id: id.into(),
            custom_ids: (0..total).map(|i| wire::custom_id(i as usize, 0)).collect(),
            status: BatchStatus {
                id: id.into(),
                phase: BatchPhase::InProgress,
                provider_state: state.into(),
                total,
                succeeded: done,
                failed: 0,
                result_files: Vec::new(),
                reason: None,
            },
            collected,
        }
    }

    /// A continued run asks live: a batch run's plan carries its live price, never its batch price.
    #[test]
    fn a_continued_batch_run_is_priced_live() {
        let price = |input: f64, source: &str| PriceUsed {
            price: Price { input, output: input * 4.0, cached_input: None, reasoning: None },
            source: source.into(),
        };
        let entry = |price_: Option<PriceUsed>, live: Option<PriceUsed>, batches: Vec<SubmittedBatch>| {
            let mut manifest = crate::store::conformance::manifest("r", 1);
            manifest.price = price_;
            manifest.live_price = live;
            let mut entry = RunEntry::new(manifest, 0.0);
            entry.batches = batches;
            entry
        };
        // (entry, the price a continuation carries)
        let cases = [
            (entry(Some(price(1.0, "live")), None, vec![]), Some(price(1.0, "live"))),
            (entry(Some(price(0.5, "b")), Some(price(1.0, "kept live")), vec![]), Some(price(1.0, "kept live"))),
            (
                entry(Some(price(0.5, "b")), None, vec![waiting("a", "x", 1, 0, true)]),
                Some(price(1.0, "b, doubled: the live price")),
            ),
            (entry(None, None, vec![waiting("a", "x", 1, 0, true)]), None),
        ];
        for (entry, want) in cases {
            assert_eq!(live_price_used(&entry), want);
        }
    }

    /// What the Runs page and the CLI say about the batches still waiting.
    #[test]
    fn waiting_batches_are_summed_with_the_providers_word() {
        let cases: [(Vec<SubmittedBatch>, Option<&str>); 4] = [
            (vec![], None),
            (vec![waiting("a", "completed", 10, 10, true)], None),
            (
                vec![waiting("a", "in_progress", 4000, 3200, false)],
                Some("submitted: 1 batch, 3,200 / 4,000 done, provider says in_progress"),
            ),
            (
                vec![
                    waiting("a", "in_progress", 50_000, 1_234_567 % 50_000, false),
                    waiting("b", "validating", 500, 0, false),
                    waiting("c", "completed", 9, 9, true),
                ],
                Some("submitted: 2 batches, 34,567 / 50,500 done, provider says in_progress, validating"),
            ),
        ];
        for (batches, want) in cases {
            assert_eq!(waiting_summary(&batches).as_deref(), want);
        }
    }
}
