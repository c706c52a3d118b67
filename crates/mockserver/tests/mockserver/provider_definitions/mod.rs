//! Every body execbench sends, and every answer the mock gives, held against the providers' own
//! definitions: OpenAI's OpenAPI document (a fixture, `tests/fixtures/openai-openapi/`), the
//! `anthropic` and `google-genai` SDKs' types (in a Python venv, `scripts/provider_defs/`). The
//! client and the mock were written from one reading of each API; this test is where a reading
//! nobody here wrote gets a say. The checker rejects keys a definition does not name, so a
//! parameter a provider dropped fails here before a user's run meets it.

use std::path::{Path, PathBuf};
use std::process::Command;

use execbench_mockserver::{Fault, FaultRule, MockConfig, MockServer, SampleMatch};
use execbench_providers::batch;
use execbench_providers::{Endpoint, GenerationParams, HttpRequest, Message, WireFormat, build_request, presets};
use serde_json::{Value, json};

use crate::batch::{KEY, samples, send};

/// The records the checker reads: `{label, kind, body}`, one per line.
#[derive(Default)]
struct Records(Vec<Value>);

impl Records {
    fn add(&mut self, label: impl Into<String>, kind: &str, body: Value) {
        self.0.push(json!({"label": label.into(), "kind": kind, "body": body}));
    }

    fn add_text(&mut self, label: impl Into<String>, kind: &str, text: &str) {
        let label = label.into();
        let body: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{label}: not JSON ({e}): {text}"));
        self.add(label, kind, body);
    }

    fn write(&self, path: &Path) {
        let text: String = self.0.iter().map(|r| format!("{r}\n")).collect();
        std::fs::write(path, text).unwrap();
    }
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// The venv's Python, set up (or found set up) by `scripts/provider_defs/setup.sh`, which prints
/// its path last.
fn checker_python() -> PathBuf {
    let script = repo_root().join("scripts/provider_defs/setup.sh");
    let out = Command::new("bash").arg(&script).output().unwrap_or_else(|e| panic!("cannot run {script:?}: {e}"));
    assert!(
        out.status.success(),
        "{} failed; the provider definitions' venv is needed by this test:\n{}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    PathBuf::from(stdout.lines().last().expect("setup.sh prints the venv's python").trim())
}

/// Runs the checker over `records`: (passed, what it printed).
fn check(records: &Records, name: &str) -> (bool, String) {
    let dir = std::env::temp_dir().join(format!("execbench-provider-defs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}.jsonl"));
    records.write(&file);
    let out = Command::new(checker_python())
        .arg(repo_root().join("scripts/provider_defs/check.py"))
        .arg(&file)
        .output()
        .expect("run the checker");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

fn assert_valid(records: &Records, name: &str) {
    assert!(records.0.len() > 10, "{name}: too few records to mean anything");
    let (ok, text) = check(records, name);
    assert!(ok, "{name}: bodies that the providers' definitions refuse:\n{text}");
}

/// The kind of a request body of `wire`.
fn request_kind(wire: WireFormat) -> &'static str {
    match wire {
        WireFormat::OpenAiChat => "openai.chat.request",
        WireFormat::Anthropic => "anthropic.messages.request",
        WireFormat::Gemini => "gemini.generate.request",
    }
}

/// A model of each preset's kind: a current one, and one that reasons.
fn models(wire: WireFormat, provider: &str) -> [&'static str; 2] {
    match (wire, provider) {
        (WireFormat::Anthropic, _) => ["claude-opus-5-5", "claude-sonnet-4-5"],
        (WireFormat::Gemini, _) => ["gemini-2.5-flash", "gemini-3-pro-preview"],
        (_, "openai" | "azure") => ["gpt-4.1-mini", "o4-mini"],
        (_, "deepseek") => ["deepseek-chat", "deepseek-reasoner"],
        _ => ["qwen2.5-coder-7b-instruct", "qwen3-8b"],
    }
}

/// Every setting a run can change, one at a time, on top of the defaults (CodeCrash's).
fn param_variants() -> Vec<(&'static str, GenerationParams, u32)> {
    let base = GenerationParams::default();
    vec![
        ("defaults", base.clone(), 1),
        ("streamed", GenerationParams { stream: true, ..base.clone() }, 1),
        ("n=3", base.clone(), 3),
        ("n=3 streamed", GenerationParams { stream: true, ..base.clone() }, 3),
        ("stop", GenerationParams { stop: vec!["[/ANSWER]".into(), "\n\n\n".into()], ..base.clone() }, 1),
        ("no sampling", GenerationParams { temperature: None, top_p: None, ..base.clone() }, 1),
        ("reasoning effort", GenerationParams { reasoning_effort: Some("low".into()), ..base.clone() }, 1),
        ("thinking budget", GenerationParams { thinking_budget: Some(1024), max_tokens: 4000, ..base.clone() }, 1),
    ]
}

/// A few-shot conversation: a system message, an example turn, the question.
fn conversation() -> Vec<Message> {
    vec![
        Message::system("You are an expert at Python programming."),
        Message::user("[PYTHON]\ndef f(x):\n    return x + 1\nassert f(1) == ??\n[/PYTHON]"),
        Message::assistant("[ANSWER]\nassert f(1) == 2\n[/ANSWER]"),
        Message::user("[PYTHON]\ndef f(s):\n    return s[::-1]\nassert f('ab') == ??\n[/PYTHON]"),
    ]
}

/// The request bodies of every preset, model and setting, and the batch inputs made of them.
fn every_request() -> Records {
    let mut records = Records::default();
    for preset in presets() {
        for model in models(preset.wire, preset.id) {
            let endpoint =
                Endpoint { provider: preset.id.into(), base_url: preset.base_url.into(), model: model.into() };
            let mut lines = Vec::new();
            for (variant, params, n) in param_variants() {
                let built = build_request(&endpoint, Some("sk-test"), &params, &conversation(), n)
                    .unwrap_or_else(|e| panic!("{} {model} {variant}: {e}", preset.id));
                let label = format!("{} {model} {variant}", preset.id);
                records.add_text(&label, request_kind(preset.wire), &built.http.body);
                if !params.stream {
                    lines.push((batch::custom_id(lines.len(), 0), built));
                }
            }
            if batch::batch_supported(&endpoint).is_err() {
                continue;
            }
            let label = format!("{} {model} batch", preset.id);
            for input in batch::batch_inputs(&endpoint, &lines).unwrap() {
                add_batch_input(&mut records, &label, preset.wire, &input);
            }
            // Gemini past its inline limit: an input file of `{key, request}` lines.
            if preset.wire == WireFormat::Gemini {
                let limits = batch::BatchLimits { max_bytes: 1, ..batch::batch_limits(preset.wire) };
                let inputs = batch::batch_inputs_within(&endpoint, &lines, limits).unwrap();
                assert!(inputs.iter().all(|i| i.file), "{label}: past the inline limit, a file");
                for input in inputs {
                    add_batch_input(&mut records, &format!("{label} as a file"), preset.wire, &input);
                }
            }
        }
    }
    records
}

fn add_batch_input(records: &mut Records, label: &str, wire: WireFormat, input: &batch::BatchInput) {
    match (wire, input.file) {
        (WireFormat::OpenAiChat, _) => {
            for (i, line) in input.payload.lines().enumerate() {
                records.add_text(format!("{label} line {i}"), "openai.batch.input_line", line);
            }
        }
        (WireFormat::Gemini, true) => {
            for (i, line) in input.payload.lines().enumerate() {
                records.add_text(format!("{label} line {i}"), "gemini.batch.file_line", line);
            }
        }
        (WireFormat::Anthropic, _) => records.add_text(label, "anthropic.batch.create", &input.payload),
        (WireFormat::Gemini, false) => records.add_text(label, "gemini.batch.create", &input.payload),
    }
}

#[test]
fn every_request_execbench_builds_is_what_the_providers_define() {
    assert_valid(&every_request(), "requests");
}

/// The checker is strict where it matters: a misspelt key, a parameter one provider takes sent
/// to another, and a body that lost a required field are each caught (else the test above could
/// not fail).
#[test]
fn the_checker_refuses_what_the_definitions_do_not_name() {
    let cases = [
        (
            "openai.chat.request",
            json!({"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"}], "temprature": 0.2}),
        ),
        ("openai.chat.request", json!({"model": "gpt-4.1", "max_tokens": 5})),
        (
            "anthropic.messages.request",
            json!({"model": "claude-opus-5-5", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}], "n": 2}),
        ),
        (
            "gemini.generate.request",
            json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "generationConfig": {"maxTokens": 5}}),
        ),
        (
            "openai.chat.response",
            json!({"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}, "finish_reason": "stop", "logprobs": null, "extra": 1}]}),
        ),
    ];
    for (i, (kind, body)) in cases.into_iter().enumerate() {
        let mut one = Records::default();
        one.add(format!("case {i}"), kind, body.clone());
        let (ok, text) = check(&one, &format!("refused-{i}"));
        assert!(!ok, "{kind} {body} passed the checker:\n{text}");
        assert!(text.contains(&format!("case {i}")), "the problem names its record: {text}");
    }
}

fn endpoint(server: &MockServer, wire: WireFormat, stream_model: &str) -> Endpoint {
    let (provider, path) = match wire {
        WireFormat::OpenAiChat => ("openai", "/v1"),
        WireFormat::Anthropic => ("anthropic", "/v1"),
        WireFormat::Gemini => ("gemini", "/v1beta"),
    };
    Endpoint { provider: provider.into(), base_url: format!("{}{path}", server.base_url()), model: stream_model.into() }
}

const WIRES: [WireFormat; 3] = [WireFormat::OpenAiChat, WireFormat::Anthropic, WireFormat::Gemini];

fn wire_name(wire: WireFormat) -> &'static str {
    match wire {
        WireFormat::OpenAiChat => "openai",
        WireFormat::Anthropic => "anthropic",
        WireFormat::Gemini => "gemini",
    }
}

/// A streamed body's events as records of `kind`: OpenAI's `data:` chunks but `[DONE]`,
/// Anthropic's events, Gemini's chunks (each a whole response).
fn add_stream(records: &mut Records, label: &str, wire: WireFormat, body: &str) {
    let kind = match wire {
        WireFormat::OpenAiChat => "openai.chat.chunk",
        WireFormat::Anthropic => "anthropic.stream_event",
        WireFormat::Gemini => "gemini.generate.response",
    };
    let normalized = body.replace("\r\n", "\n");
    let mut count = 0;
    for block in normalized.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let data: Vec<&str> = block.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
        let data = data.join("\n");
        if data.is_empty() || data == "[DONE]" {
            continue;
        }
        records.add_text(format!("{label} event {count}"), kind, &data);
        count += 1;
    }
    assert!(count >= 2, "{label}: a stream of {count} events: {body}");
}

fn error_kind(wire: WireFormat) -> String {
    format!("{}.error", wire_name(wire))
}

/// The mock's answers to live requests: plain and streamed, one choice and three, its model list,
/// and its error bodies.
async fn live_answers(server: &MockServer, records: &mut Records) {
    let sample = &samples(1)[0];
    let question = format!("[PYTHON]\n{}\nassert {} == ??\n[/PYTHON]", sample.code, sample.call);
    for wire in WIRES {
        let name = wire_name(wire);
        let ep = endpoint(server, wire, &format!("{name}-mock"));
        for (variant, params, n) in param_variants() {
            if variant.contains("thinking") || variant.contains("reasoning") {
                continue;
            }
            let built = build_request(&ep, Some(KEY), &params, &[Message::user(&question)], n).unwrap();
            let r = send(server, &built.http).await;
            let label = format!("mock {name} {variant}");
            assert_eq!(r.status, 200, "{label}: {}", r.body);
            if params.stream {
                add_stream(records, &label, wire, &r.body);
            } else {
                let kind = match wire {
                    WireFormat::OpenAiChat => "openai.chat.response",
                    WireFormat::Anthropic => "anthropic.message",
                    WireFormat::Gemini => "gemini.generate.response",
                };
                records.add_text(label, kind, &r.body);
            }
        }
        // A wrong key and an unknown model: the error bodies.
        let built =
            build_request(&ep, Some("sk-wrong"), &GenerationParams::default(), &[Message::user("hi")], 1).unwrap();
        let r = send(server, &built.http).await;
        assert_eq!(r.status, 401, "{name}: {}", r.body);
        records.add_text(format!("mock {name} wrong key"), &error_kind(wire), &r.body);
    }
    // An OpenAI model list.
    let list = HttpRequest {
        method: "GET".into(),
        url: format!("{}/v1/models", server.base_url()),
        headers: vec![("authorization".into(), format!("Bearer {KEY}"))],
        body: String::new(),
    };
    let r = send(server, &list).await;
    records.add_text("mock openai models", "openai.models", &r.body);
}

/// The mock's error bodies for each fault that has one.
async fn fault_answers(server: &MockServer, records: &mut Records) {
    let faults = [
        ("rate limit", Fault::RateLimit { retry_after_s: Some(1.0), retry_after_ms: None }),
        ("server error", Fault::ServerError),
        ("overloaded", Fault::Overloaded),
        ("quota", Fault::InsufficientQuota),
    ];
    for (what, fault) in faults {
        server.set_config(MockConfig {
            api_key: Some(KEY.into()),
            faults: vec![FaultRule::always(SampleMatch::All, fault)],
            ..Default::default()
        });
        for wire in WIRES {
            let ep = endpoint(server, wire, &format!("{}-mock", wire_name(wire)));
            let built = build_request(&ep, Some(KEY), &GenerationParams::default(), &[Message::user("hi")], 1).unwrap();
            let r = send(server, &built.http).await;
            assert!(r.status >= 400, "{what}: {}", r.body);
            records.add_text(format!("mock {} {what}", wire_name(wire)), &error_kind(wire), &r.body);
        }
    }
    server.set_config(MockConfig { api_key: Some(KEY.into()), ..Default::default() });
}

/// One batch of each provider from upload to results: the file, the batch at every poll, each
/// result line.
async fn batch_answers(server: &MockServer, records: &mut Records) {
    for wire in WIRES {
        let name = wire_name(wire);
        let ep = endpoint(server, wire, &format!("{name}-mock"));
        let lines: Vec<_> = samples(3)
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let messages = [Message::user(format!("{}\n{}", s.code, s.call))];
                (
                    batch::custom_id(i, 0),
                    build_request(&ep, Some(KEY), &GenerationParams::default(), &messages, 1).unwrap(),
                )
            })
            .collect();
        let input = &batch::batch_inputs(&ep, &lines).unwrap()[0];
        let mut file_id = None;
        let mut next = batch::upload_request(&ep, Some(KEY), input).unwrap();
        while let Some(request) = next.take() {
            let r = send(server, &request).await;
            match batch::parse_upload(&ep, input, r.status, &r.headers, &r.body).unwrap() {
                batch::Uploaded::File(id) => {
                    records.add_text(format!("mock {name} file"), &format!("{name}.file"), &r.body);
                    file_id = Some(id);
                }
                batch::Uploaded::Next(request) => next = Some(request),
            }
        }
        // (OpenAI's create body is defined inline in the document's paths, which the fixture
        // does not keep; Anthropic's and Gemini's are checked with the requests.)
        let create = batch::create_request(&ep, Some(KEY), input, file_id.as_deref()).unwrap();
        let r = send(server, &create).await;
        records.add_text(format!("mock {name} batch created"), &format!("{name}.batch"), &r.body);
        let id = batch::parse_status(wire, r.status, &r.headers, &r.body).unwrap().id;
        server.advance_batch_clock(7200);
        let r = send(server, &batch::status_request(&ep, Some(KEY), &id).unwrap()).await;
        records.add_text(format!("mock {name} batch ended"), &format!("{name}.batch"), &r.body);
        let status = batch::parse_status(wire, r.status, &r.headers, &r.body).unwrap();
        for request in batch::results_requests(&ep, Some(KEY), &status).unwrap() {
            let r = send(server, &request).await;
            if wire == WireFormat::Gemini && status.result_files.is_empty() {
                // Inline responses come in the batch itself.
                records.add_text(format!("mock {name} batch with its responses"), "gemini.batch", &r.body);
                continue;
            }
            for (i, line) in r.body.lines().filter(|l| !l.trim().is_empty()).enumerate() {
                let kind = match wire {
                    WireFormat::OpenAiChat => "openai.batch.output_line",
                    WireFormat::Anthropic => "anthropic.batch.result_line",
                    WireFormat::Gemini => "gemini.batch.result_line",
                };
                records.add_text(format!("mock {name} result {i}"), kind, line);
            }
        }
    }
}

#[tokio::test]
async fn every_answer_of_the_mock_is_what_the_providers_define() {
    let server = MockServer::start(samples(20), MockConfig { api_key: Some(KEY.into()), ..Default::default() }, 0)
        .await
        .unwrap();
    let mut records = Records::default();
    live_answers(&server, &mut records).await;
    fault_answers(&server, &mut records).await;
    batch_answers(&server, &mut records).await;
    assert_valid(&records, "mock-answers");
}
