//! Long jobs over a dataset. The work is `execbench-run`'s; a job here hands it the worker and a
//! `CancelToken`, and publishes what it reports to signals the pages render. Jobs live in app
//! state, so they carry on (and their progress stays) while the user looks at other pages.

pub mod batch;
pub mod build;
pub mod evaluate;
pub mod generations;
pub mod perturb;
pub mod plan;
pub mod questions;
pub mod reproduction;
pub mod results;
pub mod runs;
pub mod shelf;
pub mod verify;

pub use build::BuildJob;
pub use evaluate::EvaluationRun;
pub use perturb::PerturbRun;
pub use questions::QuestionsRun;
pub use reproduction::ReproductionRun;
pub use runs::Runs;
pub use shelf::Shelf;
pub use verify::VerifyRun;

use execbench_run::CancelToken;
use leptos::prelude::*;

use crate::browser::clock::now_ms;
use crate::browser::python::PythonWorker;

/// A running job redraws its progress at most this often: more often would cost more than the work.
const REFRESH_MS: f64 = 100.0;

/// How a job ended, as the pages say it.
pub const FINISHED: &str = "finished";
pub const STOPPED: &str = "stopped before the end";

/// What every job shows: what runs, how far it is, for how long, and how it ended; and its Stop.
#[derive(Clone, Copy)]
pub struct JobProgress {
    /// What is running, `None` when idle.
    pub label: RwSignal<Option<String>>,
    pub running: RwSignal<bool>,
    /// Stop was pressed and the job has not ended yet.
    pub stopping: RwSignal<bool>,
    pub done: RwSignal<usize>,
    pub total: RwSignal<usize>,
    pub elapsed_ms: RwSignal<f64>,
    /// How the last job ended (`FINISHED`, `STOPPED`), `None` until one has.
    pub outcome: RwSignal<Option<String>>,
    /// (started, last published), in `now_ms` time.
    times: StoredValue<(f64, f64)>,
    /// The running job's token and Python handle.
    stop: StoredValue<Option<(CancelToken, PythonWorker)>, LocalStorage>,
}

impl JobProgress {
    pub fn new() -> Self {
        JobProgress {
            label: RwSignal::new(None),
            running: RwSignal::new(false),
            stopping: RwSignal::new(false),
            done: RwSignal::new(0),
            total: RwSignal::new(0),
            elapsed_ms: RwSignal::new(0.0),
            outcome: RwSignal::new(None),
            times: StoredValue::new((0.0, 0.0)),
            stop: StoredValue::new_local(None),
        }
    }

    /// A job starts: the previous job's figures go at once. Returns the token Stop cancels;
    /// Stop also ends `python`'s runs (that job's only).
    pub fn begin(self, label: String, total: usize, python: &PythonWorker) -> CancelToken {
        let cancel = CancelToken::new();
        self.stop.set_value(Some((cancel.clone(), python.clone())));
        self.label.set(Some(label));
        self.running.set(true);
        self.stopping.set(false);
        self.done.set(0);
        self.total.set(total);
        self.elapsed_ms.set(0.0);
        self.outcome.set(None);
        let now = now_ms();
        self.times.set_value((now, now));
        cancel
    }

    /// Shows `done` and the elapsed time, at most every `REFRESH_MS`; true when it did (the job
    /// then publishes its own figures too).
    pub fn publish(self, done: usize) -> bool {
        let now = now_ms();
        let (started, published) = self.times.get_value();
        if now - published < REFRESH_MS {
            return false;
        }
        self.times.set_value((started, now));
        self.done.set(done);
        self.elapsed_ms.set(now - started);
        true
    }

    /// The job ended: its final figures and how it ended.
    pub fn finish(self, done: usize, outcome: &str) {
        let (started, _) = self.times.get_value();
        self.done.set(done);
        self.elapsed_ms.set(now_ms() - started);
        self.outcome.set(Some(outcome.to_string()));
        self.stop.set_value(None);
        self.label.set(None);
        self.stopping.set(false);
        self.running.set(false);
    }

    /// Stop: the job's token is cancelled and its Python runs end; other jobs' runs carry on.
    pub fn stop(self) {
        if let Some((cancel, python)) = self.stop.get_value() {
            self.stopping.set(true);
            cancel.cancel();
            python.stop();
        }
    }

    /// Items per second so far (reactive).
    pub fn rate(self) -> f64 {
        let ms = self.elapsed_ms.get();
        if ms > 0.0 { self.done.get() as f64 * 1000.0 / ms } else { 0.0 }
    }
}

impl Default for JobProgress {
    fn default() -> Self {
        Self::new()
    }
}
