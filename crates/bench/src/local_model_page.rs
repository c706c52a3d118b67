//! The same measurement as `local_model.rs`, in the page: the built model worker
//! (`crates/model-worker`) in headless Chromium downloads the 0.5B-shape file from a local
//! server (SHA-256 checked), loads it, and times prefill and greedy decode of the very token ids
//! the native engine and llama.cpp were given, with the worker's own clock.

use std::path::Path;
use std::time::{Duration, Instant};

use execbench_model_files::download::Checksum;
use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::{SUB_PATH, StaticServer};
use serde_json::{Value, json};

/// Prefill and decode seconds, and the first greedy tokens, as the section compares them.
pub struct PageTiming {
    pub prefill_s: f64,
    pub decode_s: f64,
    pub first_tokens: Vec<u32>,
}

/// Drives a fresh worker: download both files, load, time. The answer lands in `window.__timed`.
const DRIVE: &str = r#"
    const [gguf, ggufSha, tokenizer, tokenizerSha, prompt, steps] = arguments;
    window.__timed = null;
    const w = new Worker('execbench-model-worker_loader.js');
    const send = (m) => w.postMessage(JSON.stringify(m));
    const file = (url, sha256) => ({ url, sha256, bytes: null });
    w.onerror = (e) => { window.__timed = { kind: 'error', error: String(e.message) }; };
    w.onmessage = (e) => {
        const m = JSON.parse(e.data);
        if (m.kind === 'progress') return;
        if (m.kind === 'ready') send({ kind: 'download', file: file(gguf, ggufSha) });
        else if (m.kind === 'downloaded' && m.url === gguf) send({ kind: 'download', file: file(tokenizer, tokenizerSha) });
        else if (m.kind === 'downloaded') send({ kind: 'load', gguf, tokenizer });
        else if (m.kind === 'loaded') send({ kind: 'time', prompt, steps });
        else { window.__timed = m; w.terminate(); }
    };
"#;

/// One GGUF file of `files` (with its tokenizer.json) timed in the page.
pub async fn measure(files: &Path, gguf: &str, prompt: &[u32], steps: u32) -> Result<PageTiming, String> {
    let server = StaticServer::mount(vec![
        (SUB_PATH.to_string(), execbench_testkit::dist_dir()),
        ("/models/".to_string(), files.to_path_buf()),
    ]);
    let sha =
        |name: &str| std::fs::read(files.join(name)).map(|b| Checksum::of(&b)).map_err(|e| format!("{name}: {e}"));
    let url = |name: &str| format!("{}/models/{name}", server.origin);
    let b = Browser::launch().await;
    let outcome = async {
        b.client.goto(&server.base_url).await.map_err(|e| e.to_string())?;
        let args = vec![
            json!(url(gguf)),
            json!(sha(gguf)?),
            json!(url("tokenizer.json")),
            json!(sha("tokenizer.json")?),
            json!(prompt),
            json!(steps),
        ];
        b.client.execute(DRIVE, args).await.map_err(|e| e.to_string())?;
        let deadline = Instant::now() + Duration::from_secs(1200);
        loop {
            let got = b.client.execute("return window.__timed", vec![]).await.map_err(|e| e.to_string())?;
            if !got.is_null() {
                return read(&got);
            }
            if Instant::now() > deadline {
                return Err("no answer from the model worker in 20 minutes".to_string());
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
    .await;
    b.close().await;
    outcome
}

fn read(answer: &Value) -> Result<PageTiming, String> {
    if answer["kind"] != "timed" || !answer["error"].is_null() {
        return Err(format!("the model worker answered {answer}"));
    }
    let ms = |k: &str| answer[k].as_f64().ok_or(format!("no {k} in {answer}"));
    let first_tokens =
        answer["first_tokens"].as_array().map(|a| a.iter().filter_map(|t| t.as_u64()).map(|t| t as u32).collect());
    Ok(PageTiming {
        prefill_s: ms("prefill_ms")? / 1000.0,
        decode_s: ms("decode_ms")? / 1000.0,
        first_tokens: first_tokens.unwrap_or_default(),
    })
}
