//! The Questions page (issue 57): trace questions made in the page from the first 20 CRUXEval
//! samples (each call traced by RustPython in the worker), shown by kind, and downloaded; the
//! download must be byte for byte what `execbench questions` writes natively for the same samples
//! and seed (its own worker processes, the same library), so the page's traces are held against
//! the native engine's, not against our reading of them. A wrong form is refused by field.
//! The questions are then evaluated as a task against two mock models and compared by kind.

use std::time::Duration;

use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;

use crate::common;

const SAMPLES: usize = 20;
const SEED: &str = "3";

/// The command line's questions for the first `SAMPLES` CRUXEval samples, from a file named as
/// the page names the bundled dataset (the name is in every question's source).
fn native_questions() -> String {
    // One folder a call: the tests of this file run at once, and each removes its folder.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("execbench-e2e-questions-{}-{call}", std::process::id()));
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

/// Questions made in the page from 20 samples become the dataset ("Evaluate these questions"),
/// are asked of two mock models (one answers every question right; the other answers the output
/// and coverage questions right and the state and path questions wrong: it predicts outputs
/// without following the run), and the Compare page draws pass@1 by kind of question per model.
#[tokio::test(flavor = "multi_thread")]
async fn questions_made_in_the_page_are_evaluated_and_compared_by_kind() {
    use execbench_mockserver::{AnswerPolicy, MockConfig, MockServer};
    use fantoccini::Locator;

    let native = native_questions();
    let loaded = execbench_core::load_jsonl("questions.jsonl", &native);
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let questions = loaded.samples;
    let kind_of = |id: &str| questions.iter().find(|q| q.id == id).unwrap().meta["kind"].as_str().unwrap().to_owned();
    let wrong = questions.iter().filter(|q| ["state", "path"].contains(&kind_of(&q.id).as_str())).map(|q| q.id.clone());
    let tracer = MockServer::start(questions.clone(), MockConfig::default(), 0).await.unwrap();
    let guesser_config = MockConfig {
        answers: AnswerPolicy { wrong_ids: wrong.collect(), ..Default::default() },
        latency_ms: 150,
        ..Default::default()
    };
    let guesser = MockServer::start(questions.clone(), guesser_config, 0).await.unwrap();

    let site = StaticServer::start(&execbench_testkit::dist_dir());
    let b = Browser::launch().await;
    b.set_viewport(1400, 1000).await;
    b.client.goto(&format!("{}#/questions", site.base_url)).await.unwrap();
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    b.wait_text(".questions .muted", Duration::from_secs(30), |t| t.contains("Dataset: CRUXEval")).await;
    b.fill("[data-testid=questions-seed]", SEED).await;
    b.fill("[data-testid=questions-limit]", &SAMPLES.to_string()).await;
    b.click("[data-testid=questions-start]").await;
    b.wait_text("[data-testid=questions-state]", Duration::from_secs(120), |t| t == "finished").await;
    b.click("[data-testid=questions-evaluate]").await;
    let count = format!("({} samples)", questions.len());
    b.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains(&count)).await;
    let task = b.client.execute("return document.querySelector('[data-testid=eval-task]').value", vec![]).await;
    assert_eq!(task.unwrap(), "question", "Evaluate opens on the question task");

    // The tracer's run goes to its end; the guesser's is cut by a reload and resumed on Runs,
    // over the questions kept as the working dataset.
    for (mock, model) in [(&tracer, "tracer"), (&guesser, "guesser")] {
        select(&b, "[data-testid=eval-model]", "api").await;
        select(&b, "[data-testid=api-provider]", "openai-compatible").await;
        b.fill("[data-testid=api-base-url]", &format!("{}/v1", mock.base_url())).await;
        b.fill("[data-testid=api-model]", model).await;
        b.fill("[data-testid=eval-n]", "1").await;
        b.fill("[data-testid=eval-limit]", "").await;
        b.fill("[data-testid=api-concurrency]", "2").await;
        crate::common::start_api_run(&b).await;
        if model == "guesser" {
            wait_asked(mock, 10, model).await;
            b.client.refresh().await.unwrap();
            b.client.goto(&format!("{}#/runs", site.base_url)).await.unwrap();
            // Enabled and shown: a disabled button (the page busy, or the run still held by the
            // page before the reload) swallows a click, and the run then waits for nothing.
            let resume =
                "[data-testid=run-row][data-state=interrupted] [data-testid=run-resume]:not([disabled]):not([hidden])";
            b.client.wait().at_most(Duration::from_secs(60)).for_element(Locator::Css(resume)).await.unwrap();
            assert!(mock.stats().per_sample.len() < questions.len(), "the run ended before the reload");
            // What the page logs from here (a panic's message goes to console.error), to say why
            // if Resume is not taken.
            b.client
                .execute(
                    "window.logged = []; const error = console.error; console.error = (...a) => { window.logged.push(a.map(String).join(' ')); error(...a); }; window.addEventListener('error', e => window.logged.push('error: ' + e.message)); window.addEventListener('unhandledrejection', e => window.logged.push('rejected: ' + e.reason)); const name = t => t && t.closest ? (t.closest('[data-testid]') || t).getAttribute('data-testid') || t.tagName : String(t); for (const kind of ['mousedown', 'mouseup', 'click']) document.addEventListener(kind, e => window.logged.push(kind + ' on ' + name(e.target) + ' at ' + e.clientX + ',' + e.clientY), true); window.resumeButton = document.querySelector('[data-testid=run-row][data-state=interrupted] [data-testid=run-resume]');",
                    vec![],
                )
                .await
                .unwrap();
            let moved = b.click_steady(resume).await;
            eprintln!("Resume moved {moved} times before it was clicked");
            let interrupted = "[data-testid=run-row][data-state=interrupted]";
            let deadline = std::time::Instant::now() + Duration::from_secs(30);
            while !b.client.find_all(Locator::Css(interrupted)).await.unwrap().is_empty() {
                let said = format!(
                    "{}{}",
                    text(&b, "[data-testid=runs-message]").await,
                    text(&b, "[data-testid=runs-job-error]").await
                );
                if std::time::Instant::now() >= deadline {
                    // What the page shows then, to tell where the run stopped.
                    let page = b.client.execute("return document.body.innerText", vec![]).await.unwrap();
                    eprintln!("the Runs page, Resume not taken:\n{}", page.as_str().unwrap_or_default());
                    let logged = b
                        .client
                        .execute(
                            "const r = window.resumeButton; return [window.logged, r ? r.isConnected : null, r ? JSON.stringify(r.getBoundingClientRect()) : null]",
                            vec![],
                        )
                        .await
                        .unwrap();
                    eprintln!("what the page logged after the click: {logged}");
                    // And the Evaluate job's, where a continuation that is still starting shows.
                    b.client.goto(&format!("{}#/evaluate", site.base_url)).await.unwrap();
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    let job = b.client.execute("return document.querySelector('.evaluate').innerText", vec![]).await;
                    eprintln!("the Evaluate page then:\n{}", job.unwrap().as_str().unwrap_or_default());
                }
                assert!(
                    std::time::Instant::now() < deadline,
                    "Resume left the run interrupted; the page said {said:?}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            wait_asked(mock, questions.len(), model).await;
            let finished = "[data-testid=run-row][data-state=finished]";
            let deadline = std::time::Instant::now() + Duration::from_secs(60);
            while b.client.find_all(Locator::Css(finished)).await.unwrap().len() < 2 {
                assert!(std::time::Instant::now() < deadline, "the resumed run did not finish");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            // Both rows offer the run file; neither CodeCrash's layout, which has no questions.
            let count = |css: &'static str| {
                let b = &b;
                async move { b.client.find_all(Locator::Css(css)).await.unwrap().len() }
            };
            assert_eq!(count("[data-testid=run-row] [data-testid=run-export]").await, 2);
            assert_eq!(count("[data-testid=run-row] [data-testid=run-export-codecrash]").await, 0);
        } else {
            wait_asked(mock, questions.len(), model).await;
            b.wait_text("[data-testid=eval-job]", Duration::from_secs(60), |t| t == "Idle").await;
            assert_eq!(text(&b, "[data-testid=eval-state]").await, "finished", "{model}");
            // The summary gives the run's figure and one a kind of question.
            for (key, figure) in [("question", "100.0"), ("question-coverage", "100.0"), ("question-path", "100.0")] {
                assert_eq!(text(&b, &format!("[data-testid=pass1-{key}-strict]")).await, figure, "{key}");
            }
        }
        let stats = mock.stats();
        assert_eq!(stats.unidentified, 0, "{model}: every prompt was one of the questions");
        let twice = stats.per_sample.values().filter(|n| **n > 1).count();
        assert!(twice <= 2 + 2, "{model}: only questions in flight at the reload are asked again ({twice})");
    }
    b.screenshot("questions-evaluated").await;

    b.client.goto(&format!("{}#/compare", site.base_url)).await.unwrap();
    b.client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("[data-testid=compare-run]"))
        .await
        .unwrap();
    let listed = b
        .client
        .execute("return [...document.querySelectorAll('[data-testid=compare-run]')].map(e => e.dataset.run)", vec![])
        .await
        .unwrap();
    let listed: Vec<String> = serde_json::from_value(listed).unwrap();
    assert_eq!(listed.len(), 2, "{listed:?}");
    for id in &listed {
        b.click(&format!("[data-testid=compare-run][data-run='{id}']")).await;
    }
    b.click("[data-testid=compare-start]").await;
    let chart = "[data-testid=compare-chart-question-kinds-strict]";
    b.client.wait().at_most(Duration::from_secs(20)).for_element(Locator::Css(chart)).await.unwrap();
    let svg = b.client.execute(&format!("return document.querySelector('{chart} svg').outerHTML"), vec![]).await;
    let svg = svg.unwrap().as_str().unwrap().to_owned();
    let asked = |kind: &str| questions.iter().filter(|q| kind_of(&q.id) == kind).count();
    for (model, kind, percent) in [
        ("tracer", "output", "100.0"),
        ("tracer", "state", "100.0"),
        ("tracer", "path", "100.0"),
        ("guesser", "output", "100.0"),
        ("guesser", "coverage", "100.0"),
        ("guesser", "state", "0.0"),
        ("guesser", "path", "0.0"),
    ] {
        let bar = format!("<title>{model} (openai-compatible) · {kind} questions ({} asked): {percent}%", asked(kind));
        assert!(svg.contains(&bar), "{bar} not in the chart:\n{svg}");
    }
    // Every program's chain right for the tracer, none for the guesser (its state or path
    // question is wrong on every program with a whole chain).
    for (model, whole) in [("tracer", "100.0%"), ("guesser", "0.0%")] {
        let chain = format!("<title>{model} (openai-compatible) · whole chain (");
        let at = svg.find(&chain).unwrap_or_else(|| panic!("{chain} not in the chart"));
        let title = &svg[at..at + svg[at..].find("</title>").unwrap()];
        assert!(title.ends_with(&format!("): {whole}")), "{title}");
    }
    // A question's `kind` is not a perturbation: the runs are plain (vanilla) runs of the file.
    let heads = b.wait_text("[data-testid=compare-table] thead", Duration::from_secs(5), |_| true).await;
    assert!(!heads.contains("coverage"), "{heads}");
    b.client.execute(&format!("document.querySelector('{chart}').scrollIntoView()"), vec![]).await.unwrap();
    b.screenshot("questions-compared").await;
    b.close().await;
}

/// Waits until `mock` has been asked `count` distinct questions.
async fn wait_asked(mock: &execbench_mockserver::MockServer, count: usize, model: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while mock.stats().per_sample.len() < count {
        assert!(
            std::time::Instant::now() < deadline,
            "{model}: only {} questions asked",
            mock.stats().per_sample.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn select(b: &Browser, css: &str, value: &str) {
    b.client.find(fantoccini::Locator::Css(css)).await.unwrap().select_by_value(value).await.unwrap();
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
