//! The messages between the page and the worker, as JSON text. Both sides depend on this crate,
//! so they cannot drift apart.
//!
//! The page sends runs in batches (one message, several runs) so the worker never waits for the
//! page between runs; the worker answers each run with its own message as soon as it is done, so
//! the page always knows which run is executing and keeps a deadline for that run alone.
//!
//! [`bootstrap`] (wasm32 only) is the workers' own start: the link to the page and the panic hook
//! that the Python worker and the dataset loader's worker share.

#[cfg(target_arch = "wasm32")]
pub mod bootstrap;

use execbench_core::{RunRequest, RunResult};
use serde::{Deserialize, Serialize};

/// Page to worker: runs to do in order.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ToWorker {
    pub runs: Vec<RunMessage>,
}

/// One run of a batch; `id` comes back with its result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunMessage {
    pub id: u64,
    pub request: RunRequest,
}

/// Worker to page.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FromWorker {
    /// The engine is up; `init_ms` is the interpreter's start-up time inside the worker and
    /// `memory_bytes` the size of the worker's WebAssembly memory then.
    Ready {
        init_ms: f64,
        #[serde(default)]
        memory_bytes: u64,
    },
    /// One run's result, in the order of its batch.
    Result { id: u64, result: RunResult },
    /// A batch is done; the worker's memory now (WebAssembly memory only grows).
    Idle { memory_bytes: u64 },
    /// The worker could not read a message (a bug on the page's side).
    BadMessage { error: String },
    /// A Rust panic inside the worker: the worker is about to die and must be replaced.
    Panic { message: String },
}

#[cfg(test)]
mod tests {
    use super::*;
    use execbench_core::{Outcome, RunRequest, RunResult};

    /// The JSON shapes are the contract with the page (and the benchmark page's script): pin them.
    #[test]
    fn messages_round_trip_in_their_documented_shape() {
        let to = ToWorker { runs: vec![RunMessage { id: 3, request: RunRequest::new("x = 1", "x") }] };
        let text = serde_json::to_string(&to).unwrap();
        assert_eq!(
            text,
            r#"{"runs":[{"id":3,"request":{"program":"x = 1","expression":"x","limits":{"time_ms":2000,"max_steps":0}}}]}"#
        );
        let from = FromWorker::Result {
            id: 3,
            result: RunResult {
                outcome: Outcome::Value { repr: "1".into(), matches: None },
                stdout: String::new(),
                elapsed_ms: 0.5,
            },
        };
        let text = serde_json::to_string(&from).unwrap();
        assert_eq!(
            text,
            r#"{"kind":"result","id":3,"result":{"outcome":{"status":"value","repr":"1","matches":null},"stdout":"","elapsed_ms":0.5}}"#
        );
        assert!(matches!(serde_json::from_str::<FromWorker>(&text).unwrap(), FromWorker::Result { id: 3, .. }));
        assert_eq!(
            serde_json::to_string(&FromWorker::Ready { init_ms: 1.0, memory_bytes: 65536 }).unwrap(),
            r#"{"kind":"ready","init_ms":1.0,"memory_bytes":65536}"#
        );
    }
}
