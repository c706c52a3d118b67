//! The run engine: one implementation of "ask a model about every sample, score the answers",
//! used by the page and the command line alike. It does no I/O itself: the caller hands in a
//! Python engine, an HTTP client, a clock and a result store ([`io`]), so the same code runs in a
//! browser tab (Web Worker, `fetch`, timers), natively (RustPython, a native HTTP client, tokio)
//! and in tests (fakes and a real local server).
//!
//! - [`engine`] runs a whole evaluation: samples in flight up to the concurrency limit, each
//!   finished sample handed to the store, progress reported, Stop honoured.
//! - [`api`] asks a provider for one sample's n responses: request building and parsing are
//!   `execbench-providers`'; retries, backoff, rate-limit waits and streaming are here.
//! - [`gate`] is the shared concurrency limit that shrinks on rate limits and grows back slowly.
//! - [`backoff`] decides how long to wait before a retry (pure, tested with a table).
//! - [`scoring`] scores one sample's responses in every mode with an asynchronous Python engine.
//! - [`status`] is what the page shows of a run in flight.
//! - What a stored run is (manifest, records, the run file, the stores, names, prices) is
//!   `execbench-runs`, re-exported below; its [`store::Recorder`] is the engine's result store for
//!   a run that must survive.
//! - [`verify`] checks a dataset's expected outputs; [`perturbation`] perturbs a dataset and
//!   verifies every result: the Verify and Perturb jobs, with progress and Stop.
//! - [`build_filter`] judges generated candidates (static rules, then one instrumented run each)
//!   for the Build job and `execbench build filter`, with progress and Stop.
//! - [`stoppable`] takes a stream's next result unless Stop came first: the step those loops share.
//! - `threaded_python` (native only) runs Python on several threads, one interpreter each: the
//!   command line's `--jobs`.
//! - [`file_review`] checks a stored or imported run's endpoint and settings before it goes on.
//! - [`generation`] asks a model for benchmark candidates (the Build page's Generate step).
//! - [`continuation_cost`] says what carrying a stored run on will ask and may cost.
//! - [`plan`] decides what `execbench run` will do from its flags and the run file it resumes,
//!   before anything is asked.

pub mod api;
pub mod backoff;
pub mod batch;
pub mod build_filter;
pub mod cancel;
pub mod closing_report;
pub mod connection;
pub mod continuation_cost;
pub mod engine;
pub mod file_review;
pub mod gate;
pub mod generation;
pub mod io;
pub mod model_wrong_answers;
pub mod perturbation;
pub mod plan;
pub mod protocol;
pub mod recovery;
pub mod reproduction;
mod schedule;
pub mod scoring;
pub mod session;
pub mod simulate;
pub mod status;
pub mod stoppable;
#[cfg(test)]
mod stopped_at;
#[cfg(not(target_arch = "wasm32"))]
pub mod threaded_python;
pub mod verify;

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
