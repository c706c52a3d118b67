//! End-to-end: the Perturb view in headless Chromium, on the built app (`EXECBENCH_DIST` or
//! `dist/`). Screenshots land in tests/artifacts/perturb-*.png.

use std::time::Duration;

use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;

/// The longest the page's thread may be held while a job runs: far below a blocking run (the
/// whole job takes minutes), above what a loaded CI machine adds to a 10 ms timer.
const MOST_MAIN_THREAD_GAP_MS: f64 = 1000.0;

async fn open_app() -> (Browser, String, StaticServer) {
    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let browser = Browser::launch().await;
    let base = server.base_url.clone();
    (browser, base, server)
}

async fn wait_engine_ready(b: &Browser) {
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
}

async fn scroll_to(b: &Browser, css: &str) {
    let script = format!("document.querySelector('{css}').scrollIntoView({{block: 'start'}}); window.scrollBy(0, -8);");
    b.client.execute(&script, vec![]).await.unwrap();
}

async fn text_of(b: &Browser, css: &str) -> String {
    b.wait_text(css, Duration::from_secs(10), |_| true).await
}

#[tokio::test(flavor = "multi_thread")]
async fn perturb_one_sample_and_both_runs_agree() {
    let (b, base, _server) = open_app().await;
    b.client.goto(&format!("{base}#/perturb")).await.unwrap();
    b.wait_text("[data-testid=perturb-empty]", Duration::from_secs(20), |t| t.contains("Pick a sample")).await;
    b.wait_text("[data-testid=perturb-all-stats]", Duration::from_secs(20), |t| t.starts_with("0 / 0")).await;
    wait_engine_ready(&b).await;
    b.screenshot("perturb-empty").await;

    // REN, seed 0 on sample_0 (the defaults).
    b.fill("[data-testid=sample-id-input]", "sample_0").await;
    b.click("[data-testid=perturb-one]").await;
    let verdict = b
        .wait_text("[data-testid=perturb-verdict]", Duration::from_secs(60), |t| t == "agree" || t == "disagree")
        .await;
    let reason = if verdict == "agree" { String::new() } else { text_of(&b, "[data-testid=perturb-reason]").await };
    assert_eq!(verdict, "agree", "{reason}");
    let perturbed = text_of(&b, "[data-testid=perturbed-code]").await;
    assert!(perturbed.contains("Var_1"), "{perturbed}");
    let original = text_of(&b, "[data-testid=original-code]").await;
    assert!(!original.contains("Var_1"), "{original}");
    let marks = b
        .client
        .execute("return document.querySelectorAll('[data-testid=perturbed-code] mark.changed').length", vec![])
        .await
        .unwrap();
    assert!(marks.as_u64().unwrap() > 0, "the changes are marked");
    assert!(text_of(&b, "[data-testid=edit-list]").await.contains("edit"));
    let values = b
        .client
        .execute("return [...document.querySelectorAll('[data-testid=result-value]')].map(e => e.textContent)", vec![])
        .await
        .unwrap();
    let values: Vec<String> = serde_json::from_value(values).unwrap();
    assert_eq!(values, vec!["[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]"; 2]);
    scroll_to(&b, ".perturb-one").await;
    b.screenshot("perturb-one-ren").await;

    // PSC_ALL on a longer program: all three stages, marks carried to both texts.
    b.fill("[data-testid=sample-id-input]", "sample_100").await;
    b.client
        .find(fantoccini::Locator::Css("[data-testid=kind]"))
        .await
        .unwrap()
        .select_by_value("PSC_ALL")
        .await
        .unwrap();
    b.click("[data-testid=perturb-one]").await;
    let verdict = b
        .wait_text("[data-testid=perturb-verdict]", Duration::from_secs(60), |t| t == "agree" || t == "disagree")
        .await;
    assert_eq!(verdict, "agree");
    // Each stage's edits have their colour, named in a legend in the order the stages ran.
    let stages = b
        .client
        .execute(
            "return [...document.querySelectorAll('[data-testid=stage-legend] mark')].map(m => m.textContent)",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(stages, serde_json::json!(["conditions", "garbage code", "renaming"]));
    let coloured = b.client.execute("return ['stage-ren', 'stage-rtf', 'stage-gbc'].map(c => document.querySelectorAll('[data-testid=perturbed-code] mark.' + c).length)", vec![]).await.unwrap();
    assert!(coloured.as_array().unwrap().iter().all(|n| n.as_u64().unwrap() > 0), "{coloured}");
    scroll_to(&b, ".comparison").await;
    b.screenshot("perturb-one-psc-all").await;

    // Bad input gives a message, never a panic.
    b.fill("[data-testid=seed]", "x").await;
    b.click("[data-testid=perturb-one]").await;
    assert_eq!(text_of(&b, "[data-testid=perturb-error]").await, "seed: `x` is not a whole number ≥ 0");
    b.fill("[data-testid=seed]", "0").await;
    // p and once belong to the message kinds: shown for MCC, not for PSC_ALL.
    assert!(b.client.find(fantoccini::Locator::Css("[data-testid=p]")).await.is_err(), "p is hidden for PSC_ALL");
    b.client.find(fantoccini::Locator::Css("[data-testid=kind]")).await.unwrap().select_by_value("MCC").await.unwrap();
    b.fill("[data-testid=p]", "1.5").await;
    b.click("[data-testid=perturb-one]").await;
    b.wait_text("[data-testid=perturb-error]", Duration::from_secs(10), |t| t == "p must be between 0 and 1, not 1.5")
        .await;
    b.fill("[data-testid=p]", "1").await;
    b.fill("[data-testid=sample-id-input]", "no_such_sample").await;
    b.click("[data-testid=perturb-one]").await;
    b.wait_text("[data-testid=perturb-error]", Duration::from_secs(10), |t| {
        t == "there is no sample `no_such_sample` in CRUXEval"
    })
    .await;

    b.click("[data-testid=source-paste]").await;
    b.fill("[data-testid=paste-code]", "def f(x):\n    return (x +\n").await;
    b.fill("[data-testid=paste-call]", "f(1)").await;
    b.click("[data-testid=perturb-one]").await;
    let error =
        b.wait_text("[data-testid=perturb-error]", Duration::from_secs(10), |t| t.contains("does not parse")).await;
    assert_eq!(error, "the code does not parse: syntax error on line 2: `return (x +`");
    scroll_to(&b, ".perturb-one").await;
    b.screenshot("perturb-error").await;

    // Pasted code without an expected output: the original's run supplies it.
    b.fill(
        "[data-testid=paste-code]",
        "def total(xs):\n    s = 0\n    for x in xs:\n        if x % 2 == 0:\n            s += x\n    return s\n",
    )
    .await;
    b.fill("[data-testid=paste-call]", "total([1, 2, 3, 4])").await;
    b.client.find(fantoccini::Locator::Css("[data-testid=kind]")).await.unwrap().select_by_value("RTF").await.unwrap();
    b.click("[data-testid=perturb-one]").await;
    let verdict = b
        .wait_text("[data-testid=perturb-verdict]", Duration::from_secs(60), |t| t == "agree" || t == "disagree")
        .await;
    assert_eq!(verdict, "agree");

    // REN renames the function in the call too; the edit list shows that edit as the call's.
    b.client.find(fantoccini::Locator::Css("[data-testid=kind]")).await.unwrap().select_by_value("REN").await.unwrap();
    b.click("[data-testid=perturb-one]").await;
    let verdict = b
        .wait_text("[data-testid=perturb-verdict]", Duration::from_secs(60), |t| t == "agree" || t == "disagree")
        .await;
    assert_eq!(verdict, "agree");
    assert_eq!(text_of(&b, "[data-testid=perturbed-call]").await, "f([1, 2, 3, 4])");
    let rows = b.client.execute("return [...document.querySelectorAll('[data-testid=edit-list] tbody tr')].map(r => [...r.cells].map(c => c.textContent))", vec![]).await.unwrap();
    let rows: Vec<Vec<String>> = serde_json::from_value(rows).unwrap();
    assert!(
        rows.contains(&vec!["REN".to_string(), "call".to_string(), "total".to_string(), "f".to_string()]),
        "{rows:?}"
    );
    assert!(rows.contains(&vec!["REN".to_string(), "1".to_string(), "total".to_string(), "f".to_string()]), "{rows:?}");
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sample_page_links_to_its_perturbation() {
    let (b, base, _server) = open_app().await;
    b.client.goto(&format!("{base}#/sample/sample_3")).await.unwrap();
    b.click("[data-testid=perturb-link]").await;
    let verdict = b
        .wait_text("[data-testid=perturb-verdict]", Duration::from_secs(90), |t| t == "agree" || t == "disagree")
        .await;
    assert_eq!(verdict, "agree");
    assert!(text_of(&b, "[data-testid=perturbed-code]").await.contains("Var_1"));
    let hash = b.client.execute("return location.hash", vec![]).await.unwrap();
    assert_eq!(hash.as_str(), Some("#/perturb/sample_3?kind=REN&seed=0"));

    // A perturbation demo is a link: opened fresh, it shows that sample perturbed that way.
    b.client.goto(&format!("{base}#/perturb/sample_5?kind=RTF&seed=3")).await.unwrap();
    b.client.refresh().await.unwrap();
    let verdict = b
        .wait_text("[data-testid=perturb-verdict]", Duration::from_secs(90), |t| t == "agree" || t == "disagree")
        .await;
    assert_eq!(verdict, "agree");
    let form = b.client.execute("return [document.querySelector('[data-testid=kind]').value, document.querySelector('[data-testid=seed]').value, document.querySelector('[data-testid=sample-id-input]').value]", vec![]).await.unwrap();
    assert_eq!(form, serde_json::json!(["RTF", "3", "sample_5"]));
    // The profile rides in the link too, and the form shows it.
    b.client.goto(&format!("{base}#/perturb/sample_1?kind=GBC&seed=4&profile=codecrash")).await.unwrap();
    b.client.refresh().await.unwrap();
    let verdict = b
        .wait_text("[data-testid=perturb-verdict]", Duration::from_secs(90), |t| t == "agree" || t == "disagree")
        .await;
    assert_eq!(verdict, "agree");
    let profile =
        b.client.execute("return document.querySelector('[data-testid=profile]').value", vec![]).await.unwrap();
    assert_eq!(profile, serde_json::json!("codecrash"));
    b.close().await;
}

/// CodeCrash's conventions in the page: GBC (new `else` clauses, nested garbage) and MCC (only
/// return messages name a value) over all of CRUXEval with the `codecrash` profile, every row
/// verified in the worker. The profile normalises every program by `ast.unparse` first: the
/// baseline it downloads is, program for program, CPython's `ast.unparse` (the machine's python3),
/// and the perturbed rows' originals are those programs.
#[tokio::test(flavor = "multi_thread")]
async fn the_codecrash_profile_over_cruxeval_verifies() {
    let (b, base, _server) = open_app().await;
    b.client.goto(&format!("{base}#/perturb")).await.unwrap();
    wait_engine_ready(&b).await;
    b.client
        .find(fantoccini::Locator::Css("[data-testid=all-profile]"))
        .await
        .unwrap()
        .select_by_value("codecrash")
        .await
        .unwrap();
    for kind in ["RTF", "GBC", "MCC"] {
        b.click(&format!("[data-testid=kind-{kind}]")).await;
    }
    b.click("[data-testid=perturb-all-start]").await;
    let state = b.wait_text("[data-testid=perturb-all-state]", Duration::from_secs(900), |t| !t.is_empty()).await;
    assert_eq!(state, "finished");
    for kind in ["GBC", "MCC"] {
        assert_eq!(text_of(&b, &format!("[data-testid=verified-{kind}]")).await, "800", "{kind}");
    }
    let samples = execbench_core::load_jsonl(
        "cruxeval.jsonl",
        &std::fs::read_to_string(execbench_mockserver::bundled_dataset_path()).unwrap(),
    )
    .samples;
    let codes: Vec<&str> = samples.iter().map(|s| s.code.as_str()).collect();
    let script = "import ast, json, sys\nprint(json.dumps([ast.unparse(ast.parse(c)) for c in json.load(sys.stdin)]))";
    let mut child = std::process::Command::new("python3")
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), serde_json::to_string(&codes).unwrap().as_bytes())
        .unwrap();
    let cpython: Vec<String> = serde_json::from_slice(&child.wait_with_output().unwrap().stdout).unwrap();
    let changed = samples.iter().zip(&cpython).filter(|(s, c)| s.code.trim_end() != c.trim_end()).count();
    let normalised = b.client.execute("const n = document.querySelector('[data-testid=normalised]'); return [n.dataset.done, n.dataset.changed, n.dataset.failed]", vec![]).await.unwrap();
    assert_eq!(normalised, serde_json::json!(["800", changed.to_string(), "0"]));
    b.client.execute("window.savedBlobs = []; const make = URL.createObjectURL; URL.createObjectURL = blob => { window.savedBlobs.push(blob); return make(blob); };", vec![]).await.unwrap();
    b.click("[data-testid=download-baseline]").await;
    b.click("[data-testid=download-jsonl]").await;
    let saved = b.client.execute_async("const done = arguments[arguments.length - 1]; Promise.all(window.savedBlobs.map(b => b.text())).then(done);", vec![]).await.unwrap();
    let saved: Vec<String> = serde_json::from_value(saved).unwrap();
    let baseline = execbench_core::load_jsonl("baseline.jsonl", &saved[0]);
    assert!(baseline.errors.is_empty(), "{:?}", baseline.errors);
    let baseline_codes: Vec<&str> = baseline.samples.iter().map(|s| s.code.trim_end()).collect();
    assert_eq!(baseline_codes, cpython.iter().map(|c| c.trim_end()).collect::<Vec<_>>());
    let rows: Vec<serde_json::Value> = saved[1].lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for row in &rows {
        let index: usize = row["id"].as_str().unwrap().trim_start_matches("sample_").parse().unwrap();
        assert_eq!(row["original_code"].as_str().unwrap().trim_end(), cpython[index].trim_end(), "{}", row["id"]);
    }
    scroll_to(&b, ".perturb-all").await;
    b.screenshot("perturb-all-codecrash-normalised").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn perturb_all_of_cruxeval_with_rtf_and_verify_every_row() {
    let (b, base, _server) = open_app().await;
    b.client.goto(&format!("{base}#/perturb")).await.unwrap();
    wait_engine_ready(&b).await;
    b.wait_text("[data-testid=perturb-all-start]", Duration::from_secs(20), |t| !t.is_empty()).await;

    // Bad seeds are refused with a message.
    b.fill("[data-testid=seeds]", "4-2").await;
    b.click("[data-testid=perturb-all-start]").await;
    assert_eq!(text_of(&b, "[data-testid=perturb-all-error]").await, "seeds: the range `4-2` runs backwards");
    b.fill("[data-testid=seeds]", "0").await;

    // RTF is the default choice; seed 0.
    b.start_responsiveness_probe().await;
    b.click("[data-testid=perturb-all-start]").await;
    b.wait_text("[data-testid=perturb-all-stats]", Duration::from_secs(60), |t| !t.starts_with("0 /")).await;
    scroll_to(&b, ".perturb-all").await;
    b.screenshot("perturb-all-running").await;

    let state = b.wait_text("[data-testid=perturb-all-state]", Duration::from_secs(900), |t| !t.is_empty()).await;
    assert_eq!(state, "finished");
    // The page answered all along: its own timer was never held up for long by the job (800
    // perturbations on the page's thread, in slices, and their verification in the workers).
    let (longest, ticks) = b.longest_timer_gap_ms().await;
    println!("perturb all: longest timer gap {longest:.0} ms over {ticks} timer runs");
    // A warm pool can finish the 800 in about a second: the count only shows the probe ran.
    assert!(longest < MOST_MAIN_THREAD_GAP_MS && ticks >= 10, "longest gap {longest:.0} ms, {ticks} timer runs");
    let stats = text_of(&b, "[data-testid=perturb-all-stats]").await;
    assert!(stats.starts_with("800 / 800 programs"), "{stats}");
    let verified = text_of(&b, "[data-testid=verified-RTF]").await;
    let failures = if verified == "800" { String::new() } else { text_of(&b, "[data-testid=perturb-failures]").await };
    assert_eq!(verified, "800", "not verified:\n{failures}");
    assert_eq!(text_of(&b, "[data-testid=failed-RTF]").await, "0");
    assert_eq!(text_of(&b, "[data-testid=refused-RTF]").await, "0");
    // Programs without `if`/`elif`/`while` are exported as they were, and counted as such.
    let cruxeval =
        std::fs::read_to_string(execbench_testkit::repo_root().join("public/data/cruxeval/cruxeval.jsonl")).unwrap();
    let samples = execbench_core::load_jsonl("cruxeval.jsonl", &cruxeval).samples;
    let options = execbench_perturb::Options::default();
    let native =
        execbench_perturb::perturb_dataset(&samples, "cruxeval", &[execbench_perturb::Kind::Rtf], &[0], &options, None);
    let unchanged = native.unchanged_of(execbench_perturb::Kind::Rtf);
    assert!(unchanged > 0);
    assert_eq!(text_of(&b, "[data-testid=unchanged-RTF]").await, unchanged.to_string());
    // Both stages are timed: perturbing on the page's thread, verifying in the worker.
    for stage in ["perturb", "verify"] {
        let ms = b
            .client
            .execute(&format!("return document.querySelector('[data-testid={stage}-ms-RTF]').dataset.ms"), vec![])
            .await
            .unwrap();
        let ms: f64 = ms.as_str().and_then(|m| m.parse().ok()).unwrap_or(-1.0);
        assert!(ms > 0.0, "{stage} time of RTF: {ms}");
    }
    assert_eq!(text_of(&b, "[data-testid=download-jsonl]").await, "Download 800 verified rows (JSONL)");
    scroll_to(&b, ".perturb-all").await;
    b.screenshot("perturb-all-done").await;

    // The downloads are byte for byte what the library (and so the command line) writes.
    assert_eq!(native.rows.len(), 800);
    b.client.execute("window.savedBlobs = []; const make = URL.createObjectURL; URL.createObjectURL = blob => { window.savedBlobs.push(blob); return make(blob); };", vec![]).await.unwrap();
    b.click("[data-testid=download-jsonl]").await;
    b.click("[data-testid=download-codecrash]").await;
    let saved = b.client.execute_async("const done = arguments[arguments.length - 1]; Promise.all(window.savedBlobs.map(b => b.text())).then(done);", vec![]).await.unwrap();
    let saved: Vec<String> = serde_json::from_value(saved).unwrap();
    assert_eq!(saved.len(), 2);
    // Each row carries its provenance: the dataset, its hash, the app's version, the perturbation.
    let provenance = execbench_core::Provenance::of_dataset(env!("CARGO_PKG_VERSION"), "cruxeval", &samples);
    assert!(
        saved[0] == execbench_perturb::to_jsonl(&native.rows, &provenance),
        "the page's JSONL differs from the library's"
    );
    assert!(
        saved[1] == execbench_perturb::to_codecrash_jsonl(&native.rows, &provenance),
        "the page's CodeCrash JSONL differs from the library's"
    );
    let first: serde_json::Value = serde_json::from_str(saved[1].lines().next().unwrap()).unwrap();
    assert_eq!((first["perturbation"].as_str(), first["seed"].as_u64()), (Some("RTF"), Some(0)), "{first}");
    assert_eq!(first["provenance"]["dataset_hash"].as_str(), Some(provenance.dataset_hash.as_str()), "{first}");
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_dataset_run_can_be_stopped() {
    let (b, base, _server) = open_app().await;
    b.client.goto(&format!("{base}#/perturb")).await.unwrap();
    wait_engine_ready(&b).await;
    b.click("[data-testid=kind-REN]").await;
    b.fill("[data-testid=seeds]", "0-1").await;
    // REN takes no seed: the page says so, and perturbs it once (800 + RTF's 2 x 800 programs).
    let note = text_of(&b, "[data-testid=seeds-note]").await;
    assert!(note.starts_with("REN draws nothing at random"), "{note}");
    b.click("[data-testid=perturb-all-start]").await;
    b.wait_text("[data-testid=perturb-all-stats]", Duration::from_secs(60), |t| {
        t.contains("/ 2400 programs") && !t.starts_with("0 /")
    })
    .await;
    b.click("[data-testid=perturb-all-stop]").await;
    assert_eq!(
        b.wait_text("[data-testid=perturb-all-state]", Duration::from_secs(30), |t| !t.is_empty()).await,
        "stopped before the end"
    );
    let summary = text_of(&b, "[data-testid=perturb-summary]").await;
    assert!(summary.contains("REN") && summary.contains("RTF"), "{summary}");
    scroll_to(&b, ".perturb-all").await;
    b.screenshot("perturb-all-stopped").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn every_kind_over_cruxeval_verifies() {
    let (b, base, _server) = open_app().await;
    b.client.goto(&format!("{base}#/perturb")).await.unwrap();
    wait_engine_ready(&b).await;
    for kind in ["REN", "GBC", "PSC_ALL", "MCC", "MPS", "MHC"] {
        b.click(&format!("[data-testid=kind-{kind}]")).await;
    }
    b.click("[data-testid=perturb-all-start]").await;
    let state = b.wait_text("[data-testid=perturb-all-state]", Duration::from_secs(1200), |t| !t.is_empty()).await;
    assert_eq!(state, "finished");
    let stats = text_of(&b, "[data-testid=perturb-all-stats]").await;
    println!("all seven kinds: {stats}");
    scroll_to(&b, ".perturb-all").await;
    b.screenshot("perturb-all-kinds").await;
    let mut not_verified = Vec::new();
    for kind in ["REN", "RTF", "GBC", "PSC_ALL", "MCC", "MPS", "MHC"] {
        let verified = text_of(&b, &format!("[data-testid=verified-{kind}]")).await;
        if verified != "800" {
            not_verified.push(format!("{kind}: {verified} verified"));
        }
    }
    let failures =
        if not_verified.is_empty() { String::new() } else { text_of(&b, "[data-testid=perturb-failures]").await };
    assert!(not_verified.is_empty(), "{not_verified:?}\n{failures}");
    b.close().await;
}

/// The whole-dataset form offers MHC's prediction task, as the single-program form and the command
/// line's `--prediction` do: every sample gets a wrong call on its definition line, checked wrong
/// in the worker.
#[tokio::test(flavor = "multi_thread")]
async fn mhc_for_input_prediction_over_cruxeval_verifies() {
    let (b, base, _server) = open_app().await;
    b.client.goto(&format!("{base}#/perturb")).await.unwrap();
    wait_engine_ready(&b).await;
    b.click("[data-testid=kind-RTF]").await; // on by default
    let shown = b
        .client
        .execute("return document.querySelectorAll('[data-testid=all-prediction]').length", vec![])
        .await
        .unwrap();
    assert_eq!(shown.as_u64(), Some(0), "the prediction choice is MHC's only");
    b.click("[data-testid=kind-MHC]").await;
    b.client
        .find(fantoccini::Locator::Css("[data-testid=all-prediction]"))
        .await
        .unwrap()
        .select_by_value("input")
        .await
        .unwrap();
    b.click("[data-testid=perturb-all-start]").await;
    let state = b.wait_text("[data-testid=perturb-all-state]", Duration::from_secs(900), |t| !t.is_empty()).await;
    assert_eq!(state, "finished");
    let verified = text_of(&b, "[data-testid=verified-MHC]").await;
    let failures = if verified == "800" { String::new() } else { text_of(&b, "[data-testid=perturb-failures]").await };
    assert_eq!(verified, "800", "not verified:\n{failures}");
    assert_eq!(text_of(&b, "[data-testid=unchanged-MHC]").await, "0");
    b.client.execute("window.savedBlobs = []; const make = URL.createObjectURL; URL.createObjectURL = blob => { window.savedBlobs.push(blob); return make(blob); };", vec![]).await.unwrap();
    b.click("[data-testid=download-jsonl]").await;
    let saved = b.client.execute_async("const done = arguments[arguments.length - 1]; Promise.all(window.savedBlobs.map(b => b.text())).then(done);", vec![]).await.unwrap();
    let saved: Vec<String> = serde_json::from_value(saved).unwrap();
    let rows: Vec<serde_json::Value> = saved[0].lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 800);
    for row in &rows {
        assert_eq!(row["options"]["prediction"].as_str(), Some("input"), "{row}");
        assert!(row["code"].as_str().unwrap().contains("  # The function call is f("), "{row}");
    }
    scroll_to(&b, ".perturb-all").await;
    b.screenshot("perturb-all-mhc-input").await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn refusals_of_an_imported_dataset_are_listed_with_reasons() {
    let dir = std::env::temp_dir().join(format!("execbench-e2e-perturb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mine.jsonl");
    let rows = [
        r#"{"id": "plain", "code": "def f(a):\n    return a + 1", "input": "1", "output": "2"}"#,
        r#"{"id": "uses_locals", "code": "def f(a):\n    return sorted(locals())", "input": "1", "output": "['a']"}"#,
    ];
    std::fs::write(&file, rows.join("\n")).unwrap();
    let (b, base, _server) = open_app().await;
    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
    let input = b.client.find(fantoccini::Locator::Css("[data-testid=import]")).await.unwrap();
    input.send_keys(file.to_str().unwrap()).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "2 of 2").await;

    b.client.goto(&format!("{base}#/perturb")).await.unwrap();
    wait_engine_ready(&b).await;
    b.click("[data-testid=kind-REN]").await;
    b.click("[data-testid=perturb-all-start]").await;
    assert_eq!(
        b.wait_text("[data-testid=perturb-all-state]", Duration::from_secs(60), |t| !t.is_empty()).await,
        "finished"
    );
    assert_eq!(text_of(&b, "[data-testid=verified-REN]").await, "1");
    assert_eq!(text_of(&b, "[data-testid=refused-REN]").await, "1");
    assert_eq!(text_of(&b, "[data-testid=verified-RTF]").await, "2");
    let failures = text_of(&b, "[data-testid=perturb-failures]").await;
    assert!(failures.contains("uses_locals") && failures.contains("locals"), "{failures}");
    assert_eq!(text_of(&b, "[data-testid=download-jsonl]").await, "Download 3 verified rows (JSONL)");
    let picked =
        b.client.execute("return document.querySelector('[data-testid=sample-id-input]').value", vec![]).await.unwrap();
    assert_eq!(picked.as_str(), Some("plain"), "the id picker starts at the imported dataset's first sample");
    scroll_to(&b, ".perturb-all").await;
    b.screenshot("perturb-all-refusals").await;

    // The verified rows are browsable: by kind, by sample, changed ones only; any opens in the
    // single view at the address that reproduces it.
    assert_eq!(text_of(&b, "[data-testid=rows-count]").await, "3 of 3 rows");
    b.client
        .find(fantoccini::Locator::Css("[data-testid=rows-kind]"))
        .await
        .unwrap()
        .select_by_value("RTF")
        .await
        .unwrap();
    b.wait_text("[data-testid=rows-count]", Duration::from_secs(5), |t| t == "2 of 3 rows").await;
    b.fill("[data-testid=rows-sample]", "PLAIN").await;
    b.wait_text("[data-testid=rows-count]", Duration::from_secs(5), |t| t == "1 of 3 rows").await;
    b.client
        .find(fantoccini::Locator::Css("[data-testid=rows-kind]"))
        .await
        .unwrap()
        .select_by_value("")
        .await
        .unwrap();
    b.wait_text("[data-testid=rows-count]", Duration::from_secs(5), |t| t == "2 of 3 rows").await;
    let kinds = b
        .client
        .execute(
            "return [...document.querySelectorAll('[data-testid=perturbed-row]')].map(r => r.dataset.kind)",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(kinds, serde_json::json!(["REN", "RTF"]));
    scroll_to(&b, "[data-testid=perturbed-rows]").await;
    b.screenshot("perturb-all-rows").await;
    b.click("[data-testid=perturbed-row][data-kind=REN] [data-testid=open-row]").await;
    b.wait_text("[data-testid=perturbed-code]", Duration::from_secs(30), |t| t.contains("Var_1")).await;
    assert_eq!(b.client.execute("return location.hash", vec![]).await.unwrap(), "#/perturb/plain?kind=REN&seed=0");
    let exported = execbench_perturb::perturb_row(
        &execbench_core::load_jsonl("mine.jsonl", rows[0]).samples[0],
        "mine.jsonl",
        execbench_perturb::Kind::Ren,
        &execbench_perturb::Options::default(),
    );
    let shown = text_of(&b, "[data-testid=perturbed-code]").await;
    assert_eq!(
        shown.trim_end(),
        exported.expect("REN perturbs `plain`").code.trim_end(),
        "the single view shows the row's program"
    );
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// MHC's wrong answers from a model, in the page: the mock model server (real HTTP on 127.0.0.1)
/// answers odd samples wrong at once, `sample_2` wrong when asked again, and the others with the
/// true answer every time. Each proposal is checked in the worker; a model that keeps proposing
/// the truth is asked 3 times, then its sample falls back on the offline proposals, listed with
/// why. Perturbing again asks nothing (the proposals are kept in this browser, without the key).
#[tokio::test(flavor = "multi_thread")]
async fn mhc_with_wrong_answers_from_a_model() {
    use execbench_mockserver::{AnswerPolicy, MockConfig, MockServer, bundled_dataset, bundled_dataset_path};
    const KEY: &str = "sk-mhc-e2e-SECRET";
    let dir = std::env::temp_dir().join(format!("execbench-e2e-perturb-mhc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("crux20.jsonl");
    let text = std::fs::read_to_string(bundled_dataset_path()).unwrap();
    std::fs::write(&file, text.lines().take(20).collect::<Vec<_>>().join("\n")).unwrap();
    let answers = AnswerPolicy {
        wrong_every: Some(2),
        wrong_from_attempt: [("sample_2".to_string(), 2)].into(),
        ..Default::default()
    };
    let mock =
        MockServer::start(bundled_dataset().unwrap(), MockConfig { answers: answers.clone(), ..Default::default() }, 0)
            .await
            .unwrap();
    // What the policy implies: requests per sample (3 for a model that never changes its mind).
    let expected: Vec<u32> = (0..20)
        .map(|i| if answers.is_right_on(i, &format!("sample_{i}"), 1) { if i == 2 { 2 } else { 3 } } else { 1 })
        .collect();
    let fell_back: Vec<String> = (0..20).filter(|&i| expected[i] == 3).map(|i| format!("sample_{i}")).collect();

    let (b, base, _server) = open_app().await;
    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
    b.client
        .find(fantoccini::Locator::Css("[data-testid=import]"))
        .await
        .unwrap()
        .send_keys(file.to_str().unwrap())
        .await
        .unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "20 of 20").await;
    b.client.goto(&format!("{base}#/perturb")).await.unwrap();
    wait_engine_ready(&b).await;
    b.click("[data-testid=kind-RTF]").await; // on by default
    b.click("[data-testid=kind-MHC]").await;
    b.client
        .find(fantoccini::Locator::Css("[data-testid=wrong-answers]"))
        .await
        .unwrap()
        .select_by_value("model")
        .await
        .unwrap();
    b.client
        .find(fantoccini::Locator::Css("[data-testid=api-provider]"))
        .await
        .unwrap()
        .select_by_value("openai-compatible")
        .await
        .unwrap();
    b.fill("[data-testid=api-base-url]", &format!("{}/v1", mock.base_url())).await;
    b.fill("[data-testid=api-model]", "mock-model").await;
    b.fill("[data-testid=api-key]", KEY).await;

    let run_once = || async {
        b.click("[data-testid=perturb-all-start]").await;
        let state = b.wait_text("[data-testid=perturb-all-state]", Duration::from_secs(300), |t| !t.is_empty()).await;
        let error = b
            .client
            .execute(
                "const e = document.querySelector('[data-testid=perturb-all-error]'); return e ? e.textContent : ''",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(state, "finished", "{error}");
        assert_eq!(
            text_of(&b, "[data-testid=verified-MHC]").await,
            "20",
            "{}",
            text_of(&b, "[data-testid=perturb-all-stats]").await
        );
        let summary = b.client.execute("const s = document.querySelector('[data-testid=model-claims]'); return [s.dataset.fromModel, s.dataset.fellBack, s.dataset.requests, s.dataset.fromCache, s.textContent]", vec![]).await.unwrap();
        serde_json::from_value::<Vec<String>>(summary).unwrap()
    };
    let first = run_once().await;
    let per_sample: Vec<u32> =
        (0..20).map(|i| mock.stats().per_sample.get(&format!("sample_{i}")).copied().unwrap_or(0)).collect();
    assert_eq!(per_sample, expected, "requests per sample");
    let total: u32 = expected.iter().sum();
    assert_eq!(
        first[..4],
        [(20 - fell_back.len()).to_string(), fell_back.len().to_string(), total.to_string(), "0".to_string()],
        "{}",
        first[4]
    );
    let listed = b.client.execute("return [...document.querySelectorAll('[data-testid=model-claims-fell-back]')].map(e => [e.dataset.id, e.textContent])", vec![]).await.unwrap();
    let listed: Vec<(String, String)> = serde_json::from_value(listed).unwrap();
    assert_eq!(listed.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>(), fell_back);
    assert!(
        listed
            .iter()
            .all(|(_, why)| why.contains("3 proposals, none usable") && why.contains("that is the true return value")),
        "{listed:?}"
    );
    scroll_to(&b, "[data-testid=model-claims]").await;
    b.screenshot("perturb-all-mhc-model").await;

    // The rows: the model's claim where it gave one, an offline one elsewhere.
    b.client.execute("window.savedBlobs = []; const make = URL.createObjectURL; URL.createObjectURL = blob => { window.savedBlobs.push(blob); return make(blob); };", vec![]).await.unwrap();
    b.click("[data-testid=download-jsonl]").await;
    let saved = b.client.execute_async("const done = arguments[arguments.length - 1]; Promise.all(window.savedBlobs.map(b => b.text())).then(done);", vec![]).await.unwrap();
    let saved: Vec<String> = serde_json::from_value(saved).unwrap();
    let rows: Vec<serde_json::Value> = saved[0].lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 20);
    for row in &rows {
        let (id, code, output) =
            (row["id"].as_str().unwrap(), row["code"].as_str().unwrap(), row["output"].as_str().unwrap());
        // The mock's wrong output answer: `None`, or `0` when the output is `None`.
        let model_claim = format!("# The return value is {}", if output == "None" { "0" } else { "None" });
        assert_eq!(code.contains(&model_claim), !fell_back.iter().any(|f| f == id), "{id}: {code}");
    }
    let kept = b.client.execute("return localStorage.getItem('execbench.mhc-proposals')", vec![]).await.unwrap();
    let kept = kept.as_str().unwrap_or_default().to_string();
    assert_eq!(kept.lines().count(), 20, "{kept}");
    assert!(!kept.contains(KEY), "the key is not kept with the proposals");

    // Again: nothing asked, the same rows.
    let again = run_once().await;
    assert_eq!(again[..4], [first[0].clone(), first[1].clone(), "0".to_string(), "20".to_string()], "{}", again[4]);
    let per_sample_again: Vec<u32> =
        (0..20).map(|i| mock.stats().per_sample.get(&format!("sample_{i}")).copied().unwrap_or(0)).collect();
    assert_eq!(per_sample_again, expected, "nothing asked the second time");

    // A row whose claim was the model's opens in the single view as that same program: the
    // address carries the claim, so nothing is asked again.
    b.click("[data-testid=open-row][href*='/sample_1?']").await;
    let row_code = rows.iter().find(|r| r["id"] == "sample_1").unwrap()["code"].as_str().unwrap().to_string();
    let shown = b
        .wait_text("[data-testid=perturbed-code]", Duration::from_secs(30), |t| t.contains("# The return value is"))
        .await;
    assert_eq!(shown.trim_end(), row_code.trim_end());
    assert_eq!(
        b.wait_text("[data-testid=perturb-verdict]", Duration::from_secs(30), |t| t == "agree" || t == "disagree")
            .await,
        "agree"
    );
    let hash = b.client.execute("return location.hash", vec![]).await.unwrap();
    assert!(hash.as_str().unwrap().contains("kind=MHC") && hash.as_str().unwrap().contains("&claim=None"), "{hash}");
    assert_eq!(mock.stats().per_sample.get("sample_1").copied(), Some(expected[1]), "opening a row asks nothing");
    b.screenshot("perturb-one-mhc-model-claim").await;
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}
