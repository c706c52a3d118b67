//! The Evaluate page's job: a plan (model, samples, template, n, modes) run by `execbench-run`'s
//! engine with the browser's I/O (the worker, `fetch`, timers), its progress and live status
//! published to signals, and the finished runs kept for the results view. The page builds plans
//! from its form and renders these signals; it never loops over samples itself.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::Arc;

use execbench_core::Sample;
use execbench_eval::Task;
use execbench_eval::report::{SampleResult, summarize};
use execbench_eval::score::Mode;
use execbench_model_files::protocol::Speed;
use execbench_run::api::ApiModel;
use execbench_run::manifest::{RunEntry, RunState};
use execbench_run::session::{self, NotStarted, Session, SessionEnd, SessionEvent, SessionIo, run_session};
use execbench_run::simulate::SimulatedHttp;
use execbench_run::{CancelToken, Event, Responder, RunEnd, RunStatus, SampleRecord};

pub use execbench_run::session::Continue;
use leptos::prelude::*;

use super::JobProgress;
use super::plan::{RunPlan, Shown, new_entry};
use super::results::{ModeResults, RunResults};
use super::runs::Runs;
use crate::browser::clock::BrowserClock;
use crate::browser::fetch::FetchHttp;
use crate::browser::local_http::{self, LocalHttp};
use crate::browser::page_http::PageHttp;
use crate::browser::python::PythonWorker;

/// Runs kept in the results view (each holds every row of every mode).
const MAX_RUNS_KEPT: usize = 6;

/// The evaluation job and its results, in signals the page renders.
#[derive(Clone, Copy)]
pub struct EvaluationRun {
    /// The running job (label, progress, elapsed, how it ended, Stop): the type Verify and
    /// Perturb use too.
    pub progress: JobProgress,
    /// The model's answers so far (each judged once per scoring mode), and the modes.
    pub answers: RwSignal<usize>,
    pub modes: RwSignal<usize>,
    pub error: RwSignal<Option<String>>,
    pub runs: RwSignal<Vec<Arc<RunResults>>>,
    /// The run shown in the per-sample table.
    pub selected_run: RwSignal<Option<u64>>,
    next_run_id: StoredValue<u64>,
    /// What the engine says about the running job.
    pub status: RwSignal<Option<RunStatus>>,
    /// Streamed text of the samples in flight: (sample id, text of each response).
    pub transcripts: RwSignal<Vec<(String, Vec<String>)>>,
    /// The last run of this page that can be retried (its key stays in memory only).
    pub last_api_run: StoredValue<Option<LastApiRun>, LocalStorage>,
    /// The stored run the job writes to.
    pub run_id: RwSignal<Option<String>>,
    /// The in-browser model's prefill and decode this session (the `local` provider only).
    pub local_speed: RwSignal<Option<Speed>>,
}

#[derive(Clone)]
pub struct LastApiRun {
    pub model: ApiModel,
    pub run_id: String,
    pub samples: Vec<Sample>,
}

/// Where the job's records go: a new stored run, or one already stored (Resume, Retry errors,
/// Extend), with its records so far.
pub enum Target {
    /// A new run; `pilot`: ask only its first samples now (the run then pauses, and Resume asks
    /// for the rest).
    New {
        pilot: Option<usize>,
    },
    Stored {
        entry: Box<RunEntry>,
        records: Vec<SampleRecord>,
    },
}

impl EvaluationRun {
    pub fn new() -> Self {
        EvaluationRun {
            progress: JobProgress::new(),
            answers: RwSignal::new(0),
            modes: RwSignal::new(1),
            error: RwSignal::new(None),
            runs: RwSignal::new(Vec::new()),
            selected_run: RwSignal::new(None),
            next_run_id: StoredValue::new(1),
            status: RwSignal::new(None),
            transcripts: RwSignal::new(Vec::new()),
            last_api_run: StoredValue::new_local(None),
            run_id: RwSignal::new(None),
            local_speed: RwSignal::new(None),
        }
    }

    /// A job starts: the progress shows it at once, never the previous job's figures. Returns
    /// the token Stop cancels (Stop also ends `python`'s runs, this job's only).
    fn begin(self, what: String, total: usize, python: &PythonWorker) -> CancelToken {
        self.error.set(None);
        self.answers.set(0);
        self.status.set(None);
        self.local_speed.set(None);
        self.transcripts.set(Vec::new());
        self.progress.begin(what, total, python)
    }

    /// Shows a run's results first. A stored run has one entry in the list: its results from an
    /// earlier session (before a Resume, Retry errors or Extend) are replaced, never listed twice.
    pub fn add_run(self, mut run: RunResults) {
        run.id = self.next_run_id.get_value();
        self.next_run_id.set_value(run.id + 1);
        self.selected_run.set(Some(run.id));
        self.runs.update(|runs| {
            if let Some(run_id) = run.run_id() {
                runs.retain(|r| r.run_id() != Some(run_id));
            }
            runs.insert(0, Arc::new(run));
            runs.truncate(MAX_RUNS_KEPT);
        });
    }

    /// A session of `run_id` starts: its results from an earlier session are out of date (the
    /// live figures show it until it ends).
    fn drop_results_of(self, run_id: &str) {
        if self.runs.with_untracked(|runs| runs.iter().any(|r| r.run_id() == Some(run_id))) {
            self.runs.update(|runs| runs.retain(|r| r.run_id() != Some(run_id)));
        }
    }

    /// "Retry errors" on the Evaluate page: the last run again, asking only for the samples that
    /// ended in an error (with the key still in memory).
    pub fn retry_errors(self, python: PythonWorker, runs: Runs) {
        let Some(last) = self.last_api_run.get_value() else { return };
        let Some(entry) = runs.entry(&last.run_id) else {
            return self.error.set(Some(format!("run {} is no longer stored", last.run_id)));
        };
        let dataset = entry.manifest.dataset.clone();
        leptos::task::spawn_local(async move {
            match continue_plan(
                runs,
                &entry,
                &last.samples,
                Some(last.model.key.clone().unwrap_or_default()).filter(|k| !k.is_empty()),
                Continue::RetryErrors,
            )
            .await
            {
                Ok((plan, target)) => self.launch(python, runs, plan, dataset, target),
                Err(e) => self.error.set(Some(e)),
            }
        });
    }

    /// Runs a plan as a session of its stored run (`execbench_run::session`: the library sets the
    /// run up, stores every finished sample before it is shown, and stores how it ended); the
    /// page only shows what the session reports.
    pub fn launch(self, python: PythonWorker, runs: Runs, plan: RunPlan, dataset: String, target: Target) {
        let RunPlan { mut responder, mut job, shown, simulation, price } = plan;
        let (entry, earlier) = match target {
            Target::New { pilot } => {
                runs.ask_persistence();
                let entry = new_entry(&responder, &job, &shown, dataset, simulation, price);
                if let Some(first) = pilot {
                    job.samples.truncate(first);
                }
                (entry, Vec::new())
            }
            Target::Stored { entry, records } => (*entry, records),
        };
        let to_ask = job.samples.len() - job.done.len();
        let (name, label) = match shown.rescored_file() {
            Some(file) => (file.to_string(), format!("Re-scoring {file} ({to_ask} samples)")),
            None => (
                responder.name(),
                format!("Evaluating {} on {to_ask} sample{}", responder.name(), if to_ask == 1 { "" } else { "s" }),
            ),
        };
        let python = python.new_job();
        let cancel = self.begin(label, job.samples.len(), &python);
        self.modes.set(job.modes.len());
        let last_api_run = match &responder {
            Responder::Api(model) => {
                Some(LastApiRun { model: model.clone(), run_id: entry.id().to_string(), samples: job.samples.clone() })
            }
            Responder::Offline(_) => None,
        };
        let run_id = entry.id().to_string();
        self.run_id.set(Some(run_id.clone()));
        leptos::task::spawn_local(async move {
            // One tab drives a run at a time: while another tab holds its lock, nothing is sent.
            if let Err(e) = runs.drive(&run_id).await {
                self.error.set(Some(e));
                self.progress.finish(0, "not started");
                return;
            }
            let started = js_sys::Date::now();
            let store = runs.store().await;
            let live = LiveView::default();
            let on_event = |event: SessionEvent| self.show_event(runs, &run_id, &live, event);
            let local_files = match &responder {
                Responder::Api(m) if m.settings.endpoint.provider == local_http::PROVIDER => {
                    Some(m.settings.local_model.clone())
                }
                _ => None,
            };
            let http = match simulation {
                Some(simulation) => {
                    PageHttp::Simulated(SimulatedHttp::new(BrowserClock, simulation, &job.samples, &job.template))
                }
                None if local_files.is_some() => {
                    PageHttp::Local(LocalHttp { speed: self.local_speed, files: local_files.flatten() })
                }
                None => PageHttp::Fetch(FetchHttp),
            };
            let total = job.samples.len();
            let session = Session {
                store: &*store,
                entry,
                earlier,
                unsaved: runs.take_unsaved(&run_id),
                now_ms: Box::new(js_sys::Date::now),
            };
            let io = SessionIo { python: &python, http: &http, clock: &BrowserClock };
            let end = match run_session(session, job, &mut responder, io, &cancel, &on_event).await {
                Ok(end) => end,
                Err(NotStarted { error, unsaved }) => {
                    runs.keep_unsaved(&run_id, unsaved);
                    runs.let_go(&run_id);
                    self.error.set(Some(format!("The run cannot start: {error}")));
                    self.progress.finish(0, "not started");
                    return;
                }
            };
            self.transcripts.set(Vec::new());
            runs.keep_unsaved(&run_id, end.unsaved.clone());
            runs.state_stored(&run_id, end.state_error.is_none());
            if let Some(e) = &end.state_error {
                runs.problem.set(Some(format!("the run's state could not be stored: {e}")));
            }
            runs.active.update(|a| {
                a.remove(&run_id);
            });
            runs.show(end.entry.clone());
            // Its state is stored: a tab waiting for the run's lock reads how it ended.
            runs.let_go(&run_id);
            runs.refresh_storage();
            self.answers.set(live.answers.get());
            self.last_api_run.set_value(last_api_run);
            self.show_end(end, &shown, name, js_sys::Date::now() - started, total);
        });
    }

    /// What the session reports, shown: the stored entry in the list, the progress and the
    /// streamed text (at most every 100 ms: redrawing more often would cost more than the work).
    fn show_event(self, runs: Runs, run_id: &str, live: &LiveView, event: SessionEvent) {
        match event {
            SessionEvent::Started(entry) => {
                self.drop_results_of(run_id);
                runs.active.update(|a| {
                    a.insert(run_id.to_string());
                });
                runs.show(entry.clone());
                // Stored as running, under this tab's lock: the other tabs watch it from now.
                runs.announce(execbench_run::tabs::Notice::Started(run_id.to_string()));
            }
            SessionEvent::Engine(Event::Status(status), entry) => {
                if self.progress.publish(status.done) {
                    self.answers.set(live.answers.get());
                    self.status.set(Some(status.clone()));
                    self.transcripts
                        .set(live.text.borrow().iter().map(|(id, texts)| (id.clone(), texts.clone())).collect());
                    runs.show(entry());
                }
            }
            SessionEvent::Engine(Event::Delta { sample_id, choice, text }, _) => {
                let mut live_text = live.text.borrow_mut();
                let texts = live_text.entry(sample_id.to_string()).or_default();
                let choice = choice as usize;
                if texts.len() <= choice {
                    texts.resize(choice + 1, String::new());
                }
                match text {
                    Some(t) => texts[choice].push_str(t),
                    None => texts[choice].clear(),
                }
            }
            SessionEvent::Engine(Event::Record(record), _) => {
                live.text.borrow_mut().remove(&record.sample_id);
                // Every mode judges the same answers: count them once.
                live.answers.set(live.answers.get() + record.results.first().map_or(0, |r| r.answers.len()));
            }
        }
    }

    /// A session's end, shown: the run's results (kept for the results view), how it ended, and
    /// the provider's or the store's complaint.
    fn show_end(self, end: SessionEnd, shown: &Shown, name: String, elapsed_ms: f64, total: usize) {
        let outcome = &end.outcome;
        let mut run = results_of(&end.entry, &end.records, shown.rescored_file().is_some());
        run.source = name;
        run.elapsed_ms = elapsed_ms;
        run.python_runs = outcome.python_runs;
        if let Some(file) = &shown.file {
            (run.missing, run.unknown) = (file.missing.clone(), file.unknown.clone());
        }
        run.most_concurrent = outcome.most_concurrent;
        run.stopped = outcome.end != RunEnd::Finished;
        run.end = outcome.end.describe();
        let times = &end.store_times_ms;
        run.store_times = execbench_run::status::median_and_p99(times).map(|(median, p99)| (times.len(), median, p99));
        self.status.set(Some(outcome.status.clone()));
        let errors = run.errors.len();
        let ended = match &outcome.end {
            RunEnd::Finished if errors == 0 => "finished".to_string(),
            RunEnd::Finished => {
                format!("finished: {} scored, {errors} error{}", run.scored(), if errors == 1 { "" } else { "s" })
            }
            RunEnd::Stopped => format!("stopped after {} of {total} samples", end.records.len()),
            other => other.describe(),
        };
        match &outcome.end {
            RunEnd::ProviderStopped(e) => self.error.set(Some(format!("The provider stopped the run: {e}"))),
            RunEnd::StoreFailed(e) => {
                self.error.set(Some(format!("The run paused: a result could not be stored: {e}")))
            }
            _ => {}
        }
        self.add_run(run);
        self.progress.finish(outcome.status.done, &ended);
    }
}

/// The streamed text of the samples in flight, and the model's answers so far.
#[derive(Default)]
struct LiveView {
    text: RefCell<BTreeMap<String, Vec<String>>>,
    answers: Cell<usize>,
}

/// The results view of a stored run's records (the Evaluate page after a run, the Runs page when
/// a run is opened). `rescored`: published answers, not prompted here (no prompts shown).
pub fn results_of(entry: &RunEntry, records: &[SampleRecord], rescored: bool) -> RunResults {
    let manifest = &entry.manifest;
    let task = manifest.task;
    let mut rows: Vec<Vec<SampleResult>> =
        (0..manifest.modes.len()).map(|i| records.iter().filter_map(|r| r.results.get(i).cloned()).collect()).collect();
    if rescored {
        rows.iter_mut().flatten().for_each(|row| row.prompt = None);
    }
    let errors: Vec<(String, String)> =
        records.iter().filter_map(|r| r.error.as_ref().map(|e| (r.sample_id.clone(), e.message.clone()))).collect();
    let usage = manifest.api.is_some().then_some(entry.tally.usage);
    RunResults {
        id: 0,
        source: manifest.model.clone(),
        dataset: manifest.dataset.clone(),
        task,
        template: (!rescored).then(|| manifest.template.name.clone()),
        prompt_template: (!rescored).then(|| manifest.template.clone()),
        n: (!rescored).then_some(manifest.n),
        per_mode: per_mode_results(task, &manifest.modes, rows),
        planned: manifest.samples,
        stopped: entry.state != RunState::Finished,
        elapsed_ms: entry.active_ms,
        python_runs: 0,
        missing: Vec::new(),
        unknown: Vec::new(),
        errors,
        usage,
        requests: entry.requests,
        most_concurrent: 0,
        end: match &entry.note {
            Some(note) => format!("{}: {note}", entry.state.label()),
            None => entry.state.label().to_string(),
        },
        sent: records.iter().find_map(|r| r.sent.clone()),
        not_sent: manifest.api.as_ref().map(|a| a.not_sent.clone()).unwrap_or_default(),
        cost: entry.cost(),
        store_times: None,
        provenance: manifest.row_provenance(),
        stored: manifest.stored.clone(),
        name: execbench_run::naming::run_name(manifest),
        host: execbench_run::naming::endpoint_host(manifest),
        imported: entry.imported,
    }
}

/// A plan that carries a stored run on (`execbench_run::session::continuation`), checked against
/// the dataset the page has now: its first `samples` samples must be the run's (same content
/// hash), else the plan is refused with what differs. `key`: for an API run whose provider needs
/// one.
pub async fn continue_plan(
    runs: Runs,
    entry: &RunEntry,
    dataset: &[Sample],
    key: Option<String>,
    what: Continue,
) -> Result<(RunPlan, Target), String> {
    continue_plan_with_cap(runs, entry, dataset, key, what, None).await
}

/// [`continue_plan`] with a new spend cap (dollars for the whole run), kept in the run's manifest.
pub async fn continue_plan_with_cap(
    runs: Runs,
    entry: &RunEntry,
    dataset: &[Sample],
    key: Option<String>,
    what: Continue,
    cap: Option<f64>,
) -> Result<(RunPlan, Target), String> {
    let store = runs.store().await;
    let records = execbench_run::store::RunStore::records(&*store, entry.id()).await.map_err(|e| e.to_string())?;
    let plan = session::continuation(entry, records, dataset, what, cap)?;
    let manifest = &plan.entry.manifest;
    let responder = session::stored_responder(manifest, key)?;
    let in_browser = manifest.api.as_ref().is_some_and(|a| a.endpoint.provider == local_http::PROVIDER);
    if matches!(responder, Responder::Api(_)) && manifest.simulation.is_none() && !in_browser {
        crate::browser::offline::refuse_when_offline()?;
    }
    // Asked live: a batch run's live price, not its batch price.
    let price = execbench_run::batch::live_price_used(&plan.entry);
    let evaluation =
        RunPlan { responder, job: plan.job, shown: Shown::default(), price, simulation: manifest.simulation };
    Ok((evaluation, Target::Stored { entry: Box::new(plan.entry), records: plan.earlier }))
}

impl Default for EvaluationRun {
    fn default() -> Self {
        Self::new()
    }
}

fn per_mode_results(task: Task, modes: &[Mode], rows: Vec<Vec<SampleResult>>) -> Vec<ModeResults> {
    modes
        .iter()
        .zip(rows)
        .map(|(&mode, rows)| ModeResults { mode, summary: summarize(task, mode, &rows), rows })
        .collect()
}
