//! End-to-end tests of the Evaluate page: the built app in headless Chromium. Needs a built site
//! (`trunk build --release`, or EXECBENCH_DIST) and Debian's chromium + chromedriver.
//! Screenshots land in tests/artifacts/evaluate-*.png.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;
use fantoccini::Locator;

async fn open_evaluate() -> (Browser, StaticServer) {
    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let browser = Browser::launch().await;
    browser.client.goto(&format!("{}#/evaluate", server.base_url)).await.unwrap();
    browser.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    browser.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains("(800 samples)")).await;
    (browser, server)
}

async fn select(b: &Browser, css: &str, value: &str) {
    let element = b.client.find(Locator::Css(css)).await.unwrap_or_else(|e| panic!("no `{css}`: {e}"));
    element.select_by_value(value).await.unwrap();
}

async fn upload(b: &Browser, css: &str, path: &Path) {
    let input = b.client.find(Locator::Css(css)).await.unwrap_or_else(|e| panic!("no `{css}`: {e}"));
    input.send_keys(path.to_str().unwrap()).await.unwrap();
}

async fn scroll_to(b: &Browser, css: &str) {
    let script = format!("document.querySelector('{css}').scrollIntoView({{block: 'start'}})");
    b.client.execute(&script, vec![]).await.unwrap();
}

async fn text(b: &Browser, css: &str) -> String {
    b.wait_text(css, Duration::from_secs(5), |_| true).await
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-e2e-evaluate-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The oracle must score 100% in both modes: anything less is a bug in the pipeline (or an engine
/// difference). All 800 CRUXEval samples, output prediction, n = 5.
#[tokio::test(flavor = "multi_thread")]
async fn oracle_scores_100_on_cruxeval_output_prediction() {
    let (b, _server) = open_evaluate().await;
    b.screenshot("evaluate-empty").await;
    select(&b, "[data-testid=eval-model]", "oracle").await;
    select(&b, "[data-testid=eval-task]", "output").await;
    b.fill("[data-testid=eval-n]", "5").await;
    b.click("[data-testid=eval-run]").await;
    b.wait_text("[data-testid=eval-stats]", Duration::from_secs(60), |t| !t.starts_with("0 /")).await;
    b.screenshot("evaluate-running").await;
    let state = b.wait_text("[data-testid=eval-state]", Duration::from_secs(600), |t| !t.is_empty()).await;
    assert_eq!(state, "finished");
    for mode in ["strict", "compatible"] {
        assert_eq!(text(&b, &format!("[data-testid=pass1-output-{mode}]")).await, "100.0", "{mode}");
        assert_eq!(text(&b, &format!("[data-testid=pass5-output-{mode}]")).await, "100.0", "{mode}");
        assert_eq!(text(&b, &format!("[data-testid=unextracted-output-{mode}]")).await, "0", "{mode}");
    }
    let timing = text(&b, "[data-testid=run-timing]").await;
    assert!(timing.starts_with("800 of 800 samples scored, 8000 answers judged"), "{timing}");
    println!("oracle, output prediction, n=5: {timing}");
    let markdown = b.client.execute("return document.querySelector('[data-testid=markdown]').value", vec![]).await.unwrap();
    let markdown = markdown.as_str().unwrap_or_default().to_string();
    assert!(markdown.contains("### oracle · CRUXEval · output prediction"), "{markdown}");
    assert!(markdown.contains("| output | strict | 800 | 4000 | 100.0 | 100.0 | 0 | 0 | 0 | 0 | 0 |"), "{markdown}");
    assert!(markdown.contains("| output | compatible | 800 | 4000 | 100.0 | 100.0 | 0 | 0 | 0 | 0 | 0 |"), "{markdown}");
    scroll_to(&b, "[data-testid=results]").await;
    b.screenshot("evaluate-oracle-summary").await;

    // The table: 800 rows, 25 to a page; no wrong answers to filter.
    assert_eq!(text(&b, "[data-testid=table-count]").await, "800 of 800 samples");
    assert_eq!(text(&b, "[data-testid=table-page]").await, "page 1 of 32");
    let rows = b.client.find_all(Locator::Css("[data-testid=result-row]")).await.unwrap();
    assert_eq!(rows.len(), 25);
    select(&b, "[data-testid=table-filter]", "wrong").await;
    b.wait_text("[data-testid=table-count]", Duration::from_secs(5), |t| t == "0 of 800 samples").await;
    select(&b, "[data-testid=table-filter]", "all").await;
    b.click("[data-testid=table-next]").await;
    b.wait_text("[data-testid=table-page]", Duration::from_secs(5), |t| t == "page 2 of 32").await;
    assert!(text(&b, "[data-testid=result-row]").await.starts_with("sample_25"));
    scroll_to(&b, "[data-testid=sample-table]").await;
    b.screenshot("evaluate-oracle-table").await;
    b.close().await;
}

/// sample_0 expects `[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]`, sample_1 `{1: None, 2: None}`.
/// sample_0: 2 right of 5; the call `f(...)` is not a literal (strict) or dropped (compatible).
/// sample_1: 2 right of 5 (dict order does not matter).
const GENERATIONS: &str = r#"{
  "sample_0": ["[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]", "[]", "f([1, 1, 3, 1, 3, 1])", "[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]", "[(4, 1)]"],
  "sample_1": ["{1: None, 2: None}", "{2: None, 1: None}", "{1: None}", "dict()", "None"]
}"#;

#[tokio::test(flavor = "multi_thread")]
async fn rescore_a_generations_file_replay_it_and_stop_a_run() {
    let dir = scratch("rescore");
    let good = dir.join("generations.json");
    std::fs::write(&good, GENERATIONS).unwrap();
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{\n  \"sample_0\": [\"[]\"],\n  \"sample_1\": [\"{}\", 3]\n}").unwrap();
    let (b, _server) = open_evaluate().await;

    // A file with a bad entry: named by file, line and field; the good entry stays usable.
    upload(&b, "[data-testid=rescore-file]", &broken).await;
    let problems = b.wait_text("[data-testid=rescore-file-status-problems]", Duration::from_secs(10), |_| true).await;
    assert!(problems.contains("broken.json:3: field `sample_1[1]`: expected an answer string, found a number"), "{problems}");
    b.screenshot("evaluate-rescore-bad-file").await;

    upload(&b, "[data-testid=rescore-file]", &good).await;
    b.wait_text("[data-testid=rescore-file-status]", Duration::from_secs(10), |t| t.starts_with("generations.json: 2 entries")).await;
    select(&b, "[data-testid=rescore-task]", "output").await;
    b.click("[data-testid=rescore-run]").await;
    assert_eq!(b.wait_text("[data-testid=eval-state]", Duration::from_secs(60), |t| !t.is_empty()).await, "finished");
    // strict: (2/5 + 2/5) / 2; compatible: (2/4 + 2/5) / 2, and sample_0 has only 4 answers left.
    assert_eq!(text(&b, "[data-testid=pass1-output-strict]").await, "40.0");
    assert_eq!(text(&b, "[data-testid=pass5-output-strict]").await, "100.0");
    assert_eq!(text(&b, "[data-testid=pass1-output-compatible]").await, "45.0");
    assert_eq!(text(&b, "[data-testid=pass5-output-compatible]").await, "100.0 (1/2)");
    assert_eq!(text(&b, "[data-testid=dropped-output-compatible]").await, "1");
    let timing = text(&b, "[data-testid=run-timing]").await;
    assert!(timing.contains("2 of 2 samples scored") && timing.contains("798 dataset samples not in the file"), "{timing}");
    select(&b, "[data-testid=table-filter]", "wrong").await;
    b.wait_text("[data-testid=table-count]", Duration::from_secs(5), |t| t == "2 of 2 samples").await;
    scroll_to(&b, "[data-testid=results]").await;
    b.screenshot("evaluate-rescore").await;

    // The same file as a replayed model on the first 2 samples gives the same figures.
    select(&b, "[data-testid=eval-model]", "replay").await;
    upload(&b, "[data-testid=replay-file]", &good).await;
    b.wait_text("[data-testid=replay-file-status]", Duration::from_secs(10), |t| t.starts_with("generations.json: 2 entries")).await;
    b.fill("[data-testid=eval-limit]", "2").await;
    b.click("[data-testid=eval-run]").await;
    b.wait_text("[data-testid=eval-job]", Duration::from_secs(60), |t| t == "Idle").await;
    assert_eq!(text(&b, "[data-testid=summary-row] .run-source").await, "replay: generations.json");
    assert_eq!(text(&b, "[data-testid=pass1-output-strict]").await, "40.0");
    assert_eq!(text(&b, "[data-testid=pass1-output-compatible]").await, "45.0");

    // Stop: an oracle run over every input-prediction sample, stopped midway, keeps what it scored.
    select(&b, "[data-testid=eval-model]", "oracle").await;
    select(&b, "[data-testid=eval-task]", "input").await;
    b.fill("[data-testid=eval-limit]", "800").await;
    // The whole run takes a second or two: Stop follows Run at once (the job starts on the click).
    b.click("[data-testid=eval-run]").await;
    b.click("[data-testid=eval-stop]").await;
    let state = b.wait_text("[data-testid=eval-state]", Duration::from_secs(30), |t| !t.is_empty()).await;
    b.client.execute("window.scrollTo(0, 0)", vec![]).await.unwrap();
    b.screenshot("evaluate-stopped").await;
    assert!(state.starts_with("stopped after ") && state.ends_with(" of 800 samples"), "{state}");
    // What was scored before Stop is kept, and is all correct.
    assert!(["100.0", "n/a"].contains(&text(&b, "[data-testid=pass1-input-strict]").await.as_str()));
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// How long scoring 800 × 10 answers takes in the page: a generations file with 10 distinct
/// answers per sample (so no run is shared), re-scored in both modes. Measured, not asserted:
/// `cargo test --release --test e2e_evaluate -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread")]
#[ignore]
async fn timing_rescore_800_by_10() {
    let dataset = std::fs::read_to_string(execbench_testkit::repo_root().join("public/data/cruxeval/cruxeval.jsonl")).unwrap();
    let mut entries = Vec::new();
    for line in dataset.lines().filter(|l| !l.trim().is_empty()) {
        let row: serde_json::Value = serde_json::from_str(line).unwrap();
        let output = row["output"].as_str().unwrap();
        let answers = [output.to_string(), format!("({output})"), format!("{output} "), format!(" {output}"), "0".into(), "''".into(), "None".into(), "[]".into(), "1".into(), "True".into()];
        entries.push(format!("{}: {}", serde_json::to_string(row["id"].as_str().unwrap()).unwrap(), serde_json::to_string(&answers).unwrap()));
    }
    let dir = scratch("timing");
    let file = dir.join("ten-answers.json");
    std::fs::write(&file, format!("{{\n{}\n}}\n", entries.join(",\n"))).unwrap();
    let (b, _server) = open_evaluate().await;
    upload(&b, "[data-testid=rescore-file]", &file).await;
    b.wait_text("[data-testid=rescore-file-status]", Duration::from_secs(10), |t| t.starts_with("ten-answers.json: 800 entries")).await;
    let started = Instant::now();
    b.click("[data-testid=rescore-run]").await;
    assert_eq!(b.wait_text("[data-testid=eval-state]", Duration::from_secs(1800), |t| !t.is_empty()).await, "finished");
    println!("800 x 10 answers, both modes, in the page: {:.1} s wall; {}", started.elapsed().as_secs_f64(), text(&b, "[data-testid=run-timing]").await);
    println!("file for the native comparison: {}", file.display());
    b.close().await;
}
