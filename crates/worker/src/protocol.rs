//! The messages between the page and the worker, as JSON text. Shared by both sides (the app
//! includes this file), so they cannot drift apart.

use execbench_core::{RunRequest, RunResult};
use serde::{Deserialize, Serialize};

/// Page to worker.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ToWorker {
    pub id: u64,
    pub request: RunRequest,
}

/// Worker to page.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FromWorker {
    /// The engine is up; `init_ms` is the interpreter's start-up time inside the worker.
    Ready { init_ms: f64 },
    Result { id: u64, result: RunResult },
    /// The worker could not read a message (a bug on the page's side).
    BadMessage { error: String },
    /// A Rust panic inside the worker: the worker is about to die and must be replaced.
    Panic { message: String },
}
