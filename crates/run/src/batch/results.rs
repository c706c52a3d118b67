//! An ended batch's results turned into the run's records, scored as live answers are; which
//! samples still wait on a batch.

use std::collections::BTreeMap;

use execbench_providers::Completion;
use execbench_providers::ErrorKind;
use execbench_providers::ProviderError;
use execbench_providers::Usage;
use execbench_providers::batch::BatchPhase;
use execbench_providers::batch::BatchResult;
use execbench_providers::batch::{self as wire};
use execbench_providers::build_request;

use super::calls::exchange;
use super::plan::{batch_model, messages};
use crate::api::ApiModel;
use crate::api::KeyRedactor;
use crate::engine::EvalJob;
use crate::io::HttpClient;
use crate::io::Python;
use crate::manifest::batch_run::SubmittedBatch;
use crate::record::SampleError;
use crate::record::SampleRecord;
use crate::scoring::Answers;
use crate::scoring::score_sample;

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
