//! Batch runs on the page: the user's Batch choice submits a plan through
//! `execbench_run::batch::submit_run`; on the Runs page, Check now asks the provider once
//! (`check_run`, collecting what ended), Stop cancels the batches and collects what finished
//! (`stop_run`), and Retry errors submits the error records as a new batch (`retry_errors`,
//! `submit_run`). The batch logic is the library's, the same the command line uses; this job only
//! hands it the browser's store, `fetch` and worker, and keeps which runs may be polled
//! ([`BatchPolling`]).

use std::collections::BTreeMap;

use execbench_core::Sample;
use execbench_providers::KeyScope;
use execbench_run::Responder;
use execbench_run::api::ApiModel;
use execbench_run::batch::{self, RetryVia};
use execbench_run::manifest::RunEntry;
use execbench_run::session::{self, Continue};
use execbench_run::store::RunStore;
use leptos::prelude::*;

use super::Runs;
use super::plan::{RunPlan, Shown, new_entry};
use crate::browser::fetch::FetchHttp;
use crate::browser::python::PythonWorker;

/// Lowers the size past which a Gemini batch goes as an input file instead of inline requests
/// (19 MB), from `localStorage["execbench.gemini-inline-bytes"]`: the page's counterpart of the
/// command line's `EXECBENCH_GEMINI_INLINE_BYTES`, so that a test can send a small run through
/// the file path. Read once at start; a value that is not a number of bytes above 0 is ignored
/// with a console warning.
pub fn apply_gemini_inline_override() {
    const KEY: &str = "execbench.gemini-inline-bytes";
    let Some(value) = crate::browser::storage::get(KEY) else { return };
    match value.trim().parse::<usize>().ok().filter(|b| *b > 0) {
        Some(bytes) => execbench_providers::batch::set_gemini_inline_max_bytes(Some(bytes)),
        None => {
            web_sys::console::warn_1(&format!("{KEY}: \"{value}\" is not a number of bytes above 0; ignored").into())
        }
    }
}

/// Which batch runs the Runs page polls: only those the user gave the key for in this page
/// session (a submission or Check now), so a reload never polls by itself. Their keys are kept in
/// memory only, as the forms keep them.
#[derive(Clone, Copy)]
pub struct BatchPolling {
    /// Run id → the provider and origin the key was given for, and the key (`None`: its server
    /// takes none). A poll goes only while the run still names that scope: a run deleted and one
    /// of the same id imported in its place, pointing elsewhere, is never asked with this key.
    armed: StoredValue<BTreeMap<String, (KeyScope, Option<String>)>, LocalStorage>,
    /// Run id → seconds until its next check, for its row.
    pub next_check_s: RwSignal<BTreeMap<String, u64>>,
    /// Bumped each time the Runs page is shown or left: a loop of an older showing ends.
    showing: StoredValue<u64>,
    /// Run id → the showing its loop belongs to (one loop per run).
    loops: StoredValue<BTreeMap<String, u64>>,
    /// Runs this tab is checking, stopping or resubmitting now (holding their lock): a click or
    /// a poll meanwhile is told so, not refused as if another tab held the lock.
    working: StoredValue<std::collections::BTreeSet<String>>,
}

/// This tab works on a run's batches until dropped (see [`BatchPolling::working`]).
struct Working {
    polling: BatchPolling,
    run_id: String,
}

impl Drop for Working {
    fn drop(&mut self) {
        self.polling.working.update_value(|w| {
            w.remove(&self.run_id);
        });
    }
}

impl BatchPolling {
    pub fn new() -> BatchPolling {
        BatchPolling {
            armed: StoredValue::new_local(BTreeMap::new()),
            next_check_s: RwSignal::new(BTreeMap::new()),
            showing: StoredValue::new(0),
            loops: StoredValue::new(BTreeMap::new()),
            working: StoredValue::new(Default::default()),
        }
    }

    /// Marks `run_id` as worked on by this tab; refused while it already is.
    fn start_work(self, run_id: &str) -> Result<Working, String> {
        let mut fresh = false;
        self.working.update_value(|w| fresh = w.insert(run_id.to_string()));
        match fresh {
            true => Ok(Working { polling: self, run_id: run_id.to_string() }),
            false => Err(format!("{run_id}: this tab is already asking the provider about it; wait a moment")),
        }
    }

    /// The user gave the key for `entry` (or it needs none): it may be polled while Runs is
    /// shown, as long as the run names the provider and origin it names now.
    pub fn arm(self, entry: &RunEntry, key: Option<String>) {
        let Some(scope) = entry.key_scope() else { return };
        self.armed.update_value(|a| {
            a.insert(entry.id().to_string(), (scope, key));
        });
    }

    /// `run_id` is not polled any more (its batches are collected, or it was deleted).
    pub fn disarm(self, run_id: &str) {
        self.armed.update_value(|a| {
            a.remove(run_id);
        });
        self.next_check_s.update(|n| {
            n.remove(run_id);
        });
    }

    /// The Runs page is shown (`true`) or left: loops of an earlier showing end at their next wake.
    pub fn shown(self, shown: bool) -> u64 {
        self.showing.update_value(|s| *s += 1);
        if !shown {
            self.next_check_s.set(BTreeMap::new());
        }
        self.showing.get_value()
    }

    /// Starts a polite loop for every armed run without one in this showing: checks paced by
    /// `next_poll_in_ms` (back-off while nothing changes, the provider's Retry-After), until every
    /// batch is collected, the page is left or the tab closes. `samples`: the loaded dataset's.
    pub fn poll(self, runs: Runs, python: PythonWorker, samples: impl Fn() -> Option<Vec<Sample>> + Copy + 'static) {
        let showing = self.showing.get_value();
        let ids: Vec<String> = self.armed.with_value(|a| a.keys().cloned().collect());
        for id in ids {
            if self.loops.with_value(|l| l.get(&id) == Some(&showing)) {
                continue;
            }
            self.loops.update_value(|l| {
                l.insert(id.clone(), showing);
            });
            let python = python.clone();
            leptos::task::spawn_local(async move {
                let (mut unchanged, mut retry_after) = (0u32, None);
                loop {
                    let wait = batch::next_poll_in_ms(unchanged, retry_after);
                    self.next_check_s.update(|n| {
                        n.insert(id.clone(), wait / 1000);
                    });
                    crate::browser::clock::Sleep::new(wait).await;
                    let still = self.showing.get_value() == showing;
                    let Some((scope, key)) = self.armed.with_value(|a| a.get(&id).cloned()) else { break };
                    let entry = runs.entry(&id).filter(|e| batch::waiting_summary(&e.batches).is_some());
                    let (true, Some(entry)) = (still, entry) else { break };
                    // Checked before every poll: the key goes only where it was given for.
                    if entry.key_scope().as_ref() != Some(&scope) {
                        self.disarm(&id);
                        break;
                    }
                    let Some(samples) = samples() else { continue };
                    match check_once(runs, python.clone(), entry, &samples, key).await {
                        Ok((_, check)) => {
                            unchanged = if check.changed { 0 } else { unchanged + 1 };
                            retry_after = check.retry_after_ms;
                        }
                        Err(_) => unchanged += 1,
                    }
                }
                self.loops.update_value(|l| {
                    if l.get(&id) == Some(&showing) {
                        l.remove(&id);
                    }
                });
                if runs.entry(&id).is_none_or(|e| batch::waiting_summary(&e.batches).is_none()) {
                    self.disarm(&id);
                } else if self.showing.get_value() == showing {
                    self.next_check_s.update(|n| {
                        n.remove(&id);
                    });
                }
            });
        }
    }
}

impl Default for BatchPolling {
    fn default() -> Self {
        BatchPolling::new()
    }
}

/// Submits `plan` as a new batch run (costs and the spend cap at the batch price,
/// `batch::batch_spend_cap`) and stores it
/// waiting for its batches. Returns what to tell the user.
pub async fn submit(runs: Runs, plan: RunPlan, dataset: String) -> Result<String, String> {
    let RunPlan { responder, job, price, .. } = plan;
    let Responder::Api(model) = &responder else {
        return Err("a batch is for model APIs: an offline model answers at once".into());
    };
    crate::browser::offline::refuse_when_offline()?;
    let mut entry = new_entry(&responder, &job, &Shown::default(), dataset, None, price);
    // Costs and the spend cap at the batch price; the live price kept for answers asked live.
    batch::price_as_batch_run(&mut entry.manifest);
    let store = runs.store().await;
    let submission = batch::submit_run(&*store, &FetchHttp, model, &job, &mut entry, js_sys::Date::now()).await;
    runs.refresh_storage();
    let submission = submission?;
    runs.show(entry.clone());
    runs.polling.arm(&entry, model.key.clone());
    if let Some(e) = submission.error {
        return Err(format!("{}: the provider refused the batch: {e}", entry.id()));
    }
    Ok(format!(
        "{}: {} requests submitted in {}.{} The run waits for them on the Runs page (Check now).",
        entry.id(),
        submission.requests,
        batches(submission.accepted.len()),
        notes(&submission.notes)
    ))
}

/// " Note. Note." after a sentence: how the requests went (an input file, or inline batches
/// where this browser could not upload one).
fn notes(notes: &[String]) -> String {
    notes.iter().map(|n| format!(" {n}.")).collect()
}

fn batches(count: usize) -> String {
    if count == 1 { "1 batch".to_string() } else { format!("{count} batches") }
}

/// The stored run's model with `key` (refused, naming why, without one it needs).
fn model_of(entry: &RunEntry, key: Option<String>) -> Result<ApiModel, String> {
    match session::stored_responder(&entry.manifest, key)? {
        Responder::Api(model) => Ok(model),
        _ => Err(format!("{} has no model API to ask", entry.id())),
    }
}

/// What the Runs page does with a batch run's batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchAction {
    /// Check now: ask once, collect what ended.
    Check,
    /// Stop: cancel the running batches, collect what finished.
    Stop,
}

/// One check (or Stop) of a stored batch run: asks the provider about its batches and collects
/// the ended ones. `dataset`: the samples loaded now (the run's first samples, same content hash).
async fn check_once(
    runs: Runs,
    python: PythonWorker,
    entry: RunEntry,
    dataset: &[Sample],
    key: Option<String>,
) -> Result<(String, batch::Check), String> {
    check_or_stop(runs, python, entry, dataset, key, BatchAction::Check).await
}

async fn check_or_stop(
    runs: Runs,
    python: PythonWorker,
    entry: RunEntry,
    dataset: &[Sample],
    key: Option<String>,
    action: BatchAction,
) -> Result<(String, batch::Check), String> {
    // The run's lock, as a tab driving it holds it: two tabs never collect one run at once.
    let _working = runs.polling.start_work(entry.id())?;
    let _lock = runs.hold_unless_driven_elsewhere(entry.id()).await?;
    let store = runs.store().await;
    // Read again under the lock: another tab may have collected batches since the list was read.
    let entry = store.entry(entry.id()).await.map_err(|e| e.to_string())?.unwrap_or(entry);
    let records = store.records(entry.id()).await.map_err(|e| e.to_string())?;
    let plan = session::continuation(&entry, records, dataset, Continue::Resume, None)?;
    let model = model_of(&plan.entry, key)?;
    crate::browser::offline::refuse_when_offline()?;
    let (mut entry, mut records) = (plan.entry, plan.earlier);
    let python = python.new_job();
    let mut run = batch::StoredBatchRun {
        store: &*store,
        python: &python,
        http: &FetchHttp,
        model: &model,
        job: &plan.job,
        entry: &mut entry,
        records: &mut records,
    };
    let now = js_sys::Date::now();
    let check = match action {
        BatchAction::Check => batch::check_run(&mut run, now).await,
        BatchAction::Stop => batch::stop_run(&mut run, now).await,
    };
    runs.show(entry.clone());
    runs.refresh_storage();
    let check = check?;
    let mut said = match batch::waiting_summary(&entry.batches) {
        Some(summary) => format!("{}: {summary}", entry.id()),
        None => format!(
            "{}: every batch collected, {} of {} samples recorded",
            entry.id(),
            records.len(),
            plan.job.samples.len()
        ),
    };
    if !check.problems.is_empty() {
        said.push_str(&format!(" ({})", check.problems.join("; ")));
    }
    Ok((said, check))
}

/// Check now or Stop on a stored batch run; the run is polled from then on while Runs is shown.
/// Returns what to tell the user.
pub async fn check(
    runs: Runs,
    python: PythonWorker,
    entry: RunEntry,
    dataset: &[Sample],
    key: Option<String>,
    action: BatchAction,
) -> Result<String, String> {
    let checked = entry.clone();
    let said = check_or_stop(runs, python, entry, dataset, key.clone(), action).await?.0;
    if action == BatchAction::Check {
        runs.polling.arm(&checked, key);
    }
    Ok(said)
}

/// Retry errors of a batch run as a new batch of the same run: its error records (errored,
/// expired, cancelled lines) and samples without a record, never the samples still waiting.
pub async fn retry_as_batch(
    runs: Runs,
    entry: RunEntry,
    dataset: &[Sample],
    key: Option<String>,
) -> Result<String, String> {
    let _working = runs.polling.start_work(entry.id())?;
    let _lock = runs.hold_unless_driven_elsewhere(entry.id()).await?;
    let store = runs.store().await;
    let entry = store.entry(entry.id()).await.map_err(|e| e.to_string())?.unwrap_or(entry);
    let records = store.records(entry.id()).await.map_err(|e| e.to_string())?;
    let mut plan = batch::retry_errors(&entry, records, dataset, RetryVia::Batch, None)?;
    let model = model_of(&plan.entry, key.clone())?;
    crate::browser::offline::refuse_when_offline()?;
    let submission =
        batch::submit_run(&*store, &FetchHttp, &model, &plan.job, &mut plan.entry, js_sys::Date::now()).await;
    runs.show(plan.entry.clone());
    runs.refresh_storage();
    let submission = submission?;
    runs.polling.arm(&plan.entry, key);
    if let Some(e) = submission.error {
        return Err(format!("{}: the provider refused the batch: {e}", plan.entry.id()));
    }
    Ok(format!(
        "{}: {} requests submitted again in {}.{}",
        plan.entry.id(),
        submission.requests,
        batches(submission.accepted.len()),
        notes(&submission.notes)
    ))
}
