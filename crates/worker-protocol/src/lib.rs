//! The messages between the page and the worker, as JSON text. Both sides depend on this crate,
//! so they cannot drift apart.
//!
//! The page sends runs in batches (one message, several runs) so the worker never waits for the
//! page between runs. The worker answers with the results of the runs done so far, in order: it
//! posts what it holds before it starts a run once [`FLUSH_MS`] have passed since its last post,
//! and at the end of a batch. A message costs both threads far more than a short run does, so
//! results travel in groups; yet every run that is still unreported when the page gives up on a
//! worker started at most `FLUSH_MS` after the worker's last message, which is what lets the page
//! find a runaway run among them (see the app's `browser/python/schedule.rs`). A batch sent with
//! `report_each` is answered run by run: the page then knows exactly which run is executing.
//!
//! [`bootstrap`] (wasm32 only) is the workers' own start: the link to the page and the panic hook
//! that the Python worker and the dataset loader's worker share.

#[cfg(target_arch = "wasm32")]
pub mod bootstrap;

use execbench_core::{RunRequest, RunResult};
use serde::{Deserialize, Serialize};

/// The longest a finished run's result waits in the worker before the worker starts another run.
pub const FLUSH_MS: f64 = 4.0;

/// Page to worker: runs to do in order.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ToWorker {
    pub runs: Vec<RunMessage>,
    /// Post every run's result as soon as it is done (the page is looking for a runaway run).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub report_each: bool,
}

/// One run's result, tagged with the run's id.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunOutput {
    pub id: u64,
    pub result: RunResult,
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
    /// The engine is up; `init_ms` is the interpreter's start-up time inside the worker (or the
    /// time it took to put a saved start back, when `restored`) and `memory_bytes` the size of the
    /// worker's WebAssembly memory then.
    Ready {
        init_ms: f64,
        #[serde(default)]
        memory_bytes: u64,
        #[serde(default)]
        restored: bool,
    },
    /// The results of the next runs, in the order they were sent.
    Results { results: Vec<RunOutput> },
    /// A batch is done; the worker's memory now (WebAssembly memory only grows).
    Idle { memory_bytes: u64 },
    /// The worker could not read a message (a bug on the page's side).
    BadMessage { error: String },
    /// A Rust panic inside the worker: the worker is about to die and must be replaced.
    Panic { message: String },
    /// The running program's import began (`finished: false`) or ended the download of the
    /// standard library's rest (`execbench_pyengine::stdlib_rest`). The page holds the run's
    /// deadline meanwhile and starts it again after, so a slow network is not the program's
    /// time-out; the download itself gives up after [`STDLIB_DOWNLOAD_TIMEOUT_MS`].
    StdlibDownload { finished: bool },
}

/// How long the worker waits for the standard library's rest before the import fails.
pub const STDLIB_DOWNLOAD_TIMEOUT_MS: u32 = 60_000;

/// The worker's held results and when to post them: the rule of [`FLUSH_MS`], testable without a
/// browser. `now` is any clock in milliseconds.
#[derive(Debug)]
pub struct Outbox {
    held: Vec<RunOutput>,
    last_post: f64,
    report_each: bool,
}

impl Outbox {
    /// A batch starts; `report_each` as the batch asked.
    pub fn new(report_each: bool, now: f64) -> Self {
        Outbox { held: Vec::new(), last_post: now, report_each }
    }

    /// About to start a run: what to post first, if anything.
    pub fn before_run(&mut self, now: f64) -> Option<FromWorker> {
        if self.held.is_empty() || now - self.last_post < FLUSH_MS {
            return None;
        }
        self.take(now)
    }

    /// A run is done: what to post now, if anything.
    pub fn finished(&mut self, output: RunOutput, now: f64) -> Option<FromWorker> {
        self.held.push(output);
        if self.report_each { self.take(now) } else { None }
    }

    /// The batch is done: everything still held.
    pub fn end(&mut self, now: f64) -> Option<FromWorker> {
        if self.held.is_empty() { None } else { self.take(now) }
    }

    fn take(&mut self, now: f64) -> Option<FromWorker> {
        self.last_post = now;
        Some(FromWorker::Results { results: std::mem::take(&mut self.held) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use execbench_core::{Outcome, RunRequest, RunResult};

    /// The JSON shapes are the contract with the page (and the benchmark page's script): pin them.
    #[test]
    fn messages_round_trip_in_their_documented_shape() {
        let to =
            ToWorker { runs: vec![RunMessage { id: 3, request: RunRequest::new("x = 1", "x") }], report_each: false };
        let text = serde_json::to_string(&to).unwrap();
        assert_eq!(
            text,
            r#"{"runs":[{"id":3,"request":{"program":"x = 1","expression":"x","limits":{"time_ms":2000,"max_steps":0}}}]}"#
        );
        let from = FromWorker::Results { results: vec![output(3)] };
        let text = serde_json::to_string(&from).unwrap();
        assert_eq!(
            text,
            r#"{"kind":"results","results":[{"id":3,"result":{"outcome":{"status":"value","repr":"1","matches":null},"stdout":"","elapsed_ms":0.5}}]}"#
        );
        assert!(
            matches!(serde_json::from_str::<FromWorker>(&text).unwrap(), FromWorker::Results { results } if results[0].id == 3)
        );
        let each = r#"{"runs":[],"report_each":true}"#;
        assert!(serde_json::from_str::<ToWorker>(each).unwrap().report_each);
        assert_eq!(serde_json::to_string(&ToWorker { runs: vec![], report_each: true }).unwrap(), each);
        assert_eq!(
            serde_json::to_string(&FromWorker::Ready { init_ms: 1.0, memory_bytes: 65536, restored: true }).unwrap(),
            r#"{"kind":"ready","init_ms":1.0,"memory_bytes":65536,"restored":true}"#
        );
        // A Ready without the flag (an older worker, the command line's) is a fresh start.
        assert!(matches!(
            serde_json::from_str::<FromWorker>(r#"{"kind":"ready","init_ms":1.0}"#).unwrap(),
            FromWorker::Ready { restored: false, memory_bytes: 0, .. }
        ));
    }

    fn output(id: u64) -> RunOutput {
        RunOutput {
            id,
            result: RunResult {
                outcome: Outcome::Value { repr: "1".into(), matches: None },
                stdout: String::new(),
                elapsed_ms: 0.5,
                trace: None,
            },
        }
    }

    /// The ids each post carries.
    fn ids(post: Option<FromWorker>) -> Option<Vec<u64>> {
        match post? {
            FromWorker::Results { results } => Some(results.iter().map(|r| r.id).collect()),
            other => panic!("not results: {other:?}"),
        }
    }

    #[test]
    #[allow(clippy::type_complexity)] // a table of cases, one tuple a row
    fn results_wait_until_a_run_would_start_late_or_the_batch_ends() {
        // (report each, the runs' durations in ms, run back to back from 0) -> the posts, in order
        let cases: [(bool, &[f64], &[&[u64]]); 6] = [
            (false, &[1.0, 1.0, 2.5, 1.0], &[&[1, 2, 3], &[4]]),
            (false, &[0.1, 0.1, 0.1], &[&[1, 2, 3]]),
            // A slow run: what finished before it is posted before it starts.
            (false, &[5.0, 500.0, 1.0], &[&[1], &[2], &[3]]),
            (false, &[1.0, 500.0, 1.0], &[&[1, 2], &[3]]),
            (false, &[], &[]),
            (true, &[1.0, 1.0], &[&[1], &[2]]),
        ];
        for (report_each, durations, expected) in cases {
            let mut outbox = Outbox::new(report_each, 0.0);
            let mut posts = Vec::new();
            let mut now = 0.0;
            for (i, duration) in durations.iter().enumerate() {
                posts.extend(ids(outbox.before_run(now)));
                now += duration;
                posts.extend(ids(outbox.finished(output(i as u64 + 1), now)));
            }
            posts.extend(ids(outbox.end(now)));
            let expected: Vec<Vec<u64>> = expected.iter().map(|ids| ids.to_vec()).collect();
            assert_eq!(posts, expected, "report_each {report_each}, durations {durations:?}");
        }
    }
}
