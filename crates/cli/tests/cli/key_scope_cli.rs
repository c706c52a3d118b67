//! Where `execbench run` sends a key, end to end: the built binary against tiny HTTP servers on
//! 127.0.0.1 written here (std `TcpListener`, one thread each, every request kept). A preset's
//! own key variable is read only for its own address; plain http to another machine, a key in
//! the URL, a redirect and a resumed file that points elsewhere are refused; a provider echoing
//! the request's headers gets no key into the terminal or the run file.
//! Runs RustPython: use `cargo test --release --workspace --test cli key_scope_cli::`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const KEY: &str = "sk-cli-echo-SECRET-55aa";
const BEARER_KEY: &str = "Bearer sk-cli-echo-SECRET-55aa";
// `printf %s KEY | base64` and `printf %s "Bearer KEY" | base64`, computed outside the project.
const KEY_BASE64: &str = "c2stY2xpLWVjaG8tU0VDUkVULTU1YWE=";
const BEARER_BASE64: &str = "QmVhcmVyIHNrLWNsaS1lY2hvLVNFQ1JFVC01NWFh";
/// The variable the tests name with --key-env.
const KEY_VAR: &str = "EXECBENCH_TEST_KEY";
/// Every variable a preset reads by default: set to the key, so a test sees where it would go.
const PRESET_VARS: &[&str] = &["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "AZURE_OPENAI_API_KEY"];

/// The key's spellings that must appear nowhere: itself (and its first characters, for a key cut
/// short), and stretches of its base64 forms that encode only the key's bytes.
fn leaks(text: &str) -> Vec<&'static str> {
    [&KEY[..8], &KEY_BASE64[4..20], &BEARER_BASE64[12..32]].into_iter().filter(|n| text.contains(n)).collect()
}

// ---------------------------------------------------------------------------------------------
// A tiny HTTP server

/// One request as received: the request line, the headers (names lower case) and the body.
#[derive(Clone, Debug)]
struct Received {
    line: String,
    headers: Vec<(String, String)>,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

struct Server {
    port: u16,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Server {
    /// Answers each request with `answer(request)`: a whole HTTP response, the connection closed.
    fn start(answer: impl Fn(&Received) -> String + Send + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let received: Arc<Mutex<Vec<Received>>> = Arc::default();
        let kept = received.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                let Some(request) = read_request(&mut stream) else { continue };
                kept.lock().unwrap().push(request.clone());
                let _ = stream.write_all(answer(&request).as_bytes());
                let _ = stream.flush();
            }
        });
        Server { port, received }
    }

    fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    fn requests(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

fn read_request(stream: &mut std::net::TcpStream) -> Option<Received> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    let length: usize =
        headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).ok()?;
    Some(Received { line: line.trim_end().to_string(), headers })
}

fn response(status: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut text = format!("HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n", body.len());
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    text
}

/// A bad-key answer: the run stops at once after one request.
fn refuse(_: &Received) -> String {
    let body =
        r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
    response("401 Unauthorized", &[("content-type", "application/json")], body)
}

// ---------------------------------------------------------------------------------------------
// The command

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-key-scope-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

/// `execbench run` of one sample, every preset's key variable set to the key (and `KEY_VAR`).
fn execbench_run(provider: &str, base_url: &str, out: &Path, extra: &[&str]) -> Output {
    let dataset = execbench_mockserver::bundled_dataset_path();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_execbench"));
    cmd.args(["run", "--dataset", dataset.to_str().unwrap(), "--task", "output", "--provider", provider])
        .args(["--base-url", base_url, "--model", "m", "--limit", "1", "--concurrency", "1", "--jobs", "1"])
        .args(["--mode", "strict", "--timeout", "10", "--out", out.to_str().unwrap()])
        .args(extra);
    for var in PRESET_VARS.iter().chain([&KEY_VAR]) {
        cmd.env(var, KEY);
    }
    cmd.output().expect("the execbench binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

// ---------------------------------------------------------------------------------------------
// Tests

/// What happened to the key.
#[derive(Debug)]
enum Expect {
    /// Refused before any request, the message starting so.
    Refused(&'static str),
    /// Requests sent, with this `authorization` header (or none).
    Sent(Option<&'static str>),
}

#[test]
fn a_key_goes_only_to_the_address_it_was_meant_for() {
    assert_eq!(BEARER_KEY, format!("Bearer {KEY}"));
    // (provider, base URL: `{A}` is the server's own, extra flags, what happens)
    let cases: &[(&str, &str, &[&str], Expect)] = &[
        // A preset's own variable is not read for another address (OPENAI_API_KEY to 127.0.0.1).
        ("openai", "{A}", &[], Expect::Refused("--provider openai at http://127.0.0.1:")),
        ("anthropic", "{A}", &[], Expect::Refused("--provider anthropic at http://127.0.0.1:")),
        // openai-compatible has no variable of its own: no key unless one is named.
        ("openai-compatible", "{A}", &[], Expect::Sent(None)),
        ("vllm", "{A}", &[], Expect::Sent(None)),
        ("openai-compatible", "{A}", &["--key-env", KEY_VAR], Expect::Sent(Some(BEARER_KEY))),
        ("openai", "{A}", &["--key-env", KEY_VAR], Expect::Sent(Some(BEARER_KEY))),
        // Plain http to another machine with a key: refused (`.invalid` never resolves).
        (
            "openai-compatible",
            "http://model-box.invalid:8000/v1",
            &["--key-env", KEY_VAR],
            Expect::Refused("a key would travel unencrypted to http://model-box.invalid:8000"),
        ),
        // A credential in the URL: refused.
        ("openai-compatible", "http://u:pw@127.0.0.1:{P}/v1", &[], Expect::Refused("--base-url: `http://127.0.0.1:")),
        // A backslash ends the host (the URL standard): the key would go to the first host, so
        // the default address's key variable is not read for it.
        (
            "openai",
            "https://model-box.invalid\\@api.openai.com/v1",
            &[],
            Expect::Refused("--provider openai at https://model-box.invalid:443 needs a key"),
        ),
        ("openai-compatible", "{A}?key=abc", &["--key-env", KEY_VAR], Expect::Refused("--base-url http://127.0.0.1:")),
    ];
    let dir = scratch("scope");
    for (i, (provider, base_url, extra, expect)) in cases.iter().enumerate() {
        let server = Server::start(refuse);
        let base_url = base_url.replace("{A}", &server.base_url()).replace("{P}", &server.port.to_string());
        let output = execbench_run(provider, &base_url, &dir.join(format!("run-{i}.jsonl")), extra);
        let (stderr, requests) = (text(&output.stderr), server.requests());
        let case = format!("{provider} {base_url} {extra:?}");
        assert_eq!(leaks(&stderr), Vec::<&str>::new(), "{case}: {stderr}");
        match expect {
            Expect::Refused(start) => {
                assert_eq!(output.status.code(), Some(2), "{case}: {stderr}");
                assert!(stderr.starts_with(&format!("execbench run: {start}")), "{case}: {stderr}");
                assert_eq!(requests.len(), 0, "{case}: nothing is sent");
            }
            Expect::Sent(authorization) => {
                assert_eq!(output.status.code(), Some(3), "{case}: the server refuses: {stderr}");
                assert_eq!(requests.len(), 1, "{case}");
                assert_eq!(requests[0].header("authorization"), *authorization, "{case}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_redirect_is_an_error_and_the_key_headers_go_no_further() {
    // (provider, the header that carries the key)
    let cases = [
        ("openai-compatible", "authorization"),
        ("anthropic", "x-api-key"),
        ("gemini", "x-goog-api-key"),
        ("azure", "api-key"),
    ];
    let dir = scratch("redirect");
    for (provider, key_header) in cases {
        // Where the redirect points: must never be asked.
        let elsewhere = Server::start(refuse);
        let location = format!("http://127.0.0.1:{}/", elsewhere.port);
        let server = Server::start(move |_| response("302 Found", &[("location", &location)], ""));
        let out = dir.join(format!("{provider}.jsonl"));
        let output = execbench_run(provider, &server.base_url(), &out, &["--key-env", KEY_VAR]);
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(3), "{provider}: {stderr}");
        let said = format!(
            "stopped by the provider: bad request (302): the server answered 302 Found (a redirect to http://127.0.0.1:{}); redirects are not followed",
            elsewhere.port
        );
        assert!(stderr.contains(&said), "{provider}: {stderr}");
        let asked = server.requests();
        assert_eq!(asked.len(), 1, "{provider}: the run stops at the redirect");
        assert!(asked[0].header(key_header).is_some_and(|v| v.contains(KEY)), "{provider}: {:?}", asked[0]);
        assert_eq!(elsewhere.requests().len(), 0, "{provider}: the redirect is not followed");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// The server's error body: the request's headers as received, and the authorization header's
/// value base64-encoded (as a proxy's debug output might).
fn echo(status: &'static str, content_type: &'static str) -> impl Fn(&Received) -> String + Send + 'static {
    move |request| {
        let dump: String = request.headers.iter().map(|(k, v)| format!("{k}: {v}; ")).collect();
        let body = if content_type == "application/json" {
            let message =
                format!("upstream failed; request headers: {dump}auth-b64: {BEARER_BASE64}; key-b64: {KEY_BASE64}");
            serde_json::json!({"error": {"message": message, "type": "server_error"}}).to_string()
        } else {
            format!("proxy refused {}\n{dump}\nauth-b64: {BEARER_BASE64}\nkey-b64: {KEY_BASE64}\n", request.line)
        };
        // A retry-after of 0 makes the 500s retried at once (the run gives the sample up fast).
        response(status, &[("content-type", content_type), ("retry-after", "0")], &body)
    }
}

#[test]
fn a_server_echoing_the_key_gets_it_into_no_output_or_run_file() {
    // (status, body type, exit code, the requests a sample gets)
    let cases = [
        // Retried, then the sample is an error: recorded in the file and listed on stderr.
        ("500 Internal Server Error", "application/json", 1, 6),
        // A bad request stops the run with the provider's words.
        ("400 Bad Request", "text/plain", 3, 1),
        ("401 Unauthorized", "application/json", 3, 1),
    ];
    let dir = scratch("echo");
    for (i, (status, content_type, code, requests)) in cases.into_iter().enumerate() {
        let server = Server::start(echo(status, content_type));
        let out = dir.join(format!("run-{i}.jsonl"));
        let output = execbench_run("openai-compatible", &server.base_url(), &out, &["--key-env", KEY_VAR]);
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        let file = std::fs::read_to_string(&out).unwrap_or_default();
        assert_eq!(output.status.code(), Some(code), "{status}: {stderr}");
        assert_eq!(server.requests().len(), requests, "{status}");
        // The echo was sent the key and is shown, redacted.
        assert!(server.requests()[0].header("authorization").is_some_and(|v| v.contains(KEY)));
        assert!(stderr.contains("request headers: ") || stderr.contains("proxy refused"), "{status}: {stderr}");
        assert!(stderr.contains("authorization: Bearer ***"), "{status}: {stderr}");
        for (name, shown) in [("stdout", &stdout), ("stderr", &stderr), ("run file", &file)] {
            assert_eq!(leaks(shown), Vec::<&str>::new(), "{status}: {name}:\n{shown}");
        }
        if code == 1 {
            assert!(file.contains("authorization: Bearer ***"), "{status}: the record keeps the error: {file}");
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_resumed_run_file_that_points_elsewhere_is_refused_before_any_request() {
    let dir = scratch("resume");
    let server = Server::start(echo("500 Internal Server Error", "application/json"));
    let elsewhere = Server::start(refuse);
    // A run whose one sample failed: --resume asks it again.
    let original = dir.join("run.jsonl");
    let output = execbench_run("openai-compatible", &server.base_url(), &original, &["--key-env", KEY_VAR]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
    let asked_first = server.requests().len();
    let text_of_run = std::fs::read_to_string(&original).unwrap();
    let (first, rest) = text_of_run.split_once('\n').unwrap();
    let manifest: serde_json::Value = serde_json::from_str(first).unwrap();
    // (what the file was edited to say: provider, base URL; refused with this, or resumed)
    let own = server.base_url();
    let cases: &[(&str, String, Option<&str>)] = &[
        (
            "openai-compatible",
            elsewhere.base_url(),
            Some("the endpoint differs (the run: openai-compatible at http://127.0.0.1:"),
        ),
        ("openai-compatible", "https://evil.example/v1".into(), Some("the endpoint differs")),
        ("openai", own.clone(), Some("the model differs")),
        // Same provider and origin, another path: resumed, and the requests go where the flags say.
        ("openai-compatible", own.replace("/v1", "/elsewhere"), None),
    ];
    for (i, (provider, base_url, refused)) in cases.iter().enumerate() {
        let mut edited = manifest.clone();
        edited["manifest"]["api"]["endpoint"]["provider"] = (*provider).into();
        edited["manifest"]["api"]["endpoint"]["base_url"] = base_url.as_str().into();
        let path = dir.join(format!("edited-{i}.jsonl"));
        std::fs::write(&path, format!("{edited}\n{rest}")).unwrap();
        let before = server.requests().len();
        let flags = ["--key-env", KEY_VAR, "--resume"];
        let output = execbench_run("openai-compatible", &server.base_url(), &path, &flags);
        let stderr = text(&output.stderr);
        let case = format!("{provider} {base_url}");
        assert_eq!(elsewhere.requests().len(), 0, "{case}: the file's address is never asked");
        match refused {
            Some(reason) => {
                assert_eq!(output.status.code(), Some(2), "{case}: {stderr}");
                assert!(stderr.contains(&format!("cannot resume {}:", path.display())), "{case}: {stderr}");
                assert!(stderr.contains(reason), "{case}: {stderr}");
                assert_eq!(server.requests().len(), before, "{case}: nothing is sent");
            }
            None => {
                assert_eq!(output.status.code(), Some(1), "{case}: {stderr}");
                let asked = &server.requests()[before..];
                assert_eq!(asked.len(), asked_first, "{case}: the failed sample asked again");
                assert!(asked.iter().all(|r| r.line == "POST /v1/chat/completions HTTP/1.1"), "{case}: {asked:?}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}
