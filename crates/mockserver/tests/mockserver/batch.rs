//! The mock's batch services driven by execbench-providers' batch calls over real HTTP: each
//! provider's states on the test's clock, results out of order, errored, expired and cancelled
//! lines, answers equal to the live ones.

use crate::common;

use execbench_core::Sample;
use execbench_mockserver::{AnswerPolicy, BatchScript, MockConfig, MockServer, Task, answer_text, bundled_dataset};
use execbench_providers::batch::{self, BatchPhase, BatchStatus};
use execbench_providers::{Endpoint, ErrorKind, GenerationParams, HttpRequest, Message, WireFormat, build_request};

pub(crate) const KEY: &str = "sk-mock-batch-SECRET";

fn endpoint(server: &MockServer, wire: WireFormat) -> Endpoint {
    let (provider, path, model) = match wire {
        WireFormat::OpenAiChat => ("openai", "/v1", "gpt-mock"),
        WireFormat::Anthropic => ("anthropic", "/v1", "claude-mock"),
        WireFormat::Gemini => ("gemini", "/v1beta", "gemini-mock"),
    };
    Endpoint { provider: provider.into(), base_url: format!("{}{path}", server.base_url()), model: model.into() }
}

/// Sends a built request as it is (its own content type), over one connection.
pub(crate) async fn send(server: &MockServer, request: &HttpRequest) -> common::Response {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let path = request.url.strip_prefix(&server.base_url()).expect("a request to the mock");
    let mut text = format!("{} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n", request.method, server.addr());
    for (name, value) in &request.headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str(&format!("Content-Length: {}\r\n\r\n{}", request.body.len(), request.body));
    let mut stream = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    stream.write_all(text.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    common::parse(&raw)
}

pub(crate) fn samples(count: usize) -> Vec<Sample> {
    bundled_dataset().unwrap().into_iter().take(count).collect()
}

/// Submits one batch of `count` samples' output-prediction prompts; returns its status.
async fn submit(server: &MockServer, wire: WireFormat, count: usize) -> (BatchStatus, Vec<String>) {
    let ep = endpoint(server, wire);
    let lines: Vec<_> = samples(count)
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let messages = [Message::user(format!("{}\n{}", s.code, s.call))];
            (batch::custom_id(i, 0), build_request(&ep, Some(KEY), &GenerationParams::default(), &messages, 1).unwrap())
        })
        .collect();
    let inputs = batch::batch_inputs(&ep, &lines).unwrap();
    assert_eq!(inputs.len(), 1);
    let file_id = upload(server, &ep, &inputs[0]).await.unwrap();
    let create = batch::create_request(&ep, Some(KEY), &inputs[0], file_id.as_deref()).unwrap();
    let r = send(server, &create).await;
    let status = batch::parse_status(wire, r.status, &r.headers, &r.body).unwrap_or_else(|e| panic!("{wire:?}: {e}"));
    (status, inputs[0].custom_ids.clone())
}

/// Uploads `input` when it is a file (OpenAI's one call, Gemini's resumable two): its id.
async fn upload(
    server: &MockServer,
    ep: &Endpoint,
    input: &batch::BatchInput,
) -> Result<Option<String>, execbench_providers::ProviderError> {
    let mut next = batch::upload_request(ep, Some(KEY), input).unwrap();
    while let Some(request) = next.take() {
        let r = send(server, &request).await;
        match batch::parse_upload(ep, input, r.status, &r.headers, &r.body)? {
            batch::Uploaded::File(id) => return Ok(Some(id)),
            batch::Uploaded::Next(request) => next = Some(request),
        }
    }
    Ok(None)
}

async fn poll(server: &MockServer, wire: WireFormat, id: &str) -> BatchStatus {
    let r = send(server, &batch::status_request(&endpoint(server, wire), Some(KEY), id).unwrap()).await;
    batch::parse_status(wire, r.status, &r.headers, &r.body).unwrap_or_else(|e| panic!("{wire:?}: {e}"))
}

async fn collect(
    server: &MockServer,
    wire: WireFormat,
    status: &BatchStatus,
    ids: &[String],
) -> Vec<batch::BatchResult> {
    let mut out = Vec::new();
    for request in batch::results_requests(&endpoint(server, wire), Some(KEY), status).unwrap() {
        let r = send(server, &request).await;
        assert_eq!(r.status, 200, "{wire:?} {}: {}", request.url, r.body);
        out.extend(batch::parse_results(wire, &r.body, ids).into_iter().map(|l| l.unwrap()));
    }
    out
}

const WIRES: [WireFormat; 3] = [WireFormat::OpenAiChat, WireFormat::Anthropic, WireFormat::Gemini];

fn config() -> MockConfig {
    MockConfig {
        api_key: Some(KEY.into()),
        answers: AnswerPolicy { wrong_every: Some(4), ..Default::default() },
        ..Default::default()
    }
}

/// Validating, in progress (half done after half the run), finalizing, completed; the answers
/// are the live ones; scripted lines errored; results not in input order.
#[tokio::test]
async fn each_provider_runs_a_batch_through_its_states() {
    let server = MockServer::start(samples(20), config(), 0).await.unwrap();
    server.set_batch_script(BatchScript { errored_every: Some(5), ..Default::default() });
    let policy = server.policy();
    // (wire, state at creation, after half the run, just after the run, then)
    let cases = [
        (WireFormat::OpenAiChat, BatchPhase::Validating, BatchPhase::Finalizing),
        (WireFormat::Anthropic, BatchPhase::InProgress, BatchPhase::Completed),
        (WireFormat::Gemini, BatchPhase::Validating, BatchPhase::InProgress),
    ];
    for (wire, first, just_after) in cases {
        server.reset();
        let (created, ids) = submit(&server, wire, 20).await;
        assert_eq!(created.phase, first, "{wire:?}");
        server.advance_batch_clock(60 + 1800);
        let half = poll(&server, wire, &created.id).await;
        assert_eq!(
            (half.phase, half.total, half.succeeded + half.failed),
            (BatchPhase::InProgress, 20, 10),
            "{wire:?}"
        );
        assert_eq!(half.failed, 2, "{wire:?}: lines 5 and 10 errored");
        server.advance_batch_clock(1800);
        assert_eq!(poll(&server, wire, &created.id).await.phase, just_after, "{wire:?}");
        server.advance_batch_clock(60);
        let done = poll(&server, wire, &created.id).await;
        assert_eq!((done.phase, done.succeeded, done.failed), (BatchPhase::Completed, 16, 4), "{wire:?}");
        let results = collect(&server, wire, &done, &ids).await;
        assert_eq!(results.len(), 20, "{wire:?}");
        if wire != WireFormat::Gemini {
            assert_ne!(results[0].custom_id, "s0-a0", "{wire:?}: results come in any order");
        }
        let data = samples(20);
        for r in &results {
            let (index, _) = batch::parse_custom_id(&r.custom_id).unwrap();
            match &r.outcome {
                Ok(c) => {
                    let s = &data[index];
                    let want = answer_text(s, Task::Output, policy.is_right_on(index, &s.id, 1));
                    assert_eq!(c.texts, [want], "{wire:?} {}", r.custom_id);
                    assert!(c.usage.prompt_tokens > 0 && c.usage.completion_tokens > 0);
                }
                Err(e) => {
                    assert_eq!((index + 1) % 5, 0, "{wire:?} {}: {e}", r.custom_id);
                    assert_eq!(e.kind, ErrorKind::ServerError, "{wire:?}");
                }
            }
        }
        let calls = server.stats().batch_calls;
        let expected_calls = if wire == WireFormat::OpenAiChat { 7 } else { 5 };
        assert_eq!(calls.values().sum::<u64>(), expected_calls, "{wire:?}: {calls:?}");
    }
}

/// Expired with lines unfinished, cancelled midway, failed at validation: the unfinished lines
/// come back as errors saying why.
#[tokio::test]
async fn endings_other_than_completed() {
    let server = MockServer::start(samples(10), config(), 0).await.unwrap();
    for wire in WIRES {
        // Expired: the run would take 2 days; after 24 h, 10 × (86400 - 60) / 172800 = 4 lines ran.
        server.set_batch_script(BatchScript { run_s: 172_800, ..Default::default() });
        let (created, ids) = submit(&server, wire, 10).await;
        server.advance_batch_clock(86_400);
        let expired = poll(&server, wire, &created.id).await;
        assert_eq!((expired.phase, expired.succeeded), (BatchPhase::Expired, 4), "{wire:?}");
        let results = collect(&server, wire, &expired, &ids).await;
        let unfinished: Vec<_> = results.iter().filter(|r| r.outcome.is_err()).collect();
        if wire == WireFormat::Gemini {
            assert_eq!(results.len(), 4, "Gemini returns the finished lines");
        } else {
            assert_eq!(unfinished.len(), 6, "{wire:?}");
            for r in unfinished {
                let e = r.outcome.as_ref().unwrap_err();
                assert!(e.kind == ErrorKind::Timeout && e.message.contains("expired"), "{wire:?}: {e}");
            }
        }

        // Cancelled after a quarter of the run: what finished is kept.
        server.set_batch_script(BatchScript::default());
        let (created, ids) = submit(&server, wire, 10).await;
        server.advance_batch_clock(60 + 900);
        let r = send(&server, &batch::cancel_request(&endpoint(&server, wire), Some(KEY), &created.id).unwrap()).await;
        let cancelled = batch::parse_status(wire, r.status, &r.headers, &r.body).unwrap();
        assert_eq!((cancelled.phase, cancelled.succeeded), (BatchPhase::Cancelled, 2), "{wire:?}");
        let results = collect(&server, wire, &cancelled, &ids).await;
        assert_eq!(results.iter().filter(|r| r.outcome.is_ok()).count(), 2, "{wire:?}");

        // Failed at validation (Anthropic validates at creation, so its batches never fail so).
        if wire != WireFormat::Anthropic {
            server.set_batch_script(BatchScript { fail_validation: true, ..Default::default() });
            let (created, _) = submit(&server, wire, 3).await;
            server.advance_batch_clock(60);
            let failed = poll(&server, wire, &created.id).await;
            assert_eq!(failed.phase, BatchPhase::Failed, "{wire:?}");
            assert!(failed.reason.is_some_and(|r| r.contains("validation")), "{wire:?}");
        }
    }
    // An impolite poller is slowed down: the 429's Retry-After is what the next check waits.
    server.set_batch_script(BatchScript { rate_limit_status: Some((1, 120)), ..Default::default() });
    let ep = endpoint(&server, WireFormat::Anthropic);
    let r = send(&server, &batch::status_request(&ep, Some(KEY), "msgbatch_mock000001").unwrap()).await;
    let limited = batch::parse_status(WireFormat::Anthropic, r.status, &r.headers, &r.body).unwrap_err();
    assert_eq!((limited.kind, limited.retry_after_ms), (ErrorKind::RateLimited, Some(120_000)));
    server.set_batch_script(BatchScript::default());
    // A wrong key is refused, as on the live routes; ids of no batch are 404.
    let ep = endpoint(&server, WireFormat::OpenAiChat);
    let r = send(&server, &batch::status_request(&ep, Some("sk-wrong"), "batch_mock000001").unwrap()).await;
    assert_eq!(
        batch::parse_status(WireFormat::OpenAiChat, r.status, &r.headers, &r.body).unwrap_err().kind,
        ErrorKind::BadKey
    );
    let r = send(&server, &batch::status_request(&ep, Some(KEY), "batch_none").unwrap()).await;
    assert_eq!(r.status, 404);
}

/// Gemini beyond its inline limit: the input file through the Files API's resumable upload (two
/// calls), the batch naming it, its responses as a file (reverse order, matched by key), gone
/// 48 h after the batch ended; an upload address on another origin is refused before any byte
/// is sent.
#[tokio::test]
async fn a_gemini_batch_from_an_input_file_answers_with_a_responses_file() {
    let server = MockServer::start(samples(12), config(), 0).await.unwrap();
    server.set_batch_script(BatchScript { errored_every: Some(4), ..Default::default() });
    let ep = endpoint(&server, WireFormat::Gemini);
    let lines: Vec<_> = samples(12)
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let messages = [Message::user(format!("{}\n{}", s.code, s.call))];
            (batch::custom_id(i, 0), build_request(&ep, Some(KEY), &GenerationParams::default(), &messages, 1).unwrap())
        })
        .collect();
    let limits = batch::BatchLimits { max_bytes: 2_000, ..batch::batch_limits(WireFormat::Gemini) };
    let inputs = batch::batch_inputs_within(&ep, &lines, limits).unwrap();
    assert_eq!((inputs.len(), inputs[0].file), (1, true), "one file, not several inline batches");
    let file = upload(&server, &ep, &inputs[0]).await.unwrap().expect("a file");
    assert!(file.starts_with("files/"), "{file}");
    let create = batch::create_request(&ep, Some(KEY), &inputs[0], Some(&file)).unwrap();
    let r = send(&server, &create).await;
    let created = batch::parse_status(WireFormat::Gemini, r.status, &r.headers, &r.body).unwrap();
    assert!(created.result_files.is_empty());
    server.advance_batch_clock(60 + 3600 + 60);
    let done = poll(&server, WireFormat::Gemini, &created.id).await;
    assert_eq!((done.phase, done.succeeded, done.failed), (BatchPhase::Completed, 9, 3));
    assert_eq!(done.result_files.len(), 1);
    let results = collect(&server, WireFormat::Gemini, &done, &inputs[0].custom_ids).await;
    assert_eq!(results.len(), 12);
    assert_eq!(results[0].custom_id, "s11-a0", "the file's lines come in any order");
    let policy = server.policy();
    let data = samples(12);
    for r in &results {
        let (index, _) = batch::parse_custom_id(&r.custom_id).unwrap();
        match &r.outcome {
            Ok(c) => {
                let s = &data[index];
                assert_eq!(c.texts, [answer_text(s, Task::Output, policy.is_right_on(index, &s.id, 1))]);
            }
            Err(e) => assert_eq!(((index + 1) % 4, e.kind), (0, ErrorKind::ServerError), "{e}"),
        }
    }
    let calls = server.stats().batch_calls;
    let count = |name: &str| calls.get(name).copied().unwrap_or(0);
    assert_eq!(
        (count("upload_start"), count("upload"), count("create"), count("status"), count("download")),
        (1, 1, 1, 1, 1),
        "{calls:?}"
    );
    // The responses file is kept 48 h after the batch ended, then it is gone.
    server.advance_batch_clock(172_800);
    let download = &batch::results_requests(&ep, Some(KEY), &done).unwrap()[0];
    assert_eq!(send(&server, download).await.status, 404);
    // The bytes of an upload must be the size declared; an unknown upload is 404.
    let mut start = batch::upload_request(&ep, Some(KEY), &inputs[0]).unwrap().unwrap();
    let r = send(&server, &start).await;
    let mut short = match batch::parse_upload(&ep, &inputs[0], r.status, &r.headers, &r.body).unwrap() {
        batch::Uploaded::Next(request) => request,
        other => panic!("{other:?}"),
    };
    short.body.pop();
    assert_eq!(send(&server, &short).await.status, 400);
    short.url = short.url.replace("upload_id=", "upload_id=none");
    assert_eq!(send(&server, &short).await.status, 404);
    // A start without the key is refused, as every batch call.
    start.headers.retain(|(name, _)| name != "x-goog-api-key");
    assert_eq!(send(&server, &start).await.status, 401);
    // An upload address on another origin: refused, nothing sent there.
    server.set_batch_script(BatchScript { upload_origin: Some("http://127.0.0.2:9".into()), ..Default::default() });
    let refused = upload(&server, &ep, &inputs[0]).await.unwrap_err();
    assert!(refused.to_string().contains("upload is refused"), "{refused}");
}
