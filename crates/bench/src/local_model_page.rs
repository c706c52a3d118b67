//! The same measurement as `local_model.rs`, in the page: the built model worker
//! (`crates/model-worker`) in headless Chromium downloads the 0.5B-shape file from a local
//! server (SHA-256 checked), loads it, and times prefill and greedy decode of the very token ids
//! the native engine and llama.cpp were given, with the worker's own clock.

use std::path::Path;
use std::time::Duration;

use execbench_model_files::download::Checksum;
use execbench_testkit::browser::Browser;
use execbench_testkit::model_worker::{WorkerFile, ask_loaded_worker};
use execbench_testkit::static_server::{SUB_PATH, StaticServer};
use serde_json::{Value, json};

/// Prefill and decode seconds, and the first greedy tokens, as the section compares them.
pub struct PageTiming {
    pub prefill_s: f64,
    pub decode_s: f64,
    pub first_tokens: Vec<u32>,
}

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
        let file = |name: &str| Ok::<_, String>(WorkerFile { url: url(name), sha256: sha(name)? });
        let question = json!({"kind": "time", "prompt": prompt, "steps": steps});
        let timeout = Duration::from_secs(1200);
        read(&ask_loaded_worker(&b, &file(gguf)?, &file("tokenizer.json")?, question, timeout).await?)
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
