//! The run engine end to end over fakes, on virtual time: a clock whose sleeps complete only when
//! the test's executor loop moves time forward to their deadline, an HTTP client that answers in
//! the providers' wire formats after a virtual latency (with faults scripted per sample and
//! attempt), a store in memory, and a Python engine that plays `assert` by rules. Nothing waits in
//! real time and nothing touches the network, so waits and concurrency can be asserted exactly.

// Case tables are tuples, on purpose.
#![allow(clippy::type_complexity)]

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::ops::RangeInclusive;
use std::rc::Rc;

use execbench_core::Sample;
use execbench_eval::Task;
use execbench_eval::evaluate::{EvalSettings, evaluate};
use execbench_eval::models::EchoFirstArgument;
use execbench_eval::prompt::{Style, default_template};
use execbench_eval::report::summarize;
use execbench_eval::score::{Mode, ScoreOptions};
use execbench_providers::{Disposition, Endpoint, ErrorKind, HttpRequest, ProviderError};
use execbench_run::api::{ApiModel, ApiSettings};
use execbench_run::io::{BlockingPython, NoHttp};
use execbench_run::manifest::{RunManifest, dataset_hash};
use execbench_run::runfile::{manifest_line, read_run_file, record_line};
use execbench_run::session::endings::AssertEngine;
use execbench_run::{
    CancelToken, Clock, EvalJob, Event, HttpClient, HttpHead, Io, KeepRecords, Responder, ResponseBody, ResultStore,
    RunEnd, RunOutcome, RunStatus, SampleRecord, run_evaluation,
};
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use serde_json::{Value, json};

const KEY: &str = "sk-test-SECRET";
const LATENCY_MS: u64 = 200;

use crate::virtual_clock;
use virtual_clock::VirtualClock;

// ---------------------------------------------------------------------------------------------
// Samples, Python, store

/// `f(x) = x` for most samples, `f(x) = x + 1` for every third (so echoing the argument is
/// sometimes wrong). Calls are `f(100)`, `f(101)`, ...: each names its sample in a prompt.
fn samples(count: usize) -> Vec<Sample> {
    (0..count)
        .map(|i| {
            let x = 100 + i;
            let (code, output) =
                if i % 3 == 2 { ("def f(x):\n    return x + 1", x + 1) } else { ("def f(x):\n    return x", x) };
            Sample::new(&id(i), code, "f", &x.to_string(), &output.to_string())
        })
        .collect()
}

fn id(i: usize) -> String {
    format!("s{i:02}")
}

fn job(samples: Vec<Sample>, n: usize, modes: Vec<Mode>) -> EvalJob {
    EvalJob::new(samples, default_template(Task::Output, Style::Direct), n, modes)
}

fn api_model(provider: &str, base_url: &str, concurrency: usize, stream: bool) -> ApiModel {
    let mut settings =
        ApiSettings::new(Endpoint { provider: provider.into(), base_url: base_url.into(), model: "m".into() });
    settings.concurrency = concurrency;
    settings.params.stream = stream;
    ApiModel { settings, key: Some(KEY.into()) }
}

fn openai(concurrency: usize, stream: bool) -> ApiModel {
    api_model("openai-compatible", "http://127.0.0.1:9/v1", concurrency, stream)
}

/// Keeps records in memory; fails the `fail_at`-th put (1-based) when set.
#[derive(Default)]
struct MemStore {
    records: RefCell<Vec<SampleRecord>>,
    puts: Cell<usize>,
    fail_at: Option<usize>,
}

impl ResultStore for MemStore {
    fn put(&self, record: &SampleRecord) -> impl Future<Output = Result<(), String>> {
        let n = self.puts.get() + 1;
        self.puts.set(n);
        let result = if self.fail_at == Some(n) {
            Err(format!("disk full at record {n}"))
        } else {
            self.records.borrow_mut().push(record.clone());
            Ok(())
        };
        std::future::ready(result)
    }
}

impl MemStore {
    fn ids(&self) -> BTreeSet<String> {
        self.records.borrow().iter().map(|r| r.sample_id.clone()).collect()
    }
}

// ---------------------------------------------------------------------------------------------
// A provider

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fault {
    /// 429 with `retry-after: 1.5`.
    RateLimitHeader,
    /// 429 whose body says "Please try again in 1.5s."
    RateLimitBody,
    ServerError,
    Overloaded,
    BadKey,
    /// 429 insufficient_quota.
    Quota,
    /// A stream that stops after some text, without `[DONE]`.
    StreamCut,
    /// 200 with empty content, finish reason "length".
    EmptyLength,
}

/// One request as the fake saw it.
struct Seen {
    sample: String,
    attempt: u32,
    at_ms: f64,
    headers: Vec<(String, String)>,
    body: Value,
}

#[derive(Default)]
struct Traffic {
    seen: Vec<Seen>,
    in_flight: usize,
    most_in_flight: usize,
    /// Requests whose body was read to its end, by sample.
    completed: Vec<String>,
    /// Requests dropped before their body's end (cancelled).
    abandoned: usize,
}

impl Traffic {
    fn requests(&self, sample: &str) -> u32 {
        self.seen.iter().filter(|s| s.sample == sample).count() as u32
    }

    fn at(&self, sample: &str, attempt: u32) -> f64 {
        self.seen
            .iter()
            .find(|s| s.sample == sample && s.attempt == attempt)
            .map(|s| s.at_ms)
            .unwrap_or_else(|| panic!("no attempt {attempt} of {sample}"))
    }
}

/// Counts a request in flight from its start until its body is read to the end or dropped.
struct InFlight {
    traffic: Rc<RefCell<Traffic>>,
    sample: String,
    finished: bool,
}

impl InFlight {
    fn start(traffic: &Rc<RefCell<Traffic>>, sample: &str) -> Self {
        let mut t = traffic.borrow_mut();
        t.in_flight += 1;
        t.most_in_flight = t.most_in_flight.max(t.in_flight);
        InFlight { traffic: traffic.clone(), sample: sample.to_string(), finished: false }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut t = self.traffic.borrow_mut();
        t.in_flight -= 1;
        if self.finished {
            t.completed.push(self.sample.clone());
        } else {
            t.abandoned += 1;
        }
    }
}

struct FakeBody {
    chunks: std::collections::VecDeque<Vec<u8>>,
    clock: VirtualClock,
    /// Virtual time before each chunk.
    chunk_ms: u64,
    guard: InFlight,
}

impl ResponseBody for FakeBody {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
        if self.chunk_ms > 0 && !self.chunks.is_empty() {
            self.clock.sleep(self.chunk_ms).await;
        }
        let next = self.chunks.pop_front();
        if next.is_none() {
            self.guard.finished = true;
        }
        Ok(next)
    }
}

/// Answers every sample right (or wrong, for the chosen ones) in the wire format the URL names,
/// `latency_ms` of virtual time after the request starts, unless a scripted fault applies.
struct FakeProvider {
    clock: VirtualClock,
    latency_ms: u64,
    chunk_ms: u64,
    /// call → (sample id, expected output)
    answers: BTreeMap<String, (String, String)>,
    wrong: BTreeSet<String>,
    /// (sample id or every sample, attempt or every attempt, fault): the first that applies.
    faults: Vec<(Option<String>, Option<u32>, Fault)>,
    traffic: Rc<RefCell<Traffic>>,
}

impl FakeProvider {
    fn new(clock: &VirtualClock, samples: &[Sample]) -> Self {
        FakeProvider {
            clock: clock.clone(),
            latency_ms: LATENCY_MS,
            chunk_ms: 0,
            answers: samples.iter().map(|s| (s.call.clone(), (s.id.clone(), s.output.clone()))).collect(),
            wrong: BTreeSet::new(),
            faults: Vec::new(),
            traffic: Rc::default(),
        }
    }

    fn wrong(mut self, samples: impl IntoIterator<Item = usize>) -> Self {
        self.wrong.extend(samples.into_iter().map(id));
        self
    }

    fn fault(mut self, sample: Option<usize>, attempt: Option<u32>, fault: Fault) -> Self {
        self.faults.push((sample.map(id), attempt, fault));
        self
    }

    /// The sample a request is about: its call stands in the prompt's last `assert ... == ??`.
    fn identify(&self, body: &str) -> (String, String, String) {
        let found: Vec<_> =
            self.answers.iter().filter(|(call, _)| body.contains(&format!("assert {call} == ??"))).collect();
        assert_eq!(found.len(), 1, "the request names no single sample: {body}");
        let (call, (sample, output)) = found[0];
        (call.clone(), sample.clone(), output.clone())
    }

    fn respond(
        &self,
        url: &str,
        body: &Value,
        call: &str,
        sample: &str,
        output: &str,
        fault: Option<Fault>,
    ) -> (u16, Vec<(String, String)>, Vec<Vec<u8>>) {
        let error = |status: u16, headers: &[(&str, &str)], body: Value| {
            (
                status,
                headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
                vec![body.to_string().into_bytes()],
            )
        };
        match fault {
            Some(Fault::RateLimitHeader) => {
                return error(
                    429,
                    &[("retry-after", "1.5")],
                    json!({"error": {"message": "Rate limit reached for requests", "type": "requests", "code": "rate_limit_exceeded"}}),
                );
            }
            Some(Fault::RateLimitBody) => {
                let message = "Rate limit reached for m in organization org-x on tokens per min (TPM): Limit 30000, Used 29500, Requested 900. Please try again in 1.5s.";
                return error(
                    429,
                    &[],
                    json!({"error": {"message": message, "type": "tokens", "code": "rate_limit_exceeded"}}),
                );
            }
            Some(Fault::ServerError) => {
                return error(
                    500,
                    &[],
                    json!({"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}),
                );
            }
            Some(Fault::Overloaded) => {
                return error(
                    529,
                    &[],
                    json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
                );
            }
            Some(Fault::BadKey) => {
                return error(
                    401,
                    &[],
                    json!({"error": {"message": "Incorrect API key provided: sk-test-****CRET.", "type": "invalid_request_error", "code": "invalid_api_key"}}),
                );
            }
            Some(Fault::Quota) => {
                let message = "You exceeded your current quota, please check your plan and billing details.";
                return error(
                    429,
                    &[],
                    json!({"error": {"message": message, "type": "insufficient_quota", "code": "insufficient_quota"}}),
                );
            }
            Some(Fault::StreamCut | Fault::EmptyLength) | None => {}
        }
        let value = if self.wrong.contains(sample) { "-1" } else { output };
        let text = format!("[ANSWER]\nassert {call} == {value}\n[/ANSWER]");
        let usage = json!({"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62});
        let ok =
            |chunks: Vec<Vec<u8>>| (200, vec![("content-type".to_string(), "application/json".to_string())], chunks);
        let stream = body.get("stream") == Some(&Value::Bool(true));
        if url.ends_with("/messages") {
            assert!(!stream && fault.is_none(), "the fake speaks Anthropic only whole and without faults");
            let message = json!({
                "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 50, "output_tokens": 12},
            });
            return ok(halves(message.to_string()));
        }
        if url.contains(":generateContent") {
            assert!(fault.is_none(), "the fake speaks Gemini only whole and without faults");
            let n = body.pointer("/generationConfig/candidateCount").and_then(Value::as_u64).unwrap_or(1);
            let candidates: Vec<Value> = (0..n).map(|i| json!({"index": i, "content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"})).collect();
            let response = json!({"candidates": candidates, "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 12 * n}, "modelVersion": "m"});
            return ok(halves(response.to_string()));
        }
        let n = body.get("n").and_then(Value::as_u64).unwrap_or(1);
        if fault == Some(Fault::EmptyLength) {
            assert!(!stream, "the fake gives empty output only whole");
            let response = json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": ""}, "finish_reason": "length"}], "usage": usage});
            return ok(halves(response.to_string()));
        }
        if !stream {
            let choices: Vec<Value> = (0..n)
                .map(
                    |i| json!({"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}),
                )
                .collect();
            let response = json!({"id": "chatcmpl-1", "object": "chat.completion", "model": "m", "choices": choices, "usage": usage});
            return ok(halves(response.to_string()));
        }
        // A stream: each choice's text in three pieces, then the finish reasons, the usage and
        // [DONE]; the bytes cut every 40 (inside lines and events). A cut stream stops after the
        // first pieces.
        let chunk = |choices: Value| {
            format!(
                "data: {}\n\n",
                json!({"id": "c1", "object": "chat.completion.chunk", "model": "m", "choices": choices})
            )
        };
        let third = text.len() / 3;
        let pieces = [&text[..third], &text[third..2 * third], &text[2 * third..]];
        let mut sse = String::new();
        for (p, piece) in pieces.iter().enumerate() {
            if fault == Some(Fault::StreamCut) && p == 2 {
                break;
            }
            for i in 0..n {
                sse.push_str(&chunk(json!([{"index": i, "delta": {"content": piece}, "finish_reason": null}])));
            }
        }
        if fault != Some(Fault::StreamCut) {
            for i in 0..n {
                sse.push_str(&chunk(json!([{"index": i, "delta": {}, "finish_reason": "stop"}])));
            }
            sse.push_str(&format!(
                "data: {}\n\n",
                json!({"id": "c1", "object": "chat.completion.chunk", "choices": [], "usage": usage})
            ));
            sse.push_str("data: [DONE]\n\n");
        }
        (
            200,
            vec![("content-type".into(), "text/event-stream".into())],
            sse.into_bytes().chunks(40).map(<[u8]>::to_vec).collect(),
        )
    }
}

/// A whole body in two chunks (a client must read to the end).
fn halves(body: String) -> Vec<Vec<u8>> {
    let bytes = body.into_bytes();
    let (a, b) = bytes.split_at(bytes.len() / 2);
    vec![a.to_vec(), b.to_vec()]
}

impl HttpClient for FakeProvider {
    type Body = FakeBody;

    fn send(&self, request: &HttpRequest) -> impl Future<Output = Result<HttpHead<FakeBody>, ProviderError>> {
        let body: Value = serde_json::from_str(&request.body).expect("a JSON body");
        let (call, sample, output) = self.identify(&request.body);
        let attempt = self.traffic.borrow().requests(&sample) + 1;
        let seen = Seen {
            sample: sample.clone(),
            attempt,
            at_ms: self.clock.now_ms(),
            headers: request.headers.clone(),
            body: body.clone(),
        };
        self.traffic.borrow_mut().seen.push(seen);
        let fault = self
            .faults
            .iter()
            .find(|(s, a, _)| s.as_ref().is_none_or(|s| *s == sample) && a.is_none_or(|a| a == attempt))
            .map(|(_, _, f)| *f);
        let (status, headers, chunks) = self.respond(&request.url, &body, &call, &sample, &output, fault);
        let guard = InFlight::start(&self.traffic, &sample);
        let (clock, latency_ms, chunk_ms) = (self.clock.clone(), self.latency_ms, self.chunk_ms);
        async move {
            clock.sleep(latency_ms).await;
            Ok(HttpHead { status, headers, body: FakeBody { chunks: chunks.into(), clock, chunk_ms, guard } })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Driving a run

struct Ran {
    outcome: RunOutcome,
    statuses: Vec<RunStatus>,
    /// Sample ids of the Record events, in order.
    recorded: Vec<String>,
    deltas: Vec<(String, u32, Option<String>)>,
    /// Virtual time the run took.
    elapsed_ms: f64,
}

/// Runs `job` on a local executor: runs every task until all wait, then moves virtual time to the
/// next deadline, until the run has ended. `cancel_at_ms`: press Stop then.
fn drive<H: HttpClient + 'static>(
    job: EvalJob,
    mut responder: Responder,
    clock: &VirtualClock,
    http: Rc<H>,
    store: Rc<MemStore>,
    cancel_at_ms: Option<u64>,
) -> Ran {
    let mut pool = LocalPool::new();
    let spawner = pool.spawner();
    let outcome: Rc<RefCell<Option<RunOutcome>>> = Rc::default();
    let statuses: Rc<RefCell<Vec<RunStatus>>> = Rc::default();
    let recorded: Rc<RefCell<Vec<String>>> = Rc::default();
    let deltas: Rc<RefCell<Vec<(String, u32, Option<String>)>>> = Rc::default();
    let cancel = CancelToken::new();
    let started = clock.now_ms();
    {
        let (clock, outcome, statuses, recorded, deltas, cancel) =
            (clock.clone(), outcome.clone(), statuses.clone(), recorded.clone(), deltas.clone(), cancel.clone());
        let run = async move {
            let python = BlockingPython::new(AssertEngine);
            let on_event = |event: Event<'_>| match event {
                Event::Status(s) => statuses.borrow_mut().push(s.clone()),
                Event::Delta { sample_id, choice, text } => {
                    deltas.borrow_mut().push((sample_id.to_string(), choice, text.map(str::to_string)))
                }
                Event::Record(r) => recorded.borrow_mut().push(r.sample_id.clone()),
            };
            let io = Io { python: &python, http: &*http, clock: &clock, store: &*store };
            let ended = run_evaluation(&job, &mut responder, io, &cancel, &on_event).await;
            *outcome.borrow_mut() = Some(ended);
        };
        spawner.spawn_local(run).expect("spawn the run");
    }
    if let Some(ms) = cancel_at_ms {
        let (clock, cancel) = (clock.clone(), cancel.clone());
        spawner
            .spawn_local(async move {
                clock.sleep(ms).await;
                cancel.cancel();
            })
            .expect("spawn the Stop button");
    }
    for _ in 0..100_000 {
        pool.run_until_stalled();
        if let Some(outcome) = outcome.borrow_mut().take() {
            return Ran {
                outcome,
                statuses: statuses.take(),
                recorded: recorded.take(),
                deltas: deltas.take(),
                elapsed_ms: clock.now_ms() - started,
            };
        }
        assert!(clock.advance(), "the run hangs at {} ms: nothing left to wake", clock.now_ms());
    }
    panic!("the run did not end within 100000 timer steps");
}

fn error_kind(record: &SampleRecord) -> Option<ErrorKind> {
    record.error.as_ref().and_then(|e| e.kind)
}

fn attempt_kinds(record: &SampleRecord) -> Vec<Option<ErrorKind>> {
    record.attempts.iter().map(|a| a.error.as_ref().map(|e| e.kind)).collect()
}

// ---------------------------------------------------------------------------------------------
// Tests

#[derive(Debug, PartialEq)]
enum End {
    Finished,
    ProviderStopped(ErrorKind),
}

/// One table: faults scripted per (sample, attempt), and what the run makes of them.
#[test]
fn faults_table() {
    use ErrorKind::*;
    struct Case {
        name: &'static str,
        samples: usize,
        stream: bool,
        wrong: Vec<usize>,
        /// (sample or every sample, attempt or every attempt, fault)
        faults: Vec<(Option<usize>, Option<u32>, Fault)>,
        end: End,
        /// Samples that end as errors, with the kind.
        errors: Vec<(usize, ErrorKind)>,
        /// Correct answers in the scored records.
        correct: usize,
        /// Requests of the samples listed; `others` for the rest.
        requests: Vec<(usize, u32)>,
        others: RangeInclusive<u32>,
        /// The attempts of the samples listed, by error kind (None: it succeeded).
        attempts: Vec<(usize, Vec<Option<ErrorKind>>)>,
    }
    let retries = execbench_run::backoff::RetryPolicy::default().max_retries;
    let cases = vec![
        Case {
            name: "clean, 5 wrong",
            samples: 20,
            stream: false,
            wrong: vec![1, 4, 7, 10, 13],
            faults: vec![],
            end: End::Finished,
            errors: vec![],
            correct: 15,
            requests: vec![],
            others: 1..=1,
            attempts: vec![],
        },
        Case {
            name: "transient faults are retried",
            samples: 8,
            stream: true,
            wrong: vec![],
            faults: vec![
                (Some(0), Some(1), Fault::RateLimitHeader),
                (Some(1), Some(1), Fault::RateLimitBody),
                (Some(2), Some(1), Fault::ServerError),
                (Some(2), Some(2), Fault::Overloaded),
                (Some(3), Some(1), Fault::StreamCut),
            ],
            end: End::Finished,
            errors: vec![],
            correct: 8,
            requests: vec![(0, 2), (1, 2), (2, 3), (3, 2)],
            others: 1..=1,
            attempts: vec![
                (0, vec![Some(RateLimited), None]),
                (1, vec![Some(RateLimited), None]),
                (2, vec![Some(ErrorKind::ServerError), Some(ErrorKind::Overloaded), None]),
                (3, vec![Some(ErrorKind::StreamCut), None]),
            ],
        },
        Case {
            name: "a fault that never goes away",
            samples: 6,
            stream: false,
            wrong: vec![5],
            faults: vec![(Some(4), None, Fault::ServerError)],
            end: End::Finished,
            errors: vec![(4, ErrorKind::ServerError)],
            correct: 4,
            requests: vec![(4, retries + 1)],
            others: 1..=1,
            attempts: vec![(4, vec![Some(ErrorKind::ServerError); retries as usize + 1])],
        },
        Case {
            name: "bad key",
            samples: 10,
            stream: false,
            wrong: vec![],
            faults: vec![(None, None, Fault::BadKey)],
            end: End::ProviderStopped(ErrorKind::BadKey),
            errors: vec![],
            correct: 0,
            requests: vec![],
            others: 0..=1,
            attempts: vec![],
        },
        Case {
            name: "no quota left",
            samples: 10,
            stream: false,
            wrong: vec![],
            faults: vec![(None, None, Fault::Quota)],
            end: End::ProviderStopped(QuotaExhausted),
            errors: vec![],
            correct: 0,
            requests: vec![],
            others: 0..=1,
            attempts: vec![],
        },
        Case {
            name: "empty output, token limit",
            samples: 5,
            stream: false,
            wrong: vec![],
            faults: vec![(Some(2), None, Fault::EmptyLength)],
            end: End::Finished,
            errors: vec![(2, EmptyOutput)],
            correct: 4,
            requests: vec![(2, 1)],
            others: 1..=1,
            attempts: vec![(2, vec![Some(EmptyOutput)])],
        },
    ];
    for case in cases {
        let name = case.name;
        let clock = VirtualClock::default();
        let all = samples(case.samples);
        let mut provider = FakeProvider::new(&clock, &all).wrong(case.wrong.iter().copied());
        for (sample, attempt, fault) in &case.faults {
            provider = provider.fault(*sample, *attempt, *fault);
        }
        let provider = Rc::new(provider);
        let store = Rc::new(MemStore::default());
        let ran = drive(
            job(all.clone(), 1, vec![Mode::Strict]),
            Responder::Api(openai(4, case.stream)),
            &clock,
            provider.clone(),
            store.clone(),
            None,
        );
        let outcome = &ran.outcome;
        let traffic = provider.traffic.borrow();

        match (&outcome.end, &case.end) {
            (RunEnd::Finished, End::Finished) => {
                assert_eq!(outcome.records.len(), case.samples, "{name}: one record per sample")
            }
            (RunEnd::ProviderStopped(e), End::ProviderStopped(kind)) => {
                assert_eq!(e.kind, *kind, "{name}");
                assert!(traffic.seen.len() <= 4, "{name}: {} requests after a run-stopping answer", traffic.seen.len());
                assert!(ran.elapsed_ms < 1_000.0, "{name}: stopped after {} ms", ran.elapsed_ms);
            }
            (got, want) => panic!("{name}: the run ended {got:?}, expected {want:?}"),
        }
        // What was stored is what the run reports, one record per sample at most, and none for a
        // sample whose answer stopped the run.
        assert_eq!(*store.records.borrow(), outcome.records, "{name}");
        assert_eq!(ran.recorded, outcome.records.iter().map(|r| r.sample_id.clone()).collect::<Vec<_>>(), "{name}");
        assert_eq!(store.ids().len(), outcome.records.len(), "{name}: a sample stored twice");
        assert!(
            outcome.records.iter().all(|r| error_kind(r).is_none_or(|k| k.disposition() != Disposition::StopRun)),
            "{name}"
        );

        let errors: Vec<(String, ErrorKind)> = outcome
            .records
            .iter()
            .filter(|r| r.is_error())
            .map(|r| (r.sample_id.clone(), error_kind(r).expect("a provider error has a kind")))
            .collect();
        let mut want_errors: Vec<(String, ErrorKind)> = case.errors.iter().map(|(i, k)| (id(*i), *k)).collect();
        let mut got_errors = errors.clone();
        got_errors.sort_by(|a, b| a.0.cmp(&b.0));
        want_errors.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(got_errors, want_errors, "{name}: errors");
        assert!(
            outcome.records.iter().filter(|r| r.is_error()).all(|r| r.results.is_empty()),
            "{name}: an error has no results"
        );
        assert_eq!(outcome.status.errors, case.errors.len(), "{name}");
        assert_eq!(outcome.status.done, outcome.records.len(), "{name}");

        // pass@1 is over the scored samples only: errors are not in its denominator.
        let rows: Vec<_> = outcome.records.iter().filter_map(|r| r.results.first().cloned()).collect();
        assert_eq!(rows.len(), outcome.records.len() - errors.len(), "{name}");
        let correct: usize = rows.iter().map(|r| r.correct).sum();
        assert_eq!(correct, case.correct, "{name}: correct answers");
        let summary = summarize(Task::Output, Mode::Strict, &rows);
        assert_eq!(summary.pass_at_1.total, rows.len(), "{name}");
        if !rows.is_empty() {
            let want = case.correct as f64 / rows.len() as f64 * 100.0;
            assert!(
                summary.pass_at_1.percent.is_some_and(|p| (p - want).abs() < 1e-9),
                "{name}: pass@1 {:?}, expected {want}",
                summary.pass_at_1.percent
            );
        }

        for sample in &all {
            let index: usize = sample.id[1..].parse().unwrap();
            let got = traffic.requests(&sample.id);
            match case.requests.iter().find(|(i, _)| *i == index) {
                Some((_, want)) => assert_eq!(got, *want, "{name}: requests of {}", sample.id),
                None => assert!(case.others.contains(&got), "{name}: {got} requests of {}", sample.id),
            }
        }
        for (index, want) in &case.attempts {
            let record = outcome
                .records
                .iter()
                .find(|r| r.sample_id == id(*index))
                .unwrap_or_else(|| panic!("{name}: no record of {}", id(*index)));
            assert_eq!(attempt_kinds(record), *want, "{name}: attempts of {}", record.sample_id);
            assert!(record.attempts.iter().all(|a| a.ms >= LATENCY_MS as f64), "{name}: {:?}", record.attempts);
        }
        assert_eq!(traffic.in_flight, 0, "{name}: a request left open");
        // However the run ended, its final status shows no request running or waiting.
        let last = &outcome.status;
        assert_eq!((last.running, last.rate_limited, last.retrying), (0, 0, 0), "{name}: {}", last.describe());
        assert_eq!(outcome.status.requests_sent, traffic.seen.len(), "{name}");
    }
}

/// 20 samples, 4 at a time, 200 ms each: 5 waves, both scoring modes.
#[test]
fn twenty_samples_four_at_a_time() {
    let clock = VirtualClock::default();
    let all = samples(20);
    let provider = Rc::new(FakeProvider::new(&clock, &all).wrong([0, 5, 10, 15, 19]));
    let store = Rc::new(MemStore::default());
    let ran = drive(
        job(all.clone(), 1, vec![Mode::Strict, Mode::Compatible]),
        Responder::Api(openai(4, false)),
        &clock,
        provider.clone(),
        store.clone(),
        None,
    );
    let outcome = &ran.outcome;
    assert_eq!(outcome.end, RunEnd::Finished);
    let ids: Vec<String> = outcome.records.iter().map(|r| r.sample_id.clone()).collect();
    assert_eq!(
        ids.iter().cloned().collect::<BTreeSet<_>>(),
        all.iter().map(|s| s.id.clone()).collect(),
        "every sample has a record"
    );
    assert_eq!(ids.len(), 20, "and only one");
    for record in &outcome.records {
        assert_eq!(record.index, all.iter().position(|s| s.id == record.sample_id).unwrap());
        assert_eq!(record.results.len(), 2, "one result per mode");
        assert!(record.latency_ms >= LATENCY_MS as f64);
    }
    for (m, mode) in [Mode::Strict, Mode::Compatible].into_iter().enumerate() {
        let rows: Vec<_> = outcome.records.iter().map(|r| r.results[m].clone()).collect();
        assert!(rows.iter().all(|r| r.mode == mode));
        assert_eq!(summarize(Task::Output, mode, &rows).pass_at_1.display(), "75.0", "{mode:?}");
    }
    // Strict output scoring runs nothing; compatible runs one assert per sample.
    assert_eq!(outcome.python_runs, 20);
    let traffic = provider.traffic.borrow();
    assert_eq!(traffic.seen.len(), 20);
    assert_eq!((traffic.most_in_flight, outcome.most_concurrent), (4, 4));
    assert!((1_000.0..=1_300.0).contains(&ran.elapsed_ms), "took {} ms of virtual time", ran.elapsed_ms);
    let last = ran.statuses.last().unwrap();
    assert_eq!((last.total, last.done, last.errors, last.running, last.requests_sent), (20, 20, 0, 0, 20));
    assert_eq!(last.usage.prompt_tokens, 20 * 50);
    assert!(ran.statuses.iter().all(|s| s.running <= 4 && s.concurrency_limit == 4));
}

/// A run that keeps no records (the command line's: its memory stays flat) stores every record
/// whole and reports each as it is stored; its outcome holds none.
#[test]
fn a_run_that_keeps_nothing_still_stores_and_reports_every_record() {
    let clock = VirtualClock::default();
    let all = samples(12);
    let provider = Rc::new(FakeProvider::new(&clock, &all).wrong([1, 4, 9]));
    let store = Rc::new(MemStore::default());
    let job = EvalJob { keep: KeepRecords::Nothing, ..job(all.clone(), 3, vec![Mode::Strict]) };
    let ran = drive(job, Responder::Api(openai(4, false)), &clock, provider, store.clone(), None);
    assert_eq!(ran.outcome.end, RunEnd::Finished);
    assert!(ran.outcome.records.is_empty());
    let stored = store.records.borrow();
    assert_eq!(stored.iter().map(|r| r.sample_id.clone()).collect::<Vec<_>>(), ran.recorded);
    assert_eq!(stored.len(), 12);
    let rows: Vec<_> = stored.iter().map(|r| r.results[0].clone()).collect();
    assert_eq!(summarize(Task::Output, Mode::Strict, &rows).pass_at_1.display(), "75.0");
}

/// The waits a provider asks for are waited out (virtual time); an isolated rate limit is a wait
/// for that request only: the others go on at full concurrency. A cut stream starts its text over.
#[test]
fn an_isolated_rate_limit_waits_what_the_provider_asks_and_only_that_request_waits() {
    let clock = VirtualClock::default();
    let all = samples(12);
    let provider = Rc::new(
        FakeProvider::new(&clock, &all)
            .fault(Some(0), Some(1), Fault::RateLimitHeader)
            .fault(Some(9), Some(1), Fault::RateLimitBody)
            .fault(Some(3), Some(1), Fault::StreamCut),
    );
    let ran = drive(
        job(all, 1, vec![Mode::Strict]),
        Responder::Api(openai(4, true)),
        &clock,
        provider.clone(),
        Rc::default(),
        None,
    );
    assert_eq!(ran.outcome.end, RunEnd::Finished);
    let traffic = provider.traffic.borrow();
    for sample in ["s00", "s09"] {
        let waited = traffic.at(sample, 2) - (traffic.at(sample, 1) + LATENCY_MS as f64);
        assert!(waited >= 1_500.0, "{sample} waited {waited} ms");
        let record = ran.outcome.records.iter().find(|r| r.sample_id == sample).unwrap();
        assert_eq!(record.attempts[0].error.as_ref().and_then(|e| e.retry_after_ms), Some(1_500));
        assert!(record.latency_ms >= 1_500.0 + 2.0 * LATENCY_MS as f64, "{}", record.latency_ms);
    }
    // While s00 waits, its slot serves the next sample at once, and four stay in flight.
    let limited_at = traffic.at("s00", 1) + LATENCY_MS as f64;
    assert_eq!(traffic.at("s04", 1), limited_at, "the freed slot waited for s00's Retry-After");
    assert_eq!(traffic.most_in_flight, 4);
    assert!(
        ran.statuses.iter().all(|s| s.concurrency_limit == 4 && s.concurrency_lowered.is_none()),
        "an isolated rate limit lowered the limit"
    );
    assert!(ran.statuses.iter().any(|s| s.rate_limited > 0 && s.longest_wait_ms > 0), "the wait was never shown");
    // The cut stream's text was shown, then started over for the retry, then shown whole.
    let d: Vec<&Option<String>> = ran.deltas.iter().filter(|(s, _, _)| s == "s03").map(|(_, _, t)| t).collect();
    let restart = d.iter().position(|t| t.is_none()).expect("a restart");
    assert!(restart > 0 && d[restart + 1..].iter().all(|t| t.is_some()));
    let retried: String = d[restart + 1..].iter().map(|t| t.as_deref().unwrap()).collect();
    assert_eq!(retried, "[ANSWER]\nassert f(103) == 103\n[/ANSWER]");
}

/// Repeated rate limits (every request in flight limited) show the account is saturated: the
/// limit halves, no request starts before the provider's wait is over, and the status says what
/// the limit is, why, and when it is back.
#[test]
fn repeated_rate_limits_lower_the_limit_and_the_status_says_when_it_is_back() {
    let clock = VirtualClock::default();
    let all = samples(12);
    let mut provider = FakeProvider::new(&clock, &all);
    for sample in 0..4 {
        provider = provider.fault(Some(sample), Some(1), Fault::RateLimitHeader);
    }
    let provider = Rc::new(provider);
    let ran = drive(
        job(all, 1, vec![Mode::Strict]),
        Responder::Api(openai(4, false)),
        &clock,
        provider.clone(),
        Rc::default(),
        None,
    );
    assert_eq!(ran.outcome.end, RunEnd::Finished);
    let traffic = provider.traffic.borrow();
    // All four were limited together at the latency: nothing started during the 1.5 s pause.
    let limited_at = LATENCY_MS as f64;
    assert!(
        traffic.seen.iter().all(|s| s.at_ms < limited_at || s.at_ms >= limited_at + 1_500.0),
        "a request started during the pause"
    );
    // Cut once (the four were sent before the cut), to 2 of 4; at most two in flight after.
    let lowered: Vec<_> = ran.statuses.iter().filter_map(|s| s.concurrency_lowered).collect();
    assert!(!lowered.is_empty(), "the lowered limit was never shown");
    assert!(lowered.iter().all(|l| l.limit == 2 && l.setting == 4 && l.back_in_ms <= 10_000), "{lowered:?}");
    let after_pause: Vec<f64> = traffic.seen.iter().map(|s| s.at_ms).filter(|&at| at >= limited_at + 1_500.0).collect();
    let most_after = after_pause
        .iter()
        .map(|&at| after_pause.iter().filter(|&&other| other <= at && other + LATENCY_MS as f64 > at).count())
        .max()
        .unwrap();
    assert_eq!(most_after, 2, "in flight at once after the cut");
    let shown = ran.statuses.iter().find(|s| s.concurrency_lowered.is_some()).unwrap().describe();
    assert!(shown.contains("concurrency 2 of 4 after rate limits, back to 4 in 10 s"), "{shown}");
}

/// Stop while requests are in flight: they are dropped, their samples get no record.
#[test]
fn stop_drops_the_requests_in_flight() {
    let clock = VirtualClock::default();
    let all = samples(8);
    let mut provider = FakeProvider::new(&clock, &all);
    provider.chunk_ms = 25;
    let provider = Rc::new(provider);
    let store = Rc::new(MemStore::default());
    let ran = drive(
        job(all, 1, vec![Mode::Strict]),
        Responder::Api(openai(4, true)),
        &clock,
        provider.clone(),
        store.clone(),
        Some(1_010),
    );
    assert_eq!(ran.outcome.end, RunEnd::Stopped);
    assert!((1_010.0..1_011.0).contains(&ran.elapsed_ms), "stopped at {} ms", ran.elapsed_ms);
    let traffic = provider.traffic.borrow();
    assert!(traffic.abandoned > 0, "nothing was in flight at Stop");
    assert_eq!(traffic.in_flight, 0, "a request left open");
    assert_eq!(traffic.completed.len() + traffic.abandoned, traffic.seen.len());
    // Exactly the samples whose responses came in have a record.
    let completed: BTreeSet<String> = traffic.completed.iter().cloned().collect();
    assert_eq!(store.ids(), completed);
    assert_eq!(ran.outcome.records.len(), completed.len());
    assert!(!completed.is_empty() && completed.len() < 8, "{completed:?}");
    assert!(ran.outcome.records.iter().all(|r| r.results[0].correct == 1));
    assert!(ran.outcome.status.stopping);
    assert_eq!(ran.outcome.status.done, completed.len());
    // The final status says nothing runs any more (the page shows it after the run).
    let last = &ran.outcome.status;
    assert_eq!((last.running, last.rate_limited, last.retrying), (0, 0, 0), "{}", last.describe());
    assert_eq!(last.describe(), "stopping, 0 running");
}

/// Stop while requests wait to retry (after a rate limit, after a fault): the waits end with the
/// run, and the final status shows none left.
#[test]
fn stop_during_waits_leaves_none_shown() {
    let clock = VirtualClock::default();
    let all = samples(3);
    let provider = Rc::new(FakeProvider::new(&clock, &all).fault(Some(0), Some(1), Fault::RateLimitHeader).fault(
        Some(1),
        Some(1),
        Fault::ServerError,
    ));
    let mut model = openai(4, false);
    // A back-off of 5 to 10 s: certainly still waiting at Stop.
    model.settings.retry.base_ms = 10_000;
    let ran = drive(
        job(all, 1, vec![Mode::Strict]),
        Responder::Api(model),
        &clock,
        provider.clone(),
        Rc::default(),
        Some(1_000),
    );
    assert_eq!(ran.outcome.end, RunEnd::Stopped);
    assert!(
        ran.statuses.iter().any(|s| (s.rate_limited, s.retrying, s.worst_retry) == (1, 1, Some((1, 5)))),
        "the waits were shown"
    );
    let traffic = provider.traffic.borrow();
    assert_eq!((traffic.requests("s00"), traffic.requests("s01"), traffic.abandoned), (1, 1, 0));
    assert_eq!(ran.outcome.records.iter().map(|r| r.sample_id.as_str()).collect::<Vec<_>>(), ["s02"]);
    let last = &ran.outcome.status;
    assert_eq!(
        (last.running, last.rate_limited, last.retrying, last.worst_retry),
        (0, 0, 0, None),
        "{}",
        last.describe()
    );
}

/// A provider slower than the time-out: each attempt is dropped at the time-out and retried, then
/// the sample is an error of kind Timeout.
#[test]
fn a_request_that_outlasts_the_timeout_is_dropped_and_retried() {
    let clock = VirtualClock::default();
    let all = samples(2);
    let mut provider = FakeProvider::new(&clock, &all);
    provider.latency_ms = 60_000;
    let provider = Rc::new(provider);
    let mut model = openai(4, false);
    model.settings.timeout_ms = 5_000;
    model.settings.retry.max_retries = 2;
    let ran =
        drive(job(all, 1, vec![Mode::Strict]), Responder::Api(model), &clock, provider.clone(), Rc::default(), None);
    assert_eq!(ran.outcome.end, RunEnd::Finished);
    assert_eq!(ran.outcome.status.errors, 2);
    for record in &ran.outcome.records {
        assert_eq!(error_kind(record), Some(ErrorKind::Timeout));
        assert_eq!(attempt_kinds(record), vec![Some(ErrorKind::Timeout); 3]);
        assert!(record.attempts.iter().all(|a| a.ms == 5_000.0), "{:?}", record.attempts);
    }
    let traffic = provider.traffic.borrow();
    assert_eq!((traffic.seen.len(), traffic.abandoned, traffic.in_flight), (6, 6, 0));
    assert!(ran.elapsed_ms < 60_000.0, "waited for the slow provider: {} ms", ran.elapsed_ms);
}

/// A resumed run asks only for the samples without a record, and counts the others as done.
#[test]
fn a_resumed_run_asks_only_for_the_rest() {
    let clock = VirtualClock::default();
    let all = samples(6);
    let provider = Rc::new(FakeProvider::new(&clock, &all));
    let mut resumed = job(all.clone(), 1, vec![Mode::Strict]);
    resumed.done = ["s01".to_string(), "s04".to_string(), "not-in-the-job".to_string()].into();
    let ran = drive(resumed, Responder::Api(openai(4, false)), &clock, provider.clone(), Rc::default(), None);
    assert_eq!(ran.outcome.end, RunEnd::Finished);
    let traffic = provider.traffic.borrow();
    for sample in &all {
        let want = if ["s01", "s04"].contains(&sample.id.as_str()) { 0 } else { 1 };
        assert_eq!(traffic.requests(&sample.id), want, "{}", sample.id);
    }
    assert_eq!(ran.outcome.records.len(), 4);
    let first = ran.statuses.first().unwrap();
    assert_eq!((first.total, first.done), (6, 2));
    assert_eq!((ran.outcome.status.total, ran.outcome.status.done), (6, 6));
    assert_eq!(ran.outcome.status.fraction(), 1.0);
}

/// n = 5: one request with n choices where the provider takes `n`, else five requests; the
/// record says what was sent.
#[test]
fn n_responses_by_provider() {
    let temperature_and_top_p = |prefix: &str| {
        vec![
            (format!("{prefix}/temperature"), json!(0.2)),
            (format!("{prefix}/{}", if prefix.is_empty() { "top_p" } else { "topP" }), json!(0.95)),
        ]
    };
    // (provider, base URL, requests per sample, key header, what `sent` holds)
    let cases: Vec<(&str, &str, u32, &str, Vec<(String, Value)>)> = vec![
        (
            "openai-compatible",
            "http://127.0.0.1:9/v1",
            1,
            "authorization",
            vec![("/n".into(), json!(5)), ("/max_tokens".into(), json!(2000)), ("/stop".into(), json!(["[/ANSWER]"]))],
        ),
        ("ollama", "http://127.0.0.1:9/v1", 5, "authorization", vec![("/n".into(), Value::Null)]),
        (
            "anthropic",
            "http://127.0.0.1:9/v1",
            5,
            "x-api-key",
            vec![
                ("/n".into(), Value::Null),
                ("/max_tokens".into(), json!(2000)),
                ("/stop_sequences".into(), json!(["[/ANSWER]"])),
            ],
        ),
        (
            "gemini",
            "http://127.0.0.1:9/v1beta",
            1,
            "x-goog-api-key",
            vec![("/generationConfig/candidateCount".into(), json!(5))],
        ),
    ];
    for (provider_id, base_url, per_sample, key_header, sent) in cases {
        let clock = VirtualClock::default();
        let all = samples(2);
        let provider = Rc::new(FakeProvider::new(&clock, &all));
        let ran = drive(
            job(all.clone(), 5, vec![Mode::Strict]),
            Responder::Api(api_model(provider_id, base_url, 4, false)),
            &clock,
            provider.clone(),
            Rc::default(),
            None,
        );
        assert_eq!(ran.outcome.end, RunEnd::Finished, "{provider_id}");
        let traffic = provider.traffic.borrow();
        let gemini = provider_id == "gemini";
        for record in &ran.outcome.records {
            assert_eq!(traffic.requests(&record.sample_id), per_sample, "{provider_id}");
            let result = &record.results[0];
            assert_eq!(
                (result.n, result.correct, record.finish_reasons.len(), record.attempts.len()),
                (5, 5, 5, per_sample as usize),
                "{provider_id}"
            );
            let usage = record.usage.unwrap();
            assert_eq!(usage.prompt_tokens, 50 * per_sample as u64, "{provider_id}");
            let sent_json = record.sent.as_ref().expect("the parameters sent");
            let prefix = if gemini { "/generationConfig" } else { "" };
            // Anthropic's API version takes no sampling parameters: they are left out.
            let mut want = if provider_id == "anthropic" {
                vec![("/temperature".into(), Value::Null), ("/top_p".into(), Value::Null)]
            } else {
                temperature_and_top_p(prefix)
            };
            want.push(("/model".into(), json!("m")));
            want.extend(sent.iter().cloned());
            for (pointer, value) in want {
                assert_eq!(
                    sent_json.pointer(&pointer).cloned().unwrap_or(Value::Null),
                    value,
                    "{provider_id}: {pointer} in {sent_json}"
                );
            }
            assert!(
                sent_json.get("messages").is_none() && sent_json.get("contents").is_none(),
                "{provider_id}: the prompt is not a parameter"
            );
        }
        for seen in &traffic.seen {
            let key = seen.headers.iter().find(|(k, _)| k == key_header).map(|(_, v)| v.as_str());
            assert!(key.is_some_and(|k| k.ends_with(KEY)), "{provider_id}: the key goes in {key_header}");
            let choices = seen
                .body
                .get("n")
                .or(seen.body.pointer("/generationConfig/candidateCount"))
                .and_then(Value::as_u64)
                .unwrap_or(1);
            assert_eq!(choices, if per_sample == 1 { 5 } else { 1 }, "{provider_id}");
        }
    }
}

/// The key goes into requests and nowhere else: not into records (whatever their errors), the
/// run's manifest, or debug output. The records read back from a run file as written.
#[test]
fn keys_stay_out_of_records_manifests_and_debug_output() {
    let clock = VirtualClock::default();
    let all = samples(6);
    let provider = Rc::new(
        FakeProvider::new(&clock, &all)
            .wrong([2])
            .fault(Some(0), Some(1), Fault::RateLimitHeader)
            .fault(Some(1), None, Fault::ServerError)
            .fault(Some(3), Some(1), Fault::StreamCut)
            .fault(Some(5), Some(1), Fault::Overloaded),
    );
    let model = openai(2, true);
    let settings = model.settings.clone();
    let responder = Responder::Api(model.clone());
    let name = responder.name();
    let ran = drive(
        job(all.clone(), 1, vec![Mode::Strict, Mode::Compatible]),
        responder,
        &clock,
        provider.clone(),
        Rc::default(),
        None,
    );
    assert_eq!(ran.outcome.end, RunEnd::Finished);
    let traffic = provider.traffic.borrow();
    assert!(
        traffic.seen.iter().all(|s| s.headers.contains(&("authorization".into(), format!("Bearer {KEY}")))),
        "the key was sent"
    );

    let manifest = RunManifest {
        model: name,
        api: Some(settings),
        dataset: "test.jsonl".into(),
        dataset_hash: dataset_hash(&all),
        samples: all.len(),
        modes: vec![Mode::Strict, Mode::Compatible],
        ..execbench_run::manifest::fixtures::manifest("r1", 0)
    };
    let mut texts = vec![
        manifest_line(&manifest),
        serde_json::to_string(&manifest).unwrap(),
        format!("{model:?}"),
        format!("{:?}", ran.outcome),
    ];
    texts.extend(ran.outcome.records.iter().map(|r| serde_json::to_string(r).unwrap()));
    texts.extend(ran.statuses.iter().map(|s| serde_json::to_string(s).unwrap()));
    for text in &texts {
        assert!(!text.contains(KEY) && !text.contains("SECRET"), "the key leaked: {text}");
    }
    assert!(
        ran.outcome.records.iter().any(|r| r.is_error()) && ran.outcome.records.iter().any(|r| r.attempts.len() > 1),
        "the run had errors and retries"
    );

    // A run file of these records reads back the same.
    let lines: Vec<String> =
        std::iter::once(manifest_line(&manifest)).chain(ran.outcome.records.iter().map(record_line)).collect();
    let file = read_run_file("run.jsonl", &lines.join("\n")).unwrap();
    assert_eq!(file.manifest, manifest);
    assert!(!file.truncated_tail);
    assert_eq!(file.records.len(), all.len());
    for record in &ran.outcome.records {
        assert_eq!(file.records[&record.sample_id], *record);
    }
    let finished = file.finished_ids();
    assert!(!finished.contains("s01") && finished.len() == all.len() - 1, "{finished:?}");
}

/// A store that fails stops the run; what was stored before stays, and is all the run reports.
#[test]
fn a_failing_store_stops_the_run_without_losing_records() {
    let clock = VirtualClock::default();
    let all = samples(10);
    let provider = Rc::new(FakeProvider::new(&clock, &all));
    let store = Rc::new(MemStore { fail_at: Some(3), ..MemStore::default() });
    let ran = drive(
        job(all, 1, vec![Mode::Strict]),
        Responder::Api(openai(4, false)),
        &clock,
        provider.clone(),
        store.clone(),
        None,
    );
    match &ran.outcome.end {
        RunEnd::StoreFailed(message) => assert!(message.contains("disk full at record 3"), "{message}"),
        other => panic!("ended {other:?}"),
    }
    assert!(ran.outcome.end.describe().starts_with("paused: a result could not be stored"));
    assert_eq!(store.puts.get(), 3);
    assert_eq!(store.records.borrow().len(), 2);
    assert_eq!(*store.records.borrow(), ran.outcome.records);
    assert_eq!(ran.recorded.len(), 2);
    assert_eq!(ran.outcome.status.done, 2);
    assert_eq!(provider.traffic.borrow().in_flight, 0);
    assert_eq!(ran.outcome.status.running, 0, "{}", ran.outcome.status.describe());
}

/// An offline model through the engine gives the rows `evaluate` gives.
#[test]
fn an_offline_model_scores_as_evaluate_does() {
    let clock = VirtualClock::default();
    let all = samples(7);
    let modes = vec![Mode::Strict, Mode::Compatible];
    let ran = drive(
        job(all.clone(), 2, modes.clone()),
        Responder::Offline(Box::new(EchoFirstArgument)),
        &clock,
        Rc::new(NoHttp),
        Rc::default(),
        None,
    );
    assert_eq!(ran.outcome.end, RunEnd::Finished);
    assert_eq!(ran.outcome.most_concurrent, 0, "no requests");
    let plan = EvalSettings {
        template: default_template(Task::Output, Style::Direct),
        n: 2,
        modes: modes.clone(),
        options: ScoreOptions::default(),
    };
    let evaluation = evaluate(&mut EchoFirstArgument, &mut AssertEngine, &all, &plan, &mut |_, _| {});
    assert_eq!(ran.outcome.records.len(), all.len());
    for (i, record) in ran.outcome.records.iter().enumerate() {
        assert_eq!((record.index, record.sample_id.as_str()), (i, all[i].id.as_str()), "in dataset order");
        assert!(record.error.is_none() && record.usage.is_none() && record.sent.is_none());
        for (m, mode) in modes.iter().enumerate() {
            assert_eq!(record.results[m], evaluation.results[m][i], "{} {mode:?}", record.sample_id);
        }
    }
    // Echoing the argument is wrong on every third sample (s02, s05).
    for (m, mode) in modes.iter().enumerate() {
        let rows: Vec<_> = ran.outcome.records.iter().map(|r| r.results[m].clone()).collect();
        assert_eq!(summarize(Task::Output, *mode, &rows).correct, 10, "{mode:?}");
    }
    // Identical answers share a Python run: one compatible run per sample.
    assert_eq!(ran.outcome.python_runs, all.len());
}

/// Samples of an offline run overlap when the Python takes runs at once (the CLI's threads, the
/// page's pool), and the records are those of one run at a time, stored in dataset order.
#[test]
fn an_offline_run_over_a_pool_stores_what_one_at_a_time_stores() {
    use execbench_run::threaded_python::ThreadedPython;
    let all = samples(30);
    let modes = vec![Mode::Strict, Mode::Compatible];
    let run_with = |python: &dyn Fn(&VirtualClock, &MemStore) -> RunOutcome| {
        let store = MemStore::default();
        let outcome = python(&VirtualClock::default(), &store);
        (outcome, store.records.take())
    };
    let (one, one_stored) = run_with(&|clock, store| {
        let python = BlockingPython::new(AssertEngine);
        let io = Io { python: &python, http: &NoHttp, clock, store };
        futures::executor::block_on(run_evaluation(
            &job(all.clone(), 3, modes.clone()),
            &mut Responder::Offline(Box::new(EchoFirstArgument)),
            io,
            &CancelToken::new(),
            &|_| {},
        ))
    });
    let (pool, pool_stored) = run_with(&|clock, store| {
        let python = ThreadedPython::new(3, || AssertEngine);
        assert_eq!(execbench_run::io::Python::runs_at_once(&python), 12);
        let io = Io { python: &python, http: &NoHttp, clock, store };
        futures::executor::block_on(run_evaluation(
            &job(all.clone(), 3, modes.clone()),
            &mut Responder::Offline(Box::new(EchoFirstArgument)),
            io,
            &CancelToken::new(),
            &|_| {},
        ))
    });
    assert_eq!(pool.end, RunEnd::Finished);
    assert_eq!(pool.records, one.records);
    assert_eq!(pool_stored, one_stored);
    assert_eq!(
        pool_stored.iter().map(|r| r.index).collect::<Vec<_>>(),
        (0..all.len()).collect::<Vec<_>>(),
        "stored in dataset order"
    );
    assert_eq!(pool.python_runs, one.python_runs);
}

/// One file, one answer: a generations file covering some samples, with fewer answers than the
/// page's n, replayed through the engine over its scope scores exactly as `rescore` does; the
/// samples it lacks are listed, never scored.
#[test]
fn a_replayed_file_scores_like_a_rescored_one() {
    use execbench_eval::generations::{import_generations, rescore};
    use execbench_eval::models::Replay;
    let clock = VirtualClock::default();
    let all = samples(9);
    // s00..s03 have answers (s02's true output is 103), 3 answers each at most; s99 is unknown.
    let file = r#"{"s00": ["100", "1", "100"], "s01": ["7"], "s02": ["102", "103", "103"], "s03": ["103", "103"], "s99": ["1"]}"#;
    let generations = import_generations("g.json", file);
    let replay = Replay::from_generations("g.json", &generations);
    let modes = vec![Mode::Strict, Mode::Compatible];
    // The plan the page's Re-score and `execbench score` both make.
    let template = default_template(Task::Output, Style::Direct);
    let scope = execbench_run::session::file_job(&replay, &all, template, modes.clone());
    assert_eq!(scope.job.n, 3, "the most answers the file gives one sample, not the page's n");
    assert_eq!(scope.job.samples.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["s00", "s01", "s02", "s03"]);
    assert_eq!(scope.missing, ["s04", "s05", "s06", "s07", "s08"]);
    assert_eq!(scope.unknown, ["s99"]);
    let ran =
        drive(scope.job.clone(), Responder::Offline(Box::new(replay)), &clock, Rc::new(NoHttp), Rc::default(), None);
    assert_eq!(ran.outcome.end, RunEnd::Finished);
    assert!(ran.outcome.records.iter().all(|r| r.error.is_none()), "no sample of the scope is an error");
    for (m, mode) in modes.iter().enumerate() {
        let rows: Vec<_> = ran.outcome.records.iter().map(|r| r.results[m].clone()).collect();
        let replayed = summarize(Task::Output, *mode, &rows);
        let rescored = rescore(&mut AssertEngine, &all, &generations, Task::Output, *mode, &ScoreOptions::default());
        assert_eq!(rescored.missing, scope.missing);
        assert_eq!(replayed, rescored.summary, "{mode:?}");
        // (2/3 + 0 + 2/3 + 1) / 4
        assert_eq!(replayed.pass_at_1.display(), "58.3", "{mode:?}");
    }
}

/// The spend cap: a sample starts only when what is spent, plus the most the samples in flight
/// and this one could cost, stays within the cap; the run pauses when none can.
#[test]
fn the_spend_cap_pauses_before_a_request_that_could_pass_it() {
    use execbench_run::cost::{Price, SpendCap};
    let clock = VirtualClock::default();
    let all = samples(20);
    let provider = Rc::new(FakeProvider::new(&clock, &all));
    let mut model = openai(2, false);
    model.settings.params.max_tokens = 100;
    // Output only: 1 mdollar a token. The worst case of a sample is 100 tokens = $0.1; the fake
    // provider bills 12 completion tokens = $0.012 per sample.
    let price = Price { input: 0.0, output: 0.001, cached_input: None, reasoning: None };
    let mut capped = job(all.clone(), 1, vec![Mode::Strict]);
    capped.spend_cap = Some(SpendCap { limit: 0.2, price, spent_before: 0.0 });
    let ran = drive(capped, Responder::Api(model.clone()), &clock, provider.clone(), Rc::default(), None);
    // Sample k + 1 starts while 0.012 k + 0.1 <= 0.2, so k <= 8: nine samples, $0.108.
    match ran.outcome.end {
        RunEnd::SpendCap { spent, limit } => {
            assert!((spent - 0.108).abs() < 1e-9, "spent {spent}");
            assert_eq!(limit, 0.2);
        }
        ref other => panic!("expected the spend cap, got {other:?}"),
    }
    assert_eq!(ran.outcome.records.len(), 9);
    assert_eq!(provider.traffic.borrow().seen.len(), 9, "no request past the cap");
    assert!(ran.outcome.end.describe().contains("$0.11 spent of $0.20"), "{}", ran.outcome.end.describe());

    // Resumed with what was spent before: the same rule over the whole run.
    let mut resumed = job(all.clone(), 1, vec![Mode::Strict]);
    resumed.done = ran.outcome.records.iter().map(|r| r.sample_id.clone()).collect();
    resumed.spend_cap = Some(SpendCap { limit: 0.25, price, spent_before: 0.108 });
    let again = drive(resumed, Responder::Api(model), &clock, provider.clone(), Rc::default(), None);
    // 0.108 + 0.012 k + 0.1 <= 0.25 while k <= 3.5: four more samples.
    assert_eq!(again.outcome.records.len(), 4);
    assert!(matches!(again.outcome.end, RunEnd::SpendCap { .. }));
}

/// Extending a run to a larger n asks only for the answers a sample lacks; the record holds all
/// of them, scored together, with the sample's total usage.
#[test]
fn extending_n_asks_only_for_the_missing_answers() {
    use execbench_run::engine::PriorAnswers;
    let clock = VirtualClock::default();
    let all = samples(3);
    let provider = Rc::new(FakeProvider::new(&clock, &all).wrong([1]));
    let first = drive(
        job(all.clone(), 2, vec![Mode::Strict]),
        Responder::Api(openai(4, false)),
        &clock,
        provider.clone(),
        Rc::default(),
        None,
    );
    assert_eq!(first.outcome.end, RunEnd::Finished);
    let mut extended = job(all.clone(), 5, vec![Mode::Strict]);
    extended.prior =
        first.outcome.records.iter().filter_map(|r| PriorAnswers::of(r).map(|p| (r.sample_id.clone(), p))).collect();
    assert_eq!(extended.prior.len(), 3);
    let second = drive(extended, Responder::Api(openai(4, false)), &clock, provider.clone(), Rc::default(), None);
    assert_eq!(second.outcome.end, RunEnd::Finished);
    let traffic = provider.traffic.borrow();
    assert_eq!(
        traffic.seen.iter().map(|s| s.body["n"].as_u64().unwrap_or(1)).collect::<Vec<_>>(),
        [2, 2, 2, 3, 3, 3],
        "the second session asks 3 more per sample"
    );
    for record in &second.outcome.records {
        let earlier = first.outcome.records.iter().find(|r| r.sample_id == record.sample_id).unwrap();
        let result = &record.results[0];
        assert_eq!(result.answers.len(), 5);
        assert_eq!(
            result.answers[..2].iter().map(|a| a.response.clone()).collect::<Vec<_>>(),
            earlier.results[0].answers.iter().map(|a| a.response.clone()).collect::<Vec<_>>(),
            "the first answers kept"
        );
        assert_eq!(result.correct, if record.sample_id == "s01" { 0 } else { 5 });
        assert_eq!(record.usage.unwrap().prompt_tokens, 100, "both sessions' tokens");
    }
}

/// The simulated model goes through the whole engine like a provider: answers right except every
/// k-th sample, usage by its documented rule, streamed or not, concurrency respected.
#[test]
fn the_simulated_model_answers_like_a_provider() {
    use execbench_run::simulate::{PROVIDER, SimulatedHttp, Simulation, simulated_tokens};
    for stream in [false, true] {
        let clock = VirtualClock::default();
        let all = samples(12);
        let template = default_template(Task::Output, Style::Direct);
        let simulation = Simulation { latency_ms: 300, wrong_every: Some(4), reasoning_tokens: 7 };
        let http = Rc::new(SimulatedHttp::new(clock.clone(), simulation, &all, &template));
        let model = api_model(PROVIDER, "http://simulated.invalid/v1", 3, stream);
        let ran =
            drive(job(all.clone(), 2, vec![Mode::Strict]), Responder::Api(model), &clock, http, Rc::default(), None);
        assert_eq!(ran.outcome.end, RunEnd::Finished, "stream {stream}");
        let rows: Vec<_> = ran.outcome.records.iter().map(|r| r.results[0].clone()).collect();
        // Samples 4, 8 and 12 (positions 3, 7, 11) are wrong: 9 of 12.
        assert_eq!(summarize(Task::Output, Mode::Strict, &rows).pass_at_1.display(), "75.0", "stream {stream}");
        // 12 samples, 3 at a time, 300 ms each: 4 waves.
        assert!((1_200.0..=1_500.0).contains(&ran.elapsed_ms), "{} ms", ran.elapsed_ms);
        let record = ran.outcome.records.iter().find(|r| r.sample_id == "s00").unwrap();
        let prompt = template.render(&all[0]);
        let answer = "[ANSWER]\nassert f(100) == 100\n[/ANSWER]";
        let usage = record.usage.unwrap();
        assert_eq!(usage.prompt_tokens, prompt.messages.iter().map(|m| simulated_tokens(&m.content)).sum::<u64>());
        assert_eq!((usage.completion_tokens, usage.reasoning_tokens), (2 * (simulated_tokens(answer) + 7), 14));
    }
}
