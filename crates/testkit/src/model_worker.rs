//! Driving the built model worker (`crates/model-worker`) in a page without the app: a fresh
//! worker downloads a GGUF file and its tokenizer (SHA-256 checked), loads them, and is then asked
//! one question. The browser test of its logits and the bench's timing share this.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::browser::Browser;

/// A file the worker downloads: its address and its SHA-256 (hex).
pub struct WorkerFile {
    pub url: String,
    pub sha256: String,
}

/// Downloads, loads, then sends `question`; the worker's next message other than progress lands
/// in `window.__modelAnswer`.
const DRIVE: &str = r#"
    const [gguf, tokenizer, question] = arguments;
    window.__modelAnswer = null;
    const w = new Worker('execbench-model-worker_loader.js');
    const send = (m) => w.postMessage(JSON.stringify(m));
    const file = (f) => ({ url: f.url, sha256: f.sha256, bytes: null });
    w.onerror = (e) => { window.__modelAnswer = { kind: 'error', error: String(e.message) }; };
    w.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.kind === 'progress') return;
        if (m.kind === 'ready') send({ kind: 'download', file: file(gguf) });
        else if (m.kind === 'downloaded' && m.url === gguf.url) send({ kind: 'download', file: file(tokenizer) });
        else if (m.kind === 'downloaded') send({ kind: 'load', gguf: gguf.url, tokenizer: tokenizer.url });
        else if (m.kind === 'loaded') send(question);
        else { window.__modelAnswer = m; w.terminate(); }
    };
"#;

/// Asks a fresh model worker `question` (a `ToWorker` message as JSON) once `gguf` and `tokenizer`
/// are downloaded and loaded, in the page `b` has open (the built site, for the worker's module).
/// Its answer, or what went wrong; `timeout` bounds the whole.
pub async fn ask_loaded_worker(
    b: &Browser,
    gguf: &WorkerFile,
    tokenizer: &WorkerFile,
    question: Value,
    timeout: Duration,
) -> Result<Value, String> {
    let file = |f: &WorkerFile| json!({"url": f.url, "sha256": f.sha256});
    b.client.execute(DRIVE, vec![file(gguf), file(tokenizer), question]).await.map_err(|e| e.to_string())?;
    let deadline = Instant::now() + timeout;
    loop {
        let got = b.client.execute("return window.__modelAnswer", vec![]).await.map_err(|e| e.to_string())?;
        if !got.is_null() {
            return Ok(got);
        }
        if Instant::now() > deadline {
            return Err(format!("no answer from the model worker in {} s", timeout.as_secs()));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
