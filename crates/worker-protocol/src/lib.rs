//! The messages between the page and the worker, as JSON text. Both sides depend on this crate,
//! so they cannot drift apart.

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

#[cfg(test)]
mod tests {
    use super::*;
    use execbench_core::{Outcome, RunRequest, RunResult};

    /// The JSON shapes are the contract with the page: pin them.
    #[test]
    fn messages_round_trip_in_their_documented_shape() {
        let to = ToWorker { id: 3, request: RunRequest::new("x = 1", "x") };
        let text = serde_json::to_string(&to).unwrap();
        assert_eq!(text, r#"{"id":3,"request":{"program":"x = 1","expression":"x","limits":{"time_ms":2000,"max_steps":0}}}"#);
        let from = FromWorker::Result {
            id: 3,
            result: RunResult { outcome: Outcome::Value { repr: "1".into(), matches: None }, stdout: String::new(), elapsed_ms: 0.5 },
        };
        let text = serde_json::to_string(&from).unwrap();
        assert_eq!(text, r#"{"kind":"result","id":3,"result":{"outcome":{"status":"value","repr":"1","matches":null},"stdout":"","elapsed_ms":0.5}}"#);
        assert!(matches!(serde_json::from_str::<FromWorker>(&text).unwrap(), FromWorker::Result { id: 3, .. }));
        assert_eq!(serde_json::to_string(&FromWorker::Ready { init_ms: 1.0 }).unwrap(), r#"{"kind":"ready","init_ms":1.0}"#);
    }
}
