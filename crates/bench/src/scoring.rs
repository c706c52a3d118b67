//! Scoring 800 x 10 output-prediction answers (the scoring figure): natively with the library, in
//! the browser through the app's Evaluate page ("Re-score published answers", both modes), and
//! CPython running the same compatible-mode checks in one process as the reference.
//!
//! The generations file is made here: for each sample, ten distinct literal answers, one of them
//! right (the expected output; the others are the expected output wrapped in a list or a tuple
//! and plain wrong values), so no two answers of a sample share a run and each compatible check
//! runs the sample's code once.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use execbench_core::Sample;
use execbench_eval::generations::{import_generations, rescore};
use execbench_eval::{Mode, ScoreOptions, Task};
use execbench_testkit::browser::Browser;
use serde_json::{Map, Value};

use crate::figures::{Amount, Figure};

pub const ANSWERS_PER_SAMPLE: usize = 10;

/// Ten distinct answers for a sample; the first is right.
pub fn answers_for(sample: &Sample) -> Vec<String> {
    let expected = sample.output.trim();
    let candidates = [
        expected.to_string(),
        format!("[{expected}]"),
        format!("({expected},)"),
        "None".into(),
        "0".into(),
        "-1".into(),
        "''".into(),
        "[]".into(),
        "{}".into(),
        "True".into(),
        "False".into(),
        "'x'".into(),
        "()".into(),
    ];
    let mut answers: Vec<String> = Vec::with_capacity(ANSWERS_PER_SAMPLE);
    for candidate in candidates {
        if answers.len() < ANSWERS_PER_SAMPLE && !answers.contains(&candidate) {
            answers.push(candidate);
        }
    }
    answers
}

/// Writes the CRUXEval-style generations file (`{"sample_0": [...], ...}`) and returns its path.
pub fn write_generations(samples: &[Sample], dir: &Path) -> PathBuf {
    let mut map = Map::new();
    for sample in samples {
        map.insert(sample.id.clone(), Value::from(answers_for(sample)));
    }
    let path = dir.join("generations-800x10.json");
    std::fs::write(&path, Value::Object(map).to_string()).expect("write the generations file");
    path
}

pub struct ScoringFigures {
    pub answers: usize,
    pub native_strict_ms: f64,
    pub native_compatible_ms: f64,
    pub native_correct: [usize; 2],
    /// Both modes, as the page scores them in one job.
    pub browser_ms: Option<f64>,
    pub browser_runs: Option<String>,
    /// CPython's compatible checks, `None` when there is no python3.
    pub cpython_ms: Option<f64>,
    pub cpython_passed: Option<u64>,
}

pub fn native(samples: &[Sample], generations_path: &Path) -> (f64, f64, [usize; 2], usize) {
    let text = std::fs::read_to_string(generations_path).expect("read the generations file");
    let generations = import_generations("generations-800x10.json", &text);
    assert!(generations.errors.is_empty(), "the generated file has problems: {:?}", generations.errors.first());
    let mut engine = execbench_pyengine::RustPythonEngine::new();
    let options = ScoreOptions::default();
    let mut times = [0.0; 2];
    let mut correct = [0; 2];
    let mut answers = 0;
    for (i, mode) in [Mode::Strict, Mode::Compatible].into_iter().enumerate() {
        let started = Instant::now();
        let result = rescore(&mut engine, samples, &generations, Task::Output, mode, &options);
        times[i] = started.elapsed().as_secs_f64() * 1000.0;
        correct[i] = result.summary.correct;
        answers = result.summary.answers;
    }
    (times[0], times[1], correct, answers)
}

/// CPython doing the compatible checks (crates/bench/python/compatible_checks.py).
pub fn cpython(dataset: &Path, generations_path: &Path) -> Option<(f64, u64)> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("python/compatible_checks.py");
    let output = std::process::Command::new("python3").arg(script).arg(dataset).arg(generations_path).output().ok()?;
    if !output.status.success() {
        eprintln!("python3 compatible_checks.py failed: {}", String::from_utf8_lossy(&output.stderr));
        return None;
    }
    let value: Value = serde_json::from_slice(&output.stdout).ok()?;
    Some((value["ms"].as_f64()?, value["passed"].as_u64()?))
}

/// Re-scores the file in the app's Evaluate page; returns (ms, the page's timing line).
pub async fn browser(app_url: &str, generations_path: &Path) -> Result<(f64, String), String> {
    let b = Browser::launch_fresh().await;
    let result = drive(&b, app_url, generations_path).await;
    b.close().await;
    result
}

async fn drive(b: &Browser, app_url: &str, generations_path: &Path) -> Result<(f64, String), String> {
    b.client.goto(&format!("{app_url}#/evaluate")).await.map_err(|e| format!("could not open the app: {e}"))?;
    b.wait_text(".engine", Duration::from_secs(120), |t| t.starts_with("Python ready")).await;
    b.wait_text(".evaluate .muted", Duration::from_secs(60), |t| t.contains("(800 samples)")).await;
    let input = b
        .client
        .find(fantoccini::Locator::Css("[data-testid=rescore-file]"))
        .await
        .map_err(|e| format!("no file input: {e}"))?;
    input
        .send_keys(generations_path.to_str().unwrap_or_default())
        .await
        .map_err(|e| format!("could not choose the file: {e}"))?;
    b.wait_text("[data-testid=rescore-file-status]", Duration::from_secs(30), |t| t.contains("800 entries")).await;
    b.client
        .find(fantoccini::Locator::Css("[data-testid=rescore-task]"))
        .await
        .map_err(|e| e.to_string())?
        .select_by_value("output")
        .await
        .map_err(|e| e.to_string())?;
    b.click("[data-testid=rescore-run]").await;
    let state = b.wait_text("[data-testid=eval-state]", Duration::from_secs(1200), |t| !t.is_empty()).await;
    if state != "finished" {
        return Err(format!("the re-scoring ended with `{state}`"));
    }
    let timing = b.wait_text("[data-testid=run-timing]", Duration::from_secs(10), |t| !t.is_empty()).await;
    // "800 of 800 samples scored, 16000 answers judged in 12.3 s (8000 Python runs)"
    let seconds: f64 = timing
        .split(" in ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|s| s.parse().ok())
        .ok_or(format!("unexpected timing line: {timing}"))?;
    Ok((seconds * 1000.0, timing))
}

/// The table's rows as figures, against CPython's compatible checks where the table compares.
fn figures(f: &ScoringFigures) -> Vec<Figure> {
    let row = |metric: &str, ms: Option<f64>, against_cpython: bool| Figure {
        section: "score".into(),
        metric: metric.into(),
        execbench: ms.map(Amount::Ms),
        reference: against_cpython.then(|| "CPython compatible checks".to_string()),
        reference_amount: f.cpython_ms.filter(|_| against_cpython).map(Amount::Ms),
        ratio: ms.zip(f.cpython_ms).filter(|_| against_cpython).map(|(ms, c)| ms / c),
        target: None,
        met: None,
    };
    let mut rows = vec![
        row("native, strict", Some(f.native_strict_ms), false),
        row("native, compatible", Some(f.native_compatible_ms), true),
        row("native, both modes", Some(f.native_strict_ms + f.native_compatible_ms), false),
        row("browser, both modes", f.browser_ms, true),
    ];
    if f.cpython_ms.is_some() {
        rows.push(Figure {
            execbench: None,
            ratio: Some(1.0),
            ..row("CPython 3, compatible checks in one process", None, true)
        });
    }
    rows
}

pub fn print(f: &ScoringFigures, samples: usize) {
    println!(
        "\n### Scoring {samples} x {ANSWERS_PER_SAMPLE} output-prediction answers ({} answers; ten distinct answers a sample, one right)\n",
        f.answers
    );
    let native_both = f.native_strict_ms + f.native_compatible_ms;
    println!("| what | time | answers/s | vs CPython's compatible checks |");
    println!("|---|---:|---:|---:|");
    let rate = |ms: f64, answers: usize| answers as f64 * 1000.0 / ms;
    let ratio = |ms: f64| f.cpython_ms.map(|c| format!("{:.2}x", ms / c)).unwrap_or_else(|| "-".into());
    println!(
        "| native, strict (literals compared in Rust, no Python) | {:.0} ms | {:.0} | - |",
        f.native_strict_ms,
        rate(f.native_strict_ms, f.answers)
    );
    println!(
        "| native, compatible (one RustPython run an answer) | {:.0} ms | {:.0} | {} |",
        f.native_compatible_ms,
        rate(f.native_compatible_ms, f.answers),
        ratio(f.native_compatible_ms)
    );
    println!("| native, both modes | {:.0} ms | {:.0} | - |", native_both, rate(native_both, 2 * f.answers));
    match (f.browser_ms, &f.browser_runs) {
        (Some(ms), Some(line)) => println!(
            "| browser, both modes (Evaluate page: {line}) | {ms:.0} ms | {:.0} | {} |",
            rate(ms, 2 * f.answers),
            ratio(ms)
        ),
        _ => println!("| browser, both modes | failed | - | - |"),
    }
    if let (Some(ms), Some(passed)) = (f.cpython_ms, f.cpython_passed) {
        println!(
            "| CPython 3, compatible checks in one process ({passed} passed) | {ms:.0} ms | {:.0} | 1.00x |",
            rate(ms, f.answers)
        );
    }
    crate::figures::record(figures(f));
    println!(
        "\nCorrect answers: strict {}, compatible {} (of {}; one right answer a sample).",
        f.native_correct[0], f.native_correct[1], f.answers
    );
}
