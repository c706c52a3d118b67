//! The in-browser model ("In this browser (no key)", issue 36) end to end: the built app in
//! headless Chromium, the model worker's real module, the tiny random-weight fixtures of
//! crates/localmodel served by the test's static server under `/models/` (same origin), which
//! counts requests and can drop a connection mid-file.
//!
//! Download (progress, a dropped connection resumed with `Range`, SHA-256 checked), 20 samples
//! evaluated, Stop, a reload, Resume from the Runs page with the kept files (no second download),
//! the run in Compare; Test connection, Remove, and what Resume asks for when the kept file has
//! another hash or the run was imported into a browser that keeps nothing;
//! and the faults: a wrong checksum refused, a storage quota too small for the file. The model
//! worker's module is fetched only once the provider is picked, never by the first load.

use crate::common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use execbench_model_files::download::Checksum;
use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::{SUB_PATH, StaticServer};
use fantoccini::Locator;
use serde_json::{Value, json};

const GGUF: &str = "tiny-q8_0.gguf";
const TOKENIZER: &str = "tokenizer.json";

fn fixtures() -> PathBuf {
    execbench_testkit::repo_root().join("crates/localmodel/tests/fixtures")
}

fn sha256_of(name: &str) -> String {
    Checksum::of(&std::fs::read(fixtures().join(name)).unwrap())
}

async fn js(b: &Browser, script: &str) -> Value {
    b.client.execute(script, vec![]).await.unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
}

async fn select(b: &Browser, css: &str, value: &str) {
    let element = b
        .client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no `{css}`: {e}"));
    element.select_by_value(value).await.unwrap();
}

/// The app under `/execbench/` and the fixtures under `/models/`, from one origin.
fn serve() -> StaticServer {
    StaticServer::mount(vec![
        (SUB_PATH.to_string(), execbench_testkit::dist_dir()),
        ("/models/".to_string(), fixtures()),
    ])
}

/// GETs of model files the server has seen (a HEAD asks only the size).
fn model_gets(server: &StaticServer) -> Vec<(String, Option<String>)> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.method == "GET" && r.path.starts_with("/models/"))
        .map(|r| (r.path, r.range))
        .collect()
}

/// Opens Evaluate, picks the in-browser provider and the custom entry with the fixtures' URLs,
/// and `gguf_sha256` as the weights' hash.
async fn pick_custom(b: &Browser, server: &StaticServer, gguf_sha256: &str) {
    pick_custom_gguf(b, server, gguf_sha256).await;
    b.fill("[data-testid=local-tokenizer-url]", &format!("{}/models/{TOKENIZER}", server.origin)).await;
    b.fill("[data-testid=local-tokenizer-sha256]", &sha256_of(TOKENIZER)).await;
}

/// As [`pick_custom`], with the GGUF's URL and hash only: the tokenizer.json fields stay empty.
async fn pick_custom_gguf(b: &Browser, server: &StaticServer, gguf_sha256: &str) {
    b.client.goto(&format!("{}#/evaluate", server.base_url)).await.unwrap();
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    select(b, "[data-testid=eval-model]", "api").await;
    // The model's module is no part of the first load: it is fetched when the provider is picked.
    let worker_fetched = || server.requests().iter().any(|r| r.path.contains("execbench-model-worker"));
    assert!(!worker_fetched(), "the model worker was fetched before it was picked");
    select(b, "[data-testid=api-provider]", "local").await;
    select(b, "[data-testid=local-choice]", "custom").await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while !server.requests().iter().any(|r| r.path.ends_with("execbench-model-worker_bg.wasm")) {
        assert!(Instant::now() < deadline, "the model worker's module was not fetched when picked");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    b.fill("[data-testid=local-gguf-url]", &format!("{}/models/{GGUF}", server.origin)).await;
    b.fill("[data-testid=local-gguf-sha256]", gguf_sha256).await;
}

/// Clicks Download and returns what the form says when it is done: (ok, words).
async fn download(b: &Browser) -> (bool, String) {
    let said = "document.querySelector('[data-testid=local-said]')";
    let before = js(b, &format!("const s = {said}; return s ? Number(s.dataset.serial) : 0")).await;
    b.click("[data-testid=local-download]").await;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let got = js(
            b,
            &format!(
                "const s = {said}; return s && Number(s.dataset.serial) > {before} ? [s.dataset.ok, s.innerText] : null"
            ),
        )
        .await;
        if let Some([ok, text]) = got.as_array().map(Vec::as_slice) {
            return (ok == "true", text.as_str().unwrap_or_default().to_string());
        }
        if Instant::now() > deadline {
            let form = js(b, "return document.querySelector('[data-testid=local-model]').innerText").await;
            panic!("the download said nothing in 60 s; the form shows: {form}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Stored records in IndexedDB.
async fn records(b: &Browser) -> usize {
    let script = r#"
        const done = arguments[arguments.length - 1];
        const open = indexedDB.open('execbench');
        open.onerror = () => done(-1);
        open.onsuccess = () => {
            const tx = open.result.transaction(['records'], 'readonly');
            tx.objectStore('records').count().onsuccess = e => { open.result.close(); done(e.target.result); };
        };"#;
    b.client.execute_async(script, vec![]).await.unwrap().as_i64().unwrap() as usize
}

async fn wait_row_state(b: &Browser, want: &str, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    loop {
        let state =
            js(b, "const r = document.querySelector('[data-testid=run-row]'); return r ? r.dataset.state : ''").await;
        if state == json!(want) {
            return;
        }
        if Instant::now() > deadline {
            let page = js(b, "return document.querySelector('main')?.innerText ?? ''").await;
            panic!("the run is {state}, not {want}; {} records; the page shows: {page}", records(b).await);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The one stored run's entry (manifest, state).
async fn stored_run(b: &Browser) -> Value {
    let script = r#"
        const done = arguments[arguments.length - 1];
        const open = indexedDB.open('execbench');
        open.onsuccess = () => {
            const tx = open.result.transaction(['runs'], 'readonly');
            tx.objectStore('runs').getAll().onsuccess = e => { open.result.close(); done(JSON.stringify(e.target.result)); };
        };"#;
    let runs = b.client.execute_async(script, vec![]).await.unwrap();
    let runs: Value = serde_json::from_str(runs.as_str().unwrap()).unwrap();
    assert_eq!(runs.as_array().map(Vec::len), Some(1), "one stored run: {runs}");
    match &runs[0] {
        Value::String(text) => serde_json::from_str::<Value>(text).unwrap(),
        other => other.clone(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn download_evaluate_stop_reload_and_resume_without_a_second_download() {
    let server = serve();
    let b = Browser::launch().await;
    pick_custom(&b, &server, &sha256_of(GGUF)).await;
    assert!(model_gets(&server).is_empty(), "nothing downloaded before the click");
    let size = std::fs::metadata(fixtures().join(GGUF)).unwrap().len();

    // The size first (HEAD requests), then a download whose connection drops mid-file.
    b.click("[data-testid=local-check-size]").await;
    let shown = b.wait_text("[data-testid=local-size]", Duration::from_secs(30), |t| t.contains("weights")).await;
    assert!(shown.contains(&format!("weights {:.0} KB", size as f64 / 1e3)), "{shown}");
    assert!(model_gets(&server).is_empty(), "Check size downloads nothing");
    server.cut_next(&format!("/models/{GGUF}"), 40_000);
    let (ok, said) = download(&b).await;
    assert!(!ok && said.contains("the connection broke") && said.contains("bytes are kept"), "{said}");
    let kept: u64 = said.split("; ").nth(1).and_then(|s| s.split(' ').next()).and_then(|n| n.parse().ok()).unwrap_or(0);
    let partial = b.wait_text("[data-testid=local-kept]", Duration::from_secs(10), |t| t.contains("partial")).await;
    assert!(partial.contains(GGUF), "{partial}");

    // Download again: it resumes after the kept bytes, checks the whole file and loads it.
    let (ok, said) = download(&b).await;
    assert!(ok, "{said}");
    assert!(
        said.contains(&format!("{GGUF} ("))
            && said.contains("SHA-256 matches")
            && said.contains("The model reads: 2 layers"),
        "{said}"
    );
    let progress = b.wait_text("[data-testid=local-progress]", Duration::from_secs(5), |t| t.contains("100%")).await;
    assert!(progress.starts_with("Downloading"), "{progress}");
    let gets = model_gets(&server);
    assert_eq!(
        gets[1],
        (format!("/models/{GGUF}"), Some(format!("bytes={kept}-"))),
        "resumed after {kept} bytes: {gets:?}"
    );
    assert!(kept > 0 && kept < size, "{kept} of {size} bytes kept at the cut");
    let listed = b.wait_text("[data-testid=local-kept]", Duration::from_secs(10), |t| !t.contains("partial")).await;
    assert!(listed.contains(GGUF) && listed.contains(TOKENIZER) && listed.contains("SHA-256 checked"), "{listed}");

    // A run stopped after a few samples; then a reload and Resume from Runs.
    b.fill("[data-testid=api-max-tokens]", "48").await;
    b.fill("[data-testid=eval-n]", "1").await;
    b.fill("[data-testid=eval-limit]", &RUN_LIMIT.to_string()).await;
    let gets_before_run = model_gets(&server).len();
    common::start_api_run(&b).await;
    let deadline = Instant::now() + Duration::from_secs(120);
    while records(&b).await < 3 {
        assert!(Instant::now() < deadline, "no 3 answers in time");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let speed = b.wait_text("[data-testid=eval-local-speed]", Duration::from_secs(5), |t| t.contains("decode")).await;
    assert!(speed.contains("prefill") && speed.contains("tokens/s"), "{speed}");
    b.click("[data-testid=eval-stop]").await;
    b.wait_text("[data-testid=eval-state]", Duration::from_secs(30), |t| !t.is_empty()).await;
    let stopped_at = records(&b).await;
    eprintln!("stopped at {stopped_at} records");
    assert!((3..RUN_LIMIT).contains(&stopped_at), "stopped with {stopped_at} records");
    // The run records which files answered it: their addresses and SHA-256.
    let files = &stored_run(&b).await["manifest"]["api"]["local_model"];
    assert!(files["gguf"].as_str().unwrap().ends_with(&format!("/models/{GGUF}")), "{files}");
    assert_eq!(files["gguf_sha256"], sha256_of(GGUF), "{files}");
    // So a reload finds them through the run, not the name → files map this browser keeps
    // (gone here, as in a browser the run file was imported into).
    js(&b, "localStorage.removeItem('execbench.local-models')").await;

    b.client.refresh().await.unwrap();
    b.client.goto(&format!("{}#/runs", server.base_url)).await.unwrap();
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    b.wait_text("[data-testid=run-model]", Duration::from_secs(30), |t| t.contains(GGUF.trim_end_matches(".gguf")))
        .await;
    b.click("[data-testid=run-resume]").await;
    wait_row_state(&b, "finished", Duration::from_secs(180)).await;
    assert_eq!(records(&b).await, RUN_LIMIT, "one record per sample");
    assert_eq!(model_gets(&server).len(), gets_before_run, "no model file fetched again after the reload");
    b.screenshot("local-model-resumed").await;
    // Answered in this page: the run is listed without the preset's `.invalid` address.
    let row = js(&b, "return document.querySelector('[data-testid=run-row]').innerText").await;
    assert!(!row.as_str().unwrap().contains(".invalid"), "{row}");
    // Compared like any run.
    b.client.goto(&format!("{}#/compare", server.base_url)).await.unwrap();
    b.click("[data-testid=compare-run]").await;
    b.click("[data-testid=compare-start]").await;
    let table = b.wait_text("[data-testid=compare-table]", Duration::from_secs(30), |t| t.contains("tiny-q8_0")).await;
    // Random weights answer nothing right: pass@1 0 with its interval, as for any run.
    assert!(table.contains("tiny-q8_0 (local)") && table.contains("0.0 [0.0, 0.0]"), "{table}");
    b.close().await;
}

/// The GGUF file alone (issue 58): no tokenizer.json is given, fetched or needed. It downloads,
/// loads with its own tokenizer, answers, and a run stopped, reloaded and resumed loads the GGUF
/// alone again from the run's manifest.
#[tokio::test(flavor = "multi_thread")]
async fn a_model_given_as_its_gguf_file_alone_downloads_loads_answers_and_resumes() {
    let server = serve();
    let b = Browser::launch().await;
    pick_custom_gguf(&b, &server, &sha256_of(GGUF)).await;
    let (ok, said) = download(&b).await;
    assert!(ok, "{said}");
    assert!(
        said.contains(&format!("{GGUF} (")) && said.contains("SHA-256 matches") && !said.contains(TOKENIZER),
        "{said}"
    );
    // The worker says where the tokenizer came from: the file's metadata, not a tokenizer.json.
    assert!(
        said.contains("The model reads: 2 layers")
            && said.contains("the GGUF file's own tokenizer (pre-tokenizer qwen2)"),
        "{said}"
    );
    let only_gguf =
        |server: &StaticServer| model_gets(server).iter().all(|(path, _)| path == &format!("/models/{GGUF}"));
    assert!(only_gguf(&server), "only the GGUF file is fetched: {:?}", model_gets(&server));
    let listed = b.wait_text("[data-testid=local-kept]", Duration::from_secs(10), |t| t.contains(GGUF)).await;
    assert!(!listed.contains(TOKENIZER), "{listed}");

    // Answers, stopped after two; the run records the GGUF file and no tokenizer.json.
    let stopped_at = run_and_stop(&b, RUN_LIMIT, 2).await;
    assert!((2..RUN_LIMIT).contains(&stopped_at), "stopped with {stopped_at} records");
    let entry = stored_run(&b).await;
    let files = &entry["manifest"]["api"]["local_model"];
    assert_eq!(files["gguf_sha256"], sha256_of(GGUF), "{files}");
    assert_eq!((&files["tokenizer"], &files["tokenizer_sha256"]), (&Value::Null, &Value::Null), "{files}");

    // A reload, the name → files map gone: Resume loads the run's GGUF alone and finishes.
    js(&b, "localStorage.removeItem('execbench.local-models')").await;
    b.client.refresh().await.unwrap();
    b.client.goto(&format!("{}#/runs", server.base_url)).await.unwrap();
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    b.wait_text("[data-testid=run-model]", Duration::from_secs(30), |t| t.contains(GGUF.trim_end_matches(".gguf")))
        .await;
    b.click("[data-testid=run-resume]").await;
    wait_row_state(&b, "finished", Duration::from_secs(180)).await;
    assert_eq!(records(&b).await, RUN_LIMIT, "one record per sample");
    // Answered by the model, not refused: every record holds an answer.
    let script = r#"
        const done = arguments[arguments.length - 1];
        const open = indexedDB.open('execbench');
        open.onsuccess = () => {
            const tx = open.result.transaction(['records'], 'readonly');
            tx.objectStore('records').getAll().onsuccess = e => { open.result.close(); done(JSON.stringify(e.target.result)); };
        };"#;
    let stored = b.client.execute_async(script, vec![]).await.unwrap();
    let stored: Value = serde_json::from_str(stored.as_str().unwrap()).unwrap();
    let errors: Vec<String> = stored
        .as_array()
        .unwrap()
        .iter()
        .map(|r| match r {
            Value::String(text) => serde_json::from_str::<Value>(text).unwrap(),
            other => other.clone(),
        })
        .filter(|r| !r["error"].is_null())
        .map(|r| r["error"].to_string())
        .collect();
    assert!(errors.is_empty(), "records with errors: {errors:?}");
    assert!(only_gguf(&server), "no tokenizer.json fetched on resume: {:?}", model_gets(&server));
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_checksum_and_a_full_quota_are_refused_with_a_message() {
    let server = serve();
    let b = Browser::launch().await;
    pick_custom(&b, &server, &"0".repeat(64)).await;
    let (ok, said) = download(&b).await;
    assert!(!ok, "{said}");
    assert!(
        said.starts_with(&format!("{GGUF}: checksum mismatch, SHA-256 {}", sha256_of(GGUF)))
            && said.contains("discarded"),
        "{said}"
    );
    let listed = js(&b, "return document.querySelector('[data-testid=local-kept]').innerText").await;
    assert!(!listed.as_str().unwrap().contains(GGUF), "a refused file is not kept: {listed}");

    // Room for less than the file: Chromium's quota for this origin, set through DevTools, just
    // above what the origin already uses (the service worker's copy of the app).
    let origin = server.origin.clone();
    let usage = b.cdp("Storage.getUsageAndQuota", json!({ "origin": origin })).await.unwrap();
    let used = usage["usage"].as_f64().unwrap();
    b.cdp("Storage.overrideQuotaForOrigin", json!({ "origin": origin, "quotaSize": used + 20_000.0 })).await.unwrap();
    b.fill("[data-testid=local-gguf-sha256]", &sha256_of(GGUF)).await;
    let (ok, said) = download(&b).await;
    assert!(!ok && said.contains("QuotaExceededError") && said.contains("remove kept models"), "{said}");
    // Nothing says it is still downloading, and a model answered here asks for no address or key.
    let left = js(&b, "return ['local-progress', 'api-key', 'api-base-url', 'api-reasoning-effort'].filter(t => document.querySelector(`[data-testid=${t}]`))").await;
    assert_eq!(left, json!([]), "shown after a failed download of the in-browser model");
    b.screenshot("local-model-quota").await;
    b.cdp("Storage.overrideQuotaForOrigin", json!({ "origin": origin })).await.unwrap();
    b.close().await;
}

/// Evaluates `limit` samples with the picked in-browser model (48 tokens, n = 1) and stops once
/// `at_least` are answered; the records stored then.
/// Samples in the runs that are stopped part way. The test model answers a sample in tens of
/// milliseconds, so a run of 6 or 8 could finish between two looks at the record count and the
/// Stop click: a run this long cannot.
const RUN_LIMIT: usize = 60;

async fn run_and_stop(b: &Browser, limit: usize, at_least: usize) -> usize {
    b.fill("[data-testid=api-max-tokens]", "48").await;
    b.fill("[data-testid=eval-n]", "1").await;
    b.fill("[data-testid=eval-limit]", &limit.to_string()).await;
    common::start_api_run(b).await;
    let deadline = Instant::now() + Duration::from_secs(120);
    while records(b).await < at_least {
        assert!(Instant::now() < deadline, "no {at_least} answers in time");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    b.click("[data-testid=eval-stop]").await;
    b.wait_text("[data-testid=eval-state]", Duration::from_secs(30), |t| !t.is_empty()).await;
    records(b).await
}

/// Resumes the one run on the Runs page, accepting any review the page asks for, and returns what
/// the page then says (the row's and the messages' text) once it names the run's SHA-256 `sha`.
async fn resume_and_read(b: &Browser, server: &StaticServer, sha: &str) -> String {
    b.client.goto(&format!("{}#/runs", server.base_url)).await.unwrap();
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    b.wait_text("[data-testid=run-model]", Duration::from_secs(30), |t| t.contains(GGUF.trim_end_matches(".gguf")))
        .await;
    b.click("[data-testid=run-resume]").await;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let said = js(
            b,
            "for (const id of ['runs-confirm-go', 'runs-estimate-go']) { const e = document.querySelector(`[data-testid=${id}]`); if (e) { e.click(); return ''; } } \
             return [...document.querySelectorAll('[data-testid=run-row], [data-testid=runs-message], [data-testid=runs-job-error]')].map(e => e.innerText).join('\\n')",
        )
        .await;
        let said = said.as_str().unwrap_or_default();
        if said.contains(sha) {
            return said.to_string();
        }
        assert!(Instant::now() < deadline, "Resume named no file in 60 s; the page shows: {said}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Entries in the model's Cache Storage (`model-files`): parts and indexes.
async fn cached_entries(b: &Browser) -> u64 {
    let script = "const done = arguments[arguments.length - 1]; caches.open('model-files').then(c => c.keys()).then(k => done(k.length), e => done(-1));";
    b.client.execute_async(script, vec![]).await.unwrap().as_u64().expect("a count of cached entries")
}

/// The kept files' life (issue 55): Test connection loads them; a kept file of the run's model
/// name with another SHA-256 is refused on Resume, naming both; Remove deletes the file from Cache
/// Storage and the list; and the run file, imported into another browser that keeps nothing,
/// says on Resume which URL and SHA-256 to download, downloading nothing by itself.
#[tokio::test(flavor = "multi_thread")]
async fn kept_files_are_tested_removed_and_named_by_what_resume_asks_for() {
    let server = serve();
    let b = Browser::launch().await;
    let sha = sha256_of(GGUF);
    let url = format!("{}/models/{GGUF}", server.origin);
    pick_custom_gguf(&b, &server, &sha).await;
    let (ok, said) = download(&b).await;
    assert!(ok, "{said}");

    // Test connection loads the kept file in the model worker.
    b.click("[data-testid=api-test]").await;
    let verdict = b.wait_text("[data-testid=connection-verdict]", Duration::from_secs(60), |t| !t.is_empty()).await;
    assert!(verdict.contains("in this browser") && verdict.contains("2 layers"), "{verdict}");

    // A run of 6 samples, stopped after 2, exported.
    let stopped_at = run_and_stop(&b, RUN_LIMIT, 2).await;
    assert!((2..RUN_LIMIT).contains(&stopped_at), "stopped with {stopped_at} records");
    b.client.goto(&format!("{}#/runs", server.base_url)).await.unwrap();
    common::capture_downloads(&b).await;
    b.click("[data-testid=run-export]").await;
    let exported = common::downloaded(&b).await;
    assert_eq!(exported.len(), 1, "one run file");
    assert!(exported[0].contains(&sha), "the run file names the GGUF's SHA-256");

    // The same model name now stands for a file of another SHA-256: Resume refuses, naming both.
    let other = "ab".repeat(32);
    js(
        &b,
        &format!(
            "const m = JSON.parse(localStorage.getItem('execbench.local-models')); \
             for (const k in m) m[k].gguf.sha256 = '{other}'; \
             localStorage.setItem('execbench.local-models', JSON.stringify(m));"
        ),
    )
    .await;
    let gets_before = model_gets(&server).len();
    let said = resume_and_read(&b, &server, &sha).await;
    assert!(
        said.contains(&format!("the run was made with {url} (SHA-256 {sha})"))
            && said.contains(&format!("this browser keeps {url} (SHA-256 {other}) under that name")),
        "{said}"
    );
    assert_eq!(records(&b).await, stopped_at, "nothing answered by the other file");

    // Remove: the file leaves Cache Storage and the list.
    b.client.goto(&format!("{}#/evaluate", server.base_url)).await.unwrap();
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    select(&b, "[data-testid=eval-model]", "api").await;
    select(&b, "[data-testid=api-provider]", "local").await;
    let listed = b.wait_text("[data-testid=local-kept]", Duration::from_secs(10), |t| t.contains(GGUF)).await;
    assert!(listed.contains(GGUF), "{listed}");
    assert!(cached_entries(&b).await > 0, "the file is kept before Remove");
    b.click("[data-testid=local-remove]").await;
    b.wait_text("[data-testid=local-kept]", Duration::from_secs(10), |t| t.contains("Nothing is kept")).await;
    assert_eq!(cached_entries(&b).await, 0, "Cache Storage still holds the removed file");
    b.close().await;

    // Another browser, nothing kept: the imported run says which file to download and fetches
    // nothing by itself.
    let b = Browser::launch().await;
    b.client.goto(&format!("{}#/runs", server.base_url)).await.unwrap();
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    common::import_run_file(&b, "local-run.jsonl", &exported[0], |t| t.contains("imported")).await;
    let said = resume_and_read(&b, &server, &sha).await;
    assert!(said.contains(&format!("The run was made with {url} (SHA-256 {sha}) alone")), "{said}");
    assert!(said.contains("click Download"), "{said}");
    assert_eq!(model_gets(&server).len(), gets_before, "a model file was fetched without Download");
    b.screenshot("local-model-imported-run-names-its-files").await;
    b.close().await;
}
