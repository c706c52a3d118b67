//! A batch run as a stored run: submitting its missing samples, checking and collecting its
//! batches into the store, stopping it; what the page and the CLI both call.

use execbench_providers::ProviderError;

use super::calls::{Submitted, cancel, refresh, submit};
use super::plan::{check_cap, plan_lines};
use super::results::{collect, pending_samples};
use crate::api::ApiModel;
use crate::engine::EvalJob;
use crate::io::HttpClient;
use crate::io::Python;
use crate::manifest::RunEntry;
use crate::manifest::RunState;
use crate::manifest::Tally;
use crate::manifest::batch_run::SubmittedBatch;
use crate::manifest::batch_run::batch_spend_cap;
use crate::record::SampleRecord;
use crate::store::RunStore;

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
    // A full store leaves the batch uncollected (its results wait at the provider): the way on is
    // Check now once there is room, not Resume, which a live run would need.
    let stored = |e: crate::store::StoreError| match e.kind {
        crate::store::StoreErrorKind::Quota => format!(
            "the storage is full [{}]: the batch was not collected and its results stay at the provider for now; free some space (delete old runs) and press Check now",
            e.message
        ),
        _ => format!("the run could not be stored: {e}"),
    };
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
