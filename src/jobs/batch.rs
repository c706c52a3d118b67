//! Batch runs on the page: the user's Batch choice submits a plan through
//! `execbench_run::batch::submit_run`, and the Runs page's Check now asks the provider once through
//! `execbench_run::batch::check_run` (collecting what ended). The batch logic is the library's, the
//! same the command line uses; this job only hands it the browser's store, `fetch` and worker.

use execbench_core::Sample;
use execbench_run::Responder;
use execbench_run::batch::{self, batch_price_used};
use execbench_run::manifest::RunEntry;
use execbench_run::session::{self, Continue};
use execbench_run::store::RunStore;

use super::Runs;
use super::evaluate::{RunPlan, Shown, new_entry};
use crate::browser::fetch::FetchHttp;
use crate::browser::python::PythonWorker;

/// Submits `plan` as a new batch run (costs and the spend cap at the batch price) and stores it
/// waiting for its batches. Returns what to tell the user.
pub async fn submit(runs: Runs, plan: RunPlan, dataset: String) -> Result<String, String> {
    let RunPlan { responder, mut job, price, .. } = plan;
    let Responder::Api(model) = &responder else {
        return Err("a batch is for model APIs: an offline model answers at once".into());
    };
    crate::browser::offline::refuse_when_offline()?;
    let mut entry = new_entry(&responder, &job, &Shown::default(), dataset, None, batch_price_used(price));
    job.spend_cap = session::spend_cap_of(&entry);
    let store = runs.store().await;
    let submission = batch::submit_run(&*store, &FetchHttp, model, &job, &mut entry, js_sys::Date::now()).await;
    runs.refresh_storage();
    let submission = submission?;
    runs.show(entry.clone());
    if let Some(e) = submission.error {
        return Err(format!("{}: the provider refused the batch: {e}", entry.id()));
    }
    Ok(format!(
        "{}: {} requests submitted in {}. The run waits for them on the Runs page (Check now).",
        entry.id(),
        submission.requests,
        if submission.accepted.len() == 1 {
            "1 batch".to_string()
        } else {
            format!("{} batches", submission.accepted.len())
        }
    ))
}

/// Asks the provider about a stored batch run once and collects the batches that ended. `dataset`:
/// the samples loaded now (the run's first samples, same content hash). Returns what to tell the
/// user.
pub async fn check(
    runs: Runs,
    python: PythonWorker,
    entry: RunEntry,
    dataset: &[Sample],
    key: Option<String>,
) -> Result<String, String> {
    let store = runs.store().await;
    let records = store.records(entry.id()).await.map_err(|e| e.to_string())?;
    let plan = session::continuation(&entry, records, dataset, Continue::Resume, None)?;
    let Responder::Api(model) = session::stored_responder(&plan.entry.manifest, key)? else {
        return Err(format!("{} has no model API to ask", entry.id()));
    };
    crate::browser::offline::refuse_when_offline()?;
    let (mut entry, mut records) = (plan.entry, plan.earlier);
    let python = python.new_job();
    let check = batch::check_run(
        &*store,
        &python,
        &FetchHttp,
        &model,
        &plan.job,
        &mut entry,
        &mut records,
        js_sys::Date::now(),
    )
    .await;
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
    Ok(said)
}
