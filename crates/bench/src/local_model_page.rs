//! The model worker (`crates/model-worker`) in headless Chromium, as `local_model.rs` and
//! `real_model.rs` measure the native engine: the built worker downloads a GGUF file from a local
//! server (SHA-256 checked), loads it, and is timed with its own clock, on the very token ids or
//! chats the native engine and llama.cpp were given.

use std::path::Path;
use std::time::Duration;

use execbench_model_files::download::Checksum;
use execbench_model_files::protocol::Speed;
use execbench_testkit::browser::Browser;
use execbench_testkit::model_worker::{WorkerAnswers, WorkerFile, ask_loaded_worker};
use execbench_testkit::static_server::{SUB_PATH, StaticServer};
use serde_json::{Value, json};

/// Prefill and decode seconds, and the first greedy tokens, as the section compares them.
pub struct PageTiming {
    pub prefill_s: f64,
    pub decode_s: f64,
    pub first_tokens: Vec<u32>,
}

/// One chat's answer in the page: its text and the worker's own timings of it.
pub struct PageAnswer {
    pub text: String,
    pub speed: Speed,
}

/// Serves the site and `files`, opens a browser, and asks a model worker `questions` with
/// `gguf` (and `tokenizer`, a file name in `files`, when given) loaded.
async fn ask(
    files: &Path,
    gguf: &str,
    tokenizer: Option<&str>,
    questions: Vec<Value>,
    timeout: Duration,
) -> Result<WorkerAnswers, String> {
    let server = StaticServer::mount(vec![
        (SUB_PATH.to_string(), execbench_testkit::dist_dir()),
        ("/models/".to_string(), files.to_path_buf()),
    ]);
    let file = |name: &str| {
        let bytes = std::fs::read(files.join(name)).map_err(|e| format!("{name}: {e}"))?;
        Ok::<_, String>(WorkerFile { url: format!("{}/models/{name}", server.origin), sha256: Checksum::of(&bytes) })
    };
    let gguf = file(gguf)?;
    let tokenizer = tokenizer.map(file).transpose()?;
    let b = Browser::launch_fresh().await;
    let outcome = async {
        b.client.goto(&server.base_url).await.map_err(|e| e.to_string())?;
        ask_loaded_worker(&b, &gguf, tokenizer.as_ref(), questions, timeout).await
    }
    .await;
    b.close().await;
    outcome
}

/// One GGUF file of `files` (with its tokenizer.json): `prompt` prefilled, then `steps` greedy steps.
pub async fn measure(files: &Path, gguf: &str, prompt: &[u32], steps: u32) -> Result<PageTiming, String> {
    let question = json!({"kind": "time", "prompt": prompt, "steps": steps});
    let worker = ask(files, gguf, Some("tokenizer.json"), vec![question], Duration::from_secs(1200)).await?;
    read(worker.answers.first().ok_or("no answer")?)
}

/// Chat-completions request bodies, one after another, to the GGUF file alone (its own tokenizer):
/// what the worker said when loaded, and each answer.
pub async fn chats(
    files: &Path,
    gguf: &str,
    bodies: &[Value],
    timeout: Duration,
) -> Result<(WorkerAnswers, Vec<PageAnswer>), String> {
    let questions = bodies
        .iter()
        .enumerate()
        .map(|(id, body)| json!({"kind": "chat", "id": id, "body": body.to_string()}))
        .collect();
    let worker = ask(files, gguf, None, questions, timeout).await?;
    let answers = worker
        .answers
        .clone()
        .iter()
        .map(|reply| {
            if reply["kind"] != "reply" || reply["status"] != 200 {
                return Err(format!("the model worker answered {reply}"));
            }
            let body: Value = serde_json::from_str(reply["body"].as_str().unwrap_or_default())
                .map_err(|e| format!("an unreadable reply body ({e}): {reply}"))?;
            let text = body["choices"][0]["message"]["content"].as_str().unwrap_or_default().to_string();
            let speed =
                serde_json::from_value(reply["speed"].clone()).map_err(|e| format!("no speed ({e}): {reply}"))?;
            Ok(PageAnswer { text, speed })
        })
        .collect::<Result<_, String>>()?;
    Ok((worker, answers))
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
