//! The in-process model (`crates/localmodel`, candle) against llama.cpp, the engine a user would
//! run the same GGUF file with instead: prefill and greedy decode on random-weight files of the
//! real Qwen2.5-Coder 0.5B shape (no weights can be downloaded here; speed does not depend on the
//! weights' values), Q8_0 and Q4_0, one thread each, the same token ids, in one run.
//!
//! What it needs, made on first use under `$EXECBENCH_TOOLS`: a Python virtual environment with
//! `llama-cpp-python` (which compiles llama.cpp: many minutes, once), `gguf`, `numpy` and
//! `tokenizers`, and the two model files (the page's figures also need the built site, `dist/`), written by `scripts/localmodel/make_tiny_gguf.py
//! --shape 0.5b` (about 800 MB in all).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use execbench_localmodel::LocalModel;
use serde_json::Value;

use crate::figures::{Amount, Figure};

const PROMPT_TOKENS: usize = 128;
const DECODE_TOKENS: usize = 32;
const QUANTS: [&str; 2] = ["q8_0", "q4_0"];

/// Seconds for a prefill and for the decode steps after it, and the first greedy tokens.
struct Timing {
    prefill_s: f64,
    decode_s: f64,
    first_tokens: Vec<u32>,
}

pub async fn section(tools: &Path) -> Vec<Figure> {
    // One thread, as llama.cpp is given: candle sizes its pools from these variables once, at
    // their first use, which is below (no other section loads a model). Its default, every
    // core, spins while it waits and ran decode 4x slower here on a shared 2-core machine.
    // SAFETY: the benchmark's other threads are idle now and none of them reads the environment.
    unsafe {
        std::env::set_var("CANDLE_NUM_THREADS", "1");
        std::env::set_var("RAYON_NUM_THREADS", "1");
    }
    let files = match model_files(tools) {
        Ok(files) => files,
        Err(e) => {
            eprintln!("localmodel section skipped: {e}");
            return Vec::new();
        }
    };
    let mut figures = Vec::new();
    for quant in QUANTS {
        let gguf = files.join(format!("0.5b-{quant}.gguf"));
        let tokenizer = files.join("tokenizer.json");
        let measured = ours(&gguf, &tokenizer)
            .and_then(|(prompt, ours)| llama_cpp(tools, &gguf, &prompt).map(|theirs| (prompt, ours, theirs)));
        let (prompt, ours, theirs) = match measured {
            Ok(both) => both,
            Err(e) => {
                eprintln!("localmodel section, {quant}: {e}");
                continue;
            }
        };
        let label = quant.to_uppercase();
        let same = ours.first_tokens == theirs.first_tokens;
        println!(
            "localmodel {label}: execbench prefill {:.1} tokens/s, decode {:.1} tokens/s; llama.cpp prefill {:.1}, decode {:.1}; first greedy tokens {}",
            PROMPT_TOKENS as f64 / ours.prefill_s,
            DECODE_TOKENS as f64 / ours.decode_s,
            PROMPT_TOKENS as f64 / theirs.prefill_s,
            DECODE_TOKENS as f64 / theirs.decode_s,
            if same {
                "equal".to_string()
            } else {
                format!("differ: {:?} vs {:?}", ours.first_tokens, theirs.first_tokens)
            }
        );
        // The same ids in the page's model worker (headless Chromium, wasm with SIMD, one thread).
        let page =
            crate::local_model_page::measure(&files, &format!("0.5b-{quant}.gguf"), &prompt, DECODE_TOKENS as u32)
                .await;
        match &page {
            Ok(p) => println!(
                "localmodel {label}: the page's model worker prefill {:.1} tokens/s, decode {:.1} tokens/s; first greedy tokens {}",
                PROMPT_TOKENS as f64 / p.prefill_s,
                DECODE_TOKENS as f64 / p.decode_s,
                if p.first_tokens == ours.first_tokens { "equal to native" } else { "differ from native" }
            ),
            Err(e) => eprintln!("localmodel section, {quant}, in the page: {e}"),
        }
        for (what, count, our_s, their_s) in [
            ("prefill", PROMPT_TOKENS, ours.prefill_s, theirs.prefill_s),
            ("decode", DECODE_TOKENS, ours.decode_s, theirs.decode_s),
        ] {
            if let Ok(p) = &page {
                let page_s = if what == "prefill" { p.prefill_s } else { p.decode_s };
                let (page_ms, their_ms) = (page_s * 1000.0 / count as f64, their_s * 1000.0 / count as f64);
                // Issue 58's page target: at least half llama.cpp's single-thread speed.
                let target = Some(2.0);
                figures.push(Figure {
                    section: "localmodel".into(),
                    metric: format!(
                        "{what} in the page, ms per token (0.5B shape, {label}, wasm worker, {count} tokens)"
                    ),
                    execbench: Some(Amount::Ms(page_ms)),
                    reference: Some("llama.cpp".into()),
                    reference_amount: Some(Amount::Ms(their_ms)),
                    ratio: Some(page_ms / their_ms),
                    target: target.map(|t| format!("<= {t}")),
                    met: target.map(|t| page_ms / their_ms <= t),
                });
            }
            let (our_ms, their_ms) = (our_s * 1000.0 / count as f64, their_s * 1000.0 / count as f64);
            figures.push(Figure {
                section: "localmodel".into(),
                metric: format!("{what}, ms per token (0.5B shape, {label}, 1 thread, {count} tokens)"),
                execbench: Some(Amount::Ms(our_ms)),
                reference: Some("llama.cpp".into()),
                reference_amount: Some(Amount::Ms(their_ms)),
                ratio: Some(our_ms / their_ms),
                target: None,
                met: None,
            });
        }
    }
    figures
}

/// The virtual environment's Python, made with its packages if missing.
fn python(tools: &Path) -> Result<PathBuf, String> {
    let venv = tools.join("localmodel-venv");
    let python = venv.join("bin/python");
    let ready = venv.join(".packages-installed");
    if !ready.exists() {
        println!(
            "installing llama-cpp-python, gguf, numpy, tokenizers into {} (compiles llama.cpp: many minutes, once)",
            venv.display()
        );
        run(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
        run(Command::new(&python).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "llama-cpp-python==0.3.36",
            "gguf",
            "numpy",
            "tokenizers",
        ]))?;
        std::fs::write(&ready, "").map_err(|e| format!("cannot write {}: {e}", ready.display()))?;
    }
    Ok(python)
}

/// The directory with the 0.5B-shape files and their tokenizer, written if missing.
fn model_files(tools: &Path) -> Result<PathBuf, String> {
    let dir = tools.join("localmodel-0.5b");
    let all_there =
        dir.join("tokenizer.json").exists() && QUANTS.iter().all(|q| dir.join(format!("0.5b-{q}.gguf")).exists());
    if !all_there {
        let python = python(tools)?;
        let script = execbench_testkit::repo_root().join("scripts/localmodel/make_tiny_gguf.py");
        println!("writing random-weight files of the 0.5B shape into {}", dir.display());
        run(Command::new(python).arg(script).args(["--shape", "0.5b", "--out"]).arg(&dir))?;
    }
    Ok(dir)
}

fn run(command: &mut Command) -> Result<(), String> {
    let status = command.status().map_err(|e| format!("cannot start {command:?}: {e}"))?;
    if status.success() { Ok(()) } else { Err(format!("{command:?} failed: {status}")) }
}

/// execbench's engine on one thread: the prompt's ids (a code-like text repeated) and its timing.
fn ours(gguf: &Path, tokenizer: &Path) -> Result<(Vec<u32>, Timing), String> {
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("cannot read {}: {e}", p.display()));
    let mut model = LocalModel::load(&read(gguf)?, &read(tokenizer)?).map_err(|e| e.to_string())?;
    let unit = model.encode("def f(xs):\n    return [x * 2 for x in xs if x % 3]\n").map_err(|e| e.to_string())?;
    let prompt: Vec<u32> = unit.iter().copied().cycle().take(PROMPT_TOKENS).collect();
    let timing = (|| -> Result<Timing, String> {
        let started = Instant::now();
        let mut logits = model.prefill(&prompt).map_err(|e| e.to_string())?;
        let prefill_s = started.elapsed().as_secs_f64();
        let mut first_tokens = Vec::new();
        let started = Instant::now();
        for _ in 0..DECODE_TOKENS {
            let next = argmax(&logits);
            first_tokens.push(next);
            logits = model.step(next).map_err(|e| e.to_string())?;
        }
        first_tokens.truncate(8);
        Ok(Timing { prefill_s, decode_s: started.elapsed().as_secs_f64(), first_tokens })
    })()?;
    Ok((prompt, timing))
}

/// The first highest logit's index (as NumPy's argmax picks it).
fn argmax(logits: &[f32]) -> u32 {
    logits.iter().enumerate().fold(0, |best, (i, &l)| if l > logits[best] { i } else { best }) as u32
}

/// llama.cpp, through llama-cpp-python, on the same file and ids (`scripts/localmodel/llamacpp_speed.py`).
fn llama_cpp(tools: &Path, gguf: &Path, prompt: &[u32]) -> Result<Timing, String> {
    let python = python(tools)?;
    let ids = std::env::temp_dir().join(format!("execbench-bench-prompt-{}.json", std::process::id()));
    std::fs::write(&ids, serde_json::to_string(prompt).unwrap_or_default()).map_err(|e| e.to_string())?;
    let script = execbench_testkit::repo_root().join("scripts/localmodel/llamacpp_speed.py");
    let output = Command::new(python)
        .arg(script)
        .arg(gguf)
        .arg(&ids)
        .args([DECODE_TOKENS.to_string(), "1".to_string()])
        .output()
        .map_err(|e| format!("cannot start llamacpp_speed.py: {e}"))?;
    let _ = std::fs::remove_file(&ids);
    if !output.status.success() {
        return Err(format!("llamacpp_speed.py failed: {}", String::from_utf8_lossy(&output.stderr)));
    }
    let report: Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("llamacpp_speed.py printed no JSON ({e}): {}", String::from_utf8_lossy(&output.stdout)))?;
    let seconds = |field: &str| report[field].as_f64().ok_or(format!("llamacpp_speed.py: no {field}"));
    Ok(Timing {
        prefill_s: seconds("prefill_s")?,
        decode_s: seconds("decode_s")?,
        first_tokens: report["first_tokens"]
            .as_array()
            .map(|ids| ids.iter().filter_map(|i| i.as_u64().map(|i| i as u32)).collect())
            .unwrap_or_default(),
    })
}
