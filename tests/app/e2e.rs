//! End-to-end: the built app in headless Chromium, used as a person would. Needs `dist/`
//! (scripts/test.sh builds it) and Debian's chromium + chromedriver (scripts/setup.sh).
//! Screenshots of every page land in tests/artifacts/.

use std::time::Duration;

use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;

/// The browser, the site's address and its server, which the test keeps while it uses the site.
async fn open_app() -> (Browser, String, StaticServer) {
    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let browser = Browser::launch().await;
    (browser, server.base_url.clone(), server)
}

/// The longest the page's thread may be busy while Python runs in a worker: far below the runs'
/// own length (a second and more), well above what a loaded CI machine adds to a 10 ms timer.
const MOST_MAIN_THREAD_GAP_MS: f64 = 600.0;

/// The engine badge turns "ready" once the worker has started Python.
async fn wait_engine_ready(b: &Browser) {
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn browse_search_open_and_run_a_sample() {
    let (b, base, _site) = open_app().await;
    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
    b.screenshot("datasets").await;
    // Each row shows the call and the output value beside the code.
    let first = b.client.execute("const r = document.querySelector('[data-testid=sample-row]'); return [r.querySelector('[data-testid=row-call]').textContent, r.querySelector('[data-testid=row-output]').textContent]", vec![]).await.unwrap();
    assert_eq!(first, serde_json::json!(["f([1, 1, 3, 1, 3, 1])", "[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]"]));
    // The search covers the call too: sample_0's argument list is found.
    b.fill("[data-testid=search]", "[1, 1, 3, 1, 3, 1]").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| {
        !t.starts_with("0 of") && !t.starts_with("800 of")
    })
    .await;

    b.fill("[data-testid=search]", "sample_79").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t.starts_with("11 of")).await; // sample_79, sample_790..799
    b.fill("[data-testid=search]", "zzz-no-such-thing").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "0 of 800").await;
    b.screenshot("datasets-empty-search").await;

    b.client.goto(&format!("{base}#/sample/sample_0")).await.unwrap();
    b.wait_text("[data-testid=sample-call]", Duration::from_secs(20), |t| t == "f([1, 1, 3, 1, 3, 1])").await;
    // tree-sitter's colours reached the page: `def` and `return` are keywords, `f` the function.
    let tokens = b
        .client
        .execute(
            "return [...document.querySelectorAll('pre.code span')].map(s => s.className + ':' + s.textContent)",
            vec![],
        )
        .await
        .unwrap();
    let tokens: Vec<&str> = tokens.as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    for wanted in ["tok-keyword:def", "tok-function:f", "tok-keyword:return"] {
        assert!(tokens.contains(&wanted), "{wanted} not among {tokens:?}");
    }
    wait_engine_ready(&b).await;
    b.click("[data-testid=run]").await;
    let badge = b.wait_text("[data-testid=result-badge]", Duration::from_secs(30), |t| !t.is_empty()).await;
    assert_eq!(badge, "matches the expected output");
    let value = b.wait_text("[data-testid=result-value]", Duration::from_secs(5), |_| true).await;
    assert_eq!(value, "[(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]");
    b.screenshot("sample-run").await;

    b.client.goto(&format!("{base}#/sample/no_such_sample")).await.unwrap();
    b.wait_text(".error-box", Duration::from_secs(10), |t| t.contains("There is no sample `no_such_sample`")).await;
    b.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_infinite_loop_times_out_and_the_next_run_works() {
    let (b, base, _site) = open_app().await;
    b.client.goto(&format!("{base}#/playground")).await.unwrap();
    wait_engine_ready(&b).await;
    b.fill("[data-testid=program]", "def spin():\n    while True:\n        pass\n").await;
    b.fill("[data-testid=expression]", "spin()").await;
    b.fill("[data-testid=time-limit]", "1").await;
    // The probe can fail: a second's spin on the page's own thread shows as a gap past the bound.
    b.start_responsiveness_probe().await;
    b.client.execute("const t = performance.now(); while (performance.now() - t < 1000) {}", vec![]).await.unwrap();
    let (blocked, _) = b.longest_timer_gap_ms().await;
    // (MOST_MAIN_THREAD_GAP_MS is well under a second, so this gap is past the bound.)
    assert!(blocked >= 1000.0, "a blocked thread read as a {blocked:.0} ms gap");
    b.start_responsiveness_probe().await;
    b.click("[data-testid=run]").await;
    let error = b.wait_text("[data-testid=result-error]", Duration::from_secs(20), |t| !t.is_empty()).await;
    assert_eq!(error, "timed out after 1 s");
    // While Python spun in the worker for a second, the page's own timer kept running: a spin on
    // the page's thread would have held it for the whole second.
    let (longest, ticks) = b.longest_timer_gap_ms().await;
    assert!(longest < MOST_MAIN_THREAD_GAP_MS && ticks >= 20, "longest gap {longest:.0} ms, {ticks} timer runs");
    b.screenshot("playground-timeout").await;

    wait_engine_ready(&b).await;
    b.fill("[data-testid=program]", "def f(x):\n    print('x is', x)\n    return x * 2\n").await;
    b.fill("[data-testid=expression]", "f(21)").await;
    b.click("[data-testid=run]").await;
    let value = b.wait_text("[data-testid=result-value]", Duration::from_secs(20), |_| true).await;
    assert_eq!(value, "42");
    assert_eq!(b.wait_text("[data-testid=result-stdout]", Duration::from_secs(5), |_| true).await, "x is 21");
    b.screenshot("playground-after-timeout").await;

    // Stop ends a run long before its limit; the header says "running" until then.
    b.fill("[data-testid=program]", "def spin():\n    while True:\n        pass\n").await;
    b.fill("[data-testid=expression]", "spin()").await;
    b.fill("[data-testid=time-limit]", "30").await;
    b.click("[data-testid=run]").await;
    b.wait_text("[data-testid=playground-running]", Duration::from_secs(5), |t| t == "running").await;
    b.click("[data-testid=playground-stop]").await;
    assert_eq!(b.wait_text("[data-testid=result-badge]", Duration::from_secs(5), |t| t != "returned").await, "stopped");
    assert!(b.client.find(fantoccini::Locator::Css("[data-testid=playground-running]")).await.is_err());

    // A program with no expression runs for what it prints.
    wait_engine_ready(&b).await;
    b.fill("[data-testid=program]", "print('hello from the top level')\n").await;
    b.fill("[data-testid=expression]", "").await;
    b.click("[data-testid=run]").await;
    assert_eq!(
        b.wait_text("[data-testid=result-stdout]", Duration::from_secs(20), |t| t.starts_with("hello")).await,
        "hello from the top level"
    );

    b.fill("[data-testid=time-limit]", "fast").await;
    b.click("[data-testid=run]").await;
    let message = b.wait_text("[data-testid=form-error]", Duration::from_secs(5), |_| true).await;
    assert_eq!(message, "time limit `fast` is not a number of seconds");
    b.close().await;
}

/// The ids of the rows the list has rendered, top to bottom, and the list's scroll position.
async fn rendered_rows(b: &Browser) -> (Vec<String>, f64) {
    let js = "const list = document.querySelector('[data-testid=sample-list]');
        const rows = [...list.querySelectorAll('[data-testid=sample-row]')]
            .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
            .map(r => r.querySelector('.col-id').textContent);
        return [rows, list.scrollTop];";
    let value = b.client.execute(js, vec![]).await.unwrap();
    let ids = value[0].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
    (ids, value[1].as_f64().unwrap())
}

/// Scrolls the list to its end and waits until the rendered rows end with `last_id`.
async fn scroll_to_end(b: &Browser, last_id: &str) -> Vec<String> {
    b.client
        .execute("const l = document.querySelector('[data-testid=sample-list]'); l.scrollTop = l.scrollHeight;", vec![])
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (ids, _) = rendered_rows(b).await;
        if ids.last().map(String::as_str) == Some(last_id) {
            return ids;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "after scrolling to the end the last row is {:?}, not {last_id}",
            ids.last()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// At most this many rows exist in the page at once (the view plus the overscan on both sides).
const MAX_RENDERED_ROWS: usize = 40;

#[tokio::test(flavor = "multi_thread")]
async fn the_list_renders_only_what_is_in_view_filters_and_scrolls() {
    let crux = execbench_core::load_jsonl(
        "cruxeval.jsonl",
        &std::fs::read_to_string(execbench_testkit::repo_root().join("public/data/cruxeval/cruxeval.jsonl")).unwrap(),
    );
    let (b, base, _site) = open_app().await;
    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
    let (ids, _) = rendered_rows(&b).await;
    assert!(
        ids.len() <= MAX_RENDERED_ROWS && ids[0] == "sample_0",
        "{} rows rendered, first {:?}",
        ids.len(),
        ids.first()
    );
    let ids = scroll_to_end(&b, "sample_799").await;
    assert!(ids.len() <= MAX_RENDERED_ROWS, "{} rows rendered at the end", ids.len());

    // A search typed while scrolled down shows its first matches (the list used to stay blank).
    b.fill("[data-testid=search]", "d").await;
    let matches: Vec<&str> = crux
        .samples
        .iter()
        .filter(|s| s.id.contains('d') || s.code.to_lowercase().contains('d') || s.output.to_lowercase().contains('d'))
        .map(|s| s.id.as_str())
        .collect();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == format!("{} of 800", matches.len()))
        .await;
    let (ids, scroll_top) = rendered_rows(&b).await;
    assert_eq!(scroll_top, 0.0);
    assert_eq!(ids.first().map(String::as_str), matches.first().copied());

    // The output-type filter, against the types the library gives the bundled file.
    b.fill("[data-testid=search]", "").await;
    let bools: Vec<&str> =
        crux.samples.iter().filter(|s| s.output_kind().label() == "bool").map(|s| s.id.as_str()).collect();
    assert!(!bools.is_empty());
    b.client
        .find(fantoccini::Locator::Css("[data-testid=kind-filter]"))
        .await
        .unwrap()
        .select_by_value("bool")
        .await
        .unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == format!("{} of 800", bools.len())).await;
    let (ids, _) = rendered_rows(&b).await;
    assert_eq!(ids, bools.iter().take(ids.len()).map(|s| s.to_string()).collect::<Vec<_>>());
    b.screenshot("datasets-filter-bool").await;

    // 10,000 rows: still only the rows in view, and the end is reachable.
    let dir = std::env::temp_dir().join(format!("execbench-e2e-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("big.jsonl");
    let rows: Vec<String> = (0..10_000)
        .map(|i| serde_json::json!({"id": format!("row_{i:05}"), "code": format!("def f(x):\n    return x + {i}"), "input": "1", "output": (i + 1).to_string()}).to_string())
        .collect();
    std::fs::write(&file, rows.join("\n")).unwrap();
    let input = b.client.find(fantoccini::Locator::Css("[data-testid=import]")).await.unwrap();
    input.send_keys(file.to_str().unwrap()).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "10000 of 10000").await;
    let (ids, _) = rendered_rows(&b).await;
    assert!(ids.len() <= MAX_RENDERED_ROWS, "{} of 10,000 rows rendered", ids.len());
    let ids = scroll_to_end(&b, "row_09999").await;
    assert!(ids.len() <= MAX_RENDERED_ROWS, "{} rows rendered at the end of 10,000", ids.len());
    b.screenshot("datasets-10000-rows-end").await;
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread")]
async fn verify_all_800_in_the_page() {
    let (b, base, _site) = open_app().await;
    b.client.goto(&format!("{base}#/verify")).await.unwrap();
    wait_engine_ready(&b).await;
    b.wait_text("[data-testid=verify-stats]", Duration::from_secs(10), |t| t.contains("0 / 0")).await;
    b.screenshot("verify-empty").await;
    b.click("[data-testid=verify-start]").await;
    let state = b.wait_text("[data-testid=verify-state]", Duration::from_secs(300), |t| !t.is_empty()).await;
    assert_eq!(state, "finished");
    assert_eq!(b.wait_text("[data-testid=verify-passed]", Duration::from_secs(5), |_| true).await, "800 passed");
    assert_eq!(b.wait_text("[data-testid=verify-failed]", Duration::from_secs(5), |_| true).await, "0 failed");
    let class = b
        .client
        .execute("return document.querySelector('[data-testid=verify-failed]').className", vec![])
        .await
        .unwrap();
    assert_eq!(class.as_str(), Some("badge none"), "nothing failed: no red badge");
    let stats = b.wait_text("[data-testid=verify-stats]", Duration::from_secs(5), |_| true).await;
    assert!(stats.starts_with("800 / 800 samples"), "{stats}");
    b.screenshot("verify-done").await;
    b.close().await;
}

/// Imports `rows` as `name` on the Datasets page (it becomes the open dataset), without the
/// import's own check of every row, so the Verify page's job is the test's alone.
async fn import_rows(b: &Browser, base: &str, name: &str, rows: &[String]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-e2e-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, rows.join("\n")).unwrap();
    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
    let checked =
        b.client.execute("return document.querySelector('[data-testid=check-rows]').checked", vec![]).await.unwrap();
    if checked.as_bool() == Some(true) {
        b.click("[data-testid=check-rows]").await;
    }
    let input = b.client.find(fantoccini::Locator::Css("[data-testid=import]")).await.unwrap();
    input.send_keys(file.to_str().unwrap()).await.unwrap();
    b.wait_text("[data-testid=dataset-name]", Duration::from_secs(10), |t| t == name).await;
    dir
}

/// A sample whose call takes some tens of milliseconds in the worker.
fn slow_row(i: usize) -> String {
    serde_json::json!({"id": format!("slow_{i:03}"), "code": "def f(x):\n    t = 0\n    for i in range(150000):\n        t += i\n    return x + 1", "input": i.to_string(), "output": (i + 1).to_string()}).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn verify_can_be_stopped_midway() {
    let (b, base, _site) = open_app().await;
    // Slow samples, so Stop comes while most are still to run.
    let rows: Vec<String> = (0..200).map(slow_row).collect();
    let dir = import_rows(&b, &base, "slow.jsonl", &rows).await;
    b.client.goto(&format!("{base}#/verify")).await.unwrap();
    wait_engine_ready(&b).await;
    b.click("[data-testid=verify-start]").await;
    b.wait_text("[data-testid=verify-stats]", Duration::from_secs(60), |t| !t.starts_with("0 /")).await;
    b.click("[data-testid=verify-stop]").await;
    let runs_at_stop = runs_answered(&b).await;
    let state = b.wait_text("[data-testid=verify-state]", Duration::from_secs(30), |t| !t.is_empty()).await;
    assert_eq!(state, "stopped before the end");
    let stats = b.wait_text("[data-testid=verify-stats]", Duration::from_secs(5), |_| true).await;
    assert!(!stats.starts_with("200 / 200"), "{stats}");
    b.screenshot("verify-stopped").await;
    // Stop ended the job's queued runs: the workers executed none of them after it (the pool
    // counts every run a worker answers), and the next job's run is answered at once.
    b.client.goto(&format!("{base}#/playground")).await.unwrap();
    b.fill("[data-testid=expression]", "6 * 7").await;
    b.click("[data-testid=run]").await;
    b.wait_text("[data-testid=run-result]", Duration::from_secs(20), |t| t.contains("42")).await;
    let after = runs_answered(&b).await;
    // Besides the playground's run, at most what was already posted when Stop came.
    assert!(
        after > runs_at_stop && after <= runs_at_stop + 1 + 8,
        "{runs_at_stop} runs answered at Stop, {after} after"
    );
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs the Python workers have answered since the page opened (the engine badge's count).
async fn runs_answered(b: &Browser) -> u64 {
    let script = "const e = document.querySelector('.engine[data-runs]'); return e ? Number(e.dataset.runs) : null";
    let value = b.wait_script(script, Duration::from_secs(10), |v| v.is_number()).await;
    value.as_u64().unwrap()
}

/// Chooses the pool's size in the header's engine panel (and closes the panel).
async fn choose_pool_size(b: &Browser, size: usize, screenshot: Option<&str>) {
    b.click("[data-testid=engine-menu] summary").await;
    b.wait_text("[data-testid=engine-state]", Duration::from_secs(5), |t| t.contains(" of ")).await;
    b.client
        .find(fantoccini::Locator::Css("[data-testid=pool-size]"))
        .await
        .unwrap()
        .select_by_value(&size.to_string())
        .await
        .unwrap();
    if let Some(name) = screenshot {
        b.screenshot(name).await;
    }
    b.click("[data-testid=engine-menu] summary").await;
}

/// Verifies all and checks that only the sample `runaway` failed, timed out, among `passed`
/// passing samples whose ids start with `others`. Returns the engine panel's text.
async fn verify_all_with_one_runaway(b: &Browser, passed: usize, others: &str) -> String {
    b.click("[data-testid=verify-start]").await;
    let state = b.wait_text("[data-testid=verify-state]", Duration::from_secs(120), |t| !t.is_empty()).await;
    assert_eq!(state, "finished");
    let expected = format!("{passed} passed");
    assert_eq!(b.wait_text("[data-testid=verify-passed]", Duration::from_secs(5), |_| true).await, expected);
    assert_eq!(b.wait_text("[data-testid=verify-failed]", Duration::from_secs(5), |_| true).await, "1 failed");
    let problems = b.wait_text("[data-testid=verify-problems]", Duration::from_secs(5), |_| true).await;
    assert!(problems.contains("runaway") && problems.contains("timed out"), "{problems}");
    assert!(!problems.contains(others), "only the runaway failed: {problems}");
    b.click("[data-testid=engine-menu] summary").await;
    b.wait_text("[data-testid=engine-state]", Duration::from_secs(5), |_| true).await
}

/// A sample that only killing its worker stops: one long builtin call.
fn runaway_row() -> String {
    serde_json::json!({"id": "runaway", "code": "def f(x):\n    return sum(range(2**31 - 1))", "input": "1", "output": "1"})
        .to_string()
}

/// With a pool of two workers (chosen in the header's engine panel), verification spreads over
/// both; a runaway sample (one long builtin call, which only killing its worker stops) fails
/// alone, its worker is replaced, and the runs that shared its batch still pass.
#[tokio::test(flavor = "multi_thread")]
async fn verify_spreads_over_a_pool_and_a_runaway_fails_only_itself() {
    let (b, base, _site) = open_app().await;
    let mut rows: Vec<String> = (0..120).map(slow_row).collect();
    rows.insert(30, runaway_row());
    let dir = import_rows(&b, &base, "pool.jsonl", &rows).await;
    b.client.goto(&format!("{base}#/verify")).await.unwrap();
    wait_engine_ready(&b).await;
    choose_pool_size(&b, 2, Some("engine-panel")).await;
    let panel = verify_all_with_one_runaway(&b, 120, "slow_").await;
    let workers = b.client.execute("return document.querySelector('.engine').dataset.workers", vec![]).await.unwrap();
    assert_eq!(workers.as_str(), Some("2"), "the pool grew to its size while runs waited");
    // One restart when the runaway is known at once, two when it first hid among runs whose
    // results the worker still held (they are then run again one answer at a time).
    assert!(
        panel.starts_with("2 of 2 workers") && (panel.contains(" 1 restart;") || panel.contains(" 2 restarts;")),
        "{panel}"
    );
    // The choice is kept for the next visit.
    let kept = b.client.execute("return localStorage.getItem('execbench.python-workers')", vec![]).await.unwrap();
    assert_eq!(kept.as_str(), Some("2"));
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// A runaway among fast runs: the worker holds the fast runs' results when it gets stuck, so the
/// page cannot tell which unanswered run is the runaway. It runs them again one answer at a time
/// on a fresh worker, where the runaway is caught alone: two restarts, and no other run fails.
#[tokio::test(flavor = "multi_thread")]
async fn a_runaway_hidden_among_held_results_is_found_on_a_second_try() {
    let (b, base, _site) = open_app().await;
    let mut rows: Vec<String> = (0..40)
        .map(|i| {
            serde_json::json!({"id": format!("fast_{i:02}"), "code": "def f(x):\n    return x * 2", "input": i.to_string(), "output": (i * 2).to_string()})
                .to_string()
        })
        .collect();
    rows.insert(10, runaway_row());
    let dir = import_rows(&b, &base, "hidden.jsonl", &rows).await;
    b.client.goto(&format!("{base}#/verify")).await.unwrap();
    wait_engine_ready(&b).await;
    choose_pool_size(&b, 1, None).await;
    let panel = verify_all_with_one_runaway(&b, 40, "fast_").await;
    // The runaway shares its batch with runs after it, so the first try cannot be sure of it.
    assert!(panel.contains(" 2 restarts;"), "{panel}");
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread")]
async fn import_a_user_dataset_with_bad_rows() {
    let dir = std::env::temp_dir().join(format!("execbench-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("contest.jsonl");
    let rows = [
        r#"{"id": "lc1", "function_name": "minimumCost", "code": "def minimumCost(s):\n    return s.count('1')", "input": "minimumCost(s='0011')", "output": "2"}"#,
        r#"{"id": "lc2", "function_name": "maxLen", "code": "def maxLen(nums):\n    return len(set(nums))", "input": "nums=[1, 2, 1]"}"#,
        r#"{"id": "lc3", "function_name": "twice", "code": "def twice(x):\n    return 2 * x", "input": "x=4", "output": "8"}"#,
        r#"{"id": "lc4", "code": "#,
    ];
    std::fs::write(&file, rows.join("\n")).unwrap();

    let (b, base, _site) = open_app().await;
    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
    // A file with no usable row is refused, and CRUXEval stays.
    let all_bad = dir.join("all-bad.jsonl");
    std::fs::write(&all_bad, "{\"id\": \"x\"}\n[1]\n").unwrap();
    let input = b.client.find(fantoccini::Locator::Css("[data-testid=import]")).await.unwrap();
    input.send_keys(all_bad.to_str().unwrap()).await.unwrap();
    let refused = b.wait_text("[data-testid=import-refused]", Duration::from_secs(10), |_| true).await;
    assert!(
        refused.starts_with("all-bad.jsonl: none of its 2 rows could be read, so CRUXEval stays loaded."),
        "{refused}"
    );
    assert_eq!(b.wait_text("[data-testid=match-count]", Duration::from_secs(5), |_| true).await, "800 of 800");
    let input = b.client.find(fantoccini::Locator::Css("[data-testid=import]")).await.unwrap();
    input.send_keys(file.to_str().unwrap()).await.unwrap();
    b.wait_text("[data-testid=dataset-name]", Duration::from_secs(10), |t| t == "contest.jsonl").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == "2 of 2").await;
    let errors = b.wait_text("[data-testid=import-errors]", Duration::from_secs(5), |_| true).await;
    assert!(errors.contains("2 of 4 rows could not be read; the other 2 are loaded"), "{errors}");
    assert!(errors.contains("contest.jsonl:2: field `output`: missing (required)"), "{errors}");
    assert!(errors.contains("contest.jsonl:4: not valid JSON at column 22"), "{errors}");
    b.screenshot("datasets-import-errors").await;

    b.client.goto(&format!("{base}#/sample/lc1")).await.unwrap();
    b.wait_text("[data-testid=sample-call]", Duration::from_secs(10), |t| t == "minimumCost(s='0011')").await;
    wait_engine_ready(&b).await;
    b.click("[data-testid=run]").await;
    assert_eq!(
        b.wait_text("[data-testid=result-badge]", Duration::from_secs(30), |t| !t.is_empty()).await,
        "matches the expected output"
    );

    b.client.goto(&format!("{base}#/verify")).await.unwrap();
    b.click("[data-testid=verify-start]").await;
    assert_eq!(b.wait_text("[data-testid=verify-state]", Duration::from_secs(60), |t| !t.is_empty()).await, "finished");
    assert_eq!(b.wait_text("[data-testid=verify-passed]", Duration::from_secs(5), |_| true).await, "2 passed");
    b.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// The search and the output-type filter live in the address: a reload shows the same view, a
/// sample opened from it steps through its matches, and Back returns to it.
#[tokio::test(flavor = "multi_thread")]
async fn the_filtered_list_survives_a_reload_and_a_sample_steps_through_its_matches() {
    use execbench_core::sample::OutputKind;
    let crux = execbench_core::load_jsonl(
        "cruxeval.jsonl",
        &std::fs::read_to_string(execbench_testkit::repo_root().join("public/data/cruxeval/cruxeval.jsonl")).unwrap(),
    );
    let matches: Vec<&str> = crux
        .samples
        .iter()
        .filter(|s| {
            s.output_kind() == OutputKind::List
                && (s.id.contains("sorted")
                    || s.code.to_lowercase().contains("sorted")
                    || s.output.to_lowercase().contains("sorted"))
        })
        .map(|s| s.id.as_str())
        .collect();
    assert!(matches.len() >= 2, "{matches:?}");
    let count = format!("{} of 800", matches.len());
    let (b, base, _site) = open_app().await;
    let js = |script: &'static str| {
        let client = b.client.clone();
        async move { client.execute(script, vec![]).await.unwrap() }
    };
    let value_of = |css: &'static str| {
        let client = b.client.clone();
        async move { client.execute(&format!("return document.querySelector('{css}').value"), vec![]).await.unwrap() }
    };

    b.client.goto(&format!("{base}#/datasets")).await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == "800 of 800").await;
    // Matches are marked in the visible columns.
    b.fill("[data-testid=search]", "Sample_79").await;
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t.starts_with("11 of")).await;
    let marks =
        js("return [...document.querySelectorAll('[data-testid=sample-row] .col-id mark')].map(m => m.textContent)")
            .await;
    assert_eq!(marks.as_array().unwrap().len(), 11, "{marks}");
    assert!(marks.as_array().unwrap().iter().all(|m| m == "sample_79"), "{marks}");
    let history_before = js("return history.length").await;

    b.fill("[data-testid=search]", "sorted").await;
    b.client
        .find(fantoccini::Locator::Css("[data-testid=kind-filter]"))
        .await
        .unwrap()
        .select_by_value("list")
        .await
        .unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == count).await;
    assert_eq!(js("return location.hash").await, "#/datasets?q=sorted&kind=list");
    // Typing replaced the entry (not one per keystroke); the filter pushed one.
    assert_eq!(js("return history.length").await.as_u64(), history_before.as_u64().map(|n| n + 1));

    b.client.refresh().await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(30), |t| t == count).await;
    assert_eq!(value_of("[data-testid=search]").await, "sorted");
    assert_eq!(value_of("[data-testid=kind-filter]").await, "list");

    b.click("[data-testid=sample-row]").await;
    b.wait_text("[data-testid=sample-id]", Duration::from_secs(10), |t| t == matches[0]).await;
    b.click("[data-testid=next]").await;
    b.wait_text("[data-testid=sample-id]", Duration::from_secs(10), |t| t == matches[1]).await;
    let back = b
        .client
        .find(fantoccini::Locator::Css("[data-testid=back-to-list]"))
        .await
        .unwrap()
        .attr("href")
        .await
        .unwrap();
    assert_eq!(back.as_deref(), Some("#/datasets?q=sorted&kind=list"));

    b.client.back().await.unwrap();
    b.wait_text("[data-testid=sample-id]", Duration::from_secs(10), |t| t == matches[0]).await;
    b.client.back().await.unwrap();
    b.wait_text("[data-testid=match-count]", Duration::from_secs(10), |t| t == count).await;
    assert_eq!(value_of("[data-testid=search]").await, "sorted");
    assert_eq!(value_of("[data-testid=kind-filter]").await, "list");
    b.close().await;
}

/// The Content-Security-Policy: every page works under it with no violation, and a script put
/// into the page (inline, or as an event handler) does not run.
#[tokio::test(flavor = "multi_thread")]
async fn every_page_works_under_the_content_security_policy_and_injected_scripts_do_not_run() {
    let (b, base, _site) = open_app().await;
    b.client.goto(&format!("{base}#/")).await.unwrap();
    wait_engine_ready(&b).await;
    b.client
        .execute("window.violations = []; document.addEventListener('securitypolicyviolation', e => window.violations.push(e.violatedDirective + ' ' + e.blockedURI));", vec![])
        .await
        .unwrap();
    for (route, ready) in [
        ("#/datasets", "[data-testid=match-count]"),
        ("#/sample/sample_3", "[data-testid=sample-call]"),
        ("#/playground", ".page.playground"),
        ("#/verify", ".page.verify"),
        ("#/perturb", ".page.perturb"),
        ("#/evaluate", ".page.evaluate"),
        ("#/runs", "[data-testid=runs-page]"),
        ("#/build", ".page.build"),
        ("#/compare", ".page.compare"),
    ] {
        b.client.execute(&format!("location.hash = '{route}'"), vec![]).await.unwrap();
        b.wait_text(ready, Duration::from_secs(30), |_| true).await;
    }
    // The sample page runs its program under the policy (the worker, wasm, messages).
    b.client.execute("location.hash = '#/sample/sample_5'", vec![]).await.unwrap();
    b.wait_text("[data-testid=sample-call]", Duration::from_secs(20), |t| t.starts_with("f(")).await;
    b.click("[data-testid=run]").await;
    b.wait_text("[data-testid=result-badge]", Duration::from_secs(30), |t| !t.is_empty()).await;
    let violations = b.client.execute("return window.violations", vec![]).await.unwrap();
    assert_eq!(violations, serde_json::json!([]), "the app itself breaks no rule");

    let injected = b
        .client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const s = document.createElement('script'); s.textContent = 'window.injected = 1'; document.body.appendChild(s);
             const d = document.createElement('div'); d.innerHTML = '<img src=\"data:,x\" onerror=\"window.handler = 1\">'; document.body.appendChild(d);
             setTimeout(() => done([window.injected === undefined, window.handler === undefined, window.violations.length]), 500);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(injected[0], true, "an injected inline script ran");
    assert_eq!(injected[1], true, "an injected event handler ran");
    assert!(injected[2].as_u64().unwrap() >= 2, "both were reported: {injected}");
}
