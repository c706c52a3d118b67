//! End-to-end: the Build page in headless Chromium, as a new user would use it. The offline
//! source → the filter in the worker → the funnel and a few rejections → sample 20 → export →
//! open the export as a dataset → Verify (100%) → Evaluate with the oracle (100%). And the
//! filter's table of hand-written candidates, filtered in the page's worker, must get the same
//! verdicts as natively (`crates/recipe/tests/recipe/filter_table.rs`).

use std::time::Duration;

use execbench_recipe::filter::cases::CASES;
use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;
use fantoccini::Locator;

async fn open_build() -> (Browser, StaticServer) {
    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let b = Browser::launch().await;
    b.set_viewport(1400, 1000).await;
    b.client.goto(&format!("{}#/build", server.base_url)).await.unwrap();
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    (b, server)
}

async fn js(b: &Browser, script: &str) -> serde_json::Value {
    b.client.execute(script, vec![]).await.unwrap_or_else(|e| panic!("{script}: {e}"))
}

async fn count(b: &Browser, stage: &str) -> usize {
    let v = js(
        b,
        &format!(
            "const e = document.querySelector('[data-testid=funnel-{stage}]'); return e ? Number(e.dataset.count) : -1"
        ),
    )
    .await;
    v.as_i64().unwrap_or(-1).try_into().unwrap_or_else(|_| panic!("no funnel bar `{stage}`"))
}

async fn select(b: &Browser, css: &str, value: &str) {
    b.client.find(Locator::Css(css)).await.unwrap().select_by_value(value).await.unwrap();
}

async fn wait_finished(b: &Browser, within: Duration) -> String {
    b.wait_text("[data-testid=build-progress]", within, |t| t.starts_with("Last job ")).await
}

#[tokio::test(flavor = "multi_thread")]
async fn an_offline_benchmark_is_built_exported_loaded_and_scores_100_with_the_oracle() {
    let (b, server) = open_build().await;
    b.screenshot("build-empty").await;
    assert_eq!(
        b.wait_text("[data-testid=build-method-count]", Duration::from_secs(5), |_| true).await,
        "69 of 69 methods chosen"
    );
    b.click("[data-testid=build-start]").await;
    let ended = wait_finished(&b, Duration::from_secs(300)).await;
    assert!(ended.starts_with("Last job finished"), "{ended}");
    for download in ["build-download-generations", "build-download-kept", "build-download-rejected"] {
        let disabled = js(&b, &format!("return document.querySelector('[data-testid={download}]').disabled")).await;
        assert_eq!(disabled, serde_json::Value::Bool(false), "{download} is not offered after the job");
    }
    js(&b, "document.querySelector('[data-testid=build-funnel]').scrollIntoView({block: 'start'})").await;
    b.screenshot("build-funnel").await;

    // The funnel: 69 responses, each stage no larger than the one before, some lost at each step.
    let generated = count(&b, "generated").await;
    let parsed = count(&b, "parsed").await;
    let passed_static = count(&b, "static").await;
    let passed_runtime = count(&b, "runtime").await;
    let unique = count(&b, "unique").await;
    assert_eq!(generated, 69);
    assert!(
        parsed > passed_static && passed_static > passed_runtime && passed_runtime >= unique && unique >= 50,
        "{parsed} {passed_static} {passed_runtime} {unique}"
    );

    // A runtime rejection shows its rule and the offending operation marked in its code.
    let chips = js(
        &b,
        "return [...document.querySelectorAll('[data-testid^=build-rule-]')].map(e => e.dataset.testid.slice(11))",
    )
    .await;
    let chips: Vec<String> = chips.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
    let runtime_rule = ["float", "true_division", "power", "large_integers", "long_sequences"]
        .into_iter()
        .find(|r| chips.iter().any(|c| c == r));
    let rule = runtime_rule.unwrap_or_else(|| panic!("no runtime rejection among {chips:?}"));
    b.click(&format!("[data-testid=build-rule-{rule}]")).await;
    let rules =
        js(&b, "return [...document.querySelectorAll('[data-testid=rejected-row]')].map(r => r.dataset.rule)").await;
    let rules = rules.as_array().unwrap();
    assert!(!rules.is_empty() && rules.iter().all(|r| r.as_str() == Some(rule)), "{rules:?}");
    let marked = js(
        &b,
        "const m = document.querySelector('[data-testid=rejected-row] mark.offending'); return m ? m.textContent : ''",
    )
    .await;
    assert!(!marked.as_str().unwrap_or_default().is_empty(), "no operation marked for {rule}");
    js(&b, "document.querySelector('[data-testid=rejected-filter]').scrollIntoView({block: 'start'})").await;
    b.screenshot("build-rejections").await;

    // Sample 20, export, open as a dataset.
    b.fill("[data-testid=sample-n]", "20").await;
    b.click("[data-testid=sample-build]").await;
    let summary = b.wait_text("[data-testid=sample-summary]", Duration::from_secs(10), |_| true).await;
    assert!(summary.starts_with(&format!("20 samples drawn from {unique} unique candidates")), "{summary}");
    assert_eq!(count(&b, "sampled").await, 20);
    js(&b, "document.querySelector('[data-testid=sample-summary]').scrollIntoView({block: 'center'})").await;
    b.screenshot("build-sampled").await;
    b.click("[data-testid=open-benchmark]").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "20 of 20").await;

    b.client.goto(&format!("{}#/verify", server.base_url)).await.unwrap();
    b.click("[data-testid=verify-start]").await;
    b.wait_text("[data-testid=verify-state]", Duration::from_secs(120), |t| t == "finished").await;
    assert_eq!(b.wait_text("[data-testid=verify-passed]", Duration::from_secs(5), |_| true).await, "20 passed");
    assert_eq!(b.wait_text("[data-testid=verify-failed]", Duration::from_secs(5), |_| true).await, "0 failed");

    b.client.goto(&format!("{}#/evaluate", server.base_url)).await.unwrap();
    b.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains("(20 samples)")).await;
    select(&b, "[data-testid=eval-model]", "oracle").await;
    select(&b, "[data-testid=eval-task]", "output").await;
    b.fill("[data-testid=eval-n]", "1").await;
    b.click("[data-testid=eval-run]").await;
    assert_eq!(b.wait_text("[data-testid=eval-state]", Duration::from_secs(120), |t| !t.is_empty()).await, "finished");
    for mode in ["strict", "compatible"] {
        assert_eq!(
            b.wait_text(&format!("[data-testid=pass1-output-{mode}]"), Duration::from_secs(5), |_| true).await,
            "100.0",
            "{mode}"
        );
    }
    b.screenshot("build-evaluated").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_filter_table_gets_the_same_verdicts_in_the_page() {
    let (b, _server) = open_build().await;
    let rows: String = CASES
        .iter()
        .map(|(name, code, input, _)| {
            serde_json::json!({ "id": name, "code": code, "input": input }).to_string() + "\n"
        })
        .collect();
    let path = std::env::temp_dir().join(format!("execbench-filter-cases-{}.jsonl", std::process::id()));
    std::fs::write(&path, rows).unwrap();
    select(&b, "[data-testid=build-source]", "candidates").await;
    let input = b.client.find(Locator::Css("[data-testid=build-candidates-file]")).await.unwrap();
    input.send_keys(path.to_str().unwrap()).await.unwrap();
    let status = b
        .wait_text("[data-testid=build-candidates-status]", Duration::from_secs(10), |t| t.contains("candidates"))
        .await;
    assert!(status.contains(&format!("{} candidates", CASES.len())), "{status}");
    b.click("[data-testid=build-start]").await;
    let ended = wait_finished(&b, Duration::from_secs(300)).await;
    assert!(ended.starts_with("Last job finished"), "{ended}");
    let got = js(&b, "return Object.fromEntries([...document.querySelectorAll('[data-testid=rejected-row]')].map(r => [r.dataset.id, r.dataset.rule]))").await;
    let mut wrong = Vec::new();
    for (name, _, _, rule) in CASES {
        let in_page = got.get(*name).and_then(|v| v.as_str());
        if in_page != rule.map(|r| r.id()) {
            wrong.push(format!("{name}: expected {:?}, the page says {in_page:?}", rule.map(|r| r.id())));
        }
    }
    let _ = std::fs::remove_file(&path);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(count(&b, "runtime").await, CASES.iter().filter(|c| c.3.is_none()).count());
}

/// The model path: the Build page asks a real HTTP server on 127.0.0.1 (the mock model server,
/// which cannot write functions: every response is a non-answer), counts every response, keeps
/// the non-answers with their reason, and a wrong key stops the generation with the provider's
/// message instead of producing candidates.
#[tokio::test(flavor = "multi_thread")]
async fn a_model_api_is_asked_once_per_prompt_and_a_bad_key_stops_the_generation() {
    use execbench_mockserver::{MockConfig, MockServer, bundled_dataset};
    const KEY: &str = "sk-build-test-key";
    let mock = MockServer::start(
        bundled_dataset().unwrap(),
        MockConfig { api_key: Some(KEY.to_string()), ..Default::default() },
        0,
    )
    .await
    .unwrap();
    let (b, _server) = open_build().await;
    select(&b, "[data-testid=build-source]", "model").await;
    select(&b, "[data-testid=api-provider]", "openai-compatible").await;
    b.fill("[data-testid=api-base-url]", &format!("{}/v1", mock.base_url())).await;
    b.fill("[data-testid=api-model]", "mock-model").await;
    b.fill("[data-testid=api-key]", KEY).await;
    for group in ["str", "dict"] {
        b.click(&format!("[data-testid=build-none-{group}]")).await;
    }
    b.fill("[data-testid=build-per-method]", "2").await;
    assert_eq!(
        b.wait_text("[data-testid=build-method-count]", Duration::from_secs(5), |_| true).await,
        "11 of 69 methods chosen"
    );
    b.click("[data-testid=build-start]").await;
    let ended = wait_finished(&b, Duration::from_secs(120)).await;
    assert!(ended.starts_with("Last job finished"), "{ended}");
    assert_eq!(count(&b, "generated").await, 22);
    assert_eq!(count(&b, "parsed").await, 0);
    assert_eq!(
        b.wait_text("[data-testid=build-rule-unparseable]", Duration::from_secs(5), |_| true).await,
        "unparseable 22"
    );
    assert_eq!(mock.stats().requests_total, 22);
    // The provider's token counts, summed (the mock server reports ceil(chars / 4) per text).
    let usage = b.wait_text("[data-testid=build-usage]", Duration::from_secs(5), |_| true).await;
    assert!(
        usage.starts_with("tokens: ")
            && !usage.starts_with("tokens: 0 in")
            && usage.ends_with("no price known for this model"),
        "{usage}"
    );

    b.fill("[data-testid=api-key]", "sk-wrong").await;
    b.click("[data-testid=build-start]").await;
    let error = b.wait_text("[data-testid=build-error]", Duration::from_secs(60), |t| !t.is_empty()).await;
    assert!(error.contains("stopped the generation"), "{error}");
    wait_finished(&b, Duration::from_secs(60)).await;
    assert_eq!(count(&b, "parsed").await, 0);
    // Nothing the page keeps holds the key.
    let stored = js(&b, "return JSON.stringify(localStorage) + location.href").await;
    assert!(!stored.as_str().unwrap_or_default().contains(KEY), "the key is in the page's storage or address");
}

/// The raw text of the generations the page kept in IndexedDB (entries and rows).
async fn kept_generations_text(b: &Browser) -> String {
    let script = r#"
        const done = arguments[arguments.length - 1];
        const open = indexedDB.open('execbench');
        open.onerror = () => done('error: ' + String(open.error));
        open.onsuccess = () => {
            const db = open.result;
            const tx = db.transaction(['generations', 'generation_rows'], 'readonly');
            const out = {};
            tx.objectStore('generations').getAll().onsuccess = e => out.entries = e.target.result;
            tx.objectStore('generation_rows').getAll().onsuccess = e => out.rows = e.target.result;
            tx.oncomplete = () => { db.close(); done(JSON.stringify(out)); };
        };"#;
    let text = b.client.execute_async(script, vec![]).await.unwrap();
    text.as_str().unwrap_or_default().to_string()
}

/// "4 of 11 responses" → 4.
fn answered_in(label: &str) -> usize {
    label
        .split(": ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in `{label}`"))
}

/// A model generation survives a reload: the responses that arrived are kept in IndexedDB as they
/// come, the reloaded page lists the generation as interrupted, and Resume (with the key entered
/// again) asks only the prompts without a kept response, then filters everything.
#[tokio::test(flavor = "multi_thread")]
async fn a_model_generation_cut_by_a_reload_resumes_asking_only_what_is_missing() {
    use execbench_mockserver::{MockConfig, MockServer, bundled_dataset};
    const KEY: &str = "sk-build-resume-key";
    let mock = MockServer::start(
        bundled_dataset().unwrap(),
        MockConfig { latency_ms: 400, api_key: Some(KEY.to_string()), ..Default::default() },
        0,
    )
    .await
    .unwrap();
    let (b, _server) = open_build().await;
    let fill_model = async |b: &Browser| {
        select(b, "[data-testid=build-source]", "model").await;
        select(b, "[data-testid=api-provider]", "openai-compatible").await;
        b.fill("[data-testid=api-base-url]", &format!("{}/v1", mock.base_url())).await;
        b.fill("[data-testid=api-model]", "mock-model").await;
        b.fill("[data-testid=api-key]", KEY).await;
        b.fill("[data-testid=api-concurrency]", "1").await;
    };
    fill_model(&b).await;
    // A price (input $1 per million tokens, output free), so the generation has costs and a cap.
    b.fill("[data-testid=price-in]", "1").await;
    b.fill("[data-testid=price-out]", "0").await;
    for group in ["str", "dict"] {
        b.click(&format!("[data-testid=build-none-{group}]")).await;
    }
    b.click("[data-testid=build-start]").await;
    b.wait_text("[data-testid=build-kept-label]", Duration::from_secs(60), |t| {
        t.contains(" of 11 responses") && answered_in(t) >= 4
    })
    .await;

    b.client.refresh().await.unwrap();
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    let label =
        b.wait_text("[data-testid=build-kept-label]", Duration::from_secs(20), |t| t.ends_with("interrupted")).await;
    let kept = answered_in(&label);
    assert!((4..11).contains(&kept), "{label}");
    b.screenshot("build-kept-interrupted").await;
    let stored = kept_generations_text(&b).await;
    assert!(
        stored.contains("mock-model") && !stored.contains(KEY),
        "the kept generation names its model and holds no key"
    );

    // The key was not remembered: Resume without it, the server refuses, the generation stops at
    // once, says why, and keeps what it had.
    b.click("[data-testid=build-kept-resume]").await;
    let said = b.wait_text("[data-testid=build-error]", Duration::from_secs(20), |t| !t.is_empty()).await;
    assert!(said.contains("stopped the generation") && said.contains("key"), "{said}");
    b.wait_text("[data-testid=build-kept-label]", Duration::from_secs(10), |t| {
        t == format!("mock-model (openai-compatible): {kept} of 11 responses, stopped by the provider")
    })
    .await;
    wait_finished(&b, Duration::from_secs(10)).await;
    let asked_before_resume = mock.stats().requests_total;

    // With the key and a cap below one request's worst case (a prompt's bytes as tokens: about
    // $0.0015 here), Resume asks nothing, says why and keeps the cap; a higher cap goes on.
    fill_model(&b).await;
    b.fill("[data-testid=spend-cap]", "0.0001").await;
    b.click("[data-testid=build-kept-resume]").await;
    let said = b.wait_text("[data-testid=build-error]", Duration::from_secs(20), |t| t.contains("spend cap")).await;
    assert!(said.contains("paused at the spend cap"), "{said}");
    wait_finished(&b, Duration::from_secs(10)).await;
    assert_eq!(mock.stats().requests_total, asked_before_resume, "no request past the cap");
    b.fill("[data-testid=spend-cap]", "1").await;
    b.click("[data-testid=build-kept-resume]").await;
    // The paused job's "Last job stopped" still shows until this one starts: wait for the end of
    // this one by its own words (a timeout names the last text seen).
    b.wait_text("[data-testid=build-progress]", Duration::from_secs(120), |t| t.starts_with("Last job finished")).await;
    assert_eq!(count(&b, "generated").await, 11, "every prompt has its response: {kept} kept, the rest asked now");
    assert_eq!(
        mock.stats().requests_total - asked_before_resume,
        11 - kept as u64,
        "only the prompts without a kept response are asked again"
    );
    b.wait_text("[data-testid=build-kept-label]", Duration::from_secs(10), |t| {
        t == "mock-model (openai-compatible): 11 of 11 responses, finished"
    })
    .await;
    assert!(!kept_generations_text(&b).await.contains(KEY));

    b.click("[data-testid=build-kept-discard]").await;
    // Discard deletes from IndexedDB and then lists again: wait for the list, not a fixed moment.
    b.wait_script(
        "return document.querySelectorAll('[data-testid=build-kept-row]').length",
        Duration::from_secs(10),
        |rows| rows.as_i64() == Some(0),
    )
    .await;
    assert_eq!(kept_generations_text(&b).await, r#"{"entries":[],"rows":[]}"#);
}
