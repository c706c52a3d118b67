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
use execbench_run::api::ApiModel;
use execbench_run::cost::SpendCap;
use execbench_run::engine::PriorAnswers;
use execbench_run::runfile::{FORMAT, PriceUsed, RunManifest, dataset_hash};
use execbench_run::simulate::{SimulatedHttp, Simulation};
use execbench_run::store::{Recorder, RunEntry, RunState};
use execbench_run::{CancelToken, EvalJob, Event, Io, Responder, RunEnd, RunStatus, SampleRecord, run_evaluation};
use leptos::prelude::*;

use super::JobProgress;
use super::results::{ModeResults, RunResults};
use super::runs::Runs;
use crate::browser::clock::BrowserClock;
use crate::browser::fetch::FetchHttp;
use crate::browser::page_http::PageHttp;
use crate::browser::python::PythonWorker;
use crate::browser::stores::TimedStore;

/// Runs kept in the results view (each holds every row of every mode).
const MAX_RUNS_KEPT: usize = 6;

/// The evaluation job and its results, in signals the page renders.
#[derive(Clone, Copy)]
pub struct EvaluationJob {
    /// The running job (label, progress, elapsed, how it ended, Stop): the type Verify and
    /// Perturb use too.
    pub progress: JobProgress,
    pub answers_judged: RwSignal<usize>,
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
}

#[derive(Clone)]
pub struct LastApiRun {
    pub model: ApiModel,
    pub run_id: String,
    pub samples: Vec<Sample>,
}

/// The settings of an evaluation, checked before anything runs.
pub struct EvaluationPlan {
    pub responder: Responder,
    pub job: EvalJob,
    pub shown: Shown,
    /// The price its costs are computed with (and the spend cap's), where known.
    pub price: Option<PriceUsed>,
    /// The simulated model's behaviour, when the provider is the simulated one.
    pub simulation: Option<Simulation>,
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

/// A new run's manifest: what it is, without any key.
pub fn new_manifest(plan: &EvaluationPlan, dataset: &str) -> RunManifest {
    let now = js_sys::Date::now();
    let salt = (js_sys::Math::random() * 65536.0) as u32;
    let (model, api) = match (&plan.responder, plan.shown.rescored_file()) {
        (_, Some(file)) => (format!("re-scored {file}"), None),
        (Responder::Api(m), None) => (m.name(), Some(m.settings.clone())),
        (Responder::Offline(m), None) => (m.name(), None),
    };
    RunManifest {
        format: FORMAT.to_string(),
        run_id: format!("run-{}-{salt:04x}", now as u64),
        model,
        api,
        dataset: dataset.to_string(),
        dataset_hash: dataset_hash(&plan.job.samples),
        samples: plan.job.samples.len(),
        task: plan.job.template.task,
        template: plan.job.template.clone(),
        n: plan.job.n,
        modes: plan.job.modes.clone(),
        created: (now / 1000.0) as u64,
        app_version: env!("CARGO_PKG_VERSION").to_string(),
        provenance: execbench_core::provenance::perturbation_of(&plan.job.samples),
        simulation: plan.simulation,
        price: plan.price.clone(),
        spend_cap: plan.job.spend_cap.map(|c| c.limit),
        stored: plan.shown.file.as_ref().and_then(|f| f.stored.clone()),
    }
}

/// How a job's results are labelled, beyond what the engine reports.
#[derive(Clone, Default)]
pub struct Shown {
    /// A file of answers (replayed or re-scored): what of the dataset it did not cover.
    pub file: Option<FileShown>,
}

/// A file of answers scored over the samples it covers (`execbench_eval::models::FileScope`).
#[derive(Clone, Debug, Default)]
pub struct FileShown {
    pub name: String,
    /// Re-scored: published answers, not prompted here (the file's name stands for the model, no
    /// template or n is shown). Replayed: a model run, named `replay: <file>`.
    pub rescored: bool,
    /// Dataset samples the file lacks, and ids it has that the dataset lacks.
    pub missing: Vec<String>,
    pub unknown: Vec<String>,
    /// An evaluation file's own verdicts and figures, kept with the run.
    pub stored: Option<execbench_eval::stored::StoredScores>,
}

impl Shown {
    fn rescored_file(&self) -> Option<&str> {
        self.file.as_ref().filter(|f| f.rescored).map(|f| f.name.as_str())
    }
}

impl EvaluationJob {
    pub fn new() -> Self {
        EvaluationJob {
            progress: JobProgress::new(),
            answers_judged: RwSignal::new(0),
            error: RwSignal::new(None),
            runs: RwSignal::new(Vec::new()),
            selected_run: RwSignal::new(None),
            next_run_id: StoredValue::new(1),
            status: RwSignal::new(None),
            transcripts: RwSignal::new(Vec::new()),
            last_api_run: StoredValue::new_local(None),
            run_id: RwSignal::new(None),
        }
    }

    /// A job starts: the progress shows it at once, never the previous job's figures. Returns
    /// the token Stop cancels (Stop also ends `python`'s runs, this job's only).
    fn begin(self, what: String, total: usize, python: &PythonWorker) -> CancelToken {
        self.error.set(None);
        self.answers_judged.set(0);
        self.status.set(None);
        self.transcripts.set(Vec::new());
        self.progress.begin(what, total, python)
    }

    pub fn add_run(self, mut run: RunResults) {
        run.id = self.next_run_id.get_value();
        self.next_run_id.set_value(run.id + 1);
        self.selected_run.set(Some(run.id));
        self.runs.update(|runs| {
            runs.insert(0, Arc::new(run));
            runs.truncate(MAX_RUNS_KEPT);
        });
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

    /// Runs a plan with the library's engine, every finished sample written to the run's store
    /// before it is shown; the page only shows what the job reports.
    pub fn launch(self, python: PythonWorker, runs: Runs, plan: EvaluationPlan, dataset: String, target: Target) {
        let manifest = match &target {
            Target::New { .. } => new_manifest(&plan, &dataset),
            Target::Stored { entry, .. } => entry.manifest.clone(),
        };
        let EvaluationPlan { mut responder, mut job, shown, simulation, .. } = plan;
        if let Target::New { pilot: Some(first) } = target {
            job.samples.truncate(first);
        }
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
        let api_model = match &responder {
            Responder::Api(model) => Some(model.clone()),
            Responder::Offline(_) => None,
        };
        let run_id = manifest.run_id.clone();
        self.run_id.set(Some(run_id.clone()));
        leptos::task::spawn_local(async move {
            let started = js_sys::Date::now();
            let store = runs.store().await;
            let (entry, earlier) = match target {
                Target::New { .. } => (RunEntry::new(manifest, started), Vec::new()),
                Target::Stored { entry, records } => (*entry, records),
            };
            let recorder = Recorder::new(&*store, entry, &earlier, Box::new(js_sys::Date::now));
            // Records a full disk refused earlier in this page go first.
            let mut stored_first = Vec::new();
            let mut failed: Option<String> =
                recorder.set_state(RunState::Running, None).await.err().map(|e| e.to_string());
            if failed.is_none() {
                let pending = runs.take_unsaved(&run_id);
                for (i, record) in pending.iter().enumerate() {
                    if let Err(e) = recorder.record(record).await {
                        runs.keep_unsaved(&run_id, pending[i..].to_vec());
                        failed = Some(e.to_string());
                        break;
                    }
                    stored_first.push(record.clone());
                }
            }
            if let Some(e) = failed {
                self.error.set(Some(format!("The run cannot start: {e}")));
                self.progress.finish(0, "not started");
                return;
            }
            runs.active.update(|a| {
                a.insert(run_id.clone());
            });
            runs.show(recorder.entry());
            job.done.extend(stored_first.iter().map(|r| r.sample_id.clone()));
            let live_text: RefCell<BTreeMap<String, Vec<String>>> = RefCell::new(BTreeMap::new());
            let answers = Cell::new(0usize);
            let on_event = |event: Event| match event {
                Event::Status(status) => {
                    // At most every 100 ms: redrawing more often would cost more than the work.
                    if self.progress.publish(status.done) {
                        self.answers_judged.set(answers.get());
                        self.status.set(Some(status.clone()));
                        self.transcripts
                            .set(live_text.borrow().iter().map(|(id, texts)| (id.clone(), texts.clone())).collect());
                        runs.show(recorder.entry());
                    }
                }
                Event::Delta { sample_id, choice, text } => {
                    let mut live = live_text.borrow_mut();
                    let texts = live.entry(sample_id.to_string()).or_default();
                    let choice = choice as usize;
                    if texts.len() <= choice {
                        texts.resize(choice + 1, String::new());
                    }
                    match text {
                        Some(t) => texts[choice].push_str(t),
                        None => texts[choice].clear(),
                    }
                }
                Event::Record(record) => {
                    live_text.borrow_mut().remove(&record.sample_id);
                    answers.set(answers.get() + record.results.iter().map(|r| r.answers.len()).sum::<usize>());
                }
            };
            let http = match simulation {
                Some(simulation) => {
                    PageHttp::Simulated(SimulatedHttp::new(BrowserClock, simulation, &job.samples, &job.template))
                }
                None => PageHttp::Fetch(FetchHttp),
            };
            let timed = TimedStore { recorder: &recorder, times_ms: RefCell::new(Vec::new()) };
            let io = Io { python: &python, http: &http, clock: &BrowserClock, store: &timed };
            let outcome = run_evaluation(&job, &mut responder, io, &cancel, &on_event).await;
            let store_times = timed.times_ms.take();
            self.transcripts.set(Vec::new());

            // How the stored run ends: finished, paused (Stop, the spend cap, a full disk), failed.
            let missing = recorder.entry().missing();
            let state = match &outcome.end {
                RunEnd::Finished if missing > 0 => {
                    (RunState::Paused, Some(format!("{missing} samples not asked yet: Resume asks for them")))
                }
                RunEnd::Finished => (RunState::Finished, None),
                RunEnd::Stopped => (RunState::Paused, Some("stopped: Resume asks for the rest".to_string())),
                RunEnd::SpendCap { .. } | RunEnd::StoreFailed(_) => (RunState::Paused, Some(outcome.end.describe())),
                RunEnd::ProviderStopped(_) => (RunState::Failed, Some(outcome.end.describe())),
            };
            runs.keep_unsaved(&run_id, outcome.unsaved.clone());
            if let Err(e) = recorder.set_state(state.0, state.1).await {
                runs.problem.set(Some(format!("the run's state could not be stored: {e}")));
            }
            runs.active.update(|a| {
                a.remove(&run_id);
            });
            let entry = recorder.entry();
            runs.show(entry.clone());
            runs.refresh_storage();

            // Every record of the run: the stored ones, replaced by this session's.
            let by_id: BTreeMap<String, SampleRecord> = earlier
                .into_iter()
                .chain(stored_first)
                .chain(outcome.records.iter().cloned())
                .chain(outcome.unsaved.iter().cloned())
                .map(|r| (r.sample_id.clone(), r))
                .collect();
            let mut records: Vec<SampleRecord> = by_id.into_values().collect();
            records.sort_by_key(|r| r.index);
            let mut run = results_of(&entry, &records, shown.rescored_file().is_some());
            run.source = name;
            run.elapsed_ms = js_sys::Date::now() - started;
            run.python_runs = outcome.python_runs;
            if let Some(file) = &shown.file {
                (run.missing, run.unknown) = (file.missing.clone(), file.unknown.clone());
            }
            run.requests = outcome.status.requests_sent;
            run.most_concurrent = outcome.most_concurrent;
            run.stopped = outcome.end != RunEnd::Finished;
            run.end = outcome.end.describe();
            run.store_times = execbench_run::status::median_and_p99(&store_times)
                .map(|(median, p99)| (store_times.len(), median, p99));
            self.answers_judged.set(answers.get());
            self.status.set(Some(outcome.status.clone()));
            let scored = run.scored();
            let ended = match &outcome.end {
                RunEnd::Finished if run.errors.is_empty() => "finished".to_string(),
                RunEnd::Finished => format!(
                    "finished: {} scored, {} error{}",
                    scored,
                    run.errors.len(),
                    if run.errors.len() == 1 { "" } else { "s" }
                ),
                RunEnd::Stopped => format!("stopped after {} of {} samples", records.len(), job.samples.len()),
                other => other.describe(),
            };
            match &outcome.end {
                RunEnd::ProviderStopped(e) => self.error.set(Some(format!("The provider stopped the run: {e}"))),
                RunEnd::StoreFailed(e) => {
                    self.error.set(Some(format!("The run paused: a result could not be stored: {e}")))
                }
                _ => {}
            }
            self.last_api_run.set_value(api_model.map(|model| LastApiRun {
                model,
                run_id: run_id.clone(),
                samples: job.samples.clone(),
            }));
            self.add_run(run);
            self.progress.finish(outcome.status.done, &ended);
        });
    }
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
        requests: 0,
        most_concurrent: 0,
        end: match &entry.note {
            Some(note) => format!("{}: {note}", entry.state.label()),
            None => entry.state.label().to_string(),
        },
        sent: records.iter().find_map(|r| r.sent.clone()),
        cost: manifest.cost(&entry.tally.usage),
        store_times: None,
        provenance: manifest.row_provenance(),
        stored: manifest.stored.clone(),
    }
}

/// What to do with a stored run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Continue {
    /// Ask for the samples with no record.
    Resume,
    /// Ask again for the samples whose record is an error.
    RetryErrors,
    /// Ask `extra` more answers of every sample (n grows).
    Extend { extra: usize },
}

/// A plan that carries a stored run on, checked against the dataset the page has now: its first
/// `samples` samples must be the run's (same content hash), else the plan is refused with what
/// differs. `key`: for an API run whose provider needs one.
pub async fn continue_plan(
    runs: Runs,
    entry: &RunEntry,
    dataset: &[Sample],
    key: Option<String>,
    what: Continue,
) -> Result<(EvaluationPlan, Target), String> {
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
) -> Result<(EvaluationPlan, Target), String> {
    let manifest = &entry.manifest;
    if manifest.model.starts_with("re-scored ") || manifest.model.starts_with("replay") {
        return Err(format!(
            "{} replayed a file: import the file again on the Evaluate page to run it",
            manifest.run_id
        ));
    }
    let samples: Vec<Sample> = dataset.iter().take(manifest.samples).cloned().collect();
    let mut now = manifest.clone();
    now.samples = samples.len();
    now.dataset_hash = dataset_hash(&samples);
    let conflicts = manifest.resume_conflicts(&now);
    if !conflicts.is_empty() {
        return Err(format!(
            "{} cannot go on with the dataset loaded now: {}. Load the run's dataset ({}) first.",
            manifest.run_id,
            conflicts.join("; "),
            manifest.dataset
        ));
    }
    let responder = match &manifest.api {
        Some(settings) => {
            let needs_key = settings.endpoint.preset().is_some_and(|p| p.key_required);
            if needs_key && key.as_deref().is_none_or(str::is_empty) {
                return Err(format!(
                    "{} needs the API key of {}: enter it above (it is not stored unless you ask)",
                    manifest.run_id, settings.endpoint.provider
                ));
            }
            Responder::Api(ApiModel { settings: settings.clone(), key })
        }
        None => match manifest.model.as_str() {
            "oracle" => Responder::Offline(Box::new(execbench_eval::models::Oracle::default())),
            "echo-first-argument" => Responder::Offline(Box::new(execbench_eval::models::EchoFirstArgument)),
            "type-default" => Responder::Offline(Box::new(execbench_eval::models::TypeDefault)),
            other => return Err(format!("{}: the model `{other}` cannot be run again from here", manifest.run_id)),
        },
    };
    let store = runs.store().await;
    let records =
        execbench_run::store::RunStore::records(&*store, manifest.run_id.as_str()).await.map_err(|e| e.to_string())?;
    let mut entry = entry.clone();
    let mut job = EvalJob::new(samples, manifest.template.clone(), manifest.n, manifest.modes.clone());
    match what {
        Continue::Resume => job.done = records.iter().map(|r| r.sample_id.clone()).collect(),
        Continue::RetryErrors => {
            job.done = records.iter().filter(|r| !r.is_error()).map(|r| r.sample_id.clone()).collect()
        }
        Continue::Extend { extra } => {
            job.n = manifest.n + extra;
            entry.manifest.n = job.n;
            job.prior = records.iter().filter_map(|r| PriorAnswers::of(r).map(|p| (r.sample_id.clone(), p))).collect();
            // Errors and samples without a record are asked for all n.
        }
    }
    if cap.is_some() && manifest.price.is_none() {
        return Err(format!("{}: a spend cap needs a price, and this run has none", manifest.run_id));
    }
    entry.manifest.spend_cap = cap.or(manifest.spend_cap);
    if let (Some(limit), Some(price)) = (entry.manifest.spend_cap, &manifest.price) {
        job.spend_cap =
            Some(SpendCap { limit, price: price.price, spent_before: price.price.cost(&entry.tally.usage) });
    }
    let plan = EvaluationPlan {
        responder,
        job,
        shown: Shown::default(),
        price: manifest.price.clone(),
        simulation: manifest.simulation,
    };
    Ok((plan, Target::Stored { entry: Box::new(entry), records }))
}
impl Default for EvaluationJob {
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
