//! Shared by the end-to-end tests: the Evaluate page's (`e2e_evaluate`, `e2e_models`), a run in
//! the Playground (`browser_engine`, `e2e_offline`).

use std::time::Duration;

use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;

#[allow(dead_code)]
/// Serves the built site, opens the Evaluate page in a fresh Chromium and waits until Python is
/// ready and the bundled dataset is loaded.
pub async fn open_evaluate() -> (Browser, StaticServer) {
    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let browser = Browser::launch().await;
    browser.client.goto(&format!("{}#/evaluate", server.base_url)).await.unwrap();
    browser.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    browser.wait_text(".evaluate .muted", Duration::from_secs(30), |t| t.contains("(800 samples)")).await;
    (browser, server)
}

#[allow(dead_code)]
/// Starts a model API run: Run evaluation, then "Start the run" in the cost estimate that comes
/// first for every API model.
pub async fn start_api_run(b: &Browser) {
    b.click("[data-testid=eval-run]").await;
    b.wait_text("[data-testid=estimate-text]", Duration::from_secs(20), |t| !t.is_empty()).await;
    b.click("[data-testid=estimate-go]").await;
}

#[allow(dead_code)]
/// From now on, every file the page offers for download is also kept, for [`downloaded`].
pub async fn capture_downloads(b: &Browser) {
    b.client
        .execute("window.savedBlobs = []; const make = URL.createObjectURL; URL.createObjectURL = blob => { window.savedBlobs.push(blob); return make(blob); };", vec![])
        .await
        .unwrap();
}

#[allow(dead_code)]
/// The texts of the files downloaded since [`capture_downloads`], in order (after half a second,
/// so that downloads made asynchronously are there).
pub async fn downloaded(b: &Browser) -> Vec<String> {
    let saved = b
        .client
        .execute_async("const done = arguments[arguments.length - 1]; setTimeout(() => Promise.all(window.savedBlobs.map(b => b.text())).then(done), 500);", vec![])
        .await
        .unwrap();
    serde_json::from_value(saved).unwrap()
}

#[allow(dead_code)]
/// Runs `program` then `expression` in the open Playground with a time limit of `limit_s` seconds,
/// once Python is ready; the result's text.
pub async fn run_in_playground(b: &Browser, program: &str, expression: &str, limit_s: &str) -> String {
    b.wait_text(".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await;
    b.fill("[data-testid=program]", program).await;
    b.fill("[data-testid=expression]", expression).await;
    b.fill("[data-testid=time-limit]", limit_s).await;
    let before = b
        .client
        .execute(
            "const e = document.querySelector('[data-testid=run-number]'); return e ? Number(e.dataset.run) : 0",
            vec![],
        )
        .await
        .unwrap();
    let next = format!("Result of run {}", before.as_u64().unwrap() + 1);
    b.click("[data-testid=run]").await;
    b.wait_text("[data-testid=run-number]", Duration::from_secs(60), |t| t == next).await;
    b.wait_text("[data-testid=run-result]", Duration::from_secs(5), |t| !t.is_empty()).await
}

#[allow(dead_code)]
/// Imports `text` as a run file named `name` on the open Runs page; the page's message once
/// `said` accepts it (a run id, so that a sequence of imports waits for each one's own message).
pub async fn import_run_file(b: &Browser, name: &str, text: &str, said: impl Fn(&str) -> bool) -> String {
    let path = std::env::temp_dir().join(format!("execbench-e2e-{}-{name}", std::process::id()));
    std::fs::write(&path, text).unwrap();
    b.client
        .find(fantoccini::Locator::Css("[data-testid=runs-import]"))
        .await
        .unwrap()
        .send_keys(path.to_str().unwrap())
        .await
        .unwrap();
    let message =
        b.wait_text("[data-testid=runs-message]", Duration::from_secs(20), |t| !t.is_empty() && said(t)).await;
    let _ = std::fs::remove_file(&path);
    message
}

#[allow(dead_code)]
/// The provider requests this page has started since it loaded (`<html data-provider-requests>`,
/// counted by the page's fetch as it starts each). Read right after the page says what it decided,
/// it tells whether that decision sent anything, with no wait for a late request.
pub async fn provider_requests(b: &Browser) -> u64 {
    let n = b
        .client
        .execute("return Number(document.documentElement.dataset.providerRequests || 0)", vec![])
        .await
        .unwrap();
    n.as_u64().unwrap_or_else(|| panic!("a count of requests: {n}"))
}

#[allow(dead_code)]
/// Waits (up to 20 s) until the mock server has no model request in flight: what an earlier page
/// or run sent has arrived and ended, so its counters hold still from here.
pub async fn server_quiet(mock: &execbench_mockserver::MockServer) {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while mock.stats().in_flight > 0 {
        assert!(std::time::Instant::now() < deadline, "requests still in flight: {:?}", mock.stats().in_flight);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[allow(dead_code)]
/// Makes IndexedDB's `put` throw `QuotaExceededError` from the `from`-th write on, as a full disk
/// would; [`store_has_room_again`] undoes it.
pub async fn store_full_from_write(b: &Browser, from: u32) {
    let script = format!(
        r#"
        const put = IDBObjectStore.prototype.put;
        window.__puts = 0;
        window.__restorePut = () => {{ IDBObjectStore.prototype.put = put; }};
        IDBObjectStore.prototype.put = function (...args) {{
            window.__puts += 1;
            if (window.__puts >= {from}) throw new DOMException('simulated: the disk is full', 'QuotaExceededError');
            return put.apply(this, args);
        }};"#
    );
    b.client.execute(&script, vec![]).await.unwrap();
}

#[allow(dead_code)]
/// Gives IndexedDB's `put` back after [`store_full_from_write`].
pub async fn store_has_room_again(b: &Browser) {
    b.client.execute("window.__restorePut()", vec![]).await.unwrap();
}
