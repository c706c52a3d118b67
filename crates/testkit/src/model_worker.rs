//! Driving the built model worker (`crates/model-worker`) in a page without the app: a fresh
//! worker downloads a GGUF file (and a tokenizer.json, when given; SHA-256 checked), loads them,
//! and is then asked questions one after another. The browser test of its logits and the bench's
//! timings share this.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::browser::Browser;

/// A file the worker downloads: its address and its SHA-256 (hex).
pub struct WorkerFile {
    pub url: String,
    pub sha256: String,
}

/// What a loaded worker said: the `loaded` message's summary and load time, and one answer per
/// question, in order.
#[derive(Debug)]
pub struct WorkerAnswers {
    pub summary: String,
    pub load_ms: f64,
    /// The worker's wasm memory once loaded (its peak so far).
    pub memory_bytes: u64,
    pub answers: Vec<Value>,
}

/// Downloads, loads, then sends each question once the last is answered; progress lands in
/// `window.__modelDrive`, which ends `done` (or with an `error`).
const DRIVE: &str = r#"
    const [gguf, tokenizer, questions] = arguments;
    const state = { done: false, error: null, loaded: null, answers: [] };
    window.__modelDrive = state;
    const w = new Worker('execbench-model-worker_loader.js');
    const send = (m) => w.postMessage(JSON.stringify(m));
    const file = (f) => ({ url: f.url, sha256: f.sha256, bytes: null });
    const next = () => {
        if (state.answers.length < questions.length) send(questions[state.answers.length]);
        else { state.done = true; w.terminate(); }
    };
    const fail = (error) => { state.error = error; state.done = true; w.terminate(); };
    w.onerror = (e) => fail(String(e.message));
    w.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.kind === 'progress') return;
        if (m.kind === 'ready') send({ kind: 'download', file: file(gguf) });
        else if (m.kind === 'downloaded' && m.url === gguf.url && tokenizer) send({ kind: 'download', file: file(tokenizer) });
        else if (m.kind === 'downloaded') send({ kind: 'load', gguf: gguf.url, tokenizer: tokenizer ? tokenizer.url : null });
        else if (m.kind === 'loaded') { state.loaded = m; next(); }
        else if (state.loaded) { state.answers.push(m); next(); }
        else fail(JSON.stringify(m));
    };
"#;

/// Asks a fresh model worker each of `questions` (`ToWorker` messages as JSON) once
/// `gguf` (and `tokenizer`, if any) are downloaded and loaded, in the page `b` has open (the built
/// site, for the worker's module). Its answers, or what went wrong; `timeout` bounds the whole.
pub async fn ask_loaded_worker(
    b: &Browser,
    gguf: &WorkerFile,
    tokenizer: Option<&WorkerFile>,
    questions: Vec<Value>,
    timeout: Duration,
) -> Result<WorkerAnswers, String> {
    let file = |f: &WorkerFile| json!({"url": f.url, "sha256": f.sha256});
    let args = vec![file(gguf), tokenizer.map_or(Value::Null, file), Value::Array(questions)];
    b.client.execute(DRIVE, args).await.map_err(|e| e.to_string())?;
    let deadline = Instant::now() + timeout;
    loop {
        let state = b.client.execute("return window.__modelDrive", vec![]).await.map_err(|e| e.to_string())?;
        if state["done"] == true {
            if let Some(error) = state["error"].as_str() {
                return Err(format!("the model worker: {error}"));
            }
            let loaded = &state["loaded"];
            return Ok(WorkerAnswers {
                summary: loaded["summary"].as_str().unwrap_or_default().to_string(),
                load_ms: loaded["load_ms"].as_f64().unwrap_or(0.0),
                memory_bytes: loaded["memory_bytes"].as_u64().unwrap_or(0),
                answers: state["answers"].as_array().cloned().unwrap_or_default(),
            });
        }
        if Instant::now() > deadline {
            let answered = state["answers"].as_array().map_or(0, Vec::len);
            return Err(format!("the model worker answered {answered} questions in {} s", timeout.as_secs()));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
