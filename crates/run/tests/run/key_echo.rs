//! A provider (or a proxy in front of it) that echoes the request's headers into its error body
//! must not get the key into a record, a run's end or a Test connection verdict. The fake HTTP
//! client below answers every request by writing back the headers it received: as they came, and
//! base64-encoded as a proxy's debug output might. Nothing touches the network.

use crate::common;

use common::identity_sample;
use std::cell::RefCell;
use std::future::Future;

use execbench_core::{RunRequest, RunResult};
use execbench_eval::Task;
use execbench_eval::prompt::{Style, default_template};
use execbench_eval::score::Mode;
use execbench_providers::{Endpoint, ErrorKind, HttpRequest, ProviderError};
use execbench_run::api::{ApiModel, ApiSettings};
use execbench_run::connection::test_connection;
use execbench_run::runfile::record_line;
use execbench_run::{
    CancelToken, Clock, EvalJob, HttpClient, HttpHead, Io, Python, Responder, ResponseBody, ResultStore, RunEnd,
    SampleRecord, run_evaluation,
};

const KEY: &str = "sk-echo-SECRET-7f3a9c";
// Computed outside the project (`printf %s ... | base64`), so the test does not trust the code it
// checks: base64 of the key, of `Bearer KEY` (a header value encoded whole) and of `user:KEY`
// (Basic credentials).
const KEY_BASE64: &str = "c2stZWNoby1TRUNSRVQtN2YzYTlj";
const BEARER_BASE64: &str = "QmVhcmVyIHNrLWVjaG8tU0VDUkVULTdmM2E5Yw==";
const BASIC_BASE64: &str = "dXNlcjpzay1lY2hvLVNFQ1JFVC03ZjNhOWM=";

/// What must appear nowhere: the key's first characters (so also a key cut short), and a stretch
/// from inside each base64 form (the characters that encode the key's own bytes).
fn leaks(text: &str) -> Vec<&'static str> {
    [&KEY[..6], &KEY_BASE64[4..16], &BEARER_BASE64[12..28], &BASIC_BASE64[8..24]]
        .into_iter()
        .filter(|needle| text.contains(needle))
        .collect()
}

/// How the fake answers.
#[derive(Clone, Copy, Debug)]
enum Echo {
    /// 401, OpenAI's error shape, the message quoting the Authorization header.
    BadKeyJson,
    /// 400, a proxy's plain-text page listing every header, raw and base64-encoded.
    ProxyHeaderDump,
    /// 500 every time (retried, then the sample fails), JSON of an unknown shape.
    ServerErrorUnknownJson,
    /// 200 stream with an error event whose long message ends with the key: the parser cuts the
    /// message short (600 characters) twelve characters into the key.
    StreamErrorCutInKey,
    /// The transport fails, its message naming the header it could not send.
    TransportError,
    /// 200, a gateway's answer quoting the request's headers in the completion's text.
    AnswerQuotingHeaders,
    /// The same, streamed: the key split between two events.
    StreamQuotingHeaders,
}

struct EchoHttp {
    echo: Echo,
}

struct Body(Option<Vec<u8>>);

impl ResponseBody for Body {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
        Ok(self.0.take())
    }
}

/// `printf %s VALUE | base64` for the header values the fake sees (a proxy's encoding, not the
/// code under test's).
fn proxy_base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for group in bytes.chunks(3) {
        let n = group.iter().enumerate().fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= group.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

impl HttpClient for EchoHttp {
    type Body = Body;

    fn send(&self, request: &HttpRequest) -> impl Future<Output = Result<HttpHead<Body>, ProviderError>> {
        let header = |name: &str| {
            request
                .headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        let authorization = header("authorization");
        assert!(authorization.contains(KEY), "the fake must be sent the key: {:?}", request.headers);
        let bare_key = authorization.trim_start_matches("Bearer ").to_string();
        let dump: String = request.headers.iter().map(|(k, v)| format!("{k}: {v}\n")).collect();
        let head = |status: u16, content_type: &str, body: String| {
            Ok(HttpHead {
                status,
                headers: vec![("content-type".to_string(), content_type.to_string())],
                body: Body(Some(body.into_bytes())),
            })
        };
        let answer = match self.echo {
            Echo::BadKeyJson => head(
                401,
                "application/json",
                serde_json::json!({"error": {"message": format!("Incorrect API key provided in `authorization: {authorization}`"), "type": "invalid_request_error", "code": "invalid_api_key"}}).to_string(),
            ),
            Echo::ProxyHeaderDump => head(
                400,
                "text/plain",
                format!(
                    "proxy: upstream refused the request\n{dump}x-authorization-b64: {}\nx-key-b64: {}\nproxy-authorization: Basic {}\n",
                    proxy_base64(authorization.as_bytes()),
                    proxy_base64(bare_key.as_bytes()),
                    proxy_base64(format!("user:{bare_key}").as_bytes())
                ),
            ),
            Echo::ServerErrorUnknownJson => head(
                500,
                "application/json",
                serde_json::json!({"upstream_failure": {"request_headers": dump, "auth_b64": proxy_base64(authorization.as_bytes())}}).to_string(),
            ),
            Echo::StreamErrorCutInKey => {
                let message = format!("{} {authorization}", "x".repeat(580));
                let event = serde_json::json!({"error": {"message": message, "type": "server_error"}});
                head(200, "text/event-stream", format!("data: {event}\n\n"))
            }
            Echo::AnswerQuotingHeaders => head(
                200,
                "application/json",
                serde_json::json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": format!("[ANSWER]1[/ANSWER] (seen: {dump})")}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).to_string(),
            ),
            Echo::StreamQuotingHeaders => {
                let (first, second) = authorization.split_at(authorization.len() / 2);
                let event = |text: &str| serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}}]});
                head(
                    200,
                    "text/event-stream",
                    format!("data: {}\n\ndata: {}\n\ndata: {}\n\ndata: [DONE]\n\n", event("seen: "), event(first), event(&format!("{second} and {authorization}"))),
                )
            }
            Echo::TransportError => Err(ProviderError::new(
                ErrorKind::Network,
                None,
                format!("could not send header `authorization: {authorization}`"),
            )),
        };
        std::future::ready(answer)
    }
}

/// Back-off waits end at once; the request time-out (300 s) never comes, so every answer the
/// fake gives is the one the engine reads.
struct InstantClock;

impl Clock for InstantClock {
    fn now_ms(&self) -> f64 {
        0.0
    }

    fn sleep(&self, ms: u64) -> impl Future<Output = ()> {
        let wait: std::pin::Pin<Box<dyn Future<Output = ()>>> =
            if ms >= 100_000 { Box::pin(std::future::pending()) } else { Box::pin(std::future::ready(())) };
        wait
    }
}

/// No answer is ever scored: every request fails.
struct NoPython;

impl Python for NoPython {
    async fn run(&self, _: RunRequest) -> RunResult {
        unreachable!("a sample without answers is not run")
    }
}

/// The lines a run file would get.
#[derive(Default)]
struct Lines(RefCell<Vec<String>>);

impl ResultStore for Lines {
    fn put(&self, record: &SampleRecord) -> impl Future<Output = Result<(), String>> {
        self.0.borrow_mut().push(record_line(record));
        std::future::ready(Ok(()))
    }
}

fn model(stream: bool) -> ApiModel {
    let endpoint = Endpoint {
        provider: "openai-compatible".into(),
        base_url: "https://proxy.example/v1".into(),
        model: "m".into(),
    };
    let mut settings = ApiSettings::new(endpoint);
    settings.params.stream = stream;
    ApiModel { settings, key: Some(KEY.to_string()) }
}

#[test]
fn a_provider_echoing_the_key_leaves_none_in_records_or_the_run_end() {
    // (how the fake answers, the error kind the record must carry)
    let cases = [
        (Echo::BadKeyJson, ErrorKind::BadKey),
        (Echo::ProxyHeaderDump, ErrorKind::BadRequest),
        (Echo::ServerErrorUnknownJson, ErrorKind::ServerError),
        (Echo::StreamErrorCutInKey, ErrorKind::StreamError),
        (Echo::TransportError, ErrorKind::Network),
    ];
    for (echo, kind) in cases {
        let stream = matches!(echo, Echo::StreamErrorCutInKey);
        let job = EvalJob::new(
            vec![identity_sample("sample_0")],
            default_template(Task::Output, Style::Direct),
            1,
            vec![Mode::Strict],
        );
        let store = Lines::default();
        let http = EchoHttp { echo };
        let io = Io { python: &NoPython, http: &http, clock: &InstantClock, store: &store };
        let mut responder = Responder::Api(model(stream));
        let outcome =
            futures::executor::block_on(run_evaluation(&job, &mut responder, io, &CancelToken::new(), &|_| {}));
        let lines = store.0.take();
        // A run-stopping error ends the run (the sample is asked again on Resume); any other
        // makes the sample's record an error.
        let (error_kind, message) = match &outcome.end {
            RunEnd::ProviderStopped(e) => (Some(e.kind), e.to_string()),
            _ => {
                assert_eq!(lines.len(), 1, "{echo:?}: one record");
                let record: SampleRecord = serde_json::from_str(&lines[0]).unwrap();
                let error = record.error.unwrap_or_else(|| panic!("{echo:?}: the sample is an error"));
                (error.kind, error.message)
            }
        };
        assert_eq!(error_kind, Some(kind), "{echo:?}: {message}");
        // The provider's words are kept (only the key is not): the error still says what happened.
        assert!(message.contains("***"), "{echo:?}: {message}");
        for shown in lines.iter().chain([&outcome.end.describe()]) {
            assert_eq!(leaks(shown), Vec::<&str>::new(), "{echo:?}: {shown}");
        }
    }
}

#[test]
fn test_connection_quotes_an_echoing_provider_without_the_key() {
    for echo in [Echo::BadKeyJson, Echo::ProxyHeaderDump, Echo::TransportError] {
        let http = EchoHttp { echo };
        let endpoint = model(false).settings.endpoint;
        let verdict = futures::executor::block_on(test_connection(
            &http,
            &InstantClock,
            &endpoint,
            Some(KEY),
            300_000,
            "http://127.0.0.1:8080",
        ));
        let said = verdict.describe();
        assert!(!verdict.is_ok(), "{echo:?}: {said}");
        assert_eq!(leaks(&said), Vec::<&str>::new(), "{echo:?}: {said}");
    }
}

/// A gateway that answers 200 with the request's headers in the answer: the answer a record keeps
/// (and a run file shares) and every streamed delta shown on the way hold no key.
#[test]
fn an_answer_quoting_the_key_is_kept_without_it() {
    use execbench_run::api::{RequestContext, ask};
    use execbench_run::backoff::Jitter;
    use execbench_run::gate::Gate;
    use execbench_run::status::Live;
    for (echo, stream) in [(Echo::AnswerQuotingHeaders, false), (Echo::StreamQuotingHeaders, true)] {
        let http = EchoHttp { echo };
        let (gate, live, jitter) = (Gate::new(1, 0), Live::new(1, 0), RefCell::new(Jitter::new(0)));
        let ctx = RequestContext { http: &http, clock: &InstantClock, gate: &gate, live: &live, jitter: &jitter };
        let deltas = RefCell::new(Vec::new());
        let on_delta = |_: u32, text: Option<&str>| deltas.borrow_mut().extend(text.map(str::to_string));
        let answered = futures::executor::block_on(ask(
            &ctx,
            &model(stream),
            &[execbench_providers::Message::user("Q")],
            1,
            &on_delta,
        ))
        .unwrap_or_else(|e| panic!("{echo:?}: {}", e.error));
        let text = answered.texts.join("\n");
        assert!(text.contains("***"), "{echo:?}: the answer is kept, the key is not: {text}");
        assert_eq!(leaks(&text), Vec::<&str>::new(), "{echo:?}: {text}");
        for delta in deltas.borrow().iter() {
            assert!(!delta.contains(KEY), "{echo:?}: a delta holds the key: {delta}");
        }
        if stream {
            assert!(!deltas.borrow().is_empty(), "{echo:?}: streamed");
        }
    }
}
