//! The run engine: one implementation of "ask a model about every sample, score the answers",
//! used by the page and the command line alike. It does no I/O itself: the caller hands in a
//! Python engine, an HTTP client, a clock and a result store ([`io`]), so the same code runs in a
//! browser tab (Web Worker, `fetch`, timers), natively (RustPython, a native HTTP client, tokio)
//! and in tests (fakes and a real local server).
//!
//! - [`engine`] runs a whole evaluation: samples in flight up to the concurrency limit, each
//!   finished sample handed to the store, progress reported, Stop honoured.
//! - [`scoring`] scores one sample's responses in every mode with an asynchronous Python engine.
//! - [`session`] starts, resumes and ends a stored run; [`batch`] does it through a provider's
//!   batch service.
//! - [`file_review`] checks a stored or imported run's endpoint and settings before it goes on.
//! - [`generation`] asks a model for benchmark candidates (the Build page's Generate step).
//! - [`continuation_cost`] says what carrying a stored run on will ask and may cost.
//! - [`plan`] decides what `execbench run` will do from its flags and the run file it resumes,
//!   before anything is asked.
//! - [`closing_report`] is what a finished run says of itself.
//!
//! Beneath it, each re-exported below under the path its callers use:
//! - `execbench-io`: the edges' traits ([`io`]), [`cancel`], [`stoppable`], `threaded_python`;
//! - `execbench-ask`: how one sample is asked ([`api`], [`backoff`], [`gate`], [`recovery`],
//!   [`status`], [`connection`], [`simulate`], [`protocol`]);
//! - `execbench-runs`: what a stored run is (manifest, records, the run file, the stores, names,
//!   prices); its [`store::Recorder`] is the engine's result store for a run that must survive.
//!
//! The jobs over a dataset that need no engine (verify, perturb, filter, reproduction) are
//! `execbench-dataset-jobs`.

pub mod batch;
pub mod closing_report;
pub mod continuation_cost;
pub mod engine;
pub mod file_review;
pub mod generation;
pub mod plan;
mod schedule;
pub mod scoring;
pub mod session;

/// The edges' traits (`execbench-io`), with the store's, which `execbench-runs` owns.
pub mod io {
    pub use execbench_io::*;
    pub use execbench_runs::store::{NoStore, ResultStore};
}

pub use execbench_ask::{api, backoff, connection, gate, protocol, recovery, simulate, status};
#[cfg(not(target_arch = "wasm32"))]
pub use execbench_io::threaded_python;
pub use execbench_io::{cancel, stoppable};

// What a stored run is lives in `execbench-runs`; its modules are re-exported here, so one path
// (`execbench_run::manifest`, ...) still names them for the engine's callers.
pub use execbench_runs::{
    cost, eviction, generation_store, manifest, naming, record, runfile, settings, shelf, store, tabs,
};

pub use cancel::CancelToken;
pub use engine::{EvalJob, Event, Io, KeepRecords, Responder, RunEnd, RunOutcome, run_evaluation};
pub use io::{Clock, HttpClient, HttpHead, Python, ResponseBody, ResultStore};
pub use record::{AttemptRecord, SampleRecord};
pub use status::RunStatus;
