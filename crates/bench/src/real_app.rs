//! Issue 58's acceptance run, done as a person would: the built app in headless Chromium, "In this
//! browser (no key)" with the real Qwen2.5-Coder-0.5B GGUF file (`scripts/llama_server/fetch.sh`)
//! served by a local static server and given by its URL and SHA-256 alone; Download (its progress
//! read while it runs), 20 CRUXEval-O samples evaluated greedily through the Evaluate form,
//! stopped part way, the page reloaded, Resume from the Runs page until the run is finished. Then
//! the same 20 samples natively, `execbench run --provider local --model-file` with the same
//! settings and one thread, and the two runs' answers compared sample by sample (target: at least
//! 19 of 20 identical).
//!
//! `EXECBENCH_BENCH_APP_SAMPLES` sets how many samples (20 by default).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use execbench_model_files::download::Checksum;
use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::{SUB_PATH, StaticServer};
use fantoccini::Locator;
use serde_json::Value;

use crate::figures::{Amount, Figure};

const MAX_TOKENS: &str = "160";
/// Answered before Stop is pressed, so that Resume has both kept and missing samples.
const STOP_AFTER: usize = 5;

/// A sample's answer and its strict verdict, as one run stored it.
#[derive(Debug, PartialEq)]
struct Answer {
    response: String,
    correct: bool,
}

pub async fn section() -> Vec<Figure> {
    let samples = std::env::var("EXECBENCH_BENCH_APP_SAMPLES").ok().and_then(|n| n.parse().ok()).unwrap_or(20);
    let model = match crate::real_model::fetched() {
        Ok((_, model)) => model,
        Err(e) => {
            eprintln!("realapp section skipped: {e}");
            return Vec::new();
        }
    };
    let page = match in_the_app(&model, samples).await {
        Ok(page) => page,
        Err(e) => {
            eprintln!("realapp section, the page: {e}");
            return Vec::new();
        }
    };
    let native = match natively(&model, samples) {
        Ok(native) => native,
        Err(e) => {
            eprintln!("realapp section, natively: {e}");
            return Vec::new();
        }
    };
    let (same, differing) = compare(&page.answers, &native.answers);
    for id in &differing {
        println!("realapp: {id} differs\n  page:   {:?}\n  native: {:?}", page.answers[id], native.answers.get(id));
    }
    // A greedy answer that differs only in how it ends (the end token, or the closing marker the
    // prompt asks for, first) says the same: the text before the marker is what is scored.
    let same_before_end = page
        .answers
        .iter()
        .filter(|(id, a)| native.answers.get(*id).is_some_and(|n| before_end(&n.response) == before_end(&a.response)))
        .count();
    let same_verdict =
        page.answers.iter().filter(|(id, a)| native.answers.get(*id).is_some_and(|n| n.correct == a.correct)).count();
    println!(
        "realapp: {same_before_end} of {samples} identical up to the answer's end, {same_verdict} of {samples} with the same verdict"
    );
    let passed = |answers: &BTreeMap<String, Answer>| answers.values().filter(|a| a.correct).count();
    println!(
        "realapp: {same} of {samples} answers identical to native; pass@1 {} of {} in the page, {} of {} natively",
        passed(&page.answers),
        page.answers.len(),
        passed(&native.answers),
        native.answers.len()
    );
    let text = |s: String| Some(Amount::Text(s));
    vec![
        Figure {
            section: "realapp".into(),
            metric: format!("the app's answers identical to the native engine's ({samples} CRUXEval-O samples, greedy, a reload and Resume between)"),
            execbench: text(format!("{same} of {samples}")),
            reference: None,
            reference_amount: None,
            ratio: None,
            target: Some(format!(">= {} of {samples}", required_identical(samples))),
            met: Some(same >= required_identical(samples)),
        },
        Figure {
            section: "realapp".into(),
            metric: "of those, identical up to where the answer ends (the end token or `[/ANSWER]` aside), and with the same verdict".into(),
            execbench: text(format!("{same_before_end} and {same_verdict} of {samples}")),
            reference: None,
            reference_amount: None,
            ratio: None,
            target: None,
            met: None,
        },
        Figure {
            section: "realapp".into(),
            metric: "download of the one GGUF file (491 MB) from a local server, SHA-256 checked, and its load".into(),
            execbench: Some(Amount::Ms(page.download_ms)),
            reference: None,
            reference_amount: None,
            ratio: None,
            target: None,
            met: None,
        },
        Figure {
            section: "realapp".into(),
            metric: "seconds per sample in the app (the form's run and Resume, wall clock) / natively (the command line, 1 thread)".into(),
            execbench: Some(Amount::Ms(page.answering_ms / samples as f64)),
            reference: Some("native".into()),
            reference_amount: Some(Amount::Ms(native.wall_ms / samples as f64)),
            ratio: Some(page.answering_ms / native.wall_ms.max(1.0)),
            target: None,
            met: None,
        },
    ]
}

struct AppRun {
    answers: BTreeMap<String, Answer>,
    download_ms: f64,
    /// From Start to Stop, and from Resume to finished: the reload between is not counted.
    answering_ms: f64,
}

async fn in_the_app(model: &Path, samples: usize) -> Result<AppRun, String> {
    let (folder, name) = match (model.parent(), model.file_name()) {
        (Some(folder), Some(name)) => (folder.to_path_buf(), name.to_string_lossy().into_owned()),
        _ => return Err(format!("{}: not a file path", model.display())),
    };
    let sha256 = Checksum::of(&std::fs::read(model).map_err(|e| format!("{}: {e}", model.display()))?);
    let server = StaticServer::mount(vec![
        (SUB_PATH.to_string(), execbench_testkit::dist_dir()),
        ("/models/".to_string(), folder),
    ]);
    let b = Browser::launch_fresh().await;
    let outcome = drive(&b, &server, &name, &sha256, samples).await;
    if outcome.is_err() {
        b.screenshot("bench-realapp-failed").await;
    }
    b.close().await;
    outcome
}

async fn drive(b: &Browser, server: &StaticServer, name: &str, sha256: &str, samples: usize) -> Result<AppRun, String> {
    b.client.goto(&format!("{}#/evaluate", server.base_url)).await.map_err(|e| e.to_string())?;
    b.wait_text(".engine", Duration::from_secs(120), |t| t.starts_with("Python ready")).await;
    select(b, "[data-testid=eval-model]", "api").await?;
    select(b, "[data-testid=api-provider]", "local").await?;
    select(b, "[data-testid=local-choice]", "custom").await?;
    b.fill("[data-testid=local-gguf-url]", &format!("{}/models/{name}", server.origin)).await;
    b.fill("[data-testid=local-gguf-sha256]", sha256).await;

    // Download, reading the progress line while it runs.
    let said = "document.querySelector('[data-testid=local-said]')";
    let before = js(b, &format!("const s = {said}; return s ? Number(s.dataset.serial) : 0")).await?;
    let started = Instant::now();
    b.click("[data-testid=local-download]").await;
    let mut progress = Vec::<String>::new();
    let (ok, words) = loop {
        let got = js(
            b,
            &format!(
                "const s = {said}; const p = document.querySelector('[data-testid=local-progress]'); \
                 return [s && Number(s.dataset.serial) > {before} ? [s.dataset.ok, s.innerText] : null, p ? p.innerText : ''];"
            ),
        )
        .await?;
        if let Some(line) = got[1].as_str().filter(|l| !l.is_empty() && progress.last().map(String::as_str) != Some(l))
        {
            progress.push(line.to_string());
        }
        if let Some([ok, text]) = got[0].as_array().map(Vec::as_slice) {
            break (ok == "true", text.as_str().unwrap_or_default().to_string());
        }
        if started.elapsed() > Duration::from_secs(900) {
            return Err("the download said nothing in 15 min".into());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let download_ms = started.elapsed().as_secs_f64() * 1000.0;
    println!("realapp: Download said ({:.1} s): {words}", download_ms / 1000.0);
    println!(
        "realapp: {} progress lines shown, the first {:?}, the last {:?}",
        progress.len(),
        progress.first(),
        progress.last()
    );
    if !ok {
        return Err(format!("the download failed: {words}"));
    }

    // The run, through the form; stopped once a few samples are answered.
    b.fill("[data-testid=api-max-tokens]", MAX_TOKENS).await;
    b.fill("[data-testid=api-temperature]", "0").await;
    b.fill("[data-testid=eval-n]", "1").await;
    b.fill("[data-testid=eval-limit]", &samples.to_string()).await;
    b.click("[data-testid=eval-run]").await;
    b.wait_text("[data-testid=estimate-text]", Duration::from_secs(30), |t| !t.is_empty()).await;
    b.click("[data-testid=estimate-go]").await;
    let started = Instant::now();
    while records(b).await?.len() < STOP_AFTER.min(samples) {
        if started.elapsed() > Duration::from_secs(1800) {
            return Err(format!("fewer than {STOP_AFTER} answers in 30 min"));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let speed = b.wait_text("[data-testid=eval-local-speed]", Duration::from_secs(10), |t| t.contains("decode")).await;
    b.click("[data-testid=eval-stop]").await;
    b.wait_text("[data-testid=eval-state]", Duration::from_secs(300), |t| !t.is_empty()).await;
    let mut answering_ms = started.elapsed().as_secs_f64() * 1000.0;
    let kept = records(b).await?.len();
    println!("realapp: stopped with {kept} of {samples} answered; the form said: {speed}");

    // A reload, then Resume on the Runs page until the run is finished.
    b.client.refresh().await.map_err(|e| e.to_string())?;
    b.client.goto(&format!("{}#/runs", server.base_url)).await.map_err(|e| e.to_string())?;
    b.wait_text(".engine", Duration::from_secs(120), |t| t.starts_with("Python ready")).await;
    b.wait_text("[data-testid=run-model]", Duration::from_secs(60), |t| !t.is_empty()).await;
    let requests_before = server.requests().iter().filter(|r| r.path.starts_with("/models/")).count();
    b.click("[data-testid=run-resume]").await;
    let started = Instant::now();
    loop {
        // Accept what Resume asks first (the files' review, the estimate), then wait for the end.
        let state = js(
            b,
            "for (const id of ['runs-confirm-go', 'runs-estimate-go']) { const e = document.querySelector(`[data-testid=${id}]`); if (e) { e.click(); return 'asked'; } } \
             const r = document.querySelector('[data-testid=run-row]'); return r ? r.dataset.state : ''",
        )
        .await?;
        if state == "finished" {
            break;
        }
        if started.elapsed() > Duration::from_secs(3600) {
            return Err(format!("the resumed run is `{state}` after an hour"));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    answering_ms += started.elapsed().as_secs_f64() * 1000.0;
    let fetched_again = server.requests().iter().filter(|r| r.path.starts_with("/models/")).count() - requests_before;
    println!("realapp: resumed and finished; model file requests after the reload: {fetched_again}");
    b.screenshot("bench-realapp-resumed").await;
    let answers = records(b).await?;
    if answers.len() != samples {
        return Err(format!("{} records after Resume, not {samples}", answers.len()));
    }
    Ok(AppRun { answers, download_ms, answering_ms })
}

async fn js(b: &Browser, script: &str) -> Result<Value, String> {
    b.client.execute(script, vec![]).await.map_err(|e| format!("script failed: {e}"))
}

async fn select(b: &Browser, css: &str, value: &str) -> Result<(), String> {
    let element = b
        .client
        .wait()
        .at_most(Duration::from_secs(30))
        .for_element(Locator::Css(css))
        .await
        .map_err(|e| format!("no `{css}`: {e}"))?;
    element.select_by_value(value).await.map_err(|e| format!("`{css}` = {value}: {e}"))
}

/// The stored records of the page's one run, by sample id.
async fn records(b: &Browser) -> Result<BTreeMap<String, Answer>, String> {
    let script = r#"
        const done = arguments[arguments.length - 1];
        const open = indexedDB.open('execbench');
        open.onerror = () => done('[]');
        open.onsuccess = () => {
            const names = open.result.objectStoreNames;
            if (!names.contains('records')) { open.result.close(); done('[]'); return; }
            const tx = open.result.transaction(['records'], 'readonly');
            tx.objectStore('records').getAll().onsuccess = e => { open.result.close(); done(JSON.stringify(e.target.result)); };
        };"#;
    let text = b.client.execute_async(script, vec![]).await.map_err(|e| e.to_string())?;
    let rows: Vec<Value> = serde_json::from_str(text.as_str().unwrap_or("[]")).map_err(|e| e.to_string())?;
    Ok(rows
        .into_iter()
        .map(|row| match row {
            // The store keeps each record as its JSON text.
            Value::String(text) => serde_json::from_str(&text).unwrap_or(Value::Null),
            other => other,
        })
        .filter_map(|record| answer_of(&record))
        .collect())
}

/// A sample record's first answer (the page's records and the command line's run file lines
/// have the same shape: `runs::SampleRecord`).
fn answer_of(record: &Value) -> Option<(String, Answer)> {
    let id = record["sample_id"].as_str()?;
    let result = record["results"].as_array()?.iter().find(|r| r["mode"] == "strict")?;
    let response = result["answers"][0]["response"].as_str().unwrap_or_default().to_string();
    Some((id.to_string(), Answer { response, correct: result["correct"].as_u64().unwrap_or(0) > 0 }))
}

struct NativeRun {
    answers: BTreeMap<String, Answer>,
    wall_ms: f64,
}

/// The same samples with the command line, the model in its own process, one thread.
fn natively(model: &Path, samples: usize) -> Result<NativeRun, String> {
    let binary = crate::models::cli_binary();
    if !binary.is_file() {
        return Err(format!("no execbench binary at {}: `cargo build --release -p execbench-cli`", binary.display()));
    }
    let dataset = execbench_testkit::repo_root().join("public/data/cruxeval/cruxeval.jsonl");
    let out = std::env::temp_dir().join(format!("execbench-bench-realapp-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&out);
    let started = Instant::now();
    let status = Command::new(&binary)
        .args(["run", "--task", "output", "--provider", "local", "--temperature", "0", "--n", "1"])
        .args(["--max-tokens", MAX_TOKENS, "--limit", &samples.to_string()])
        .arg("--dataset")
        .arg(&dataset)
        .arg("--model-file")
        .arg(model)
        .arg("--out")
        .arg(&out)
        .env("CANDLE_NUM_THREADS", "1")
        .env("RAYON_NUM_THREADS", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .status()
        .map_err(|e| e.to_string())?;
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    if !status.success() {
        return Err(format!("execbench run exited with {status}"));
    }
    let text = std::fs::read_to_string(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let _ = std::fs::remove_file(&out);
    let answers = text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|r| answer_of(&r))
        .collect();
    Ok(NativeRun { answers, wall_ms })
}

/// An answer without the closing marker and the blank space before it.
fn before_end(response: &str) -> &str {
    response.trim_end().trim_end_matches("[/ANSWER]").trim_end()
}

/// How many of the page's answers equal the native ones, and the ids of those that do not.
fn compare(page: &BTreeMap<String, Answer>, native: &BTreeMap<String, Answer>) -> (usize, Vec<String>) {
    let mut differing = Vec::new();
    let mut same = 0;
    for (id, answer) in page {
        if native.get(id).is_some_and(|n| n.response == answer.response) {
            same += 1;
        } else {
            differing.push(id.clone());
        }
    }
    (same, differing)
}

/// Issue 58's bar: 19 of 20 answers identical in the app's test, 48 of 50 in the 50-sample check;
/// for other counts, all but one in 25 (rounded against us).
fn required_identical(samples: usize) -> usize {
    match samples {
        20 => 19,
        50 => 48,
        n => n - n / 25,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_bar_is_issue_58s() {
        for (samples, required) in [(20, 19), (50, 48), (10, 10), (100, 96)] {
            assert_eq!(required_identical(samples), required, "{samples} samples");
        }
    }

    #[test]
    fn a_record_gives_its_strict_answer_and_verdict() {
        let record = json!({"sample_id": "sample_3", "index": 3, "latency_ms": 1.0, "results": [
            {"id": "sample_3", "mode": "compatible", "answers": [{"response": "wrong place"}], "correct": 0},
            {"id": "sample_3", "mode": "strict", "answers": [{"response": "[ANSWER] 1 [/ANSWER]"}], "correct": 1}]});
        assert_eq!(
            answer_of(&record),
            Some(("sample_3".into(), Answer { response: "[ANSWER] 1 [/ANSWER]".into(), correct: true }))
        );
        // An error record (no results) gives no answer.
        assert_eq!(answer_of(&json!({"sample_id": "s", "results": [], "error": {"message": "x"}})), None);
    }

    #[test]
    fn answers_compare_by_sample_and_a_missing_one_differs() {
        let answers = |rows: &[(&str, &str)]| -> BTreeMap<String, Answer> {
            rows.iter().map(|(id, r)| (id.to_string(), Answer { response: r.to_string(), correct: false })).collect()
        };
        let page = answers(&[("a", "1"), ("b", "2"), ("c", "3")]);
        let native = answers(&[("a", "1"), ("b", "two")]);
        assert_eq!(compare(&page, &native), (1, vec!["b".to_string(), "c".to_string()]));
    }

    #[test]
    fn an_answer_ends_before_its_closing_marker() {
        // (response, what is compared)
        let cases = [
            ("assert f([]) == []\n[/ANSWER]", "assert f([]) == []"),
            ("assert f([]) == []", "assert f([]) == []"),
            ("assert f(1) == 2 [/ANSWER]\n", "assert f(1) == 2"),
            ("[/ANSWER]", ""),
            // Only the end: a marker inside the answer stays.
            ("a [/ANSWER] b", "a [/ANSWER] b"),
        ];
        for (response, compared) in cases {
            assert_eq!(before_end(response), compared, "{response:?}");
        }
    }
}
