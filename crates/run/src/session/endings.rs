//! The table of every way a session can end, run against a front end's store: the page's
//! (IndexedDB, in the browser tests; memory) and the command line's (run files) must store the
//! same state, note and records for the same ending. [`check`] panics naming the case that
//! differs.
//!
//! The model is the simulated one (answers at once), or a server that refuses the key; Python is
//! a stand-in that judges `assert A == B` by text, enough to score every sample.

use std::cell::Cell;
use std::future::Future;

use execbench_core::{Outcome, PythonEngine, RunRequest, RunResult, Sample};
use execbench_eval::Task;
use execbench_eval::prompt::{Style, default_template};
use execbench_eval::score::Mode;
use execbench_providers::{Endpoint, HttpRequest, ProviderError};

use super::{NewRun, Session, SessionEnd, SessionIo, new_manifest, run_session};
use crate::api::{ApiModel, ApiSettings};
use crate::cancel::CancelToken;
use crate::cost::{Price, SpendCap};
use crate::engine::{EvalJob, Event, Responder};
use crate::io::{BlockingPython, Clock, HttpClient, HttpHead, ResponseBody};
use crate::manifest::{PriceUsed, RunEntry, RunState};
use crate::record::SampleRecord;
use crate::simulate::{SimulatedHttp, Simulation};
use crate::store::{RunStore, StoreError, StoreErrorKind, StoreResult};

/// Samples per run in the table.
const SAMPLES: usize = 3;

/// One way a session ends, and what the store must then hold.
struct Case {
    name: &'static str,
    /// The state and the note's first words.
    state: RunState,
    note: Option<&'static str>,
    /// Records stored: exactly, or at least / at most.
    records: std::ops::RangeInclusive<usize>,
    /// Requests answered (sent less failed), and the fewest that failed, as the entry stores
    /// them (the test clock may time a request out at random: that one is retried and counted).
    sent: std::ops::RangeInclusive<u64>,
    failed: u64,
}

/// Runs every case against `store` (empty or not: each case is its own run) and checks what it
/// stored. Awaited natively with a blocking executor, in the browser by wasm-bindgen-test.
pub async fn check<S: RunStore>(store: &S) {
    let cases = [
        Case {
            name: "finished",
            state: RunState::Finished,
            note: None,
            records: SAMPLES..=SAMPLES,
            sent: 3..=3,
            failed: 0,
        },
        Case {
            name: "samples left (a pilot of one)",
            state: RunState::Paused,
            note: Some("2 samples not asked yet: Resume asks for them"),
            records: 1..=1,
            sent: 1..=1,
            failed: 0,
        },
        Case {
            name: "stopped",
            state: RunState::Paused,
            note: Some("stopped: Resume asks for the rest"),
            records: 1..=SAMPLES - 1,
            sent: 1..=2,
            failed: 0,
        },
        Case {
            name: "spend cap",
            state: RunState::Paused,
            note: Some("paused at the spend cap"),
            records: 0..=0,
            sent: 0..=1,
            failed: 0,
        },
        Case {
            name: "store full",
            state: RunState::Paused,
            note: Some("paused: a result could not be stored"),
            records: 1..=1,
            sent: 2..=3,
            failed: 0,
        },
        Case {
            name: "refused by the provider",
            state: RunState::Failed,
            note: Some("stopped by the provider"),
            records: 0..=0,
            sent: 0..=0,
            failed: 1,
        },
    ];
    for (i, case) in cases.iter().enumerate() {
        let run_id = format!("endings-{i}");
        let end = run_case(store, case.name, &run_id).await;
        let stored = store.entry(&run_id).await.unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let stored = stored.unwrap_or_else(|| panic!("{}: no entry stored", case.name));
        let records = store.records(&run_id).await.unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!(stored.state, case.state, "{}: state ({:?})", case.name, stored.note);
        match case.note {
            None => assert_eq!(stored.note, None, "{}: note", case.name),
            Some(start) => assert!(
                stored.note.as_deref().is_some_and(|n| n.starts_with(start)),
                "{}: note {:?} should start with {start:?}",
                case.name,
                stored.note
            ),
        }
        assert!(case.records.contains(&records.len()), "{}: {} records stored", case.name, records.len());
        assert_eq!(stored.tally.recorded(), records.len(), "{}: the tally counts the stored records", case.name);
        assert_eq!((end.entry.state, &end.entry.note), (stored.state, &stored.note), "{}: reported", case.name);
        assert!(end.state_error.is_none(), "{}: the ending was stored", case.name);
        assert_eq!(stored.requests, end.entry.requests, "{}: the requests stored are those reported", case.name);
        let counts = stored.requests;
        let answered = counts.sent - counts.failed;
        assert!(case.sent.contains(&answered), "{}: {counts:?} stored", case.name);
        assert!(counts.failed >= case.failed, "{}: {counts:?} stored", case.name);
        assert!(counts.retries + counts.rate_limit_waits <= counts.failed, "{}: {counts:?} stored", case.name);
        if case.name == "store full" {
            assert_eq!(end.unsaved.len(), 1, "{}: the refused record is handed back", case.name);
            assert_eq!(end.records.len(), 2, "{}: the stored and the refused record are shown", case.name);
        }
    }
    sessions_add_up(store).await;
}

/// A run refused by the provider, then resumed to the end: its entry counts the requests of both
/// sessions, not the last one's.
async fn sessions_add_up<S: RunStore>(store: &S) {
    let run_id = "endings-resumed";
    let first = run_case(store, "refused by the provider", run_id).await;
    let before = first.entry.requests;
    assert!(before.sent >= 1 && before.failed == before.sent, "resumed: the first session's {before:?}");
    let entry = store.entry(run_id).await.unwrap().unwrap_or_else(|| panic!("resumed: no entry stored"));
    let records = store.records(run_id).await.unwrap();
    let plan = super::continuation(&entry, records, &samples_of(SAMPLES), super::Continue::Resume, None)
        .unwrap_or_else(|e| panic!("resumed: {e}"));
    let mut responder = Responder::Api(ApiModel {
        settings: plan.entry.manifest.api.clone().unwrap_or_else(|| panic!("resumed: an API run")),
        key: Some("k".into()),
    });
    let simulation = Simulation { latency_ms: 0, wrong_every: None, reasoning_tokens: 0 };
    let http = SimulatedHttp::new(StepClock::default(), simulation, &plan.job.samples, &plan.job.template);
    let python = BlockingPython::new(AssertEngine);
    let clock = StepClock::default();
    let session =
        Session { store, entry: plan.entry, earlier: plan.earlier, unsaved: Vec::new(), now_ms: Box::new(|| 5_000.0) };
    let io = SessionIo { python: &python, http: &http, clock: &clock };
    let end = run_session(session, plan.job, &mut responder, io, &CancelToken::new(), &|_| {})
        .await
        .unwrap_or_else(|e| panic!("resumed: the session did not start: {}", e.error));
    let stored = store.entry(run_id).await.unwrap().unwrap_or_else(|| panic!("resumed: no entry stored"));
    assert_eq!(stored.state, RunState::Finished, "resumed: {:?}", stored.note);
    let counts = stored.requests;
    assert!(
        counts.sent - counts.failed == SAMPLES as u64
            && counts.failed >= before.failed
            && counts.sent > before.sent + 2,
        "resumed: both sessions' requests are stored: {counts:?} after {before:?}"
    );
    assert_eq!(end.entry.requests, stored.requests, "resumed: reported as stored");
}

async fn run_case<S: RunStore>(store: &S, name: &str, run_id: &str) -> SessionEnd {
    let samples = samples_of(SAMPLES);
    let mut job = EvalJob::new(
        samples.clone(),
        default_template(Task::Output, Style::Direct),
        1,
        vec![Mode::Strict, Mode::Compatible],
    );
    let mut settings = ApiSettings::new(Endpoint {
        provider: "openai-compatible".into(),
        base_url: "http://127.0.0.1:9/v1".into(),
        model: "m".into(),
    });
    // One at a time, so Stop after the first record leaves the others unasked.
    settings.concurrency = 1;
    let mut responder = Responder::Api(ApiModel { settings: settings.clone(), key: Some("k".into()) });
    let price = (name == "spend cap").then(|| PriceUsed { price: Price::per_million(1e6, 1e6), source: "test".into() });
    if let Some(price) = &price {
        job.spend_cap = Some(SpendCap { limit: 0.001, price: price.price, spent_before: 0.0 });
    }
    let about = NewRun {
        run_id: run_id.into(),
        created: 1,
        model: responder.name(),
        api: Some(settings),
        key_used: true,
        dataset: "endings.jsonl".into(),
        simulation: None,
        price,
        stored: None,
        app_version: "test".into(),
    };
    let entry = RunEntry::new(new_manifest(&job, about), 0.0);
    if name.starts_with("samples left") {
        job.samples.truncate(1);
    }
    let clock = StepClock::default();
    let wall = Cell::new(1_000.0);
    let now_ms = Box::new(move || {
        wall.set(wall.get() + 1.0);
        wall.get()
    });
    let python = BlockingPython::new(AssertEngine);
    let cancel = CancelToken::new();
    let stop_after_first = name == "stopped";
    let on_event = |event: super::SessionEvent<'_>| {
        if stop_after_first && matches!(event, super::SessionEvent::Engine(Event::Record(_), _)) {
            cancel.cancel();
        }
    };
    let full = FullAfter { store, puts_left: Cell::new(if name == "store full" { 1 } else { usize::MAX }) };
    let session = Session { store: &full, entry, earlier: Vec::new(), unsaved: Vec::new(), now_ms };
    let ended = if name == "refused by the provider" {
        let io = SessionIo { python: &python, http: &Refusing, clock: &clock };
        run_session(session, job, &mut responder, io, &cancel, &on_event).await
    } else {
        let simulation = Simulation { latency_ms: 0, wrong_every: None, reasoning_tokens: 0 };
        let http = SimulatedHttp::new(StepClock::default(), simulation, &samples, &job.template);
        let io = SessionIo { python: &python, http: &http, clock: &clock };
        run_session(session, job, &mut responder, io, &cancel, &on_event).await
    };
    ended.unwrap_or_else(|e| panic!("{name}: the session did not start: {}", e.error))
}

/// `f(x) = x` at 0, 1, ...: samples any answer path can score.
pub(crate) fn samples_of(count: usize) -> Vec<Sample> {
    (0..count)
        .map(|i| Sample::new(&format!("s{i}"), "def f(x):\n    return x", "f", &i.to_string(), &i.to_string()))
        .collect()
}

/// Time that moves a step each time it is read; sleeping never waits.
#[derive(Default)]
pub(crate) struct StepClock(Cell<f64>);

impl Clock for StepClock {
    fn now_ms(&self) -> f64 {
        self.0.set(self.0.get() + 1.0);
        self.0.get()
    }
    fn sleep(&self, ms: u64) -> impl Future<Output = ()> {
        self.0.set(self.0.get() + ms as f64);
        std::future::ready(())
    }
}

/// Plays Python for compatible scoring: `<code>\nassert A == B` (the program's last line)
/// passes when A and B read the same; any other program is beyond it. Shared with the engine's
/// own tests.
pub struct AssertEngine;

impl PythonEngine for AssertEngine {
    fn run(&mut self, request: &RunRequest) -> RunResult {
        let last = request.program.lines().last().unwrap_or("");
        let outcome = match last.strip_prefix("assert ").and_then(|a| a.split_once(" == ")) {
            Some((a, b)) if a.trim() == b.trim() => Outcome::Value { repr: "None".into(), matches: None },
            Some(_) => Outcome::Raised {
                kind: "AssertionError".into(),
                message: String::new(),
                traceback: String::new(),
                phase: "program".into(),
            },
            None => Outcome::Crashed { reason: format!("the fake engine has no rule for `{}`", request.expression) },
        };
        RunResult { outcome, stdout: String::new(), elapsed_ms: 0.0, trace: None }
    }
}

/// A server that refuses the key: 401 to every request.
struct Refusing;

struct Once(Option<Vec<u8>>);

impl ResponseBody for Once {
    fn chunk(&mut self) -> impl Future<Output = Result<Option<Vec<u8>>, ProviderError>> {
        std::future::ready(Ok(self.0.take()))
    }
}

impl HttpClient for Refusing {
    type Body = Once;
    fn send(&self, _: &HttpRequest) -> impl Future<Output = Result<HttpHead<Once>, ProviderError>> {
        let body = br#"{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}"#;
        std::future::ready(Ok(HttpHead { status: 401, headers: Vec::new(), body: Once(Some(body.to_vec())) }))
    }
}

/// A store that fills up: after `puts_left` records, every record is refused as a full disk
/// (entries still go in, as a small write may after a large one failed).
struct FullAfter<'s, S> {
    store: &'s S,
    puts_left: Cell<usize>,
}

impl<S: RunStore> RunStore for FullAfter<'_, S> {
    fn save_entry(&self, entry: &RunEntry) -> impl Future<Output = StoreResult<()>> {
        self.store.save_entry(entry)
    }
    async fn put_record(&self, entry: &RunEntry, record: &SampleRecord) -> StoreResult<()> {
        match self.puts_left.get() {
            0 => Err(StoreError::new(StoreErrorKind::Quota, "the test's disk is full")),
            n => {
                self.puts_left.set(n - 1);
                self.store.put_record(entry, record).await
            }
        }
    }
    fn entries(&self) -> impl Future<Output = StoreResult<Vec<RunEntry>>> {
        self.store.entries()
    }
    fn entry(&self, run_id: &str) -> impl Future<Output = StoreResult<Option<RunEntry>>> {
        self.store.entry(run_id)
    }
    fn records(&self, run_id: &str) -> impl Future<Output = StoreResult<Vec<SampleRecord>>> {
        self.store.records(run_id)
    }
    fn delete(&self, run_id: &str) -> impl Future<Output = StoreResult<()>> {
        self.store.delete(run_id)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_memory_store_stores_every_ending_alike() {
        futures::executor::block_on(super::check(&crate::store::MemoryRunStore::new()));
    }
}
