//! The mock model server on a real 127.0.0.1 port, spoken to over TCP by a raw HTTP/1.1 client.

// Tables of cases are tuples.
#![allow(clippy::type_complexity)]

use crate::common;

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::{Response, get, post, send};
use execbench_core::Sample;
use execbench_mockserver::{
    AnswerPolicy, Cors, Fault, FaultRule, MockConfig, MockServer, SampleMatch, Task, UNIDENTIFIED_ANSWER, answer_text,
    bundled_dataset, token_count,
};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn dataset() -> Vec<Sample> {
    static DATA: OnceLock<Vec<Sample>> = OnceLock::new();
    DATA.get_or_init(|| bundled_dataset().expect("the bundled dataset")).clone()
}

fn sample(index: usize) -> Sample {
    dataset()[index].clone()
}

const SYSTEM: &str = "You are a careful Python interpreter.";

/// An output-prediction prompt in the built-in templates' shape, with another dataset program as
/// the few-shot example before it.
fn output_prompt(s: &Sample) -> String {
    let other = sample(799);
    format!(
        "Complete the assertion.\n\n[PYTHON]\n{}\nassert {} == ??\n[/PYTHON]\n[ANSWER]\nassert {} == {}\n[/ANSWER]\n\n[PYTHON]\n{}\nassert {} == ??\n[/PYTHON]\n[ANSWER]",
        other.code, other.call, other.call, other.output, s.code, s.call
    )
}

fn input_prompt(s: &Sample) -> String {
    let other = sample(798);
    format!(
        "Find an input.\n\n[PYTHON]\n{}\nassert f(??) == {}\n[/PYTHON]\n[ANSWER]\nassert {} == {}\n[/ANSWER]\n\n[PYTHON]\n{}\nassert {}(??) == {}\n[/PYTHON]\n[ANSWER]",
        other.code, other.output, other.call, other.output, s.code, s.function_name, s.output
    )
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Fmt {
    OpenAi,
    Azure,
    Anthropic,
    Gemini,
}

struct Call {
    fmt: Fmt,
    model: &'static str,
    prompt: String,
    stream: bool,
    n: u32,
    max_tokens: Option<u64>,
    key: Option<&'static str>,
    extra_headers: Vec<(&'static str, &'static str)>,
}

impl Call {
    fn new(fmt: Fmt, prompt: String) -> Call {
        Call {
            fmt,
            model: "mock-model",
            prompt,
            stream: false,
            n: 1,
            max_tokens: None,
            key: Some("sk-test"),
            extra_headers: Vec::new(),
        }
    }

    fn stream(mut self) -> Call {
        self.stream = true;
        self
    }

    fn n(mut self, n: u32) -> Call {
        self.n = n;
        self
    }

    fn max_tokens(mut self, m: u64) -> Call {
        self.max_tokens = Some(m);
        self
    }

    fn key(mut self, key: Option<&'static str>) -> Call {
        self.key = key;
        self
    }

    fn model(mut self, model: &'static str) -> Call {
        self.model = model;
        self
    }

    fn header(mut self, name: &'static str, value: &'static str) -> Call {
        self.extra_headers.push((name, value));
        self
    }

    /// The text the server joins: the system message, a blank line, the user message.
    fn joined_prompt(&self) -> String {
        format!("{SYSTEM}\n\n{}", self.prompt)
    }

    fn parts(&self) -> (String, Vec<(String, String)>, String) {
        let mut headers: Vec<(String, String)> = Vec::new();
        let (path, body) = match self.fmt {
            Fmt::OpenAi | Fmt::Azure => {
                if let Some(key) = self.key {
                    match self.fmt {
                        Fmt::Azure => headers.push(("api-key".into(), key.into())),
                        _ => headers.push(("Authorization".into(), format!("Bearer {key}"))),
                    }
                }
                let mut body = json!({
                    "model": self.model,
                    "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": self.prompt}],
                    "temperature": 0.2, "top_p": 0.95, "n": self.n, "stream": self.stream,
                });
                if self.stream {
                    body["stream_options"] = json!({"include_usage": true});
                }
                if let Some(m) = self.max_tokens {
                    body["max_completion_tokens"] = json!(m);
                }
                let path = if self.fmt == Fmt::Azure {
                    format!("/openai/deployments/{}/chat/completions?api-version=2024-10-21", self.model)
                } else {
                    "/v1/chat/completions".to_string()
                };
                (path, body)
            }
            Fmt::Anthropic => {
                if let Some(key) = self.key {
                    headers.push(("x-api-key".into(), key.into()));
                }
                headers.push(("anthropic-version".into(), "2023-06-01".into()));
                let body = json!({
                    "model": self.model, "max_tokens": self.max_tokens.unwrap_or(1024), "system": SYSTEM,
                    "messages": [{"role": "user", "content": self.prompt}], "temperature": 0.2, "stream": self.stream,
                });
                ("/v1/messages".to_string(), body)
            }
            Fmt::Gemini => {
                if let Some(key) = self.key {
                    headers.push(("x-goog-api-key".into(), key.into()));
                }
                let mut config = json!({"candidateCount": self.n, "temperature": 0.2, "topP": 0.95});
                if let Some(m) = self.max_tokens {
                    config["maxOutputTokens"] = json!(m);
                }
                let body = json!({
                    "systemInstruction": {"parts": [{"text": SYSTEM}]},
                    "contents": [{"role": "user", "parts": [{"text": self.prompt}]}],
                    "generationConfig": config,
                });
                let action = if self.stream { "streamGenerateContent?alt=sse" } else { "generateContent" };
                (format!("/v1beta/models/{}:{action}", self.model), body)
            }
        };
        for (n, v) in &self.extra_headers {
            headers.push((n.to_string(), v.to_string()));
        }
        (path, headers, body.to_string())
    }

    async fn send(&self, server: &MockServer) -> Response {
        let (path, headers, body) = self.parts();
        let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        post(server.addr(), &path, &headers, &body).await
    }
}

/// What a response says, whatever its format.
#[derive(Debug, Default, PartialEq)]
struct Answer {
    texts: Vec<String>,
    finish: Vec<String>,
    prompt_tokens: u64,
    completion_tokens: u64,
    /// The stream's terminator came (always true when not streamed).
    complete: bool,
    /// Events carrying text.
    text_events: usize,
}

fn read_answer(fmt: Fmt, stream: bool, response: &Response) -> Answer {
    assert_eq!(response.status, 200, "{}", response.body);
    let mut a = Answer { complete: !stream, ..Answer::default() };
    let slot = |v: &mut Vec<String>, i: usize| {
        while v.len() <= i {
            v.push(String::new());
        }
    };
    match (fmt, stream) {
        (Fmt::OpenAi | Fmt::Azure, false) => {
            let body = response.json();
            assert_eq!(body["object"], "chat.completion");
            for choice in body["choices"].as_array().unwrap() {
                a.texts.push(choice["message"]["content"].as_str().unwrap().to_string());
                a.finish.push(choice["finish_reason"].as_str().unwrap().to_string());
            }
            a.prompt_tokens = body["usage"]["prompt_tokens"].as_u64().unwrap();
            a.completion_tokens = body["usage"]["completion_tokens"].as_u64().unwrap();
            assert_eq!(body["usage"]["total_tokens"].as_u64().unwrap(), a.prompt_tokens + a.completion_tokens);
        }
        (Fmt::OpenAi | Fmt::Azure, true) => {
            assert_eq!(response.header("content-type"), Some("text/event-stream"));
            for (_, data) in response.events() {
                if data == "[DONE]" {
                    a.complete = true;
                    continue;
                }
                let chunk: Value = serde_json::from_str(&data).unwrap();
                for choice in chunk["choices"].as_array().unwrap() {
                    let i = choice["index"].as_u64().unwrap() as usize;
                    slot(&mut a.texts, i);
                    slot(&mut a.finish, i);
                    if let Some(t) = choice["delta"]["content"].as_str().filter(|t| !t.is_empty()) {
                        a.texts[i].push_str(t);
                        a.text_events += 1;
                    }
                    if let Some(f) = choice["finish_reason"].as_str() {
                        a.finish[i] = f.to_string();
                    }
                }
                if chunk["choices"].as_array().unwrap().is_empty() {
                    a.prompt_tokens = chunk["usage"]["prompt_tokens"].as_u64().unwrap();
                    a.completion_tokens = chunk["usage"]["completion_tokens"].as_u64().unwrap();
                }
            }
        }
        (Fmt::Anthropic, false) => {
            let body = response.json();
            assert_eq!((body["type"].as_str(), body["role"].as_str()), (Some("message"), Some("assistant")));
            a.texts.push(body["content"].as_array().unwrap().iter().filter_map(|b| b["text"].as_str()).collect());
            a.finish.push(body["stop_reason"].as_str().unwrap().to_string());
            a.prompt_tokens = body["usage"]["input_tokens"].as_u64().unwrap();
            a.completion_tokens = body["usage"]["output_tokens"].as_u64().unwrap();
        }
        (Fmt::Anthropic, true) => {
            a.texts.push(String::new());
            a.finish.push(String::new());
            let events = response.events();
            assert_eq!(events[0].0.as_deref(), Some("message_start"));
            let pinged = events.iter().any(|(n, _)| n.as_deref() == Some("ping"));
            for (name, data) in events {
                let value: Value = serde_json::from_str(&data).unwrap();
                assert_eq!(value["type"].as_str(), name.as_deref(), "the event name is the data's type");
                match name.as_deref() {
                    Some("message_start") => {
                        a.prompt_tokens = value["message"]["usage"]["input_tokens"].as_u64().unwrap()
                    }
                    Some("content_block_delta") => {
                        assert_eq!(value["delta"]["type"], "text_delta");
                        a.texts[0].push_str(value["delta"]["text"].as_str().unwrap());
                        a.text_events += 1;
                    }
                    Some("message_delta") => {
                        a.finish[0] = value["delta"]["stop_reason"].as_str().unwrap().to_string();
                        a.completion_tokens = value["usage"]["output_tokens"].as_u64().unwrap();
                    }
                    Some("message_stop") => a.complete = true,
                    _ => {}
                }
            }
            assert!(pinged || !a.complete, "a whole stream has a ping");
        }
        (Fmt::Gemini, _) => {
            let chunks = if stream {
                assert!(response.body.contains("\r\n\r\n") && !response.body.contains("[DONE]"));
                response.event_json()
            } else {
                vec![response.json()]
            };
            for chunk in chunks {
                for candidate in chunk["candidates"].as_array().unwrap() {
                    let i = candidate["index"].as_u64().unwrap() as usize;
                    slot(&mut a.texts, i);
                    slot(&mut a.finish, i);
                    for part in candidate["content"]["parts"].as_array().into_iter().flatten() {
                        a.texts[i].push_str(part["text"].as_str().unwrap());
                        a.text_events += 1;
                    }
                    if let Some(f) = candidate["finishReason"].as_str() {
                        a.finish[i] = f.to_string();
                        a.complete = true;
                    }
                }
                if let Some(usage) = chunk.get("usageMetadata") {
                    a.prompt_tokens = usage["promptTokenCount"].as_u64().unwrap();
                    a.completion_tokens = usage["candidatesTokenCount"].as_u64().unwrap()
                        + usage.get("thoughtsTokenCount").and_then(Value::as_u64).unwrap_or(0);
                    assert_eq!(usage["totalTokenCount"].as_u64().unwrap(), a.prompt_tokens + a.completion_tokens);
                }
            }
        }
    }
    a
}

fn stop_word(fmt: Fmt) -> &'static str {
    match fmt {
        Fmt::OpenAi | Fmt::Azure => "stop",
        Fmt::Anthropic => "end_turn",
        Fmt::Gemini => "STOP",
    }
}

fn length_word(fmt: Fmt) -> &'static str {
    match fmt {
        Fmt::OpenAi | Fmt::Azure => "length",
        Fmt::Anthropic => "max_tokens",
        Fmt::Gemini => "MAX_TOKENS",
    }
}

async fn start(config: MockConfig) -> MockServer {
    MockServer::start(dataset(), config, 0).await.expect("start the mock server")
}

/// Every format, streamed and not, gives the answer the policy says, with the documented usage.
#[tokio::test]
async fn answers_follow_the_policy_in_every_format() {
    let policy =
        AnswerPolicy { wrong_every: Some(3), wrong_ids: ["sample_4".to_string()].into(), ..Default::default() };
    let server = start(MockConfig { answers: policy.clone(), ..MockConfig::default() }).await;
    assert_eq!(server.policy(), policy);
    // (format, streamed, n, sample index, task)
    let cases = [
        (Fmt::OpenAi, false, 1, 0, Task::Output),
        (Fmt::OpenAi, false, 3, 2, Task::Output),
        (Fmt::OpenAi, true, 1, 1, Task::Output),
        (Fmt::OpenAi, true, 2, 5, Task::Input),
        (Fmt::Azure, false, 1, 3, Task::Input),
        (Fmt::Anthropic, false, 1, 4, Task::Output),
        (Fmt::Anthropic, true, 1, 6, Task::Output),
        (Fmt::Anthropic, true, 1, 8, Task::Input),
        (Fmt::Gemini, false, 2, 7, Task::Output),
        (Fmt::Gemini, true, 1, 8, Task::Output),
        (Fmt::Gemini, true, 3, 10, Task::Input),
        (Fmt::Gemini, false, 1, 135, Task::Input),
    ];
    for (fmt, stream, n, index, task) in cases {
        let s = sample(index);
        let prompt = match task {
            Task::Output => output_prompt(&s),
            Task::Input => input_prompt(&s),
            Task::Question => unreachable!("the bundled dataset holds no questions"),
        };
        let mut call = Call::new(fmt, prompt).n(n);
        if stream {
            call = call.stream();
        }
        let response = call.send(&server).await;
        let answer = read_answer(fmt, stream, &response);
        let right = policy.is_right(index, &s.id);
        let want = answer_text(&s, task, right);
        let what = format!("{fmt:?} stream={stream} n={n} {} {task:?}", s.id);
        assert_eq!(answer.texts, vec![want.clone(); n as usize], "{what}");
        assert_eq!(answer.finish, vec![stop_word(fmt).to_string(); n as usize], "{what}");
        assert_eq!(answer.prompt_tokens, token_count(&call.joined_prompt()), "{what}");
        assert_eq!(answer.completion_tokens, token_count(&want) * n as u64, "{what}");
        assert!(answer.complete, "{what}");
        if stream {
            assert!(answer.text_events >= 3 * n as usize, "{what}: the text comes in several chunks");
        }
        let record = server.stats().recent.last().cloned().unwrap();
        assert_eq!(
            (record.sample_id.as_deref(), record.task, record.right, record.n, record.stream),
            (Some(s.id.as_str()), Some(task), Some(right), n, stream),
            "{what}"
        );
    }
    let stats = server.stats();
    assert_eq!(stats.requests_total, cases.len() as u64);
    assert_eq!(stats.per_sample.values().sum::<u32>(), cases.len() as u32);
    assert_eq!(stats.per_sample.get("sample_8"), Some(&2));
    assert_eq!((stats.unidentified, stats.faults_served, stats.cancelled, stats.in_flight), (0, 0, 0, 0));
    let record = &stats.recent[0];
    assert_eq!(
        (record.format.as_str(), record.temperature, record.top_p, record.status),
        ("openai", Some(0.2), Some(0.95), 200)
    );
}

/// Connection tests, unidentified prompts, `max_tokens`, the other OpenAI path and Gemini's
/// JSON-array stream.
#[tokio::test]
async fn special_prompts_and_limits() {
    let server = start(MockConfig::default()).await;
    for fmt in [Fmt::OpenAi, Fmt::Anthropic, Fmt::Gemini] {
        let answer = read_answer(fmt, false, &Call::new(fmt, "Reply with the word OK.".into()).send(&server).await);
        assert_eq!(answer.texts, ["OK"], "{fmt:?}");
        let answer = read_answer(fmt, true, &Call::new(fmt, "What is 2 + 2?".into()).stream().send(&server).await);
        assert_eq!(answer.texts, [UNIDENTIFIED_ANSWER], "{fmt:?}");
        // Cut to 3 tokens = 12 characters, stopped for length.
        let s = sample(0);
        let answer = read_answer(fmt, false, &Call::new(fmt, output_prompt(&s)).max_tokens(3).send(&server).await);
        let full = answer_text(&s, Task::Output, true);
        assert_eq!(answer.texts, [full.chars().take(12).collect::<String>()], "{fmt:?}");
        assert_eq!((answer.finish[0].as_str(), answer.completion_tokens), (length_word(fmt), 3), "{fmt:?}");
    }
    let stats = server.stats();
    assert_eq!((stats.connection_tests, stats.unidentified, stats.per_sample.get("sample_0")), (3, 3, Some(&3)));

    let s = sample(9);
    let body = json!({"model": "m", "messages": [{"role": "user", "content": output_prompt(&s)}]}).to_string();
    let response = post(server.addr(), "/chat/completions", &[], &body).await;
    assert_eq!(read_answer(Fmt::OpenAi, false, &response).texts, [answer_text(&s, Task::Output, true)]);

    let body = json!({"contents": [{"parts": [{"text": output_prompt(&s)}]}]}).to_string();
    let response = post(server.addr(), "/v1beta/models/gemini-x:streamGenerateContent", &[], &body).await;
    assert_eq!(response.header("content-type"), Some("application/json"));
    let chunks: Vec<Value> = serde_json::from_str(&response.body).unwrap();
    let text: String =
        chunks.iter().map(|c| c["candidates"][0]["content"]["parts"][0]["text"].as_str().unwrap()).collect();
    assert_eq!(text, answer_text(&s, Task::Output, true));
    assert_eq!(chunks.last().unwrap()["modelVersion"], "gemini-x");
}

/// Each error fault in each format: status, body shape, headers.
#[tokio::test]
async fn error_faults_in_every_format() {
    let server = start(MockConfig::default()).await;
    type Checks = &'static [(&'static str, &'static str)];
    // (fault, status, [(format, [(JSON pointer, value as JSON text)])], body fragment, [(header, value)], headers that must be absent)
    let quota = "You exceeded your current quota";
    let cases: Vec<(Fault, u16, [(Fmt, Checks); 3], &str, Checks, &[&str])> = vec![
        (
            Fault::RateLimit { retry_after_s: Some(1.5), retry_after_ms: Some(1500) },
            429,
            [
                (Fmt::OpenAi, &[("/error/type", "\"requests\""), ("/error/code", "\"rate_limit_exceeded\"")]),
                (Fmt::Anthropic, &[("/type", "\"error\""), ("/error/type", "\"rate_limit_error\"")]),
                (Fmt::Gemini, &[("/error/code", "429"), ("/error/status", "\"RESOURCE_EXHAUSTED\"")]),
            ],
            "Rate limit",
            &[("retry-after", "1.5"), ("retry-after-ms", "1500")],
            &[],
        ),
        (
            Fault::RateLimit { retry_after_s: Some(2.0), retry_after_ms: None },
            429,
            [
                (Fmt::OpenAi, &[("/error/code", "\"rate_limit_exceeded\"")]),
                (Fmt::Anthropic, &[("/error/type", "\"rate_limit_error\"")]),
                (Fmt::Gemini, &[("/error/code", "429")]),
            ],
            "",
            &[("retry-after", "2")],
            &["retry-after-ms"],
        ),
        (
            Fault::RateLimitBodyDelay { seconds: 1.5 },
            429,
            [
                (Fmt::OpenAi, &[("/error/code", "\"rate_limit_exceeded\"")]),
                (Fmt::Anthropic, &[("/error/type", "\"rate_limit_error\"")]),
                (
                    Fmt::Gemini,
                    &[
                        ("/error/details/0/@type", "\"type.googleapis.com/google.rpc.RetryInfo\""),
                        ("/error/details/0/retryDelay", "\"1.5s\""),
                    ],
                ),
            ],
            "1.5s",
            &[],
            &["retry-after", "retry-after-ms"],
        ),
        (
            Fault::ServerError,
            500,
            [
                (Fmt::OpenAi, &[("/error/type", "\"server_error\"")]),
                (Fmt::Anthropic, &[("/error/type", "\"api_error\"")]),
                (Fmt::Gemini, &[("/error/status", "\"INTERNAL\""), ("/error/code", "500")]),
            ],
            "",
            &[],
            &[],
        ),
        (
            Fault::Overloaded,
            529,
            [
                (Fmt::OpenAi, &[("/error/code", "\"overloaded\"")]),
                (Fmt::Anthropic, &[("/error/type", "\"overloaded_error\""), ("/error/message", "\"Overloaded\"")]),
                (Fmt::Gemini, &[("/error/status", "\"UNAVAILABLE\""), ("/error/code", "529")]),
            ],
            "Overloaded",
            &[],
            &[],
        ),
        (
            Fault::Unavailable,
            503,
            [
                (Fmt::OpenAi, &[("/error/type", "\"server_error\"")]),
                (Fmt::Anthropic, &[("/error/type", "\"api_error\"")]),
                (Fmt::Gemini, &[("/error/status", "\"UNAVAILABLE\"")]),
            ],
            "",
            &[],
            &[],
        ),
        (
            Fault::InsufficientQuota,
            429,
            [
                (Fmt::OpenAi, &[("/error/type", "\"insufficient_quota\""), ("/error/code", "\"insufficient_quota\"")]),
                (Fmt::Anthropic, &[("/error/type", "\"billing_error\"")]),
                (
                    Fmt::Gemini,
                    &[
                        ("/error/status", "\"RESOURCE_EXHAUSTED\""),
                        ("/error/details/0/@type", "\"type.googleapis.com/google.rpc.QuotaFailure\""),
                    ],
                ),
            ],
            quota,
            &[],
            &["retry-after"],
        ),
        (
            Fault::BadKey,
            401,
            [
                (Fmt::OpenAi, &[("/error/code", "\"invalid_api_key\"")]),
                (Fmt::Anthropic, &[("/error/type", "\"authentication_error\"")]),
                (
                    Fmt::Gemini,
                    &[("/error/status", "\"UNAUTHENTICATED\""), ("/error/details/0/reason", "\"API_KEY_INVALID\"")],
                ),
            ],
            "",
            &[],
            &[],
        ),
    ];
    let s = sample(12);
    for (fault, status, formats, fragment, headers, absent) in &cases {
        server.set_config(MockConfig {
            faults: vec![FaultRule::always(SampleMatch::All, fault.clone())],
            ..MockConfig::default()
        });
        for (fmt, checks) in formats {
            for stream in [false, true] {
                let mut call = Call::new(*fmt, output_prompt(&s));
                if stream {
                    call = call.stream();
                }
                let response = call.send(&server).await;
                let what = format!("{fault:?} {fmt:?} stream={stream}: {}", response.body);
                assert_eq!(response.status, *status, "{what}");
                assert_eq!(response.header("content-type"), Some("application/json"), "{what}");
                let body = response.json();
                for (pointer, value) in checks.iter() {
                    let want: Value = serde_json::from_str(value).unwrap();
                    assert_eq!(body.pointer(pointer), Some(&want), "{what}: {pointer}");
                }
                assert!(response.body.contains(fragment), "{what}: wants {fragment:?}");
                for (name, value) in headers.iter() {
                    assert_eq!(response.header(name), Some(*value), "{what}: header {name}");
                }
                for name in absent.iter() {
                    assert_eq!(response.header(name), None, "{what}: header {name}");
                }
            }
        }
    }
    let stats = server.stats();
    assert_eq!(stats.faults_served, cases.len() as u64 * 6);
    assert_eq!(stats.per_sample.get(&s.id), Some(&(cases.len() as u32 * 6)));
    assert_eq!(stats.cancelled, 0);
}

/// The 200 faults: cut streams and bodies, errors inside a 200, empty answers stopped for length,
/// hangs.
#[tokio::test]
async fn faults_inside_a_200() {
    let server = start(MockConfig::default()).await;
    let s = sample(20);
    let set = |fault: Fault| {
        server.set_config(MockConfig {
            faults: vec![FaultRule::always(SampleMatch::Id(s.id.clone()), fault)],
            ..MockConfig::default()
        })
    };
    let all = [Fmt::OpenAi, Fmt::Anthropic, Fmt::Gemini];

    set(Fault::StreamCut { after_chunks: 2 });
    for fmt in all {
        let response = Call::new(fmt, output_prompt(&s)).stream().send(&server).await;
        assert_eq!(response.status, 200);
        assert_eq!(response.events().len(), 2, "{fmt:?}: {}", response.body);
        let answer = read_answer(fmt, true, &response);
        assert!(!answer.complete, "{fmt:?}: no terminator");
        let response = Call::new(fmt, output_prompt(&s)).send(&server).await;
        assert_eq!(response.status, 200);
        assert!(
            response.body.starts_with('{') && serde_json::from_str::<Value>(&response.body).is_err(),
            "{fmt:?}: {}",
            response.body
        );
    }
    // More chunks asked than there are: still no terminator.
    set(Fault::StreamCut { after_chunks: 1000 });
    for fmt in all {
        let answer = read_answer(fmt, true, &Call::new(fmt, output_prompt(&s)).stream().send(&server).await);
        assert!(!answer.complete, "{fmt:?}");
    }

    set(Fault::ErrorEventAfter200);
    for fmt in all {
        let response = Call::new(fmt, output_prompt(&s)).stream().send(&server).await;
        assert_eq!(response.status, 200);
        let events = response.events();
        let (name, data) = events.last().unwrap();
        let error: Value = serde_json::from_str(data).unwrap();
        match fmt {
            Fmt::Anthropic => {
                assert_eq!(name.as_deref(), Some("error"));
                assert_eq!(error["error"]["type"], "overloaded_error");
            }
            Fmt::Gemini => assert_eq!(error["error"]["status"], "UNAVAILABLE"),
            _ => assert_eq!(error["error"]["type"], "server_error"),
        }
        assert!(
            !response.body.contains("[DONE]")
                && !response.body.contains("message_stop")
                && !response.body.contains("finishReason")
        );
        let error_at =
            response.body.rfind(if fmt == Fmt::Anthropic { "event: error" } else { "data: {\"error\"" }).unwrap();
        let answer =
            read_answer(fmt, true, &Response { body: response.body[..error_at].to_string(), ..response.clone() });
        assert!(!answer.texts[0].is_empty(), "{fmt:?}: some text came before the error");
        let response = Call::new(fmt, output_prompt(&s)).send(&server).await;
        assert_eq!(response.status, 200);
        assert!(response.json().pointer("/error/message").is_some(), "{fmt:?}: {}", response.body);
    }

    set(Fault::EmptyLength);
    for fmt in all {
        for stream in [false, true] {
            let mut call = Call::new(fmt, output_prompt(&s)).max_tokens(50);
            if stream {
                call = call.stream();
            }
            let response = call.send(&server).await;
            let answer = read_answer(fmt, stream, &response);
            assert_eq!(answer.texts, [""], "{fmt:?} {stream}");
            assert_eq!(
                (answer.finish[0].as_str(), answer.completion_tokens),
                (length_word(fmt), 50),
                "{fmt:?} {stream}"
            );
            assert!(answer.complete);
            if !stream {
                let body = response.json();
                match fmt {
                    Fmt::OpenAi => assert_eq!(body["usage"]["completion_tokens_details"]["reasoning_tokens"], 50),
                    Fmt::Anthropic => assert_eq!(body["content"], json!([])),
                    _ => assert_eq!(body["usageMetadata"]["thoughtsTokenCount"], 50),
                }
            }
        }
    }

    set(Fault::Hang { ms: 300 });
    let started = Instant::now();
    let answer =
        read_answer(Fmt::Gemini, true, &Call::new(Fmt::Gemini, output_prompt(&s)).stream().send(&server).await);
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(answer.texts, [answer_text(&s, Task::Output, true)]);
    let stats = server.stats();
    assert_eq!((stats.faults_served, stats.cancelled, stats.in_flight), (6 + 3 + 6 + 6 + 1, 0, 0));
}

/// Faults by attempt and by sample; per-sample counts; reset.
#[tokio::test]
async fn attempts_and_counts() {
    let config = MockConfig {
        faults: vec![
            FaultRule::on_attempts(
                SampleMatch::Id("sample_1".into()),
                &[1, 2],
                Fault::RateLimit { retry_after_s: None, retry_after_ms: Some(10) },
            ),
            FaultRule::always(SampleMatch::EveryKth(4), Fault::ServerError),
        ],
        ..MockConfig::default()
    };
    let server = start(config).await;
    // (sample index, expected status)
    let cases = [(1, 429), (1, 429), (1, 200), (4, 500), (5, 200), (0, 500), (1, 200)];
    for (i, (index, status)) in cases.iter().enumerate() {
        let response = Call::new(Fmt::OpenAi, output_prompt(&sample(*index))).send(&server).await;
        assert_eq!(response.status, *status, "case {i}");
    }
    let stats = server.stats();
    let per: Vec<(&str, u32)> = stats.per_sample.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(per, [("sample_0", 1), ("sample_1", 4), ("sample_4", 1), ("sample_5", 1)]);
    assert_eq!((stats.requests_total, stats.faults_served), (7, 4));
    let attempts: Vec<u32> = stats.recent.iter().map(|r| r.attempt).collect();
    assert_eq!(attempts, [1, 2, 3, 1, 1, 1, 4]);
    server.reset();
    assert_eq!(server.stats(), execbench_mockserver::Stats::default());
    let response = Call::new(Fmt::Anthropic, output_prompt(&sample(1))).send(&server).await;
    assert_eq!(response.status, 429, "attempts count again from 1 after a reset");
    assert_eq!(response.header("retry-after-ms"), Some("10"));
}

/// Eight requests at once, with latency: all eight are in flight together.
#[tokio::test]
async fn concurrency_is_measured() {
    let server = start(MockConfig { latency_ms: 200, ..MockConfig::default() }).await;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..8 {
        let fmt = [Fmt::OpenAi, Fmt::Anthropic, Fmt::Gemini, Fmt::Azure][i % 4];
        let stream = i >= 4;
        let mut call = Call::new(fmt, output_prompt(&sample(30 + i)));
        if stream {
            call = call.stream();
        }
        let (path, headers, body) = call.parts();
        let addr = server.addr();
        tasks.push(tokio::spawn(async move {
            let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
            let response = post(addr, &path, &headers, &body).await;
            read_answer(fmt, stream, &response).texts
        }));
    }
    for (i, task) in tasks.into_iter().enumerate() {
        assert_eq!(task.await.unwrap(), [answer_text(&sample(30 + i), Task::Output, true)]);
    }
    // The server's own count proves they overlapped (one after another would be 8 x 200 ms);
    // no upper bound on the wall time, which a busy machine can stretch.
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(200), "{elapsed:?}");
    let stats = server.stats();
    assert_eq!((stats.max_concurrency, stats.in_flight, stats.requests_total, stats.cancelled), (8, 0, 8, 0));
}

async fn wait_for(server: &MockServer, what: &str, check: impl Fn(&execbench_mockserver::Stats) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(3);
    while !check(&server.stats()) {
        assert!(Instant::now() < deadline, "{what}: {:?}", server.stats());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A client that goes away, while waiting or mid-stream, is counted as cancelled.
#[tokio::test]
async fn cancelled_requests_are_counted() {
    let server = start(MockConfig { latency_ms: 600, ..MockConfig::default() }).await;
    let (path, headers, body) = Call::new(Fmt::OpenAi, output_prompt(&sample(40))).parts();
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let mut stream = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    stream.write_all(&common::request_bytes("POST", &path, &headers, Some(&body))).await.unwrap();
    wait_for(&server, "in flight", |s| s.in_flight == 1).await;
    drop(stream);
    wait_for(&server, "cancelled while waiting", |s| s.cancelled == 1 && s.in_flight == 0).await;

    let (path, headers, body) = Call::new(Fmt::Anthropic, output_prompt(&sample(41))).stream().parts();
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let mut stream = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    stream.write_all(&common::request_bytes("POST", &path, &headers, Some(&body))).await.unwrap();
    let mut seen = Vec::new();
    let mut buffer = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("message_start") {
        let read = stream.read(&mut buffer).await.unwrap();
        assert!(read > 0);
        seen.extend_from_slice(&buffer[..read]);
    }
    drop(stream);
    wait_for(&server, "cancelled mid-stream", |s| s.cancelled == 2 && s.in_flight == 0).await;
    assert_eq!(server.stats().max_concurrency, 1);
}

/// (policy, method, origin, expected status, expected Allow-Origin)
#[tokio::test]
async fn cors_policies() {
    let listed = "http://127.0.0.1:8080";
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "Reply with the word OK."}]}).to_string();
    let cases: [(Cors, &str, Option<&str>, u16, Option<&str>); 21] = [
        // The default: pages on this machine (the tests' site on 127.0.0.1, any port) only.
        (Cors::Loopback, "OPTIONS", Some(listed), 204, Some(listed)),
        (Cors::Loopback, "POST", Some(listed), 200, Some(listed)),
        (Cors::Loopback, "GET", Some("http://localhost:5173"), 200, Some("http://localhost:5173")),
        (Cors::Loopback, "POST", Some("http://[::1]:3000"), 200, Some("http://[::1]:3000")),
        (Cors::Loopback, "OPTIONS", Some("https://evil.example"), 403, None),
        (Cors::Loopback, "POST", Some("http://elsewhere.test"), 403, None),
        (Cors::Loopback, "GET", Some("http://elsewhere.test"), 403, None),
        // Look-alikes of a loopback host, and the opaque origin of a file or sandboxed frame.
        (Cors::Loopback, "POST", Some("http://127.0.0.1.evil.example"), 403, None),
        (Cors::Loopback, "POST", Some("http://localhost.evil.example:8080"), 403, None),
        (Cors::Loopback, "POST", Some("null"), 403, None),
        (Cors::Loopback, "POST", None, 200, None),
        (Cors::AllowAll, "OPTIONS", Some("http://elsewhere.test"), 204, Some("*")),
        (Cors::AllowAll, "POST", Some("http://elsewhere.test"), 200, Some("*")),
        (Cors::AllowAll, "GET", Some("http://elsewhere.test"), 200, Some("*")),
        (Cors::None, "OPTIONS", Some("http://elsewhere.test"), 204, None),
        (Cors::None, "POST", Some("http://elsewhere.test"), 200, None),
        (Cors::Origins(vec![listed.into()]), "OPTIONS", Some(listed), 204, Some(listed)),
        (Cors::Origins(vec![listed.into()]), "POST", Some(listed), 200, Some(listed)),
        (Cors::Origins(vec![listed.into()]), "OPTIONS", Some("http://elsewhere.test"), 403, None),
        (Cors::Origins(vec![listed.into()]), "POST", Some("http://elsewhere.test"), 403, None),
        (Cors::Origins(vec![listed.into()]), "POST", None, 200, None),
    ];
    let server = start(MockConfig::default()).await;
    for (i, (cors, method, origin, status, allow)) in cases.iter().enumerate() {
        server.set_config(MockConfig { cors: cors.clone(), ..MockConfig::default() });
        let mut headers = vec![
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "authorization,content-type"),
            ("Access-Control-Request-Private-Network", "true"),
        ];
        if let Some(origin) = origin {
            headers.push(("Origin", origin));
        }
        let response = match *method {
            "OPTIONS" => send(server.addr(), "OPTIONS", "/v1/chat/completions", &headers, None).await,
            "GET" => get(server.addr(), "/_mock/stats", &headers).await,
            _ => post(server.addr(), "/v1/chat/completions", &headers, &body).await,
        };
        let what = format!("case {i}: {cors:?} {method} {origin:?}");
        assert_eq!(response.status, *status, "{what}");
        assert_eq!(response.header("access-control-allow-origin"), *allow, "{what}");
        let cors_headers =
            response.headers.iter().filter(|(n, _)| n.to_ascii_lowercase().starts_with("access-control-")).count();
        if allow.is_none() {
            assert_eq!(cors_headers, 0, "{what}: {:?}", response.headers);
            continue;
        }
        assert_eq!(
            response.header("access-control-expose-headers"),
            Some("retry-after, retry-after-ms, x-goog-upload-url, x-goog-upload-status"),
            "{what}"
        );
        if *method == "OPTIONS" {
            let allowed = response.header("access-control-allow-headers").unwrap();
            for name in [
                "authorization",
                "content-type",
                "x-api-key",
                "api-key",
                "x-goog-api-key",
                "anthropic-version",
                "anthropic-dangerous-direct-browser-access",
                "x-goog-upload-command",
                "x-goog-upload-offset",
            ] {
                assert!(allowed.contains(name), "{what}: {name}");
            }
            assert!(allowed.starts_with('*'));
            assert_eq!(response.header("access-control-allow-private-network"), Some("true"), "{what}");
            assert_eq!(response.header("access-control-allow-methods"), Some("POST, GET, OPTIONS"), "{what}");
        }
        if *allow != Some("*") {
            assert_eq!(response.header("vary"), Some("Origin"), "{what}");
        }
    }
    assert_eq!(server.stats().preflights, 6);
}

/// A server started with the default configuration, as the end-to-end tests and the benchmark
/// start it: the tests' page (on 127.0.0.1) may call it; a web site open in the same browser
/// cannot, not even with a request a browser sends without a preflight (a form-like POST replacing
/// the configuration: refused before it is read). Whoever wants every origin says so
/// (`Cors::AllowAll`).
#[tokio::test]
async fn the_default_cors_admits_only_pages_on_this_machine() {
    let server = start(MockConfig::default()).await;
    let page = "http://127.0.0.1:43210";
    let forged = json!({"answers": {"wrong_every": 1}}).to_string();
    let response = post(server.addr(), "/_mock/config", &[("Origin", "https://evil.example")], &forged).await;
    assert_eq!((response.status, response.header("access-control-allow-origin")), (403, None));
    assert_eq!(server.config(), MockConfig::default(), "the configuration is unchanged");
    let response = get(server.addr(), "/_mock/stats", &[("Origin", "https://evil.example")]).await;
    assert_eq!((response.status, response.header("access-control-allow-origin")), (403, None));

    let response = get(server.addr(), "/_mock/stats", &[("Origin", page)]).await;
    assert_eq!((response.status, response.header("access-control-allow-origin")), (200, Some(page)));
    let response = post(server.addr(), "/_mock/config", &[("Origin", page)], &forged).await;
    assert_eq!(response.status, 200);
    assert_eq!(server.policy().wrong_every, Some(1));
}

/// `GET /_mock/config` says whether a key is expected, never which. (key configured, shown as set)
#[tokio::test]
async fn the_config_shown_never_holds_the_key() {
    let cases = [(Some("sk-mock-SECRET-7f3a"), true), (None, false)];
    let server = start(MockConfig::default()).await;
    for (key, set) in cases {
        server.set_config(MockConfig { api_key: key.map(str::to_string), ..MockConfig::default() });
        let response = get(server.addr(), "/_mock/config", &[]).await;
        assert_eq!(response.status, 200);
        assert!(!response.body.contains("SECRET"), "{key:?}: {}", response.body);
        let shown = response.json();
        assert_eq!(shown["api_key_set"], json!(set), "{key:?}: {shown}");
        assert!(shown.get("api_key").is_none(), "{key:?}: {shown}");
        assert_eq!(shown["cors"], json!("loopback"));
    }
}

/// (format, key sent, model, expected status, JSON pointer and value)
#[tokio::test]
async fn keys_and_models_are_checked() {
    let server = start(MockConfig {
        api_key: Some("sk-right".into()),
        models: Some(vec!["m-ok".into()]),
        ..MockConfig::default()
    })
    .await;
    let cases: [(Fmt, Option<&'static str>, &'static str, u16, (&str, &str)); 12] = [
        (Fmt::OpenAi, Some("sk-right"), "m-ok", 200, ("/object", "\"chat.completion\"")),
        (Fmt::OpenAi, Some("sk-wrong"), "m-ok", 401, ("/error/code", "\"invalid_api_key\"")),
        (Fmt::OpenAi, None, "m-ok", 401, ("/error/code", "\"invalid_api_key\"")),
        (Fmt::Azure, Some("sk-right"), "m-ok", 200, ("/object", "\"chat.completion\"")),
        (Fmt::Azure, Some("sk-wrong"), "m-ok", 401, ("/error/code", "\"invalid_api_key\"")),
        (Fmt::Anthropic, Some("sk-right"), "m-ok", 200, ("/type", "\"message\"")),
        (Fmt::Anthropic, Some("sk-wrong"), "m-ok", 401, ("/error/type", "\"authentication_error\"")),
        (Fmt::Gemini, Some("sk-right"), "m-ok", 200, ("/modelVersion", "\"m-ok\"")),
        (Fmt::Gemini, Some("sk-wrong"), "m-ok", 401, ("/error/status", "\"UNAUTHENTICATED\"")),
        (Fmt::OpenAi, Some("sk-right"), "m-bad", 404, ("/error/code", "\"model_not_found\"")),
        (Fmt::Anthropic, Some("sk-right"), "m-bad", 404, ("/error/type", "\"not_found_error\"")),
        (Fmt::Gemini, Some("sk-right"), "m-bad", 404, ("/error/status", "\"NOT_FOUND\"")),
    ];
    for (i, (fmt, key, model, status, (pointer, value))) in cases.iter().enumerate() {
        let response = Call::new(*fmt, output_prompt(&sample(50))).key(*key).model(model).send(&server).await;
        assert_eq!(response.status, *status, "case {i}: {}", response.body);
        assert_eq!(
            response.json().pointer(pointer),
            Some(&serde_json::from_str::<Value>(value).unwrap()),
            "case {i}: {}",
            response.body
        );
    }
    // Gemini's key in the query.
    let body = json!({"contents": [{"parts": [{"text": "Reply with the word OK."}]}]}).to_string();
    assert_eq!(post(server.addr(), "/v1beta/models/m-ok:generateContent?key=sk-right", &[], &body).await.status, 200);
    assert_eq!(post(server.addr(), "/v1beta/models/m-ok:generateContent?key=nope", &[], &body).await.status, 401);
    let stats = server.stats();
    assert_eq!(
        (stats.requests_total, stats.per_sample.get("sample_50")),
        (14, Some(&4)),
        "refused requests count in the total only"
    );
}

/// Anthropic's own header rules, and bodies no format accepts.
#[tokio::test]
async fn bad_requests() {
    let server = start(MockConfig::default()).await;
    let prompt = output_prompt(&sample(60));
    let response =
        Call::new(Fmt::Anthropic, prompt.clone()).header("Origin", "http://127.0.0.1:8080").send(&server).await;
    assert_eq!(response.status, 401);
    assert!(response.body.contains("CORS requests must set 'anthropic-dangerous-direct-browser-access' header"));
    let response = Call::new(Fmt::Anthropic, prompt.clone())
        .header("Origin", "http://127.0.0.1:8080")
        .header("anthropic-dangerous-direct-browser-access", "true")
        .send(&server)
        .await;
    assert_eq!(response.status, 200);
    let body = json!({"model": "c", "max_tokens": 10, "messages": [{"role": "user", "content": "x"}]}).to_string();
    let response = post(server.addr(), "/v1/messages", &[], &body).await;
    assert_eq!(
        (response.status, response.json()["error"]["message"].as_str()),
        (400, Some("anthropic-version: header is required"))
    );
    // (path, headers, body, JSON pointer to a message)
    let cases: [(&str, &[(&str, &str)], String, &str); 5] = [
        ("/v1/chat/completions", &[], "{not json".into(), "/error/message"),
        (
            "/v1/chat/completions",
            &[],
            json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "n": 0}).to_string(),
            "/error/message",
        ),
        (
            "/v1/messages",
            &[("anthropic-version", "2023-06-01")],
            json!({"model": "m", "messages": [{"role": "user", "content": "x"}]}).to_string(),
            "/error/message",
        ),
        ("/v1beta/models/g:generateContent", &[], json!({"contents": []}).to_string(), "/error/message"),
        ("/v1beta/models/g:generateContent", &[], "[]".into(), "/error/message"),
    ];
    for (path, headers, body, pointer) in cases {
        let response = post(server.addr(), path, headers, &body).await;
        assert_eq!(response.status, 400, "{path} {body}: {}", response.body);
        assert!(
            response.json().pointer(pointer).and_then(Value::as_str).is_some_and(|m| !m.is_empty()),
            "{}",
            response.body
        );
    }
    let response = post(server.addr(), "/v1/completions", &[], "{}").await;
    assert_eq!(response.status, 404);
    assert!(response.body.contains("/v1/chat/completions"));
}

/// Stats, reset, config and model lists over HTTP.
#[tokio::test]
async fn control_endpoints() {
    let server = start(MockConfig { models: Some(vec!["a".into(), "b".into()]), ..MockConfig::default() }).await;
    let s = sample(70);
    let _ = Call::new(Fmt::OpenAi, output_prompt(&s)).model("a").send(&server).await;
    let stats: execbench_mockserver::Stats =
        serde_json::from_str(&get(server.addr(), "/_mock/stats", &[]).await.body).unwrap();
    assert_eq!(stats, server.stats());
    assert_eq!(stats.per_sample.get(&s.id), Some(&1));

    let config = json!({"answers": {"wrong_ids": [s.id]}, "models": ["a"]}).to_string();
    assert_eq!(post(server.addr(), "/_mock/config", &[], &config).await.status, 200);
    assert_eq!(server.policy().wrong_ids.len(), 1);
    let answer =
        read_answer(Fmt::OpenAi, false, &Call::new(Fmt::OpenAi, output_prompt(&s)).model("a").send(&server).await);
    assert_eq!(answer.texts, [answer_text(&s, Task::Output, false)]);
    let response = post(server.addr(), "/_mock/config", &[], r#"{"latency": 3}"#).await;
    assert_eq!(response.status, 400);
    assert!(response.body.contains("latency"));
    assert_eq!(get(server.addr(), "/_mock/config", &[]).await.json()["models"], json!(["a"]));

    assert_eq!(post(server.addr(), "/_mock/reset", &[], "").await.status, 200);
    assert_eq!(server.stats().requests_total, 0);

    let models = get(server.addr(), "/v1/models", &[]).await.json();
    assert_eq!(models["data"][0]["id"], "a");
    let models = get(server.addr(), "/v1/models", &[("anthropic-version", "2023-06-01")]).await.json();
    assert_eq!((models["data"][0]["type"].as_str(), models["has_more"].as_bool()), (Some("model"), Some(false)));
    let models = get(server.addr(), "/v1beta/models", &[]).await.json();
    assert_eq!(models["models"][0]["name"], "models/a");
    assert_eq!(server.stats().requests_total, 0, "model lists are not model requests");
}

/// The blocking start, from a test without a runtime.
#[test]
fn start_blocking_serves_sync_callers() {
    let server = MockServer::start_blocking(dataset(), MockConfig::default(), 0).unwrap();
    assert!(server.base_url().starts_with("http://127.0.0.1:"));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let s = sample(80);
    let response = runtime.block_on(Call::new(Fmt::Gemini, input_prompt(&s)).send(&server));
    assert_eq!(read_answer(Fmt::Gemini, false, &response).texts, [answer_text(&s, Task::Input, true)]);
    let addr = server.addr();
    drop(server);
    std::thread::sleep(Duration::from_millis(100));
    assert!(std::net::TcpStream::connect(addr).is_err(), "the port is closed once the handle is dropped");
}

/// On the real dataset, in the built-in templates' shapes: every 5th sample, both tasks.
#[test]
fn identifies_real_samples() {
    let data = dataset();
    let server = MockServer::start_blocking(data.clone(), MockConfig::default(), 0).unwrap();
    for index in (0..data.len()).step_by(5) {
        let s = &data[index];
        assert_eq!(server.identify(&output_prompt(s)), Some((index, Task::Output)), "{}", s.id);
        assert_eq!(server.identify(&input_prompt(s)), Some((index, Task::Input)), "{}", s.id);
    }
    assert_eq!(server.identify("Reply with the word OK."), None);
}

/// A stream's latency is spread over its events: the first comes early, the last after it all.
#[tokio::test]
async fn stream_latency_is_spread_over_the_events() {
    let server = start(MockConfig { latency_ms: 400, ..MockConfig::default() }).await;
    let (path, headers, body) = Call::new(Fmt::Gemini, output_prompt(&sample(90))).stream().parts();
    let headers: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let started = Instant::now();
    let mut stream = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    stream.write_all(&common::request_bytes("POST", &path, &headers, Some(&body))).await.unwrap();
    let mut raw = Vec::new();
    let mut buffer = [0u8; 4096];
    let mut first_event = None;
    loop {
        let read = stream.read(&mut buffer).await.unwrap();
        if read == 0 {
            break;
        }
        raw.extend_from_slice(&buffer[..read]);
        if first_event.is_none() && String::from_utf8_lossy(&raw).contains("data: ") {
            first_event = Some(started.elapsed());
        }
    }
    let total = started.elapsed();
    let first_event = first_event.unwrap();
    // Relative, not a fixed bound (a busy machine stretches both): the first event comes well
    // before the last, which waits out the whole latency.
    assert!(total >= Duration::from_millis(400), "whole stream in {total:?}");
    assert!(first_event * 2 < total, "first event after {first_event:?} of {total:?}");
    let answer = read_answer(Fmt::Gemini, true, &common::parse(&raw));
    assert_eq!(answer.texts, [answer_text(&sample(90), Task::Output, true)]);
}
