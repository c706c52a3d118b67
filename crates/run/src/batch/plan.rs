//! A batch's lines: the requests a live run would send for the samples without a record, and the
//! spend cap checked before any is submitted.

use execbench_core::Sample;
use execbench_providers::BuiltRequest;
use execbench_providers::Message;
use execbench_providers::batch::{self as wire};
use execbench_providers::build_request;

use crate::api::ApiModel;
use crate::cost::SpendCap;
use crate::engine::EvalJob;

/// One line of a batch: the request a live run would send for `sample_index`'s answers from
/// `first_answer` on.
pub struct PlannedLine {
    pub custom_id: String,
    pub sample_index: usize,
    pub request: BuiltRequest,
}

/// The model as a batch asks it: no streaming (results are whole), the template's stop sequences.
pub(super) fn batch_model(job: &EvalJob, model: &ApiModel) -> ApiModel {
    let mut model = model.clone();
    model.settings.params.stream = false;
    if model.settings.params.stop.is_empty() {
        model.settings.params.stop = job.template.stop.clone();
    }
    model
}

pub(super) fn messages(job: &EvalJob, sample: &Sample) -> Vec<Message> {
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
