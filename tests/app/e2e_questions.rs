//! The Questions page (issue 57): trace questions made in the page from the first 20 CRUXEval
//! samples (each call traced by RustPython in the worker), shown by kind, and downloaded; the
//! download must be byte for byte what `execbench questions` writes natively for the same samples
//! and seed (its own worker processes, the same library), so the page's traces are held against
//! the native engine's, not against our reading of them. A wrong form is refused by field.

use std::time::Duration;

use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;

use crate::common;

const SAMPLES: usize = 20;
const SEED: &str = "3";

/// The command line's questions for the first `SAMPLES` CRUXEval samples, from a file named as
/// the page names the bundled dataset (the name is in every question's source).
fn native_questions() -> String {
    let dir = std::env::temp_dir().join(format!("execbench-e2e-questions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let all =
        std::fs::read_to_string(execbench_testkit::repo_root().join("public/data/cruxeval/cruxeval.jsonl")).unwrap();
    let first: String = all.lines().take(SAMPLES).map(|line| format!("{line}\n")).collect();
    let dataset = dir.join("cruxeval.jsonl");
    std::fs::write(&dataset, first).unwrap();
    let out = dir.join("questions.jsonl");
    let status = std::process::Command::new(execbench_testkit::fresh_cli_binary())
        .args(["questions", "--seed", SEED, "--jobs", "1"])
        .arg("--dataset")
        .arg(&dataset)
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "execbench questions: {status}");
    let text = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    text
}

#[tokio::test(flavor = "multi_thread")]
async fn questions_from_twenty_samples_are_shown_and_downloaded_as_the_command_line_writes_them() {
    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let b = Browser::launch().await;
    b.client.goto(&format!("{}#/questions", server.base_url)).await.unwrap();
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    b.wait_text(".questions .muted", Duration::from_secs(30), |t| t.contains("Dataset: CRUXEval")).await;

    // A wrong field is named and nothing starts.
    b.fill("[data-testid=questions-per-kind]", "0").await;
    b.click("[data-testid=questions-start]").await;
    let said = b.wait_text("[data-testid=questions-error]", Duration::from_secs(5), |t| !t.is_empty()).await;
    assert!(said.starts_with("Per kind: `0`"), "{said}");
    assert!(text(&b, "[data-testid=questions-stats]").await.starts_with("0 / 0 "), "a job started");

    b.fill("[data-testid=questions-per-kind]", "1").await;
    b.fill("[data-testid=questions-seed]", SEED).await;
    b.fill("[data-testid=questions-limit]", &SAMPLES.to_string()).await;
    b.click("[data-testid=questions-start]").await;
    b.wait_text("[data-testid=questions-state]", Duration::from_secs(120), |t| t == "finished").await;
    let stats = text(&b, "[data-testid=questions-stats]").await;
    assert!(stats.starts_with(&format!("{SAMPLES} / {SAMPLES} samples traced")), "{stats}");
    assert_eq!(text(&b, "[data-testid=questions-error]").await, "", "the error stays after a good start");

    // Every kind was made, as many of each as natively.
    let native = native_questions();
    let total = native.lines().count();
    for kind in ["coverage", "state", "path", "output"] {
        let count = text(&b, &format!("[data-testid=questions-count-{kind}]")).await;
        let natively = native.lines().filter(|l| l.contains(&format!("\"kind\":\"{kind}\""))).count();
        assert_eq!(count, format!("{natively} {kind}"), "{kind}");
    }
    // The table shows the first 50, and says so when there are more.
    assert_eq!(rows_shown(&b).await, total.min(50), "one row a question, at most 50");
    let caption = text(&b, "[data-testid=questions-table] caption").await;
    let expected =
        if total > 50 { format!("The first 50 of {total} questions") } else { format!("{total} questions.") };
    assert!(caption.starts_with(&expected), "{caption}");
    b.screenshot("questions-made").await;

    common::capture_downloads(&b).await;
    b.click("[data-testid=questions-download]").await;
    let files = common::downloaded(&b).await;
    assert_eq!(files.len(), 1, "one file");
    assert!(total >= SAMPLES, "fewer questions than samples: {total}");
    if files[0] != native {
        let first_difference = files[0].lines().zip(native.lines()).position(|(a, b)| a != b);
        panic!(
            "the page's file differs from `execbench questions`' ({} and {total} lines); first differing line: {first_difference:?}\npage:   {:?}\nnative: {:?}",
            files[0].lines().count(),
            first_difference.and_then(|i| files[0].lines().nth(i)),
            first_difference.and_then(|i| native.lines().nth(i)),
        );
    }
    b.close().await;
}

/// The element's text, or "" when there is none.
async fn text(b: &Browser, css: &str) -> String {
    let script = format!("const e = document.querySelector({css:?}); return e ? e.innerText : ''");
    b.client.execute(&script, vec![]).await.unwrap().as_str().unwrap_or_default().to_string()
}

/// Rows of the questions table.
async fn rows_shown(b: &Browser) -> usize {
    let rows = b.client.execute("return document.querySelectorAll('[data-testid=question-row]').length", vec![]).await;
    rows.unwrap().as_u64().unwrap() as usize
}
