//! End-to-end tests of running a model API from the page: the built app in headless Chromium
//! against the project's mock model server, a real HTTP server on 127.0.0.1 (another origin than
//! the page, so CORS is real). Needs a built site (`trunk build --release`) and Debian's chromium.
//! Screenshots land in tests/artifacts/models-*.png.

use crate::common;

use std::time::Duration;

use execbench_mockserver::{
    AnswerPolicy, Cors, Fault, FaultRule, MockConfig, MockServer, SampleMatch, bundled_dataset,
};
use execbench_testkit::browser::Browser;
use fantoccini::Locator;

use common::{open_evaluate, start_api_run};

const KEY: &str = "sk-e2e-SECRET-7171";

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

async fn scroll_to(b: &Browser, css: &str) {
    js(b, &format!("document.querySelector('{css}').scrollIntoView({{block: 'start'}})")).await;
}

async fn js(b: &Browser, script: &str) -> serde_json::Value {
    b.client.execute(script, vec![]).await.unwrap()
}

/// Picks "a model API" and fills the form for the mock server.
async fn use_mock(b: &Browser, server: &MockServer, key: &str) {
    select(b, "[data-testid=eval-model]", "api").await;
    select(b, "[data-testid=api-provider]", "openai-compatible").await;
    b.fill("[data-testid=api-base-url]", &format!("{}/v1", server.base_url())).await;
    b.fill("[data-testid=api-model]", "mock-model").await;
    b.fill("[data-testid=api-key]", key).await;
}

async fn start_mock(config: MockConfig) -> MockServer {
    MockServer::start(bundled_dataset().unwrap(), config, 0).await.unwrap()
}

/// 50 samples x n = 5 with faults injected: every sample is scored, pass@1 is exactly what the
/// server's policy implies, the server never saw more than the concurrency setting at once, and
/// the key is nowhere but in the form (not in the URL, storage, the page's text or the exports).
#[tokio::test(flavor = "multi_thread")]
async fn a_run_with_faults_scores_every_sample_within_the_concurrency() {
    let config = MockConfig {
        latency_ms: 60,
        api_key: Some(KEY.to_string()),
        answers: AnswerPolicy { wrong_every: Some(5), ..Default::default() },
        faults: vec![
            FaultRule::on_attempts(
                SampleMatch::Id("sample_2".into()),
                &[1],
                Fault::RateLimit { retry_after_s: Some(0.5), retry_after_ms: None },
            ),
            FaultRule::on_attempts(SampleMatch::Id("sample_5".into()), &[1, 2], Fault::ServerError),
            FaultRule::on_attempts(SampleMatch::Id("sample_9".into()), &[1], Fault::StreamCut { after_chunks: 2 }),
            FaultRule::on_attempts(SampleMatch::Id("sample_17".into()), &[1], Fault::Overloaded),
            FaultRule::on_attempts(
                SampleMatch::Id("sample_20".into()),
                &[1],
                Fault::RateLimitBodyDelay { seconds: 0.4 },
            ),
            FaultRule::on_attempts(SampleMatch::Id("sample_30".into()), &[1], Fault::ErrorEventAfter200),
            FaultRule::on_attempts(SampleMatch::Id("sample_33".into()), &[1], Fault::Unavailable),
        ],
        ..Default::default()
    };
    let mock = start_mock(config).await;
    let (b, _site) = open_evaluate().await;
    use_mock(&b, &mock, KEY).await;
    b.fill("[data-testid=api-concurrency]", "4").await;
    b.fill("[data-testid=eval-n]", "5").await;
    b.fill("[data-testid=eval-limit]", "50").await;
    scroll_to(&b, "[data-testid=api-settings]").await;
    b.screenshot("models-settings").await;
    start_api_run(&b).await;
    b.wait_text("[data-testid=eval-live]", Duration::from_secs(30), |t| t.contains("running")).await;
    // The running run's own figures, as they come.
    b.wait_text("[data-testid=eval-live-pass]", Duration::from_secs(30), |t| {
        t.starts_with("pass@1 so far (") && t.contains("strict ") && !t.contains("(0 samples")
    })
    .await;
    scroll_to(&b, ".eval-progress").await;
    b.screenshot("models-running").await;
    let state = b.wait_text("[data-testid=eval-state]", Duration::from_secs(180), |t| !t.is_empty()).await;
    assert_eq!(state, "finished");

    let policy = mock.policy();
    let right = (0..50).filter(|i| policy.is_right(*i, &format!("sample_{i}"))).count();
    let expected = format!("{:.1}", right as f64 * 100.0 / 50.0);
    for mode in ["strict", "compatible"] {
        assert_eq!(
            b.wait_text(&format!("[data-testid=pass1-output-{mode}]"), Duration::from_secs(5), |_| true).await,
            expected,
            "{mode}"
        );
    }
    let stats = mock.stats();
    assert!(stats.max_concurrency <= 4, "the server saw {} requests at once", stats.max_concurrency);
    assert!(stats.max_concurrency >= 2, "requests did run concurrently: {}", stats.max_concurrency);
    assert_eq!(stats.per_sample.len(), 50);
    assert_eq!(stats.per_sample["sample_5"], 3, "two 500s then the answer");
    assert_eq!(stats.per_sample["sample_0"], 1, "one request carries n = 5");
    assert!(stats.recent.iter().all(|r| r.n == 5), "n sent in the request");
    let timing = b.wait_text("[data-testid=run-timing]", Duration::from_secs(5), |_| true).await;
    assert!(timing.starts_with("50 of 50 samples scored, 250 answers, 500 judgements (2 modes)"), "{timing}");
    let usage = b.wait_text("[data-testid=run-usage]", Duration::from_secs(5), |_| true).await;
    assert!(usage.contains("tokens:"), "{usage}");
    // Every request the server saw, the faults among them, as the run stored them.
    assert!(
        usage.starts_with(&format!("{} requests (", stats.requests_total)) && usage.contains(" failed)"),
        "{usage}"
    );

    // The key: only in the form's field.
    let url = b.client.current_url().await.unwrap().to_string();
    assert!(!url.contains(KEY));
    let storage = js(
        &b,
        "return JSON.stringify(Object.assign({}, localStorage)) + JSON.stringify(Object.assign({}, sessionStorage))",
    )
    .await;
    assert!(!storage.as_str().unwrap().contains(KEY), "not remembered unless asked");
    let page_text =
        js(&b, "return document.body.innerText + document.querySelector('[data-testid=markdown]').value").await;
    assert!(!page_text.as_str().unwrap().contains(KEY));
    // Both exports: the rows carry the responses, never the key.
    js(&b, "window.savedBlobs = []; const make = URL.createObjectURL; URL.createObjectURL = blob => { window.savedBlobs.push(blob); return make(blob); };").await;
    b.click("[data-testid=download-jsonl]").await;
    b.click("[data-testid=download-markdown]").await;
    let saved = b.client.execute_async("const done = arguments[arguments.length - 1]; Promise.all(window.savedBlobs.map(b => b.text())).then(done);", vec![]).await.unwrap();
    let saved: Vec<String> = serde_json::from_value(saved).unwrap();
    assert_eq!(saved.len(), 2);
    assert_eq!(saved[0].lines().count(), 100, "50 samples x 2 modes");
    assert!(saved[0].contains("[ANSWER]"));
    assert!(saved.iter().all(|text| !text.contains(KEY)));
    b.client
        .execute("document.querySelector('[data-testid=results]').scrollIntoView({block: 'start'})", vec![])
        .await
        .unwrap();
    b.screenshot("models-results").await;
    b.close().await;
}

/// Test connection says what is wrong: a good server, a bad key, a server that does not allow the
/// page's origin (CORS), and nothing listening.
#[tokio::test(flavor = "multi_thread")]
async fn test_connection_gives_a_plain_verdict() {
    let good = start_mock(MockConfig { api_key: Some(KEY.to_string()), ..Default::default() }).await;
    let closed = start_mock(MockConfig { cors: Cors::None, ..Default::default() }).await;
    let ollama_like =
        start_mock(MockConfig { cors: Cors::Origins(vec!["http://localhost:1".into()]), ..Default::default() }).await;
    let (b, _site) = open_evaluate().await;
    // (server, key, expected ok, expected words in the verdict)
    let cases: Vec<(&MockServer, &str, bool, &[&str])> = vec![
        (&good, KEY, true, &["OK", "mock-model"]),
        (&good, "sk-wrong", false, &["key"]),
        (&closed, KEY, false, &["blocked", "CORS"]),
        (&ollama_like, KEY, false, &["blocked"]),
    ];
    for (i, (server, key, ok, words)) in cases.into_iter().enumerate() {
        use_mock(&b, server, key).await;
        b.click("[data-testid=api-test]").await;
        let verdict = b.wait_text("[data-testid=connection-verdict]", Duration::from_secs(40), |t| !t.is_empty()).await;
        let is_ok = js(&b, "return document.querySelector('[data-testid=connection-verdict]').dataset.ok").await;
        assert_eq!(is_ok.as_str(), Some(if ok { "true" } else { "false" }), "case {i}: {verdict}");
        for w in words {
            assert!(verdict.to_lowercase().contains(&w.to_lowercase()), "case {i}: `{w}` not in {verdict:?}");
        }
        if i == 0 || i == 2 {
            scroll_to(&b, "[data-testid=api-settings]").await;
            b.screenshot(if i == 0 { "models-connection-ok" } else { "models-connection-blocked" }).await;
        }
    }
    // Nothing listening: unreachable, not "blocked". The port stays bound, never listening, until
    // the test ends, so no other process can take it meanwhile (a port bound and let go could be).
    let unlistened = tokio::net::TcpSocket::new_v4().unwrap();
    unlistened.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let port = unlistened.local_addr().unwrap().port();
    b.fill("[data-testid=api-base-url]", &format!("http://127.0.0.1:{port}/v1")).await;
    b.click("[data-testid=api-test]").await;
    let verdict = b.wait_text("[data-testid=connection-verdict]", Duration::from_secs(40), |t| !t.is_empty()).await;
    assert!(verdict.to_lowercase().contains("reach"), "{verdict}");
    assert!(!verdict.to_lowercase().contains("blocked"), "{verdict}");
    b.close().await;
}

/// Stop cancels the requests in flight (the server sees them dropped), the streamed transcript was
/// visible while they ran, and another run starts and finishes afterwards.
#[tokio::test(flavor = "multi_thread")]
async fn stop_cancels_requests_in_flight() {
    let mock = start_mock(MockConfig { latency_ms: 4_000, ..Default::default() }).await;
    let (b, _site) = open_evaluate().await;
    use_mock(&b, &mock, KEY).await;
    b.fill("[data-testid=api-concurrency]", "3").await;
    b.fill("[data-testid=eval-n]", "1").await;
    b.fill("[data-testid=eval-limit]", "20").await;
    start_api_run(&b).await;
    // A streamed response fills in live (the server spreads its latency over the stream).
    b.wait_text("[data-testid=live-transcript]", Duration::from_secs(20), |t| t.contains("[ANSWER]")).await;
    scroll_to(&b, ".eval-progress").await;
    b.screenshot("models-streaming").await;
    assert_eq!(mock.stats().in_flight, 3);
    b.click("[data-testid=eval-stop]").await;
    let state = b.wait_text("[data-testid=eval-state]", Duration::from_secs(20), |t| !t.is_empty()).await;
    assert!(state.starts_with("stopped"), "{state}");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while mock.stats().in_flight > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "requests still in flight after Stop: {:?}",
            mock.stats().in_flight
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(mock.stats().cancelled >= 3, "the server saw the requests dropped: {}", mock.stats().cancelled);
    // The next run works: the oracle on 5 samples.
    select(&b, "[data-testid=eval-model]", "oracle").await;
    b.fill("[data-testid=eval-limit]", "5").await;
    b.click("[data-testid=eval-run]").await;
    b.wait_text("[data-testid=eval-state]", Duration::from_secs(60), |t| t == "finished").await;
    b.close().await;
}

/// Every request in flight rate-limited at once: the account is saturated, so the concurrency is
/// halved, and the live status says so, with when it is back; so does the run's row on the Runs
/// page while it runs.
#[tokio::test(flavor = "multi_thread")]
async fn a_lowered_concurrency_is_shown_with_its_way_back() {
    let config = MockConfig {
        latency_ms: 400,
        faults: (0..4)
            .map(|i| {
                FaultRule::on_attempts(
                    SampleMatch::Id(format!("sample_{i}")),
                    &[1],
                    Fault::RateLimit { retry_after_s: Some(1.0), retry_after_ms: None },
                )
            })
            .collect(),
        ..Default::default()
    };
    let mock = start_mock(config).await;
    let (b, _site) = open_evaluate().await;
    use_mock(&b, &mock, KEY).await;
    b.fill("[data-testid=api-concurrency]", "4").await;
    b.fill("[data-testid=eval-n]", "1").await;
    b.fill("[data-testid=eval-limit]", "30").await;
    start_api_run(&b).await;
    let said = "concurrency 2 of 4 after rate limits, back to 4 in ";
    let live = b.wait_text("[data-testid=eval-live]", Duration::from_secs(30), |t| t.contains(said)).await;
    assert!(live.ends_with(" s"), "{live}");
    js(&b, "location.hash = '#/runs'").await;
    let row = b.wait_text("[data-testid=run-concurrency]", Duration::from_secs(10), |t| t.contains(said)).await;
    assert!(row.starts_with(said), "{row}");
    let state = b
        .wait_text("[data-testid=run-state]", Duration::from_secs(60), |t| {
            t.starts_with("paused") || t.starts_with("finished")
        })
        .await;
    assert!(state.starts_with("finished"), "{state}");
    let stats = mock.stats();
    assert!(stats.max_concurrency <= 4, "{}", stats.max_concurrency);
    assert_eq!(stats.faults_served, 4);
    b.close().await;
}

/// Samples whose requests failed are errors, not wrong answers: left out of pass@1 and listed;
/// Retry errors asks again for those only. The key is remembered only when asked to.
#[tokio::test(flavor = "multi_thread")]
async fn retry_errors_asks_only_for_the_failed_samples() {
    let config = MockConfig {
        answers: AnswerPolicy { wrong_ids: ["sample_5".to_string()].into(), ..Default::default() },
        faults: vec![
            FaultRule::on_attempts(SampleMatch::Id("sample_3".into()), &[1], Fault::EmptyLength),
            FaultRule::on_attempts(SampleMatch::Id("sample_8".into()), &[1], Fault::EmptyLength),
        ],
        ..Default::default()
    };
    let mock = start_mock(config).await;
    let (b, _site) = open_evaluate().await;
    use_mock(&b, &mock, KEY).await;
    b.click("[data-testid=api-remember]").await;
    b.fill("[data-testid=eval-n]", "1").await;
    b.fill("[data-testid=eval-limit]", "12").await;
    start_api_run(&b).await;
    let state = b.wait_text("[data-testid=eval-state]", Duration::from_secs(60), |t| !t.is_empty()).await;
    assert_eq!(state, "finished: 10 scored, 2 errors");
    // 9 of the 10 scored samples are right: the two errors are not counted as wrong.
    assert_eq!(b.wait_text("[data-testid=pass1-output-strict]", Duration::from_secs(5), |_| true).await, "90.0");
    let errors: Vec<String> = serde_json::from_value(
        js(&b, "return [...document.querySelectorAll('[data-testid=run-error]')].map(e => e.textContent)").await,
    )
    .unwrap();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[0].starts_with("sample_3: ") && errors[0].contains("length"), "{errors:?}");
    scroll_to(&b, "[data-testid=run-errors]").await;
    b.screenshot("models-errors").await;

    b.click("[data-testid=eval-retry-errors]").await;
    b.wait_text("[data-testid=eval-state]", Duration::from_secs(60), |t| t == "finished").await;
    assert_eq!(b.wait_text("[data-testid=pass1-output-strict]", Duration::from_secs(5), |_| true).await, "91.7");
    let stats = mock.stats();
    assert_eq!(
        (stats.per_sample["sample_3"], stats.per_sample["sample_8"], stats.per_sample["sample_0"]),
        (2, 2, 1),
        "only the failed samples are asked again"
    );
    assert_eq!(stats.requests_total, 14);
    // One run, one entry: the retry's results replace the first session's, and count both.
    let listed = js(&b, "return document.querySelectorAll('[data-testid=table-run] option').length").await;
    assert_eq!(listed, serde_json::json!(1));
    let usage = b.wait_text("[data-testid=run-usage]", Duration::from_secs(5), |_| true).await;
    assert!(usage.starts_with("14 requests"), "{usage}");

    // Remembered on request: in local storage under the provider's entry; unticking forgets it.
    // Remembered for the provider at this server's origin only.
    let entry = format!("execbench.api-key.openai-compatible@{}", mock.base_url());
    let stored = js(&b, &format!("return localStorage.getItem('{entry}')")).await;
    assert_eq!(stored.as_str(), Some(KEY));
    b.click("[data-testid=api-remember]").await;
    b.click("[data-testid=api-test]").await;
    b.wait_text("[data-testid=connection-verdict]", Duration::from_secs(20), |t| !t.is_empty()).await;
    let stored = js(&b, &format!("return localStorage.getItem('{entry}')")).await;
    assert!(stored.is_null(), "{stored}");
    b.close().await;
}

/// Stop is per job: stopping Verify while an evaluation runs leaves the evaluation's Python runs
/// alone (before, Stop restarted the shared worker and failed every queued run of every page).
#[tokio::test(flavor = "multi_thread")]
async fn stopping_one_page_leaves_another_pages_python_runs_alone() {
    let (b, _site) = open_evaluate().await;
    select(&b, "[data-testid=eval-model]", "oracle").await;
    b.fill("[data-testid=eval-n]", "1").await;
    b.click("[data-testid=eval-run]").await;
    b.wait_text("[data-testid=eval-stats]", Duration::from_secs(30), |t| !t.starts_with("0 /")).await;
    b.click("a[href='#/verify']").await;
    // Start, then Stop as soon as the first result is in, from inside the page: a warm pool can
    // verify all 800 samples within a WebDriver round trip or two, and Stop must land mid-way.
    let stopped_at = b
        .client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             document.querySelector('[data-testid=verify-start]').click();
             const tick = () => {
                 const stop = document.querySelector('[data-testid=verify-stop]');
                 const stats = document.querySelector('[data-testid=verify-stats]');
                 if (stop && !stop.disabled && stats && !stats.textContent.startsWith('0 /')) { stop.click(); done(stats.textContent); }
                 else setTimeout(tick, 2);
             };
             tick();",
            vec![],
        )
        .await
        .unwrap();
    assert!(stopped_at.as_str().is_some_and(|t| !t.starts_with("800 /")), "stopped at {stopped_at}");
    let state = b.wait_text("[data-testid=verify-state]", Duration::from_secs(30), |t| !t.is_empty()).await;
    assert!(state.contains("stopped"), "{state}");
    b.click("a[href='#/evaluate']").await;
    let state = b.wait_text("[data-testid=eval-state]", Duration::from_secs(300), |t| !t.is_empty()).await;
    assert_eq!(state, "finished", "no run of the evaluation was failed by Verify's Stop");
    for mode in ["strict", "compatible"] {
        assert_eq!(
            b.wait_text(&format!("[data-testid=pass1-output-{mode}]"), Duration::from_secs(5), |_| true).await,
            "100.0",
            "{mode}"
        );
    }
    b.close().await;
}

/// The other two wire formats from the page, streamed: Anthropic Messages (n requests of one,
/// with the browser-access header the mock server checks like the real API) and Gemini.
#[tokio::test(flavor = "multi_thread")]
async fn anthropic_and_gemini_formats_run_from_the_page() {
    let mock = start_mock(MockConfig {
        answers: AnswerPolicy { wrong_ids: ["sample_1".to_string()].into(), ..Default::default() },
        ..Default::default()
    })
    .await;
    let (b, _site) = open_evaluate().await;
    select(&b, "[data-testid=eval-model]", "api").await;
    b.fill("[data-testid=eval-n]", "2").await;
    b.fill("[data-testid=eval-limit]", "6").await;
    // (provider, path of the base URL, requests the server should see for 6 samples x n = 2)
    let cases = [("anthropic", "/v1", 12), ("gemini", "/v1beta", 6)];
    for (provider, path, requests) in cases {
        mock.reset();
        select(&b, "[data-testid=api-provider]", provider).await;
        b.fill("[data-testid=api-base-url]", &format!("{}{path}", mock.base_url())).await;
        b.fill("[data-testid=api-model]", "mock-model").await;
        b.fill("[data-testid=api-key]", KEY).await;
        // Anthropic's API takes no sampling parameters: the form says so before the run.
        let not_sent = b
            .client
            .execute(
                "const n = document.querySelector('[data-testid=api-not-sent]'); return n ? n.innerText : ''",
                vec![],
            )
            .await
            .unwrap();
        let not_sent = not_sent.as_str().unwrap_or_default();
        if provider == "anthropic" {
            assert!(not_sent.contains("temperature 0.2: not sent") && not_sent.contains("mock-model"), "{not_sent}");
        } else {
            assert_eq!(not_sent, "", "Gemini 2 and unknown Gemini models take every setting");
        }
        start_api_run(&b).await;
        let state = b
            .wait_text("[data-testid=eval-state]", Duration::from_secs(60), |t| {
                !t.is_empty() && !t.starts_with("Evaluating")
            })
            .await;
        assert_eq!(state, "finished", "{provider}");
        assert_eq!(
            b.wait_text("[data-testid=pass1-output-strict]", Duration::from_secs(5), |_| true).await,
            "83.3",
            "{provider}: 5 of 6 right"
        );
        let stats = mock.stats();
        assert_eq!(stats.requests_total, requests, "{provider}");
        assert!(
            stats.recent.iter().all(|r| r.format == provider),
            "{provider}: {:?}",
            stats.recent.iter().map(|r| &r.format).collect::<Vec<_>>()
        );
        let usage = b.wait_text("[data-testid=run-usage]", Duration::from_secs(5), |_| true).await;
        assert!(!usage.contains("tokens: 0 prompt"), "{provider}: usage read from the stream: {usage}");
    }
    b.close().await;
}

/// A run file (what `execbench run` writes: a manifest line, then one record per sample) imports
/// into the page as answers to replay, and gives the figures the library computes from it.
#[tokio::test(flavor = "multi_thread")]
async fn a_run_file_imports_and_replays_with_the_same_figures() {
    use execbench_eval::models::EchoFirstArgument;
    use execbench_eval::prompt::{Style, default_template};
    use execbench_eval::{Mode, Task};
    use execbench_run::io::{BlockingPython, Clock, NoHttp, NoStore};
    use execbench_run::manifest::{RunManifest, dataset_hash};
    use execbench_run::runfile::{manifest_line, read_run_file, record_line};
    use execbench_run::{CancelToken, EvalJob, Io, Responder, run_evaluation};

    struct NoWait;
    impl Clock for NoWait {
        fn now_ms(&self) -> f64 {
            0.0
        }
        async fn sleep(&self, _: u64) {}
    }
    let samples: Vec<_> = bundled_dataset().unwrap().into_iter().take(20).collect();
    let template = default_template(Task::Output, Style::Direct);
    let job = EvalJob::new(samples.clone(), template.clone(), 1, vec![Mode::Strict]);
    let python = BlockingPython::new(execbench_pyengine::RustPythonEngine::new());
    let mut responder = Responder::Offline(Box::new(EchoFirstArgument));
    let outcome = run_evaluation(
        &job,
        &mut responder,
        Io { python: &python, http: &NoHttp, clock: &NoWait, store: &NoStore },
        &CancelToken::new(),
        &|_| {},
    )
    .await;
    let manifest = RunManifest {
        model: "echo-first-argument".into(),
        dataset: "cruxeval.jsonl".into(),
        dataset_hash: dataset_hash(&samples),
        samples: 20,
        template,
        ..execbench_run::manifest::fixtures::manifest("e2e", 0)
    };
    let text = std::iter::once(manifest_line(&manifest))
        .chain(outcome.records.iter().map(record_line))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    let rows = read_run_file("run.jsonl", &text).unwrap().result_rows();
    let expected = execbench_eval::report::summarize(Task::Output, Mode::Strict, &rows).pass_at_1.display();
    let dir = std::env::temp_dir().join(format!("execbench-e2e-runfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("run.jsonl");
    std::fs::write(&path, &text).unwrap();

    let (b, _site) = open_evaluate().await;
    select(&b, "[data-testid=eval-model]", "replay").await;
    let input = b
        .client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("[data-testid=replay-file]"))
        .await
        .unwrap();
    input.send_keys(path.to_str().unwrap()).await.unwrap();
    let status = b.wait_text("[data-testid=replay-file-status]", Duration::from_secs(10), |t| !t.is_empty()).await;
    assert_eq!(status, "run.jsonl: 20 entries, an execbench results or run file");
    b.fill("[data-testid=eval-n]", "1").await;
    b.fill("[data-testid=eval-limit]", "20").await;
    b.click("[data-testid=eval-run]").await;
    assert_eq!(b.wait_text("[data-testid=eval-state]", Duration::from_secs(60), |t| !t.is_empty()).await, "finished");
    assert_eq!(b.wait_text("[data-testid=pass1-output-strict]", Duration::from_secs(5), |_| true).await, expected);
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tiny server on 127.0.0.1 that answers every request but a preflight with a redirect to
/// `target` (allowing any origin, as a proxy in front of a provider might), counting requests.
fn start_redirector(target: String) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{BufRead, BufReader, Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut first, mut length, mut asked_headers) = (String::new(), 0usize, String::new());
            let _ = reader.read_line(&mut first);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                if let Some(v) = lower.strip_prefix("access-control-request-headers:") {
                    asked_headers = v.trim().to_string();
                }
            }
            let _ = reader.by_ref().take(length as u64).read_to_end(&mut Vec::new());
            let cors = format!(
                "Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Methods: GET, POST, OPTIONS\r\nAccess-Control-Allow-Headers: {asked_headers}\r\n"
            );
            let answer = if first.starts_with("OPTIONS") {
                format!("HTTP/1.1 204 No Content\r\n{cors}Content-Length: 0\r\nConnection: close\r\n\r\n")
            } else {
                format!(
                    "HTTP/1.1 302 Found\r\nLocation: {target}\r\n{cors}Content-Length: 0\r\nConnection: close\r\n\r\n"
                )
            };
            let mut stream = stream;
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    (address, count)
}

/// A model server that answers with a redirect: the page does not follow it (the key headers
/// would go along), and says so; the address it points to gets no request.
#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_is_not_followed_and_the_page_says_so() {
    let (elsewhere, reached) = start_redirector("http://127.0.0.1:9/never".into());
    let (redirector, _) = start_redirector(format!("{elsewhere}/v1/chat/completions"));
    let (b, _site) = open_evaluate().await;
    select(&b, "[data-testid=eval-model]", "api").await;
    select(&b, "[data-testid=api-provider]", "openai-compatible").await;
    b.fill("[data-testid=api-base-url]", &format!("{redirector}/v1")).await;
    b.fill("[data-testid=api-model]", "mock-model").await;
    b.fill("[data-testid=api-key]", KEY).await;
    b.click("[data-testid=api-test]").await;
    let verdict = b.wait_text("[data-testid=connection-verdict]", Duration::from_secs(30), |t| !t.is_empty()).await;
    assert!(verdict.contains("redirect"), "{verdict}");
    assert_eq!(reached.load(std::sync::atomic::Ordering::SeqCst), 0, "the redirect's target was asked");
    b.close().await;
}

/// A key typed for plain http to another machine gets a warning in the form (the command line
/// refuses it without `--allow-http`); loopback and https do not.
#[tokio::test(flavor = "multi_thread")]
async fn a_key_over_plain_http_to_another_machine_is_warned_about() {
    let (b, _site) = open_evaluate().await;
    select(&b, "[data-testid=eval-model]", "api").await;
    select(&b, "[data-testid=api-provider]", "openai-compatible").await;
    b.fill("[data-testid=api-key]", KEY).await;
    // (base URL, warned)
    for (url, warned) in [
        ("http://10.1.2.3:8000/v1", true),
        ("http://127.0.0.1:8000/v1", false),
        ("https://gateway.example/v1", false),
        ("http://gateway.example/v1", true),
    ] {
        b.fill("[data-testid=api-base-url]", url).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let shown =
            js(&b, "const w = document.querySelector('[data-testid=api-http-warning]'); return w ? w.textContent : ''")
                .await;
        let shown = shown.as_str().unwrap_or("");
        assert_eq!(!shown.is_empty(), warned, "{url}: {shown:?}");
        if warned {
            assert!(shown.contains("unencrypted"), "{shown}");
            scroll_to(&b, "[data-testid=api-settings]").await;
            b.screenshot("models-http-warning").await;
        }
    }
    b.close().await;
}

/// Live JS functions after a forced garbage collection: what the page keeps of a run.
async fn live_functions(b: &Browser) -> u64 {
    b.live_objects("Function.prototype").await.unwrap()
}

/// A run leaves nothing behind per sample in the page's JS heap (the soak found two live
/// functions per sample, every run, without end: a Python deadline timer's callback that was
/// never freed when the timer was cleared). Runs of 30 and of 230 samples in one page must leave
/// the same number of live functions, give or take a few dozen, never one or two per sample.
#[tokio::test(flavor = "multi_thread")]
async fn a_run_leaves_no_live_functions_per_sample() {
    const SMALL: u64 = 30;
    const LARGE: u64 = 230;
    let mock = start_mock(MockConfig::default()).await;
    let (b, _site) = open_evaluate().await;
    use_mock(&b, &mock, KEY).await;
    b.fill("[data-testid=api-concurrency]", "8").await;
    b.fill("[data-testid=eval-n]", "1").await;
    let run = async |samples: u64| {
        b.fill("[data-testid=eval-limit]", &samples.to_string()).await;
        start_api_run(&b).await;
        let state = b.wait_text("[data-testid=eval-state]", Duration::from_secs(120), |t| !t.is_empty()).await;
        assert_eq!(state, "finished");
        let timing = b.wait_text("[data-testid=run-timing]", Duration::from_secs(5), |_| true).await;
        assert!(timing.starts_with(&format!("{samples} of {samples} samples scored")), "{timing}");
        live_functions(&b).await
    };
    // The first run makes what every run shares (the results view, the pool's workers).
    let warm = run(SMALL).await;
    let after_small = run(SMALL).await;
    let after_large = run(LARGE).await;
    let (small, large) = (after_small as i64 - warm as i64, after_large as i64 - after_small as i64);
    println!("live functions: {warm} after the first run, +{small} after {SMALL} samples, +{large} after {LARGE}");
    assert!(
        large - small <= 50,
        "{} more samples left {} more live functions ({small} after a run of {SMALL}, {large} after one of {LARGE})",
        LARGE - SMALL,
        large - small
    );
    b.close().await;
}
