//! The Evaluate page's job: a plan (model, samples, template, n, modes) run by `execbench-run`'s
//! engine with the browser's I/O (the worker, `fetch`, timers), its progress and live status
//! published to signals, and the finished runs kept for the results view. The page builds plans
//! from its form and renders these signals; it never loops over samples itself.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::sync::Arc;

use execbench_eval::Task;
use execbench_eval::report::{SampleResult, summarize};
use execbench_eval::score::Mode;
use execbench_run::api::ApiModel;
use execbench_run::io::NoStore;
use execbench_run::{CancelToken, EvalJob, Event, Io, Responder, RunEnd, RunStatus, SampleRecord, run_evaluation};
use leptos::prelude::*;

use super::JobProgress;
use crate::browser::clock::BrowserClock;
use crate::browser::fetch::FetchHttp;
use crate::browser::python::PythonWorker;
use crate::components::evaluation::{ModeResults, RunResults};

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
    /// The last API run, for "Retry errors" (its key stays in memory only).
    pub last_api_run: StoredValue<Option<LastApiRun>, LocalStorage>,
}

#[derive(Clone)]
pub struct LastApiRun {
    model: ApiModel,
    job: EvalJob,
    records: Vec<SampleRecord>,
    dataset: String,
}

/// The settings of an evaluation, checked before anything runs.
pub struct EvaluationPlan {
    pub responder: Responder,
    pub job: EvalJob,
    pub shown: Shown,
}

/// How a job's results are labelled, beyond what the engine reports.
#[derive(Clone, Default)]
pub struct Shown {
    /// Re-scoring: the file's name instead of the model's, no template or n, and the counts of
    /// dataset samples the file lacks and of ids it has that the dataset lacks.
    pub rescore: Option<(String, usize, usize)>,
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

    /// "Retry errors": the last API run again, asking only for the samples that ended in an error.
    pub fn retry_errors(self, python: PythonWorker) {
        let Some(last) = self.last_api_run.get_value() else { return };
        let LastApiRun { model, mut job, records, dataset } = last;
        let kept: Vec<SampleRecord> = records.into_iter().filter(|r| !r.is_error()).collect();
        job.done = kept.iter().map(|r| r.sample_id.clone()).collect();
        self.launch(python, EvaluationPlan { responder: Responder::Api(model), job, shown: Shown::default() }, dataset, kept);
    }

    /// Runs a plan with the library's engine; the page only shows what it reports. `earlier`:
    /// records kept from a previous run of the same job (Retry errors), merged into the results.
    pub fn launch(self, python: PythonWorker, plan: EvaluationPlan, dataset: String, earlier: Vec<SampleRecord>) {
        let EvaluationPlan { mut responder, job, shown } = plan;
        let to_ask = job.samples.len() - job.done.len();
        let (name, label) = match &shown.rescore {
            Some((file, _, _)) => (file.clone(), format!("Re-scoring {file} ({to_ask} samples)")),
            None => (responder.name(), format!("Evaluating {} on {to_ask} sample{}", responder.name(), if to_ask == 1 { "" } else { "s" })),
        };
        let python = python.new_job();
        let cancel = self.begin(label, job.samples.len(), &python);
        let api_model = match &responder {
            Responder::Api(model) => Some(model.clone()),
            Responder::Offline(_) => None,
        };
        leptos::task::spawn_local(async move {
            let started = js_sys::Date::now();
            let live_text: RefCell<BTreeMap<String, Vec<String>>> = RefCell::new(BTreeMap::new());
            let answers = Cell::new(0usize);
            let on_event = |event: Event| match event {
                Event::Status(status) => {
                    // At most every 100 ms: redrawing more often would cost more than the work.
                    if self.progress.publish(status.done) {
                        self.answers_judged.set(answers.get());
                        self.status.set(Some(status.clone()));
                        self.transcripts.set(live_text.borrow().iter().map(|(id, texts)| (id.clone(), texts.clone())).collect());
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
            let io = Io { python: &python, http: &FetchHttp, clock: &BrowserClock, store: &NoStore };
            let outcome = run_evaluation(&job, &mut responder, io, &cancel, &on_event).await;
            self.transcripts.set(Vec::new());
            let mut records = earlier;
            records.extend(outcome.records);
            records.sort_by_key(|r| r.index);
            let task = job.template.task;
            let mut rows: Vec<Vec<SampleResult>> = (0..job.modes.len()).map(|i| records.iter().filter_map(|r| r.results.get(i).cloned()).collect()).collect();
            if shown.rescore.is_some() {
                // Published answers were not prompted here: no prompt to show or export.
                rows.iter_mut().flatten().for_each(|row| row.prompt = None);
            }
            let errors: Vec<(String, String)> = records.iter().filter_map(|r| r.error.as_ref().map(|e| (r.sample_id.clone(), e.message.clone()))).collect();
            let usage = api_model.as_ref().map(|_| {
                records.iter().filter_map(|r| r.usage).fold(execbench_providers::Usage::default(), |mut total, u| {
                    total.add(&u);
                    total
                })
            });
            let now = js_sys::Date::now();
            self.answers_judged.set(answers.get());
            self.status.set(Some(outcome.status.clone()));
            let run = RunResults {
                id: 0,
                source: name,
                dataset: dataset.clone(),
                task,
                template: shown.rescore.is_none().then(|| job.template.name.clone()),
                n: shown.rescore.is_none().then_some(job.n),
                per_mode: per_mode_results(task, &job.modes, rows),
                planned: job.samples.len(),
                stopped: outcome.end != RunEnd::Finished,
                elapsed_ms: now - started,
                python_runs: outcome.python_runs,
                missing: shown.rescore.as_ref().map_or(0, |r| r.1),
                unknown: shown.rescore.as_ref().map_or(0, |r| r.2),
                errors,
                usage,
                requests: outcome.status.requests_sent,
                most_concurrent: outcome.most_concurrent,
                end: outcome.end.describe(),
                sent: records.iter().find_map(|r| r.sent.clone()),
            };
            let scored = run.scored();
            let ended = match &outcome.end {
                RunEnd::Finished if run.errors.is_empty() => "finished".to_string(),
                RunEnd::Finished => format!("finished: {} scored, {} error{}", scored, run.errors.len(), if run.errors.len() == 1 { "" } else { "s" }),
                RunEnd::Stopped => format!("stopped after {} of {} samples", records.len(), job.samples.len()),
                other => other.describe(),
            };
            if let RunEnd::ProviderStopped(e) = &outcome.end {
                self.error.set(Some(format!("The provider stopped the run: {e}")));
            }
            self.last_api_run.set_value(api_model.map(|model| LastApiRun { model, job, records, dataset }));
            self.add_run(run);
            self.progress.finish(outcome.status.done, &ended);
        });
    }
}

impl Default for EvaluationJob {
    fn default() -> Self {
        Self::new()
    }
}

fn per_mode_results(task: Task, modes: &[Mode], rows: Vec<Vec<SampleResult>>) -> Vec<ModeResults> {
    modes.iter().zip(rows).map(|(&mode, rows)| ModeResults { mode, summary: summarize(task, mode, &rows), rows }).collect()
}

