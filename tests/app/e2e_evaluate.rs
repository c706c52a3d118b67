//! End-to-end tests of the Evaluate page: the built app in headless Chromium. Needs a built site
//! (`trunk build --release`, or EXECBENCH_DIST) and Debian's chromium + chromedriver.
//! Screenshots land in tests/artifacts/evaluate-*.png.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use execbench_testkit::browser::Browser;
use fantoccini::Locator;

use common::open_evaluate;

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
    assert!(timing.starts_with("800 of 800 samples scored, 4000 answers, 8000 judgements (2 modes)"), "{timing}");
    println!("oracle, output prediction, n=5: {timing}");
    let markdown =
        b.client.execute("return document.querySelector('[data-testid=markdown]').value", vec![]).await.unwrap();
    let markdown = markdown.as_str().unwrap_or_default().to_string();
    assert!(markdown.contains("### oracle · CRUXEval · output prediction"), "{markdown}");
    assert!(markdown.contains("| output | strict | 800 | 4000 | 100.0 | 100.0 | 0 | 0 | 0 | 0 | 0 |"), "{markdown}");
    assert!(
        markdown.contains("| output | compatible | 800 | 4000 | 100.0 | 100.0 | 0 | 0 | 0 | 0 | 0 |"),
        "{markdown}"
    );
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
    assert!(
        problems.contains("broken.json:3: field `sample_1[1]`: expected an answer string, found a number"),
        "{problems}"
    );
    b.screenshot("evaluate-rescore-bad-file").await;

    upload(&b, "[data-testid=rescore-file]", &good).await;
    b.wait_text("[data-testid=rescore-file-status]", Duration::from_secs(10), |t| {
        t.starts_with("generations.json: 2 entries")
    })
    .await;
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
    assert!(
        timing.contains("2 of 2 samples scored") && timing.contains("798 dataset samples not in the file"),
        "{timing}"
    );
    select(&b, "[data-testid=table-filter]", "wrong").await;
    b.wait_text("[data-testid=table-count]", Duration::from_secs(5), |t| t == "2 of 2 samples").await;
    scroll_to(&b, "[data-testid=results]").await;
    b.screenshot("evaluate-rescore").await;

    // One file, one answer: the same file replayed as a model over the whole dataset, with the
    // page's n at 5, scores the 2 samples it has with the answers it has, exactly as re-scoring did.
    select(&b, "[data-testid=eval-model]", "replay").await;
    upload(&b, "[data-testid=replay-file]", &good).await;
    b.wait_text("[data-testid=replay-file-status]", Duration::from_secs(10), |t| {
        t.starts_with("generations.json: 2 entries")
    })
    .await;
    b.fill("[data-testid=eval-n]", "5").await;
    b.fill("[data-testid=eval-limit]", "").await;
    b.click("[data-testid=eval-run]").await;
    b.wait_text("[data-testid=eval-job]", Duration::from_secs(60), |t| t == "Idle").await;
    let source = text(&b, "[data-testid=summary-row] .run-source").await;
    assert!(source.starts_with("replay: generations.json · output-direct · "), "the run's name: {source}");
    for (figure, expected) in [
        ("pass1-output-strict", "40.0"),
        ("pass5-output-strict", "100.0"),
        ("pass1-output-compatible", "45.0"),
        ("pass5-output-compatible", "100.0 (1/2)"),
    ] {
        assert_eq!(text(&b, &format!("[data-testid={figure}]")).await, expected, "{figure}");
    }
    let timing = text(&b, "[data-testid=run-timing]").await;
    assert!(
        timing.contains("2 of 2 samples scored") && timing.contains("798 dataset samples not in the file (not scored)"),
        "{timing}"
    );
    assert!(!timing.contains("error"), "{timing}");
    b.click("[data-testid=file-uncovered] summary").await;
    let missing = text(&b, "[data-testid=file-missing]").await;
    assert!(missing.starts_with("Not in the file: sample_2, sample_3,") && !missing.contains("sample_0,"), "{missing}");

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

async fn js(b: &Browser, script: &str) -> serde_json::Value {
    b.client.execute(script, vec![]).await.unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// The option values of the template picker, in order.
async fn template_ids(b: &Browser) -> Vec<String> {
    serde_json::from_value(
        js(b, "return [...document.querySelectorAll('[data-testid=eval-template] option')].map(o => o.value)").await,
    )
    .unwrap()
}

/// Custom templates: a copy of a built-in, edited and saved, is the prompt the evaluation sends;
/// Export downloads it; imports add and replace, a broken file is refused with its name and the
/// problem; the custom templates are still there after a reload (local storage).
#[tokio::test(flavor = "multi_thread")]
async fn custom_template_edit_run_export_import_and_reload() {
    const MARKER: &str = "MARKER-7319: think about the edge cases.";
    let dir = scratch("templates");
    let (b, _server) = open_evaluate().await;
    select(&b, "[data-testid=eval-task]", "output").await;
    select(&b, "[data-testid=eval-template]", "output-direct").await;
    assert_eq!(template_ids(&b).await, ["output-direct", "output-cot", "output-zero-shot"]);

    // A built-in is read-only; "Edit a copy" makes a custom template and selects it.
    assert_eq!(text(&b, "[data-testid=template-kind]").await, "built-in");
    // textContent, not the element's text: that is trimmed, and the template ends with a line break.
    let builtin_user = js(&b, "return document.querySelector('[data-testid=template-text]').textContent")
        .await
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(builtin_user.contains("{code}"), "{builtin_user}");
    assert!(b.client.find(Locator::Css("[data-testid=template-user]")).await.is_err(), "a built-in has no editor");
    scroll_to(&b, "[data-testid=template-panel]").await;
    b.screenshot("evaluate-template-builtin").await;
    b.click("[data-testid=template-copy]").await;
    b.wait_text("[data-testid=template-kind]", Duration::from_secs(5), |t| t == "custom").await;
    assert_eq!(text(&b, "[data-testid=template-name]").await, "Output prediction, direct (2 examples) (copy)");
    assert_eq!(template_ids(&b).await, ["output-direct", "output-cot", "output-zero-shot", "output-direct-copy"]);
    assert_eq!(
        js(&b, "return document.querySelector('[data-testid=eval-template]').value").await,
        "output-direct-copy"
    );

    // An edit that breaks the template is refused with the reasons, and a run refuses unsaved edits.
    b.fill("[data-testid=template-user]", "Say what f returns.").await;
    b.wait_text("[data-testid=template-unsaved]", Duration::from_secs(5), |t| t == "unsaved changes").await;
    b.click("[data-testid=template-save]").await;
    let problems = b.wait_text("[data-testid=template-problems]", Duration::from_secs(5), |_| true).await;
    assert!(
        problems.contains("no {code}, {program} or {numbered_code} placeholder: the model would not see the program"),
        "{problems}"
    );
    assert!(problems.contains("no {call} placeholder, which the output task needs"), "{problems}");
    b.click("[data-testid=eval-run]").await;
    let error = b.wait_text("[data-testid=eval-error]", Duration::from_secs(5), |_| true).await;
    assert_eq!(
        error,
        "the template “Output prediction, direct (2 examples) (copy)” has unsaved changes: save or revert them first"
    );

    // The real edit: a new name and a marker line above the built-in text, saved.
    b.click("[data-testid=template-revert]").await;
    b.wait_text("[data-testid=template-editor]", Duration::from_secs(5), |_| true).await;
    assert!(
        b.client.find(Locator::Css("[data-testid=template-problems]")).await.is_err(),
        "Revert clears the problems"
    );
    let user = js(&b, "return document.querySelector('[data-testid=template-user]').value").await;
    assert_eq!(user.as_str(), Some(builtin_user.as_str()), "Revert restores the saved text");
    b.fill("[data-testid=template-name-input]", "Marked output template").await;
    b.fill("[data-testid=template-user]", &format!("{MARKER}\n{builtin_user}")).await;
    b.click("[data-testid=template-save]").await;
    assert_eq!(
        b.wait_text("[data-testid=template-notice]", Duration::from_secs(5), |t| t.starts_with("Saved")).await,
        "Saved “Marked output template”."
    );
    assert!(b.client.find(Locator::Css("[data-testid=template-unsaved]")).await.is_err());
    assert_eq!(text(&b, "[data-testid=template-name]").await, "Marked output template");
    b.click(".template-preview summary").await;
    let preview = text(&b, "[data-testid=template-preview]").await;
    assert!(preview.contains(&format!("{MARKER}\n")), "{preview}");
    assert!(
        preview.contains("assert f([1, 1, 3, 1, 3, 1]) == ??") && preview.contains("Stop sequences: \"[/ANSWER]\""),
        "{preview}"
    );
    scroll_to(&b, "[data-testid=template-panel]").await;
    b.screenshot("evaluate-template-editor").await;

    // The oracle on the first 3 samples is prompted with the saved template.
    select(&b, "[data-testid=eval-model]", "oracle").await;
    b.fill("[data-testid=eval-n]", "1").await;
    b.fill("[data-testid=eval-limit]", "3").await;
    b.click("[data-testid=eval-run]").await;
    assert_eq!(b.wait_text("[data-testid=eval-state]", Duration::from_secs(60), |t| !t.is_empty()).await, "finished");
    assert_eq!(text(&b, "[data-testid=pass1-output-strict]").await, "100.0");
    // Each prompt opens at the sample's own part; the instructions (with the marker) and the
    // worked examples before it are folded apart.
    let leads = texts(&b, "[data-testid=result-row] [data-testid=prompt-lead] pre").await;
    let owns = texts(&b, "[data-testid=result-row] [data-testid=prompt-own]").await;
    assert_eq!((leads.len(), owns.len()), (3, 3));
    for lead in &leads {
        assert!(lead.starts_with(&format!("{MARKER}\n")), "{lead}");
    }
    for (own, call) in owns.iter().zip(["f([1, 1, 3, 1, 3, 1])", "f((1, ), (1, ), (1, 2))"]) {
        assert!(
            own.starts_with("[PYTHON]\ndef f(")
                && own.contains(&format!("assert {call} == ??"))
                && !own.contains(MARKER),
            "{own}"
        );
    }
    assert!(
        js(&b, "return document.querySelector('[data-testid=markdown]').value")
            .await
            .as_str()
            .unwrap_or_default()
            .contains("Marked output template")
    );

    // Export downloads the selected template as JSON the library reads back.
    js(&b, "window.savedBlobs = []; const make = URL.createObjectURL; URL.createObjectURL = blob => { window.savedBlobs.push(blob); return make(blob); };").await;
    b.click("[data-testid=template-export]").await;
    let saved = b.client.execute_async("const done = arguments[arguments.length - 1]; Promise.all(window.savedBlobs.map(b => b.text())).then(done);", vec![]).await.unwrap();
    let saved: Vec<String> = serde_json::from_value(saved).unwrap();
    assert_eq!(saved.len(), 1);
    let exported =
        execbench_eval::prompt::Template::import_json(&saved[0]).unwrap_or_else(|e| panic!("{e}: {}", saved[0]));
    assert_eq!((exported[0].id.as_str(), exported[0].name.as_str()), ("output-direct-copy", "Marked output template"));
    assert_eq!(exported[0].user, format!("{MARKER}\n{builtin_user}"));

    // A broken file is refused with its name and the problem, and changes nothing.
    let broken = dir.join("broken-templates.json");
    std::fs::write(
        &broken,
        r#"[{"id": "broken", "name": "Broken", "task": "output", "style": "direct", "user": "{code} has no call"}]"#,
    )
    .unwrap();
    upload(&b, "[data-testid=template-import]", &broken).await;
    let error = b.wait_text("[data-testid=template-error]", Duration::from_secs(10), |_| true).await;
    assert_eq!(error, "broken-templates.json: template `broken`: no {call} placeholder, which the output task needs");
    let not_json = dir.join("not-json.json");
    std::fs::write(&not_json, "{\"id\": ").unwrap();
    upload(&b, "[data-testid=template-import]", &not_json).await;
    b.wait_text("[data-testid=template-error]", Duration::from_secs(10), |t| {
        t.starts_with("not-json.json: not valid JSON: EOF while parsing")
    })
    .await;
    assert_eq!(template_ids(&b).await, ["output-direct", "output-cot", "output-zero-shot", "output-direct-copy"]);

    // A good file: the exported template, renamed (it replaces the saved one), and a new one.
    let mut renamed = exported[0].clone();
    renamed.name = "Marked, imported".into();
    let mut new_one = renamed.clone();
    new_one.id = "imported-output".into();
    new_one.name = "Imported output template".into();
    let good = dir.join("more-templates.json");
    std::fs::write(&good, serde_json::to_string_pretty(&[&new_one, &renamed]).unwrap()).unwrap();
    upload(&b, "[data-testid=template-import]", &good).await;
    let notice =
        b.wait_text("[data-testid=template-notice]", Duration::from_secs(10), |t| t.starts_with("Imported")).await;
    assert_eq!(notice, "Imported more-templates.json: added `imported-output`; replaced `output-direct-copy`.");
    assert!(
        b.client.find(Locator::Css("[data-testid=template-error]")).await.is_err(),
        "a good import clears the error"
    );
    assert_eq!(js(&b, "return document.querySelector('[data-testid=eval-template]').value").await, "imported-output");

    // After a reload the custom templates are still there, as saved.
    b.client.refresh().await.unwrap();
    b.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains("(800 samples)")).await;
    select(&b, "[data-testid=eval-task]", "output").await;
    assert_eq!(
        template_ids(&b).await,
        ["output-direct", "output-cot", "output-zero-shot", "output-direct-copy", "imported-output"]
    );
    select(&b, "[data-testid=eval-template]", "output-direct-copy").await;
    assert_eq!(text(&b, "[data-testid=template-name]").await, "Marked, imported");
    let user = js(&b, "return document.querySelector('[data-testid=template-user]').value").await;
    assert!(user.as_str().unwrap_or_default().starts_with(MARKER), "{user}");

    // Delete asks once more, then the template is gone, also after a reload.
    b.click("[data-testid=template-delete]").await;
    assert_eq!(text(&b, "[data-testid=template-delete]").await, "Really delete?");
    b.click("[data-testid=template-delete]").await;
    b.wait_text("[data-testid=template-notice]", Duration::from_secs(5), |t| t == "Deleted “Marked, imported”.").await;
    assert_eq!(template_ids(&b).await, ["output-direct", "output-cot", "output-zero-shot", "imported-output"]);
    b.client.refresh().await.unwrap();
    b.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains("(800 samples)")).await;
    assert_eq!(template_ids(&b).await, ["output-direct", "output-cot", "output-zero-shot", "imported-output"]);

    // Unreadable saved templates: the page starts with the built-ins only and says why.
    js(&b, "localStorage.setItem('execbench.templates.v1', '[not json')").await;
    b.client.refresh().await.unwrap();
    let error = b.wait_text("[data-testid=template-error]", Duration::from_secs(30), |_| true).await;
    assert_eq!(
        error,
        "the saved templates could not be read (expected ident at line 1 column 3); starting with no custom templates"
    );
    assert_eq!(template_ids(&b).await, ["output-direct", "output-cot", "output-zero-shot"]);
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// The bundled CRUXEval, as the library reads it.
fn cruxeval() -> Vec<execbench_core::Sample> {
    let text =
        std::fs::read_to_string(execbench_testkit::repo_root().join("public/data/cruxeval/cruxeval.jsonl")).unwrap();
    execbench_core::load_jsonl("cruxeval.jsonl", &text).samples
}

/// Runs `work` natively with the real engine, on a thread with room for RustPython's frames.
fn natively<T: Send + 'static>(
    work: impl FnOnce(&mut execbench_pyengine::RustPythonEngine) -> T + Send + 'static,
) -> T {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || work(&mut execbench_pyengine::RustPythonEngine::new()))
        .unwrap()
        .join()
        .unwrap()
}

async fn markdown(b: &Browser) -> String {
    js(b, "return document.querySelector('[data-testid=markdown]').value")
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// `(data-key, pass@1 width, pass@5 width)` of every group of the bar chart, in page order.
async fn chart(b: &Browser) -> Vec<(String, String, String)> {
    let script = "return [...document.querySelectorAll('[data-testid=pass-bar]')].map(g => [g.dataset.key, \
                  g.querySelector('[data-testid=bar-pass1]').dataset.percent, g.querySelector('[data-testid=bar-pass5]').dataset.percent])";
    serde_json::from_value(js(b, script).await).unwrap()
}

/// How the chart draws a figure: its width in percent, `n/a` as an empty bar.
fn bar_width(score: &execbench_eval::DatasetScore) -> String {
    format!("{:.1}", score.percent.unwrap_or(0.0).clamp(0.0, 100.0))
}

/// Starts capturing downloads: every Blob handed to `URL.createObjectURL`.
async fn capture_downloads(b: &Browser) {
    js(b, "window.savedBlobs = []; const make = URL.createObjectURL; URL.createObjectURL = blob => { window.savedBlobs.push(blob); return make(blob); };").await;
}

async fn downloads(b: &Browser) -> Vec<String> {
    let saved = b.client.execute_async("const done = arguments[arguments.length - 1]; Promise.all(window.savedBlobs.map(b => b.text())).then(done);", vec![]).await.unwrap();
    serde_json::from_value(saved).unwrap()
}

/// Texts of every element matching `css`, in page order (textContent: folded details count too).
async fn texts(b: &Browser, css: &str) -> Vec<String> {
    let script = format!("return [...document.querySelectorAll('{css}')].map(e => e.textContent)");
    serde_json::from_value(js(b, &script).await).unwrap()
}

/// Raw responses, output prediction, shaped to give every verdict the table filters on:
/// sample_0: right, the call repeated (strict: not a literal; compatible: dropped), no answer to
/// extract, a wrong value; sample_1: right (dict order), unfinished thinking, wrong; sample_2:
/// right, wrong. `nope` is not in the dataset.
fn raw_responses() -> String {
    let rows = [
        (
            "sample_0",
            vec![
                "[THOUGHT]\nCount each, sort descending.\n[/THOUGHT]\n[ANSWER]\nassert f([1, 1, 3, 1, 3, 1]) == [(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]\n[/ANSWER]",
                "[ANSWER]\nassert f([1, 1, 3, 1, 3, 1]) == f([1, 1, 3, 1, 3, 1])\n[/ANSWER]",
                "The function counts how often each number occurs.",
                "```python\nassert f([1, 1, 3, 1, 3, 1]) == [(4, 1), (2, 3)]\n```",
            ],
        ),
        (
            "sample_1",
            vec![
                "[ANSWER]assert f((1, ), (1, ), (1, 2)) == {2: None, 1: None}[/ANSWER]",
                "<think>\nd runs over a, b, c",
                "[ANSWER]\nassert f((1, ), (1, ), (1, 2)) == {1: None}\n[/ANSWER]",
            ],
        ),
        (
            "sample_2",
            vec![
                "[ANSWER]\nassert f('hbtofdeiequ') == 'hbtofdeiequ'\n[/ANSWER]",
                "[ANSWER]\nassert f('hbtofdeiequ') == 'HBTOFDEIEQU'\n[/ANSWER]",
            ],
        ),
        ("nope", vec!["[ANSWER]assert f(1) == 1[/ANSWER]"]),
    ];
    rows.iter()
        .map(|(id, responses)| serde_json::json!({ "id": id, "responses": responses }).to_string() + "\n")
        .collect()
}

/// Re-scoring raw responses in the page gives what the library gives natively: the summary, the
/// chart, the per-sample JSONL byte for byte; the dropped and extraction-failed filters keep the
/// samples the library marks so; every answer's response and extraction rule can be read.
#[tokio::test(flavor = "multi_thread")]
async fn rescore_raw_responses_like_the_library() {
    use execbench_eval::generations::{import_generations, rescore};
    use execbench_eval::report::{markdown_table, to_jsonl};
    use execbench_eval::{Mode, ScoreOptions, Task};
    let dir = scratch("raw");
    let file = dir.join("responses.jsonl");
    let responses_file = raw_responses();
    std::fs::write(&file, &responses_file).unwrap();
    let (strict, compatible) = {
        natively(move |engine| {
            let (dataset, generations) = (cruxeval(), import_generations("responses.jsonl", &responses_file));
            assert!(generations.errors.is_empty(), "{:?}", generations.errors);
            let [strict, compatible] = Mode::ALL
                .map(|mode| rescore(engine, &dataset, &generations, Task::Output, mode, &ScoreOptions::default()));
            (strict, compatible)
        })
    };
    // The file exercises what the filters are about (else the checks below prove little).
    assert_eq!(
        (compatible.summary.dropped, compatible.summary.extraction_failed, strict.summary.not_literal),
        (1, 2, 1)
    );

    let (b, _server) = open_evaluate().await;
    upload(&b, "[data-testid=rescore-file]", &file).await;
    b.wait_text("[data-testid=rescore-file-status]", Duration::from_secs(10), |t| {
        t == "responses.jsonl: 4 entries, raw responses (JSON Lines)"
    })
    .await;
    select(&b, "[data-testid=rescore-task]", "output").await;
    b.click("[data-testid=rescore-run]").await;
    assert_eq!(b.wait_text("[data-testid=eval-state]", Duration::from_secs(60), |t| !t.is_empty()).await, "finished");
    let timing = text(&b, "[data-testid=run-timing]").await;
    assert!(
        timing.starts_with("3 of 3 samples scored, 9 answers, 18 judgements (2 modes)")
            && timing.contains("1 id in the file not in the dataset"),
        "{timing}"
    );

    // The summary: the library's Markdown table, and the counts the filters rely on.
    let table = markdown_table(&[strict.summary.clone(), compatible.summary.clone()]);
    let page_markdown = markdown(&b).await;
    assert!(page_markdown.contains(&table), "page:\n{page_markdown}\nlibrary:\n{table}");
    for (mode, summary) in [("strict", &strict.summary), ("compatible", &compatible.summary)] {
        assert_eq!(text(&b, &format!("[data-testid=dropped-output-{mode}]")).await, summary.dropped.to_string());
        assert_eq!(
            text(&b, &format!("[data-testid=unextracted-output-{mode}]")).await,
            summary.extraction_failed.to_string()
        );
    }
    // The chart: one group per task and mode, bars as wide as the library's figures.
    let expected: Vec<_> = [&strict, &compatible]
        .iter()
        .map(|r| {
            (
                format!("output-{}", r.summary.mode.label()),
                bar_width(&r.summary.pass_at_1),
                bar_width(&r.summary.pass_at_5),
            )
        })
        .collect();
    assert_eq!(chart(&b).await, expected);

    // Filters of the compatible table keep exactly the samples the library marks.
    let ids_with = |rows: &[execbench_eval::report::SampleResult], label: &str| {
        rows.iter().filter(|r| r.has(label)).map(|r| r.id.clone()).collect::<Vec<_>>()
    };
    select(&b, "[data-testid=table-mode]", "compatible").await;
    for (filter, label) in [("dropped", "dropped"), ("extraction_failed", "extraction_failed")] {
        let want = ids_with(&compatible.results, label);
        select(&b, "[data-testid=table-filter]", filter).await;
        let count = format!("{} of 3 samples", want.len());
        b.wait_text("[data-testid=table-count]", Duration::from_secs(5), |t| t == count).await;
        let rows = texts(&b, "[data-testid=result-row] td:first-child").await;
        assert_eq!(rows, want, "{filter}");
        // Each row shows the answer the filter is about, among all of its answers.
        let verdicts: Vec<Vec<String>> = serde_json::from_value(js(&b, "return [...document.querySelectorAll('[data-testid=result-row]')].map(r => [...r.querySelectorAll('[data-testid=answer-item]')].map(a => a.dataset.verdict))").await).unwrap();
        let answers: Vec<usize> = want
            .iter()
            .map(|id| compatible.results.iter().find(|r| &r.id == id).map_or(0, |r| r.answers.len()))
            .collect();
        assert_eq!(verdicts.iter().map(Vec::len).collect::<Vec<_>>(), answers, "{filter}: every answer of each row");
        assert!(verdicts.iter().all(|row| row.iter().any(|v| v == label)), "{filter}: {verdicts:?}");
        scroll_to(&b, "[data-testid=sample-table]").await;
        b.screenshot(&format!("evaluate-filter-{filter}")).await;
    }
    // Strict mode drops nothing.
    select(&b, "[data-testid=table-mode]", "strict").await;
    select(&b, "[data-testid=table-filter]", "dropped").await;
    b.wait_text("[data-testid=table-count]", Duration::from_secs(5), |t| t == "0 of 3 samples").await;

    // Every answer of every sample: its response and the rule that extracted it.
    select(&b, "[data-testid=table-filter]", "all").await;
    b.wait_text("[data-testid=table-count]", Duration::from_secs(5), |t| t == "3 of 3 samples").await;
    let responses: Vec<String> =
        strict.results.iter().flat_map(|r| r.answers.iter().map(|a| a.response.clone().unwrap_or_default())).collect();
    assert_eq!(texts(&b, "[data-testid=answer-response]").await, responses);
    let rules: Vec<String> =
        strict.results.iter().flat_map(|r| r.answers.iter().map(|a| a.extraction.rule_label().to_string())).collect();
    assert_eq!(texts(&b, "[data-testid=answer-item] .extract-rule").await, rules);
    let words: Vec<String> =
        strict.results.iter().flat_map(|r| r.answers.iter().map(|a| a.verdict.words().to_string())).collect();
    assert_eq!(texts(&b, "[data-testid=answer-item] .verdict").await, words, "every answer's verdict, in words");
    let counts: Vec<String> = strict.results.iter().map(|r| r.right_of_n()).collect();
    assert_eq!(texts(&b, "[data-testid=row-correct]").await, counts);
    b.click("[data-testid=answer-item] .answer-response summary").await;
    scroll_to(&b, "[data-testid=sample-table]").await;
    b.screenshot("evaluate-all-answers").await;

    // The per-sample JSONL is the library's rows, strict then compatible, byte for byte.
    capture_downloads(&b).await;
    b.click("[data-testid=download-jsonl]").await;
    let saved = downloads(&b).await;
    assert_eq!(saved.len(), 1);
    // Each row ends with its run's provenance: run, model, template and its hash, task, dataset.
    let mut rows = Vec::new();
    for line in saved[0].lines() {
        let (row, provenance) = line.rsplit_once(",\"provenance\":").expect("a provenance field");
        let provenance: serde_json::Value = serde_json::from_str(provenance.strip_suffix('}').unwrap()).unwrap();
        assert!(provenance["run_id"].as_str().is_some_and(|id| id.starts_with("run-")), "{provenance}");
        assert_eq!(
            (provenance["model"].as_str(), provenance["template_id"].as_str(), provenance["task"].as_str()),
            (Some("re-scored responses.jsonl"), Some("output-direct"), Some("output")),
            "{provenance}"
        );
        assert!(
            provenance["template_hash"].as_str().is_some_and(|h| h.len() == 16)
                && provenance["dataset_hash"].as_str().is_some(),
            "{provenance}"
        );
        assert_eq!(provenance["app_version"].as_str(), Some(env!("CARGO_PKG_VERSION")));
        rows.push(format!("{row}}}\n"));
    }
    let library = to_jsonl(&strict.results) + &to_jsonl(&compatible.results);
    assert!(
        rows.concat() == library,
        "the page's JSONL differs from the library's:\npage:\n{}\nlibrary:\n{library}",
        saved[0]
    );
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// The two baselines score in the page what the library computes natively for the same samples,
/// template and n; the chart has one group per run and mode.
#[tokio::test(flavor = "multi_thread")]
async fn baselines_score_like_the_library() {
    use execbench_eval::evaluate::{EvalSettings, evaluate};
    use execbench_eval::models::{EchoFirstArgument, Model, TypeDefault};
    use execbench_eval::prompt::{Style, default_template};
    use execbench_eval::report::markdown_table;
    use execbench_eval::{Mode, ScoreOptions, Task};
    const LIMIT: usize = 30;
    const N: usize = 5;
    // (model value in the page, task): echo on output prediction, type-default on both tasks.
    let runs = [("echo-first-argument", Task::Output), ("type-default", Task::Output), ("type-default", Task::Input)];
    let native = natively(move |engine| {
        let samples: Vec<_> = cruxeval().into_iter().take(LIMIT).collect();
        runs.map(|(model, task)| {
            let mut model: Box<dyn Model> =
                if model == "type-default" { Box::new(TypeDefault) } else { Box::new(EchoFirstArgument) };
            let plan = EvalSettings {
                template: default_template(task, Style::Direct),
                n: N,
                modes: Mode::ALL.to_vec(),
                options: ScoreOptions::default(),
            };
            evaluate(model.as_mut(), engine, &samples, &plan, &mut |_, _| {})
        })
    });

    let (b, _server) = open_evaluate().await;
    b.fill("[data-testid=eval-n]", &N.to_string()).await;
    b.fill("[data-testid=eval-limit]", &LIMIT.to_string()).await;
    for (model, task) in runs {
        select(&b, "[data-testid=eval-model]", model).await;
        select(&b, "[data-testid=eval-task]", task.label()).await;
        b.click("[data-testid=eval-run]").await;
        assert_eq!(
            b.wait_text("[data-testid=eval-state]", Duration::from_secs(120), |t| !t.is_empty()).await,
            "finished",
            "{model} {task:?}"
        );
    }
    let page_markdown = markdown(&b).await;
    for ((model, task), evaluation) in runs.iter().zip(&native) {
        assert_eq!(&evaluation.model, model);
        let heading = format!("### {model} · CRUXEval · {} prediction · ", task.label());
        // The table right under the run's heading is the library's.
        let table = markdown_table(&evaluation.summaries);
        let section = page_markdown.split(&heading).nth(1).unwrap_or_default();
        let page_table = section.split("\n\n").nth(1).unwrap_or_default();
        assert_eq!(page_table.trim_end(), table.trim_end(), "{model} {task:?}, page:\n{page_markdown}");
    }
    // Newest run first, strict then compatible within a run.
    let expected: Vec<_> = native
        .iter()
        .rev()
        .flat_map(|e| {
            e.summaries.iter().map(|s| {
                (format!("{}-{}", s.task.label(), s.mode.label()), bar_width(&s.pass_at_1), bar_width(&s.pass_at_5))
            })
        })
        .collect();
    assert_eq!(chart(&b).await, expected);
    assert_eq!(expected.len(), 6);
    scroll_to(&b, "[data-testid=results]").await;
    b.screenshot("evaluate-baselines").await;
    b.close().await;
}

/// Three answers a sample, for sample_0..2 (expected `[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3),
/// (2, 3)]`, `{1: None, 2: None}`, `'hbtofdeiequ'`): sample_0 right once and wrong twice;
/// sample_1 right once, wrong once and once the call itself (strict: not a literal; compatible:
/// dropped); sample_2 right three times.
const MIXED: &str = r#"{
  "sample_0": ["[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]", "[]", "[(4, 1)]"],
  "sample_1": ["{1: None}", "{2: None, 1: None}", "f((1, ), (1, ), (1, 2))"],
  "sample_2": ["'hbtofdeiequ'", "'hbtofdeiequ'", "'hbtofdeiequ'"]
}"#;

async fn value_of(b: &Browser, css: &str) -> String {
    js(b, &format!("return document.querySelector('{css}').value")).await.as_str().unwrap_or_default().to_string()
}

async fn hash(b: &Browser) -> String {
    js(b, "return location.hash").await.as_str().unwrap_or_default().to_string()
}

/// A sample partly right reads "1 of 3 right" with every answer shown in words; the prompt
/// opens at the sample's code with the worked examples folded; the columns are the export's
/// fields; the run, scoring mode and filter live in the address and survive a reload and a
/// visit elsewhere; a link to a run this browser does not have says so.
#[tokio::test(flavor = "multi_thread")]
async fn partly_right_samples_read_well_and_the_view_lives_in_the_address() {
    let dir = scratch("mixed");
    let file = dir.join("mixed.json");
    std::fs::write(&file, MIXED).unwrap();
    let (b, server) = open_evaluate().await;
    select(&b, "[data-testid=eval-model]", "replay").await;
    upload(&b, "[data-testid=replay-file]", &file).await;
    b.wait_text("[data-testid=replay-file-status]", Duration::from_secs(10), |t| {
        t.starts_with("mixed.json: 3 entries")
    })
    .await;
    select(&b, "[data-testid=eval-task]", "output").await;
    select(&b, "[data-testid=eval-template]", "output-direct").await;
    b.fill("[data-testid=eval-limit]", "").await;
    b.click("[data-testid=eval-run]").await;
    assert_eq!(b.wait_text("[data-testid=eval-state]", Duration::from_secs(60), |t| !t.is_empty()).await, "finished");

    // Strict: two samples 1 of 3 right (not "wrong"), one all right; all three answers shown.
    b.wait_text("[data-testid=table-count]", Duration::from_secs(5), |t| t == "3 of 3 samples").await;
    assert_eq!(texts(&b, "[data-testid=row-correct]").await, ["1 of 3 right", "1 of 3 right", "3 of 3 right"]);
    let outcomes: Vec<String> = serde_json::from_value(
        js(&b, "return [...document.querySelectorAll('[data-testid=result-row]')].map(r => r.dataset.outcome)").await,
    )
    .unwrap();
    assert_eq!(outcomes, ["some_right", "some_right", "all_right"]);
    let first_row = "[data-testid=result-row]:first-child";
    assert_eq!(
        texts(&b, &format!("{first_row} [data-testid=answer-item] .verdict")).await,
        ["right", "wrong value", "wrong value"]
    );
    assert_eq!(
        texts(&b, &format!("{first_row} [data-testid=answer-item] .answer-cell")).await,
        ["[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]", "[]", "[(4, 1)]"]
    );
    let labels: Vec<String> = serde_json::from_value(js(&b, &format!("return [...document.querySelectorAll('{first_row} [data-testid=answer-item]')].map(a => a.dataset.verdict)")).await).unwrap();
    assert_eq!(labels, ["correct", "wrong_value", "wrong_value"]);
    let second = texts(&b, "[data-testid=result-row]:nth-child(2) [data-testid=answer-item] .verdict").await;
    assert_eq!(second, ["wrong value", "right", "not a literal"]);

    // The prompt: the sample's own code open, the instructions and 2 worked examples folded.
    let code = cruxeval().into_iter().next().unwrap().code;
    let own = texts(&b, &format!("{first_row} [data-testid=prompt-own]")).await;
    assert_eq!(own, [format!("[PYTHON]\n{code}\nassert f([1, 1, 3, 1, 3, 1]) == ??\n[/PYTHON]\n[ANSWER]\n")]);
    let lead = js(&b, &format!("const d = document.querySelector('{first_row} [data-testid=prompt-lead]'); return [d.open, d.dataset.examples, d.querySelector('summary').textContent, d.querySelector('pre').textContent]")).await;
    assert_eq!(
        (&lead[0], &lead[1], &lead[2]),
        (&serde_json::json!(false), &serde_json::json!("2"), &serde_json::json!("instructions and 2 worked examples"))
    );
    let lead_text = lead[3].as_str().unwrap_or_default();
    assert!(
        lead_text.starts_with("Work out what the Python function returns")
            && lead_text.contains("assert f(25, 10) == (5, 5, 5)")
            && !lead_text.contains(&code),
        "{lead_text}"
    );

    // The columns are named by the per-sample export's fields.
    let columns: Vec<String> = serde_json::from_value(
        js(&b, "return [...document.querySelectorAll('[data-testid=sample-table] th')].map(t => t.dataset.field)")
            .await,
    )
    .unwrap();
    assert_eq!(columns, ["id", "correct", "prompt", "answers"]);
    capture_downloads(&b).await;
    b.click("[data-testid=download-jsonl]").await;
    let saved = downloads(&b).await;
    let exported: serde_json::Value = serde_json::from_str(saved[0].lines().next().unwrap()).unwrap();
    for column in &columns {
        assert!(exported.get(column).is_some(), "column `{column}` is not a field of the export: {exported}");
    }
    // (Replayed answers came extracted: no `response`, which the app's unit test covers.)
    for part in ["verdict", "extraction"] {
        assert!(exported["answers"][0].get(part).is_some(), "answer part `{part}`: {exported}");
    }
    let run_id = exported["provenance"]["run_id"].as_str().unwrap().to_string();
    assert_eq!(hash(&b).await, format!("#/evaluate?run={run_id}&mode=strict&filter=all"));
    scroll_to(&b, "[data-testid=sample-table]").await;
    b.screenshot("evaluate-partly-right").await;

    // Compatible mode, wrong only: the address follows, and a reload shows the same view, the
    // run read back from the browser's store.
    select(&b, "[data-testid=table-mode]", "compatible").await;
    select(&b, "[data-testid=table-filter]", "wrong").await;
    b.wait_text("[data-testid=table-count]", Duration::from_secs(5), |t| t == "2 of 3 samples").await;
    let chosen = ["1 of 3 right", "1 of 2 right, 1 dropped"];
    assert_eq!(texts(&b, "[data-testid=row-correct]").await, chosen);
    let address = format!("#/evaluate?run={run_id}&mode=compatible&filter=wrong");
    assert_eq!(hash(&b).await, address);
    b.client.refresh().await.unwrap();
    b.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains("(800 samples)")).await;
    b.wait_text("[data-testid=table-count]", Duration::from_secs(20), |t| t == "2 of 3 samples").await;
    assert_eq!(texts(&b, "[data-testid=row-correct]").await, chosen);
    assert_eq!(
        (value_of(&b, "[data-testid=table-mode]").await, value_of(&b, "[data-testid=table-filter]").await),
        ("compatible".to_string(), "wrong".to_string())
    );
    assert!(text(&b, "[data-testid=table-run]").await.starts_with("replay: mixed.json"));
    assert_eq!(hash(&b).await, address);
    scroll_to(&b, "[data-testid=sample-table]").await;
    b.screenshot("evaluate-reloaded-view").await;

    // Another page and back by the menu (the bare `#/evaluate`): the same view, and the address
    // says so again.
    b.click("[data-testid=site-nav] a[href='#/datasets']").await;
    b.wait_text("[data-testid=sample-row]", Duration::from_secs(10), |_| true).await;
    b.click("[data-testid=site-nav] a[href='#/evaluate']").await;
    b.wait_text("[data-testid=table-count]", Duration::from_secs(10), |t| t == "2 of 3 samples").await;
    assert_eq!(value_of(&b, "[data-testid=table-mode]").await, "compatible");
    assert_eq!(hash(&b).await, address);

    // A link to a run this browser does not have: said plainly, the page still works.
    b.client.goto(&format!("{}#/evaluate?run=run-from-elsewhere&mode=strict", server.base_url)).await.unwrap();
    let missing = b.wait_text("[data-testid=eval-run-missing]", Duration::from_secs(20), |_| true).await;
    assert!(missing.contains("run `run-from-elsewhere`, which is not stored in this browser"), "{missing}");
    assert_eq!(value_of(&b, "[data-testid=table-mode]").await, "strict");
    assert!(text(&b, ".engine").await.starts_with("Python ready"));
    // The address stays the link as followed, with the view's mode and filter.
    assert_eq!(hash(&b).await, "#/evaluate?run=run-from-elsewhere&mode=strict&filter=wrong");
    scroll_to(&b, "[data-testid=eval-run-missing]").await;
    b.screenshot("evaluate-unknown-run").await;
    // Choosing a run shown here clears the message, and the address names that run.
    // (Its one option is selected already: the change is dispatched as a choice would.)
    js(&b, "document.querySelector('[data-testid=table-run]').dispatchEvent(new Event('change'))").await;
    let gone = "return !document.querySelector('[data-testid=eval-run-missing]')";
    for _ in 0..50 {
        if js(&b, gone).await == serde_json::json!(true) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(js(&b, gone).await, serde_json::json!(true), "the message stays after a run was chosen");
    assert_eq!(hash(&b).await, format!("#/evaluate?run={run_id}&mode=strict&filter=wrong"));
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// A published evaluation file (CRUXEval's leaderboard shape) whose stored verdicts are wrong on
/// one answer: re-scored, the page shows the file's figures next to execbench's in both modes and
/// lists the disagreement with execbench's reason, as the library computes them; the verdicts are
/// kept with the stored run, so the panel is there again after a reload.
#[tokio::test(flavor = "multi_thread")]
async fn an_evaluation_files_stored_verdicts_are_shown_beside_execbenchs_and_kept() {
    use execbench_eval::generations::{import_generations, rescore};
    use execbench_eval::score::{Mode, ScoreOptions};
    use execbench_eval::stored::compare_stored;
    let samples = cruxeval();
    let literal = |s: &str| serde_json::to_string(s).unwrap();
    // sample_0: the right output and a wrong one, both stored as right; sample_1: wrong, stored wrong.
    let file = format!(
        r#"{{"raw_generations": {{"sample_0": [{}, "'not it'"], "sample_1": ["'nope'"]}}, "raw_scored_generations": {{"sample_0": [true, true], "sample_1": [false]}}, "pass_at_1": 50.0, "pass_at_5": 50.0}}"#,
        literal(&samples[0].output)
    );
    let dir = scratch("stored");
    let path = dir.join("leaderboard-eval.json");
    std::fs::write(&path, &file).unwrap();
    let expected: Vec<(Mode, String, String, usize, String)> = natively(move |engine| {
        let generations = import_generations("leaderboard-eval.json", &file);
        Mode::ALL
            .iter()
            .map(|mode| {
                let r = rescore(
                    engine,
                    &samples,
                    &generations,
                    execbench_eval::Task::Output,
                    *mode,
                    &ScoreOptions::default(),
                );
                let c = compare_stored(generations.stored.as_ref().unwrap(), &r);
                (
                    *mode,
                    c.pass_at_1.display(),
                    r.summary.pass_at_1.display(),
                    c.disagreements.len(),
                    c.disagreements.first().map(|d| d.reason.clone()).unwrap_or_default(),
                )
            })
            .collect()
    });
    assert!(
        expected.iter().all(|(_, stored, execbench, n, _)| stored == "50.0" && execbench == "25.0" && *n == 1),
        "{expected:?}"
    );

    let (b, _server) = open_evaluate().await;
    upload(&b, "[data-testid=rescore-file]", &path).await;
    b.wait_text("[data-testid=rescore-file-status]", Duration::from_secs(10), |t| {
        t.starts_with("leaderboard-eval.json: 2 entries")
    })
    .await;
    select(&b, "[data-testid=rescore-task]", "output").await;
    b.click("[data-testid=rescore-run]").await;
    assert_eq!(b.wait_text("[data-testid=eval-state]", Duration::from_secs(60), |t| !t.is_empty()).await, "finished");
    for reloaded in [false, true] {
        if reloaded {
            // The address names the stored run: a reload reads it back from IndexedDB.
            b.client.refresh().await.unwrap();
            b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
        }
        let heading = b.wait_text("[data-testid=stored-verdicts] h3", Duration::from_secs(20), |_| true).await;
        assert!(heading.contains("pass@1 50.0, pass@5 50.0"), "{heading}");
        for (mode, stored, execbench, disagreements, reason) in &expected {
            let row = format!("[data-testid=stored-row][data-mode={}]", mode.label());
            assert_eq!(text(&b, &format!("{row} [data-testid=stored-pass1]")).await, *stored, "{mode:?}");
            assert_eq!(text(&b, &format!("[data-testid=pass1-output-{}]", mode.label())).await, *execbench, "{mode:?}");
            assert_eq!(
                text(&b, &format!("{row} [data-testid=stored-disagreements]")).await,
                disagreements.to_string(),
                "{mode:?}"
            );
            let listed = js(
                &b,
                "return [...document.querySelectorAll('[data-testid=stored-disagreement]')].map(e => e.textContent)",
            )
            .await;
            assert!(
                listed.as_array().unwrap().iter().any(|t| t.as_str().unwrap()
                    == format!("sample_0 answer 2: the file says right, execbench says {reason}")),
                "{listed}"
            );
        }
        if !reloaded {
            scroll_to(&b, "[data-testid=stored-verdicts]").await;
            b.screenshot("evaluate-stored-verdicts").await;
        }
    }
    // Given to the Runs page's import instead, the file is recognised and sent to re-scoring.
    let base = js(&b, "return location.href.split('#')[0]").await;
    b.client.goto(&format!("{}#/runs", base.as_str().unwrap())).await.unwrap();
    upload(&b, "[data-testid=runs-import]", &path).await;
    let said = b.wait_text("[data-testid=runs-message]", Duration::from_secs(20), |t| !t.is_empty()).await;
    assert!(said.starts_with("leaderboard-eval.json is a file of answers (2 samples, with its own verdicts), not a run file: re-score it on the Evaluate page"), "{said}");
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}
