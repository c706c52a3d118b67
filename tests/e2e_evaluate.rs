//! End-to-end tests of the Evaluate page: the built app in headless Chromium. Needs a built site
//! (`trunk build --release`, or EXECBENCH_DIST) and Debian's chromium + chromedriver.
//! Screenshots land in tests/artifacts/evaluate-*.png.

use std::path::{Path, PathBuf};
use std::time::Duration;

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

async fn js(b: &Browser, script: &str) -> serde_json::Value {
    b.client.execute(script, vec![]).await.unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// The option values of the template picker, in order.
async fn template_ids(b: &Browser) -> Vec<String> {
    serde_json::from_value(js(b, "return [...document.querySelectorAll('[data-testid=eval-template] option')].map(o => o.value)").await).unwrap()
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
    let builtin_user = js(&b, "return document.querySelector('[data-testid=template-text]').textContent").await.as_str().unwrap_or_default().to_string();
    assert!(builtin_user.contains("{code}"), "{builtin_user}");
    assert!(b.client.find(Locator::Css("[data-testid=template-user]")).await.is_err(), "a built-in has no editor");
    scroll_to(&b, "[data-testid=template-panel]").await;
    b.screenshot("evaluate-template-builtin").await;
    b.click("[data-testid=template-copy]").await;
    b.wait_text("[data-testid=template-kind]", Duration::from_secs(5), |t| t == "custom").await;
    assert_eq!(text(&b, "[data-testid=template-name]").await, "Output prediction, direct (2 examples) (copy)");
    assert_eq!(template_ids(&b).await, ["output-direct", "output-cot", "output-zero-shot", "output-direct-copy"]);
    assert_eq!(js(&b, "return document.querySelector('[data-testid=eval-template]').value").await, "output-direct-copy");

    // An edit that breaks the template is refused with the reasons, and a run refuses unsaved edits.
    b.fill("[data-testid=template-user]", "Say what f returns.").await;
    b.wait_text("[data-testid=template-unsaved]", Duration::from_secs(5), |t| t == "unsaved changes").await;
    b.click("[data-testid=template-save]").await;
    let problems = b.wait_text("[data-testid=template-problems]", Duration::from_secs(5), |_| true).await;
    assert!(problems.contains("no {code} or {program} placeholder: the model would not see the program"), "{problems}");
    assert!(problems.contains("no {call} placeholder, which the output task needs"), "{problems}");
    b.click("[data-testid=eval-run]").await;
    let error = b.wait_text("[data-testid=eval-error]", Duration::from_secs(5), |_| true).await;
    assert_eq!(error, "the template “Output prediction, direct (2 examples) (copy)” has unsaved changes: save or revert them first");

    // The real edit: a new name and a marker line above the built-in text, saved.
    b.click("[data-testid=template-revert]").await;
    b.wait_text("[data-testid=template-editor]", Duration::from_secs(5), |_| true).await;
    assert!(b.client.find(Locator::Css("[data-testid=template-problems]")).await.is_err(), "Revert clears the problems");
    let user = js(&b, "return document.querySelector('[data-testid=template-user]').value").await;
    assert_eq!(user.as_str(), Some(builtin_user.as_str()), "Revert restores the saved text");
    b.fill("[data-testid=template-name-input]", "Marked output template").await;
    b.fill("[data-testid=template-user]", &format!("{MARKER}\n{builtin_user}")).await;
    b.click("[data-testid=template-save]").await;
    assert_eq!(b.wait_text("[data-testid=template-notice]", Duration::from_secs(5), |t| t.starts_with("Saved")).await, "Saved “Marked output template”.");
    assert!(b.client.find(Locator::Css("[data-testid=template-unsaved]")).await.is_err());
    assert_eq!(text(&b, "[data-testid=template-name]").await, "Marked output template");
    b.click(".template-preview summary").await;
    let preview = text(&b, "[data-testid=template-preview]").await;
    assert!(preview.contains(&format!("{MARKER}\n")), "{preview}");
    assert!(preview.contains("assert f([1, 1, 3, 1, 3, 1]) == ??") && preview.contains("Stop sequences: \"[/ANSWER]\""), "{preview}");
    scroll_to(&b, "[data-testid=template-panel]").await;
    b.screenshot("evaluate-template-editor").await;

    // The oracle on the first 3 samples is prompted with the saved template.
    select(&b, "[data-testid=eval-model]", "oracle").await;
    b.fill("[data-testid=eval-n]", "1").await;
    b.fill("[data-testid=eval-limit]", "3").await;
    b.click("[data-testid=eval-run]").await;
    assert_eq!(b.wait_text("[data-testid=eval-state]", Duration::from_secs(60), |t| !t.is_empty()).await, "finished");
    assert_eq!(text(&b, "[data-testid=pass1-output-strict]").await, "100.0");
    let prompts: Vec<String> = serde_json::from_value(js(&b, "return [...document.querySelectorAll('[data-testid=result-row] .prompt-cell pre')].map(e => e.textContent)").await).unwrap();
    assert_eq!(prompts.len(), 3);
    for prompt in &prompts {
        assert!(prompt.starts_with(&format!("{MARKER}\n")), "{prompt}");
    }
    for (prompt, call) in prompts.iter().zip(["f([1, 1, 3, 1, 3, 1])", "f((1, ), (1, ), (1, 2))"]) {
        assert!(prompt.contains(&format!("assert {call} == ??")), "{prompt}");
    }
    assert!(js(&b, "return document.querySelector('[data-testid=markdown]').value").await.as_str().unwrap_or_default().contains("Marked output template"));

    // Export downloads the selected template as JSON the library reads back.
    js(&b, "window.savedBlobs = []; const make = URL.createObjectURL; URL.createObjectURL = blob => { window.savedBlobs.push(blob); return make(blob); };").await;
    b.click("[data-testid=template-export]").await;
    let saved = b.client.execute_async("const done = arguments[arguments.length - 1]; Promise.all(window.savedBlobs.map(b => b.text())).then(done);", vec![]).await.unwrap();
    let saved: Vec<String> = serde_json::from_value(saved).unwrap();
    assert_eq!(saved.len(), 1);
    let exported = execbench_eval::prompt::Template::import_json(&saved[0]).unwrap_or_else(|e| panic!("{e}: {}", saved[0]));
    assert_eq!((exported[0].id.as_str(), exported[0].name.as_str()), ("output-direct-copy", "Marked output template"));
    assert_eq!(exported[0].user, format!("{MARKER}\n{builtin_user}"));

    // A broken file is refused with its name and the problem, and changes nothing.
    let broken = dir.join("broken-templates.json");
    std::fs::write(&broken, r#"[{"id": "broken", "name": "Broken", "task": "output", "style": "direct", "user": "{code} has no call"}]"#).unwrap();
    upload(&b, "[data-testid=template-import]", &broken).await;
    let error = b.wait_text("[data-testid=template-error]", Duration::from_secs(10), |_| true).await;
    assert_eq!(error, "broken-templates.json: template `broken`: no {call} placeholder, which the output task needs");
    let not_json = dir.join("not-json.json");
    std::fs::write(&not_json, "{\"id\": ").unwrap();
    upload(&b, "[data-testid=template-import]", &not_json).await;
    b.wait_text("[data-testid=template-error]", Duration::from_secs(10), |t| t.starts_with("not-json.json: not valid JSON: EOF while parsing")).await;
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
    let notice = b.wait_text("[data-testid=template-notice]", Duration::from_secs(10), |t| t.starts_with("Imported")).await;
    assert_eq!(notice, "Imported more-templates.json: added `imported-output`; replaced `output-direct-copy`.");
    assert!(b.client.find(Locator::Css("[data-testid=template-error]")).await.is_err(), "a good import clears the error");
    assert_eq!(js(&b, "return document.querySelector('[data-testid=eval-template]').value").await, "imported-output");

    // After a reload the custom templates are still there, as saved.
    b.client.refresh().await.unwrap();
    b.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains("(800 samples)")).await;
    select(&b, "[data-testid=eval-task]", "output").await;
    assert_eq!(template_ids(&b).await, ["output-direct", "output-cot", "output-zero-shot", "output-direct-copy", "imported-output"]);
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
    assert_eq!(error, "the saved templates could not be read (expected ident at line 1 column 3); starting with no custom templates");
    assert_eq!(template_ids(&b).await, ["output-direct", "output-cot", "output-zero-shot"]);
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}
