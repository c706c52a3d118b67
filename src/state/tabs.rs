//! What this tab does when another tab that drove a run closes mid-run (its lock comes here):
//! resume the run as Resume would, under Resume's key rules with a remembered key only (nobody
//! typed one in this tab for it), or leave it interrupted saying why. The rule is
//! `execbench_run::tabs::take_over`; this only gathers what it reads and acts on the answer.

use std::rc::Rc;

use execbench_run::file_review::{FormLimits, review_continuation};
use execbench_run::manifest::RunEntry;
use execbench_run::tabs::{KeyAt, TakeOver};
use leptos::prelude::*;

use execbench_run::io::Clock;

use super::evaluate::evaluation_run;
use super::{AppState, DatasetState};
use crate::browser::clock::BrowserClock;
use crate::browser::key_scopes;
use crate::browser::locks::Held;
use crate::browser::python::PythonWorker;
use crate::jobs::evaluate::{Continue, continue_plan};

/// How long a take-over waits for this tab's dataset to load (steps of 100 ms).
const DATASET_WAIT_STEPS: usize = 300;

/// Makes this tab take over the runs other tabs let go of mid-run.
pub fn take_over_runs(app: AppState, python: PythonWorker) {
    app.runs.on_take_over(Rc::new(move |entry, lock| take_over(app, python.clone(), entry, lock)));
}

fn take_over(app: AppState, python: PythonWorker, entry: RunEntry, lock: Held) {
    leptos::task::spawn_local(async move {
        // A tab opened just before the other closed may still be loading its dataset.
        for _ in 0..DATASET_WAIT_STEPS {
            if !matches!(app.dataset.get_untracked(), DatasetState::Loading) {
                break;
            }
            BrowserClock.sleep(100).await;
        }
        decide(app, python, entry, lock).await;
    });
}

async fn decide(app: AppState, python: PythonWorker, entry: RunEntry, lock: Held) {
    let known_price = crate::state::api_form::known_price_of(&entry.manifest);
    let review =
        review_continuation(&entry.manifest, &FormLimits::default(), None, &key_scopes::trusted(), known_price);
    let key = review.scope().and_then(key_scopes::remembered_key);
    let key_at = KeyAt::of(review.key.as_ref(), key.is_some());
    let job = evaluation_run();
    let busy = job.progress.running.get_untracked();
    let report = app.dataset.get_untracked().report();
    let runs = app.runs;
    match (execbench_run::tabs::take_over(Some(&entry), &key_at, busy, report.is_some()), report) {
        (TakeOver::Resume, Some(report)) => {
            let mut entry = entry;
            entry.manifest = review.manifest;
            runs.adopt(entry.id(), lock);
            match continue_plan(runs, &entry, &report.samples, key, Continue::Resume).await {
                Ok((plan, target)) => job.launch(python, runs, plan, entry.manifest.dataset.clone(), target),
                Err(e) => {
                    runs.let_go(entry.id());
                    let note = format!("the tab that ran it was closed; it was not resumed here: {e}");
                    runs.leave_interrupted(entry, note).await;
                }
            }
        }
        (TakeOver::Interrupted(note), _) => {
            runs.leave_interrupted(entry, note).await;
            drop(lock);
        }
        (TakeOver::Ended | TakeOver::Resume, _) => runs.show(entry),
        (TakeOver::Gone, _) => {}
    }
}
