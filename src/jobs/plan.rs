//! What an evaluation is before it runs: its plan (responder, job, price, simulation), how its
//! results are labelled, and the stored run it starts as. Shared by the live job (`evaluate`) and
//! the batch job (`batch`), which both start from a plan; neither needs the other for it.

use execbench_run::manifest::{PriceUsed, RunEntry};
use execbench_run::session::{self, NewRun};
use execbench_run::simulate::Simulation;
use execbench_run::{EvalJob, Responder};

/// The settings of an evaluation, checked before anything runs.
pub struct RunPlan {
    pub responder: Responder,
    pub job: EvalJob,
    pub shown: Shown,
    /// The price its costs are computed with (and the spend cap's), where known.
    pub price: Option<PriceUsed>,
    /// The simulated model's behaviour, when the provider is the simulated one.
    pub simulation: Option<Simulation>,
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
    pub(crate) fn rescored_file(&self) -> Option<&str> {
        self.file.as_ref().filter(|f| f.rescored).map(|f| f.name.as_str())
    }
}

/// A new run's entry: its manifest (`execbench_run::session::new_manifest`) named by the page.
pub(crate) fn new_entry(
    responder: &Responder,
    job: &EvalJob,
    shown: &Shown,
    dataset: String,
    simulation: Option<Simulation>,
    price: Option<PriceUsed>,
) -> RunEntry {
    let now = js_sys::Date::now();
    let salt = (js_sys::Math::random() * 65536.0) as u32;
    let api = match (responder, shown.rescored_file()) {
        (Responder::Api(m), None) => Some(m.settings.clone()),
        _ => None,
    };
    let key_used = api.is_some()
        && matches!(responder, Responder::Api(m) if m.key.as_deref().is_some_and(|k| !k.trim().is_empty()));
    let about = NewRun {
        run_id: format!("run-{}-{salt:04x}", now as u64),
        created: (now / 1000.0) as u64,
        model: session::model_name(responder, shown.rescored_file()),
        api,
        key_used,
        dataset,
        simulation,
        price,
        stored: shown.file.as_ref().and_then(|f| f.stored.clone()),
        app_version: env!("CARGO_PKG_VERSION").to_string(),
    };
    RunEntry::new(session::new_manifest(job, about), now)
}
