//! The state the pages share and the state each page keeps between visits, and the plans made
//! from it. Pages read and write it; it holds the jobs (`crate::jobs`), which hold the library's
//! work. Nothing here renders: the shell (`crate::app`) provides `AppState` in context, and each
//! page's own state is made once under the app's root owner, so leaving a page does not dispose it.
//!
//! - `evaluate.rs`, `evaluate_form.rs`, `api_form.rs`, `templates.rs`: the Evaluate page's state,
//!   its form kept in `localStorage`, the model API form, the prompt templates.
//! - `evaluate_plan.rs`: the Evaluate form checked into a run plan, and its estimates.
//! - `runs_plan.rs`: what the Runs page's Resume, Retry errors, Extend and batch actions plan.
//! - `build.rs`, `compare.rs`, `local_model.rs`: the Build and Compare pages' state, the
//!   in-browser model's form.
//! - `tabs.rs`: what a tab does when another tab that drove a run closes.

pub mod api_form;
pub mod build;
pub mod compare;
pub mod evaluate;
pub mod evaluate_form;
pub mod evaluate_plan;
pub mod local_model;
pub mod runs_plan;
pub mod tabs;
pub mod templates;

use std::sync::Arc;

use execbench_core::LoadReport;
use leptos::prelude::*;

use crate::browser::python::PythonWorker;
use crate::jobs::{BuildJob, PerturbRun, QuestionsRun, ReproductionRun, Runs, Shelf, VerifyRun};

/// The dataset the pages work on: the bundled CRUXEval, or a file the user imported.
#[derive(Clone, Debug)]
pub enum DatasetState {
    Loading,
    Loaded(Arc<LoadReport>),
    Failed(String),
}

impl DatasetState {
    /// The samples, once loaded.
    pub fn report(&self) -> Option<Arc<LoadReport>> {
        match self {
            DatasetState::Loaded(report) => Some(report.clone()),
            _ => None,
        }
    }
}

/// State shared by all pages, in context.
#[derive(Clone, Copy)]
pub struct AppState {
    pub dataset: RwSignal<DatasetState>,
    /// The dataset's name: `CRUXEval`, or the imported file's name.
    pub dataset_name: RwSignal<String>,
    /// The dataset jobs (`crate::jobs`): they outlive their pages.
    pub verify: VerifyRun,
    pub perturb: PerturbRun,
    /// Trace questions made from the open dataset (the Questions page).
    pub questions: QuestionsRun,
    /// The Datasets import's "Check that every row runs".
    pub check_imports: RwSignal<bool>,
    /// Re-scoring a reproduction's results file (the Evaluate page's Re-score).
    pub reproduction: ReproductionRun,
    /// Stored runs (IndexedDB): the Runs page's list, and where evaluations write.
    pub runs: Runs,
    /// Imported datasets kept for the next visit (IndexedDB), and which one is open.
    pub shelf: Shelf,
    /// Building a benchmark: generation, the filter's verdicts, the sampled export.
    pub build: BuildJob,
}

impl AppState {
    /// Every shared job, idle, and no dataset yet (`restore` opens one).
    pub fn new(worker: &PythonWorker) -> AppState {
        AppState {
            dataset: RwSignal::new(DatasetState::Loading),
            dataset_name: RwSignal::new(String::new()),
            verify: VerifyRun::new(worker),
            perturb: PerturbRun::new(worker),
            questions: QuestionsRun::new(worker),
            check_imports: RwSignal::new(true),
            reproduction: ReproductionRun::new(worker),
            runs: Runs::start(),
            shelf: Shelf::start(),
            build: BuildJob::new(worker),
        }
    }

    /// Opens the dataset the user had open last (a kept import), else the bundled CRUXEval.
    pub fn restore(self) {
        // Once a start, before any form reads a remembered key.
        crate::browser::key_scopes::migrate_legacy_keys();
        match Shelf::remembered() {
            Some(id) => self.open_kept(id),
            None => self.load_bundled(),
        }
    }

    /// Makes a file the user just imported (and that loaded) the working dataset, and keeps it.
    pub fn import(self, name: String, bytes: Vec<u8>, report: LoadReport) {
        let entry = execbench_run::shelf::ShelfEntry::of_import(&name, &bytes, &report, js_sys::Date::now());
        self.dataset_name.set(name);
        self.dataset.set(DatasetState::Loaded(Arc::new(report)));
        leptos::task::spawn_local(async move { self.shelf.keep(entry, &bytes).await });
    }

    /// Opens a kept import. One that is gone (removed in another tab, storage cleared) is said so
    /// and CRUXEval opens instead.
    pub fn open_kept(self, id: String) {
        self.dataset.set(DatasetState::Loading);
        leptos::task::spawn_local(async move {
            match self.shelf.open(&id).await {
                // Decoded in a worker: a file damaged in storage cannot trap the page.
                Ok((entry, bytes)) => match crate::browser::loader::load_off_thread(&entry.name, &bytes).await {
                    Ok(report) => {
                        self.dataset_name.set(entry.name);
                        self.shelf.set_current(Some(id));
                        self.dataset.set(DatasetState::Loaded(Arc::new(report)));
                    }
                    Err(e) => {
                        self.shelf.problem.set(Some(format!(
                            "The dataset open last could not be read again ({e}); CRUXEval is open instead."
                        )));
                        self.load_bundled();
                    }
                },
                Err(e) => {
                    self.shelf.problem.set(Some(format!(
                        "The dataset open last could not be opened again ({e}); CRUXEval is open instead."
                    )));
                    self.load_bundled();
                }
            }
        });
    }

    /// (Re)loads the bundled CRUXEval.
    pub fn load_bundled(self) {
        self.shelf.set_current(None);
        self.dataset.set(DatasetState::Loading);
        self.dataset_name.set(crate::browser::data::CRUXEVAL_NAME.to_string());
        leptos::task::spawn_local(async move {
            let loaded = match crate::browser::data::fetch_dataset(crate::browser::data::CRUXEVAL_URL).await {
                Ok(report) => DatasetState::Loaded(Arc::new(report)),
                Err(e) => DatasetState::Failed(e),
            };
            self.dataset.set(loaded);
        });
    }
}

/// Runs `make` under the app's root owner, so what it creates (a page's form kept between visits)
/// lives as long as the app rather than the page that asked first.
pub fn under_root_owner<T>(make: impl FnOnce() -> T) -> T {
    let mut root = Owner::current();
    while let Some(parent) = root.as_ref().and_then(Owner::parent) {
        root = Some(parent);
    }
    match root {
        Some(owner) => owner.with(make),
        None => make(),
    }
}

/// The export's `dataset` column: the file name without its extension, as the command line writes
/// it (`cruxeval` for the bundled `cruxeval.jsonl`), so the page and the CLI give the same bytes.
pub fn dataset_column(display_name: &str) -> String {
    let file = if display_name == crate::browser::data::CRUXEVAL_NAME {
        crate::browser::data::CRUXEVAL_URL
    } else {
        display_name
    };
    let file = file.rsplit('/').next().unwrap_or(file);
    match file.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_string(),
        _ => file.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dataset_column_matches_the_command_line() {
        assert_eq!(dataset_column("CRUXEval"), "cruxeval");
        assert_eq!(dataset_column("contest.jsonl"), "contest");
        assert_eq!(dataset_column("plain"), "plain");
    }
}
