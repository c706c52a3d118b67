//! The Evaluate page's state: the form as the user left it, the evaluation job and its results,
//! the files of answers read, the run waiting for the user's go. Made once under the app's root
//! owner, so a run carries on and its results stay while the user looks at other pages; the Runs
//! page reaches the same job through [`evaluation_run`].

use std::cell::OnceCell;
use std::sync::Arc;

use execbench_eval::Task;
use execbench_eval::generations::{Generations, import_generations};
use execbench_eval::models::Replay;
use execbench_eval::report::{SampleResult, from_jsonl};
use execbench_eval::reproduction::{Reproductions, is_reproduction_file, read_reproductions};
use execbench_eval::score::Mode;
use execbench_run::EvalJob;
use execbench_run::api::ApiModel;
use execbench_run::cost::estimate::Estimate;
use execbench_run::manifest::PriceUsed;
use execbench_run::manifest::RunEntry;
use execbench_run::runfile::{RunFile, read_run_file};
use execbench_run::simulate::Simulation;
use execbench_run::store::RunStore;
use leptos::prelude::*;

use crate::jobs::evaluate::results_of;
use crate::jobs::results::RunResults;
use crate::jobs::{EvaluationRun, Runs};
use crate::route::{EvaluateQuery, RowFilter};
use crate::state::api_form::ApiForm;
use crate::state::evaluate_form::{FormSettings, STORAGE_KEY as FORM_KEY};
use crate::state::templates::TemplateState;

/// The models the page offers: a provider's API, or an offline one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelChoice {
    Api,
    Oracle,
    EchoFirstArgument,
    TypeDefault,
    Replay,
}

impl ModelChoice {
    pub const ALL: [ModelChoice; 5] = [
        ModelChoice::Oracle,
        ModelChoice::EchoFirstArgument,
        ModelChoice::TypeDefault,
        ModelChoice::Replay,
        ModelChoice::Api,
    ];

    pub fn value(self) -> &'static str {
        match self {
            ModelChoice::Api => "api",
            ModelChoice::Oracle => "oracle",
            ModelChoice::EchoFirstArgument => "echo-first-argument",
            ModelChoice::TypeDefault => "type-default",
            ModelChoice::Replay => "replay",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ModelChoice::Api => "A model API (your key)",
            ModelChoice::Oracle => "Oracle (runs the code: always right)",
            ModelChoice::EchoFirstArgument => "Baseline: echo the first argument",
            ModelChoice::TypeDefault => "Baseline: default value of the output's type",
            ModelChoice::Replay => "Replay answers from a file",
        }
    }

    pub fn from_value(value: &str) -> ModelChoice {
        ModelChoice::ALL.into_iter().find(|m| m.value() == value).unwrap_or(ModelChoice::Oracle)
    }
}

/// A file of answers: a generations file (CRUXEval JSON or raw-responses JSONL), an earlier
/// results export (replayed by its responses), or a reproduction's results (generated code with the
/// success its authors recorded, re-scored by running it).
#[derive(Clone, Debug, PartialEq)]
pub enum AnswerFile {
    Generations(Generations),
    Results(Vec<SampleResult>),
    Reproduction(Reproductions),
}

#[derive(Clone, Debug, PartialEq)]
pub struct LoadedFile {
    pub name: String,
    pub content: AnswerFile,
    /// Problems named by file:line:field; the good entries are still usable.
    pub problems: Vec<String>,
}

impl LoadedFile {
    pub fn read(name: &str, text: &str) -> LoadedFile {
        // A run file (`execbench run`'s output, or a run exported later): its scored rows replay
        // like a results export's.
        if RunFile::sniff(text) {
            return match read_run_file(name, text) {
                Ok(file) => {
                    let problems = if file.truncated_tail {
                        vec![format!("{name}: the last line was cut short and is ignored")]
                    } else {
                        Vec::new()
                    };
                    LoadedFile { name: name.into(), content: AnswerFile::Results(file.result_rows()), problems }
                }
                Err(e) => LoadedFile { name: name.into(), content: AnswerFile::Results(Vec::new()), problems: vec![e] },
            };
        }
        if is_reproduction_file(text) {
            let read = read_reproductions(name, text);
            let problems = read.errors.iter().map(|e| e.to_string()).collect();
            return LoadedFile { name: name.into(), content: AnswerFile::Reproduction(read), problems };
        }
        // A results export is JSON Lines whose rows carry `answers` and `mode`.
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let is_results = serde_json::from_str::<serde_json::Value>(first)
            .is_ok_and(|v| v.get("answers").is_some() && v.get("mode").is_some());
        if is_results {
            return match from_jsonl(name, text) {
                Ok(rows) => LoadedFile { name: name.into(), content: AnswerFile::Results(rows), problems: Vec::new() },
                Err(e) => LoadedFile { name: name.into(), content: AnswerFile::Results(Vec::new()), problems: vec![e] },
            };
        }
        let generations = import_generations(name, text);
        let problems = generations.errors.iter().map(|e| e.to_string()).collect();
        LoadedFile { name: name.into(), content: AnswerFile::Generations(generations), problems }
    }

    /// The file's answers as a model, or None when it has none.
    pub fn replay(&self) -> Option<Replay> {
        let replay = match &self.content {
            AnswerFile::Generations(g) => Replay::from_generations(&self.name, g),
            AnswerFile::Results(rows) => Replay::from_results(&self.name, rows),
            AnswerFile::Reproduction(_) => return None,
        };
        (!replay.is_empty()).then_some(replay)
    }

    pub fn entries(&self) -> usize {
        match &self.content {
            AnswerFile::Generations(g) => g.entries.len(),
            AnswerFile::Results(rows) => rows.len(),
            AnswerFile::Reproduction(read) => read.rows.len(),
        }
    }

    pub fn describe(&self) -> String {
        let kind = match &self.content {
            AnswerFile::Generations(g) if g.kind == execbench_eval::generations::GenerationsKind::Extracted => {
                "extracted answers (CRUXEval generations)"
            }
            AnswerFile::Generations(_) => "raw responses (JSON Lines)",
            AnswerFile::Results(_) => "an execbench results or run file",
            AnswerFile::Reproduction(_) => "a reproduction's results (generated code, re-scored by running it)",
        };
        format!("{}: {} entries, {kind}", self.name, self.entries())
    }
}

/// A run the address asked for that is not among the runs kept: being read from the store, or
/// not there.
#[derive(Clone, Debug, PartialEq)]
pub enum WantedRun {
    Reading(String),
    /// The run id, and what to tell the reader.
    Missing(String, String),
}

/// Everything the page keeps: settings, the job in progress, and the results.
#[derive(Clone, Copy)]
pub struct EvaluateState {
    pub model: RwSignal<ModelChoice>,
    pub task: RwSignal<Task>,
    /// The prompt templates (built-in and the user's own) and the selected one.
    pub templates: TemplateState,
    pub n: RwSignal<String>,
    pub strict: RwSignal<bool>,
    pub compatible: RwSignal<bool>,
    /// Empty: the whole dataset; otherwise its first N samples.
    pub limit: RwSignal<String>,
    pub replay_file: RwSignal<Option<Arc<LoadedFile>>>,
    pub rescore_file: RwSignal<Option<Arc<LoadedFile>>>,
    pub rescore_task: RwSignal<Task>,
    /// The model API form.
    pub api: ApiForm,
    /// The running evaluation and the results (`crate::jobs::EvaluationRun`).
    pub job: EvaluationRun,
    /// A model API run waiting for the user's go after its estimate.
    pub pending: RwSignal<Option<Arc<PendingRun>>>,
    /// The estimate's Live / Batch choice: Batch submits to the provider's batch service.
    pub batch: RwSignal<bool>,
    /// What the last batch submission said (ok, text).
    pub batch_said: RwSignal<Option<(bool, String)>>,
    /// The run whose pilot is running: its estimate is made again when the pilot ends.
    pub pilot_of: StoredValue<Option<Arc<PendingRun>>, LocalStorage>,
    /// The per-sample table's scoring mode and filter: they outlive the table (another run shown,
    /// the page visited again) and ride in the address.
    pub table_mode: RwSignal<Mode>,
    pub table_filter: RwSignal<RowFilter>,
    pub wanted_run: RwSignal<Option<WantedRun>>,
}

impl EvaluateState {
    /// The form as the user left it (the choices kept in `localStorage`), and kept from here on.
    pub fn new() -> Self {
        let kept = FormSettings::parse(crate::browser::storage::get(FORM_KEY).as_deref());
        let templates = TemplateState::load("output-direct");
        // A template deleted since (or from another browser) leaves the default selected.
        if templates.library.with_untracked(|l| l.get(&kept.template).is_some()) {
            templates.selected.set(kept.template.clone());
        }
        let state = EvaluateState {
            model: RwSignal::new(ModelChoice::from_value(&kept.model)),
            task: RwSignal::new(kept.task),
            templates,
            n: RwSignal::new(kept.n),
            strict: RwSignal::new(kept.strict),
            compatible: RwSignal::new(kept.compatible),
            limit: RwSignal::new(kept.limit),
            replay_file: RwSignal::new(None),
            rescore_file: RwSignal::new(None),
            rescore_task: RwSignal::new(Task::Output),
            api: ApiForm::new(),
            job: EvaluationRun::new(),
            pending: RwSignal::new(None),
            batch: RwSignal::new(false),
            batch_said: RwSignal::new(None),
            pilot_of: StoredValue::new_local(None),
            table_mode: RwSignal::new(Mode::Strict),
            table_filter: RwSignal::new(RowFilter::All),
            wanted_run: RwSignal::new(None),
        };
        Effect::new(move || {
            let settings = FormSettings {
                model: state.model.get().value().to_string(),
                task: state.task.get(),
                template: state.templates.selected.get(),
                n: state.n.get(),
                limit: state.limit.get(),
                strict: state.strict.get(),
                compatible: state.compatible.get(),
            };
            // A browser that keeps nothing (a private window) just forgets the form.
            let _ = crate::browser::storage::set(FORM_KEY, &settings.to_json());
        });
        state
    }

    /// The run the results view shows: the one selected, else the newest.
    pub fn shown_run(self) -> Option<Arc<RunResults>> {
        let id = self.job.selected_run.get();
        self.job.runs.with(|runs| runs.iter().find(|r| Some(r.id) == id).or(runs.first()).cloned())
    }

    /// What the address says about the results view: the run shown, its table's mode and
    /// filter; nothing while there is no run. A run the address asked for that is still being
    /// read, or is not stored, stays in it (the link as followed, with the page's message).
    pub fn address_query(self) -> EvaluateQuery {
        let reading = self.wanted_run.with(|w| match w {
            Some(WantedRun::Reading(id) | WantedRun::Missing(id, _)) => Some(id.clone()),
            None => None,
        });
        let run = reading.or_else(|| self.shown_run().and_then(|r| r.run_id().map(String::from)));
        let shown = run.is_some();
        EvaluateQuery {
            run,
            mode: shown.then(|| self.table_mode.get()),
            filter: shown.then(|| self.table_filter.get()),
        }
    }

    /// Shows what an address asks for: the mode and filter at once; the run from the runs kept,
    /// else read from the browser's store (a reload, a shared link, Back).
    pub fn apply(self, query: EvaluateQuery, runs: Runs) {
        if let Some(mode) = query.mode {
            self.table_mode.set(mode);
        }
        if let Some(filter) = query.filter {
            self.table_filter.set(filter);
        }
        let Some(run_id) = query.run else { return };
        let kept = self
            .job
            .runs
            .with_untracked(|kept| kept.iter().find(|r| r.run_id() == Some(run_id.as_str())).map(|r| r.id));
        if let Some(id) = kept {
            self.wanted_run.set(None);
            return self.job.selected_run.set(Some(id));
        }
        self.wanted_run.set(Some(WantedRun::Reading(run_id.clone())));
        leptos::task::spawn_local(async move {
            let store = runs.store().await;
            let read = match store.entry(&run_id).await {
                Ok(Some(entry)) => match store.records(&run_id).await {
                    Ok(records) => Ok(results_of(&entry, &records, entry.manifest.model.starts_with("re-scored "))),
                    Err(e) => Err(e.to_string()),
                },
                Ok(None) => Err(String::new()),
                Err(e) => Err(e.to_string()),
            };
            // Another address may have asked for another run meanwhile.
            if self.wanted_run.get_untracked() != Some(WantedRun::Reading(run_id.clone())) {
                return;
            }
            match read {
                Ok(run) => {
                    self.wanted_run.set(None);
                    self.job.add_run(run);
                }
                Err(e) => {
                    let why = if e.is_empty() { String::new() } else { format!(" (reading it failed: {e})") };
                    self.wanted_run.set(Some(WantedRun::Missing(run_id.clone(), format!(
                        "The address asks for run `{run_id}`, which is not stored in this browser{why}. It may have been deleted, or the link comes from another browser: export it there from the Runs page and import it here."
                    ))));
                }
            }
        });
    }

    pub fn modes(self) -> Vec<Mode> {
        Mode::ALL
            .into_iter()
            .filter(|m| if *m == Mode::Strict { self.strict.get_untracked() } else { self.compatible.get_untracked() })
            .collect()
    }
}

thread_local! {
    static STATE: OnceCell<EvaluateState> = const { OnceCell::new() };
}

/// The page's state, created once under the root owner so it is not disposed with the page.
pub fn evaluate_state() -> EvaluateState {
    STATE.with(|cell| *cell.get_or_init(|| super::under_root_owner(EvaluateState::new)))
}

/// The evaluation job (it lives with this page's state, under the app's root owner): the Runs
/// page runs Resume, Retry errors and Extend with it too, so one evaluation runs at a time.
pub fn evaluation_run() -> EvaluationRun {
    evaluate_state().job
}

/// A run waiting for the user's go after its cost estimate (API models only).
pub struct PendingRun {
    pub model: ApiModel,
    pub job: EvalJob,
    pub price: Option<PriceUsed>,
    pub simulation: Option<Simulation>,
    pub dataset: String,
    pub estimate: Estimate,
    /// The stored run whose pilot gave the estimate: going on resumes it.
    pub pilot_run: Option<RunEntry>,
}
