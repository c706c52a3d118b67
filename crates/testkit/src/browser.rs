//! Headless Chromium driven through chromedriver (both from Debian's packages, installed by
//! scripts/setup.sh), for tests that use the built app as a person would.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;

/// A chromedriver and the Chromium it drives. Dropping it (a test that panics included) kills
/// both and removes its own profile: a failed test leaves no browser running. A browser from
/// [`Browser::launch`] is instead kept for the next test when its test passed (on a blank page,
/// crate::browser_pool says what the next test can and cannot see of it).
pub struct Browser {
    pub client: Client,
    /// `None` only while it is dropped.
    driver: Option<Child>,
    /// chromedriver's port and the WebDriver session on it.
    port: u16,
    session: String,
    /// A profile made for this browser alone, removed with it; `None` for a kept one
    /// ([`Browser::launch_in_profile`]).
    own_profile: Option<PathBuf>,
    /// A browser from [`Browser::launch`], kept for the next test when its test passed.
    poolable: bool,
    /// Cleared by what changes the browser beyond its pages (network conditions): not kept then.
    reusable: AtomicBool,
}

/// A Chromium profile (user-data-dir) that outlives the browsers opened on it, so a test can
/// close the whole browser and open a new one with the same IndexedDB, storage and caches. The
/// directory is removed when the profile is dropped, after the browsers on it.
pub struct KeptProfile {
    dir: PathBuf,
}

impl KeptProfile {
    /// A new empty profile directory under the system's temporary folder.
    pub fn new() -> KeptProfile {
        static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("execbench-kept-profile-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the profile directory");
        KeptProfile { dir }
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Default for KeptProfile {
    fn default() -> Self {
        KeptProfile::new()
    }
}

impl Drop for KeptProfile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Starts chromedriver on a free port and waits until it listens. Tests launch browsers in
/// parallel, so two drivers can be handed the same port: the second one exits at once, and the
/// port then answers with the first test's driver (which goes away when that test ends). So the
/// driver must still be running after it answered; if not, it starts again on another port.
fn start_driver() -> (u16, Child) {
    for _ in 0..5 {
        let port = free_port();
        let mut driver = Command::new(std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".into()))
            .arg(format!("--port={port}"))
            // Its own process group, which the Chromium it starts joins: one signal ends them all.
            .process_group(0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver must be installed (scripts/setup.sh installs it)");
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err()
            && Instant::now() < deadline
            && matches!(driver.try_wait(), Ok(None))
        {
            std::thread::sleep(Duration::from_millis(50));
        }
        // A driver that lost the port exits within moments of starting.
        std::thread::sleep(Duration::from_millis(150));
        if matches!(driver.try_wait(), Ok(None)) && TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return (port, driver);
        }
        let _ = driver.kill();
        let _ = driver.wait();
    }
    panic!("chromedriver did not start on any of 5 ports");
}

impl Browser {
    /// A browser for a test: one kept from an earlier test when there is one it may have (its
    /// pages closed, its window at the first size, the origins it went to cleared), else a new
    /// one. Starting Chromium costs about 2 CPU-seconds (docs/performance.md, CI time).
    pub async fn launch() -> Browser {
        // For comparing (docs/performance.md) or ruling the pool out when a test fails oddly.
        if std::env::var_os("EXECBENCH_FRESH_BROWSERS").is_some() {
            return Browser::launch_fresh().await;
        }
        loop {
            let Some(lent) = crate::browser_pool::lend() else {
                let mut browser = Browser::launch_with(None, None).await;
                // The session outlives this client (and the test's runtime): the next test's
                // client attaches to it.
                browser.client.persist().await.expect("keep the WebDriver session");
                browser.poolable = true;
                return browser;
            };
            if let Some(browser) = Browser::attach(lent).await {
                return browser;
            }
        }
    }

    /// A browser of its own, never one kept from an earlier test: for the benchmark's first
    /// visits, whose figures count everything a new browser does.
    pub async fn launch_fresh() -> Browser {
        Browser::launch_with(None, None).await
    }

    /// The kept browser readied for a new test, or `None` (and it killed) if it does not answer
    /// as it should.
    async fn attach(lent: crate::browser_pool::Lent) -> Option<Browser> {
        let crate::browser_pool::Lent { kept, forgotten } = lent;
        let url = format!("http://127.0.0.1:{}", kept.port);
        let client = match Client::with_existing_session(&url, &kept.session, HttpConnector::new()).await {
            Ok(client) => client,
            Err(_) => {
                end_processes(kept.driver, kept.profile.as_deref());
                return None;
            }
        };
        let browser = Browser {
            client,
            driver: Some(kept.driver),
            port: kept.port,
            session: kept.session,
            own_profile: kept.profile,
            poolable: true,
            reusable: AtomicBool::new(true),
        };
        let ready = async {
            browser.client.persist().await.map_err(|e| e.to_string())?;
            // Its one window (`blank_page` kept no other) at the size Chromium started with.
            if browser.client.get_window_size().await.map_err(|e| e.to_string())? != (WIDTH.into(), HEIGHT.into()) {
                browser.client.set_window_size(WIDTH, HEIGHT).await.map_err(|e| e.to_string())?;
            }
            for origin in &forgotten {
                browser
                    .cdp("Storage.clearDataForOrigin", serde_json::json!({"origin": origin, "storageTypes": "all"}))
                    .await?;
            }
            Ok::<(), String>(())
        };
        match ready.await {
            Ok(()) => Some(browser),
            Err(_) => {
                browser.reusable.store(false, Ordering::Relaxed);
                None
            }
        }
    }

    /// A browser on a profile that stays when it closes (see [`KeptProfile`]): closing it and
    /// launching another on the same directory is a closed and reopened browser, a new session
    /// with the same stored data. One browser at a time per profile.
    pub async fn launch_in_profile(profile: &Path) -> Browser {
        Browser::launch_with(None, Some(profile)).await
    }

    /// A browser that records Chromium's trace events of `categories` (comma-separated, as
    /// `chrome://tracing` names them) for every thread, read with [`Browser::trace_events`]. For
    /// the benchmark's profiles only: tracing costs the page time.
    pub async fn launch_traced(categories: &str) -> Browser {
        Browser::launch_with(Some(categories), None).await
    }

    async fn launch_with(trace_categories: Option<&str>, kept: Option<&Path>) -> Browser {
        let (port, driver) = start_driver();
        // A fresh directory for every browser, never one a crashed run left on the same port.
        let own_profile = kept.is_none().then(|| {
            static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
            let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!("execbench-chromium-{}-{n}-{port}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            dir
        });
        let profile = kept.map(Path::to_path_buf).or_else(|| own_profile.clone()).expect("one of the two");
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            serde_json::json!({
                "binary": std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()),
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                         "--disable-background-networking", "--disable-component-update", "--disable-sync",
                         "--disable-dev-shm-usage", format!("--window-size={WIDTH},{HEIGHT}"),
                         format!("--user-data-dir={}", profile.display())],
            }),
        );
        if let Some(categories) = trace_categories {
            let options = caps.get_mut("goog:chromeOptions").and_then(|o| o.as_object_mut()).expect("set above");
            options.insert(
                "perfLoggingPrefs".into(),
                serde_json::json!({"enableNetwork": false, "enablePage": false, "traceCategories": categories}),
            );
            caps.insert("goog:loggingPrefs".into(), serde_json::json!({"performance": "ALL"}));
        }
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .expect("connect to chromedriver");
        crate::browser_pool::process_group_started(driver.id());
        let session = client.session_id().await.ok().flatten().unwrap_or_default();
        Browser {
            client,
            driver: Some(driver),
            port,
            session,
            own_profile,
            poolable: false,
            reusable: AtomicBool::new(true),
        }
    }

    /// Ends the WebDriver session politely (Chromium quits and writes its profile out); dropping
    /// the browser then stops the processes. A kept profile is then free for the next browser.
    /// A browser from [`Browser::launch`] is kept for the next test instead (see `Drop`).
    pub async fn close(self) {
        if !self.poolable {
            let _ = self.client.clone().close().await;
        }
    }

    /// Waits until the element's text satisfies `pred`, returning it; fails with the last text.
    pub async fn wait_text(&self, css: &str, timeout: Duration, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + timeout;
        let mut last = String::from("(element not found)");
        loop {
            if let Ok(el) = self.client.find(Locator::Css(css)).await
                && let Ok(text) = el.text().await
            {
                if pred(&text) {
                    return text;
                }
                last = text;
            }
            assert!(Instant::now() < deadline, "waited {timeout:?} for `{css}`; last text: {last:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Runs `script` (a function body that `return`s a value) until its value satisfies `pred`,
    /// returning it; fails with the last value. For effects that land a moment after a click.
    pub async fn wait_script(
        &self,
        script: &str,
        timeout: Duration,
        pred: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let deadline = Instant::now() + timeout;
        loop {
            let value = self.client.execute(script, vec![]).await.unwrap_or_else(|e| panic!("{script}: {e}"));
            if pred(&value) {
                return value;
            }
            assert!(Instant::now() < deadline, "waited {timeout:?} for {script}; last value {value}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The element, once it is in the page (a view may draw it a moment after the page opens);
    /// fails after 20 s.
    pub async fn element(&self, css: &str) -> fantoccini::elements::Element {
        self.client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("no `{css}`: {e}"))
    }

    pub async fn click(&self, css: &str) {
        self.element(css).await.click().await.unwrap();
    }

    /// Clicks `css` once its box has stayed where it is for 200 ms (fails after 10 s): WebDriver
    /// clicks the point where the element was when it looked, so a button the page is still
    /// moving (a line drawn above it late) can be missed, as a person would miss it.
    /// Returns how many times it was seen to move first.
    pub async fn click_steady(&self, css: &str) -> usize {
        let script = format!(
            "const e = document.querySelector({css:?}); if (!e) return null; \
             const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height];"
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut last = serde_json::Value::Null;
        let mut moved = 0;
        loop {
            let rect = self.client.execute(&script, vec![]).await.unwrap();
            if !rect.is_null() && rect == last {
                break;
            }
            assert!(Instant::now() < deadline, "`{css}` kept moving or was missing for 10 s: {rect}");
            if !last.is_null() {
                moved += 1;
            }
            last = rect;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        self.click(css).await;
        moved
    }

    /// Replaces the content of an input or textarea, firing input events as typing would.
    pub async fn fill(&self, css: &str, text: &str) {
        let el = self.element(css).await;
        el.clear().await.unwrap();
        if text.is_empty() {
            // `clear` fires no input event; type and erase a character so the app sees the change.
            let backspace: char = fantoccini::key::Key::Backspace.into();
            el.send_keys(&format!(" {backspace}")).await.unwrap();
        } else {
            el.send_keys(text).await.unwrap();
        }
    }

    /// Presses a chord on whatever has the focus, as a person would: its keys go down in order
    /// and come up in reverse, so `&[Key::Control.into(), Key::Enter.into()]` is Ctrl+Enter and
    /// `&[Key::Tab.into()]` moves the focus on. The browser's own handling (focus moves,
    /// scrolling, typing) follows as it would for a real key.
    pub async fn press(&self, chord: &[char]) {
        let mut keys = KeyActions::new("keyboard".to_string());
        for &key in chord {
            keys = keys.then(KeyAction::Down { value: key });
        }
        for &key in chord.iter().rev() {
            keys = keys.then(KeyAction::Up { value: key });
        }
        self.client.perform_actions(keys).await.expect("press keys");
        self.client.release_actions().await.expect("release keys");
    }

    /// Presses one key `times` times.
    pub async fn press_times(&self, key: char, times: usize) {
        for _ in 0..times {
            self.press(&[key]).await;
        }
    }

    /// Makes the page's viewport `width` CSS pixels wide (and `height` tall), as a phone or a wide
    /// screen would be, and returns the width the page then reports (`window.innerWidth`).
    /// Headless Chromium has no window frame, but the outer size is corrected for one if it had.
    pub async fn set_viewport(&self, width: u32, height: u32) -> u32 {
        let inner = || async {
            self.client.execute("return window.innerWidth", vec![]).await.ok().and_then(|v| v.as_u64()).unwrap_or(0)
                as u32
        };
        self.client.set_window_size(width, height).await.expect("set the window size");
        let got = inner().await;
        if got != width && got > 0 {
            let frame = width.saturating_sub(got);
            self.client.set_window_size(width + frame, height).await.expect("set the window size");
        }
        inner().await
    }

    /// The trace events recorded since the last call (a browser from [`Browser::launch_traced`]):
    /// chromedriver's performance log, whose `Tracing.dataCollected` entries carry them.
    pub async fn trace_events(&self) -> Result<Vec<serde_json::Value>, String> {
        let log =
            self.client.issue_cmd(PerformanceLog).await.map_err(|e| format!("reading the performance log: {e}"))?;
        let mut events = Vec::new();
        for entry in log.as_array().into_iter().flatten() {
            let Some(text) = entry["message"].as_str() else { continue };
            let Ok(message) = serde_json::from_str::<serde_json::Value>(text) else { continue };
            if message["message"]["method"] == "Tracing.dataCollected" {
                events.push(message["message"]["params"].clone());
            }
        }
        Ok(events)
    }

    /// Whether every one of `patterns` (JavaScript regular expressions' sources) matches the
    /// address of some request kept in the page origin's Cache Storage, in any of its caches.
    pub async fn all_cached(&self, patterns: &[String]) -> Result<bool, String> {
        let script = "const [patterns, done] = arguments;
            caches.keys()
              .then((names) => Promise.all(names.map((n) => caches.open(n).then((c) => c.keys()))))
              .then((lists) => {
                const urls = lists.flat().map((r) => r.url);
                done(patterns.every((p) => urls.some((u) => new RegExp(p).test(u))));
              }, (e) => done(String(e)));";
        match self.client.execute_async(script, vec![patterns.into()]).await.map_err(|e| e.to_string())? {
            serde_json::Value::Bool(all) => Ok(all),
            other => Err(format!("reading Cache Storage: {other}")),
        }
    }

    /// Switches the browser's network off (or back on) as DevTools' network emulation does:
    /// `navigator.onLine` follows and requests fail, while the page keeps running.
    pub async fn set_offline(&self, offline: bool) {
        // The conditions hold for the whole session: this browser is not kept for another test.
        self.reusable.store(false, Ordering::Relaxed);
        self.client.issue_cmd(NetworkConditions { offline }).await.expect("set the network conditions");
    }

    /// Sends one Chrome DevTools Protocol command to the current window's page (chromedriver's
    /// `goog/cdp/execute`) and returns its result, e.g. `Runtime.getHeapUsage`.
    pub async fn cdp(&self, method: &str, params: serde_json::Value) -> Result<serde_json::Value, String> {
        self.client
            .issue_cmd(DevToolsCommand { method: method.to_string(), params })
            .await
            .map_err(|e| format!("{method}: {e}"))
    }

    /// The address (`host:port`) of the browser's own DevTools endpoint, for what
    /// chromedriver's single commands cannot carry: a heap snapshot arrives as
    /// `HeapProfiler.addHeapSnapshotChunk` events, which only a DevTools WebSocket client receives.
    pub fn devtools_address(&self) -> Option<String> {
        let caps = self.client.capabilities()?;
        caps.get("goog:chromeOptions")?.get("debuggerAddress")?.as_str().map(str::to_string)
    }

    /// How many JS objects whose prototype is `prototype` (an expression: `Function.prototype`,
    /// `Array.prototype`, …) are alive in the page after a full garbage collection (DevTools'
    /// `HeapProfiler.collectGarbage`, then `Runtime.queryObjects`). What only grows is a leak.
    pub async fn live_objects(&self, prototype: &str) -> Result<u64, String> {
        self.cdp("HeapProfiler.collectGarbage", serde_json::json!({})).await?;
        // One object group for what DevTools hands back, released after: a handle kept by the
        // protocol would itself keep the objects alive for the next count.
        let group = serde_json::json!("execbench-live-objects");
        let proto =
            self.cdp("Runtime.evaluate", serde_json::json!({"expression": prototype, "objectGroup": group})).await?;
        let proto_id = proto["result"]["objectId"].as_str().ok_or(format!("no object for {prototype}"))?;
        let found = self
            .cdp("Runtime.queryObjects", serde_json::json!({"prototypeObjectId": proto_id, "objectGroup": group}))
            .await;
        let length = match &found {
            Ok(found) => match found["objects"]["objectId"].as_str() {
                Some(array_id) => self
                    .cdp(
                        "Runtime.callFunctionOn",
                        serde_json::json!({"objectId": array_id, "returnByValue": true,
                            "functionDeclaration": "function() { return this.length; }"}),
                    )
                    .await
                    .map(|v| v["result"]["value"].as_u64()),
                None => Err("queryObjects gave no array".to_string()),
            },
            Err(e) => Err(e.clone()),
        };
        self.cdp("Runtime.releaseObjectGroup", serde_json::json!({"objectGroup": group})).await?;
        length?.ok_or_else(|| format!("no count of {prototype}"))
    }

    /// Starts measuring, inside the page, how late its main thread answers: a timer asks to run
    /// every 10 ms and keeps the longest gap between two of its runs. A blocked main thread shows
    /// there, where a WebDriver call would only wait and then pass. Read with
    /// [`Browser::longest_timer_gap_ms`]; a navigation that reloads the page ends it.
    pub async fn start_responsiveness_probe(&self) {
        let script = "if (window.__probe) { clearInterval(window.__probe.id); }
            const probe = { last: performance.now(), longest: 0, ticks: 0 };
            probe.id = setInterval(() => {
                const now = performance.now();
                probe.longest = Math.max(probe.longest, now - probe.last);
                probe.last = now;
                probe.ticks += 1;
            }, 10);
            window.__probe = probe;";
        self.client.execute(script, vec![]).await.expect("start the responsiveness probe");
    }

    /// The longest gap (ms) between two timer runs since [`Browser::start_responsiveness_probe`],
    /// counting the time since the last one, and how many ran.
    pub async fn longest_timer_gap_ms(&self) -> (f64, u64) {
        let script = "const p = window.__probe; if (!p) { return null; }
            return [Math.max(p.longest, performance.now() - p.last), p.ticks];";
        let value = self.client.execute(script, vec![]).await.expect("read the responsiveness probe");
        let pair = value.as_array().unwrap_or_else(|| panic!("the probe is not running (the page reloaded?): {value}"));
        (pair[0].as_f64().unwrap_or(f64::MAX), pair[1].as_u64().unwrap_or(0))
    }

    /// Saves a screenshot as a test artifact (tests/artifacts/NAME.png) to look at.
    pub async fn screenshot(&self, name: &str) {
        let dir = crate::repo_root().join("tests/artifacts");
        std::fs::create_dir_all(&dir).unwrap();
        let png = self.client.screenshot().await.expect("screenshot");
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    }
}

/// chromedriver's own command that returns (and empties) a log, here the performance log.
#[derive(Debug)]
struct PerformanceLog;

impl fantoccini::wd::WebDriverCompatibleCommand for PerformanceLog {
    fn endpoint(&self, base_url: &url::Url, session_id: Option<&str>) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!("session/{}/se/log", session_id.unwrap_or_default()))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(r#"{"type":"performance"}"#.to_string()))
    }
}

/// chromedriver's own command that passes a DevTools Protocol command to the page.
#[derive(Debug)]
struct DevToolsCommand {
    method: String,
    params: serde_json::Value,
}

impl fantoccini::wd::WebDriverCompatibleCommand for DevToolsCommand {
    fn endpoint(&self, base_url: &url::Url, session_id: Option<&str>) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!("session/{}/goog/cdp/execute", session_id.unwrap_or_default()))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        let body = serde_json::json!({"cmd": self.method, "params": self.params});
        (http::Method::POST, Some(body.to_string()))
    }
}

/// chromedriver's own command that emulates network conditions (here: none at all, or normal).
#[derive(Debug)]
struct NetworkConditions {
    offline: bool,
}

impl fantoccini::wd::WebDriverCompatibleCommand for NetworkConditions {
    fn endpoint(&self, base_url: &url::Url, session_id: Option<&str>) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!("session/{}/chromium/network_conditions", session_id.unwrap_or_default()))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        let conditions = serde_json::json!({"network_conditions": {
            "offline": self.offline, "latency": 0, "download_throughput": -1, "upload_throughput": -1,
        }});
        (http::Method::POST, Some(conditions.to_string()))
    }
}

/// The window size every browser starts with (and a kept one is given back).
const WIDTH: u32 = 1280;
const HEIGHT: u32 = 900;

/// One request to chromedriver (`path` under its session URL) by plain HTTP, for `Drop`, which
/// cannot await the client; the answer's `value`.
fn session_request(
    port: u16,
    session: &str,
    method: &str,
    path: &str,
    body: &str,
) -> Result<serde_json::Value, String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(Duration::from_secs(20))).map_err(|e| e.to_string())?;
    let request = format!(
        "{method} /session/{session}/{path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).map_err(|e| e.to_string())?;
    // chromedriver keeps the connection open (even when asked to close it): the answer ends
    // where its Content-Length says.
    let mut answer = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let read = stream.read(&mut chunk).map_err(|e| e.to_string())?;
        if read == 0 {
            return Err("chromedriver closed the connection before answering".into());
        }
        answer.extend_from_slice(&chunk[..read]);
        let Some(head_end) = answer.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
        let head = String::from_utf8_lossy(&answer[..head_end]).into_owned();
        let length = head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length").then(|| value.trim().parse::<usize>().ok())?
            })
            .unwrap_or(0);
        if answer.len() < head_end + 4 + length {
            continue;
        }
        let status = head.lines().next().unwrap_or_default().to_string();
        if status.split(' ').nth(1) != Some("200") {
            return Err(status);
        }
        let json: serde_json::Value =
            serde_json::from_slice(&answer[head_end + 4..head_end + 4 + length]).map_err(|e| e.to_string())?;
        return Ok(json["value"].clone());
    }
}

/// The origins the session's one window went to (its history), then a blank page in it, which
/// closes the test's page and its workers. An error when there is more than one window, or when
/// the history may have lost entries (Chromium keeps 50): such a browser is not kept.
fn blank_page(port: u16, session: &str) -> Result<BTreeSet<String>, String> {
    let windows = session_request(port, session, "GET", "window/handles", "")?;
    if windows.as_array().map(Vec::len) != Some(1) {
        return Err(format!("windows: {windows}"));
    }
    let history = session_request(
        port,
        session,
        "POST",
        "goog/cdp/execute",
        r#"{"cmd":"Page.getNavigationHistory","params":{}}"#,
    )?;
    let entries = history["entries"].as_array().ok_or("no history")?;
    if entries.len() >= 50 {
        return Err("the history may be cut".into());
    }
    let origins = entries
        .iter()
        .filter_map(|entry| url::Url::parse(entry["url"].as_str()?).ok())
        .filter(|url| matches!(url.scheme(), "http" | "https"))
        .map(|url| url.origin().ascii_serialization())
        .collect();
    session_request(port, session, "POST", "url", r#"{"url":"about:blank"}"#)?;
    Ok(origins)
}

impl Drop for Browser {
    /// A browser from [`Browser::launch`] whose test passed goes back to the pool on a blank page.
    /// Any other is killed: chromedriver's process group (Chromium and its helpers are in it),
    /// then the driver is awaited and the browser's own profile removed (never a kept one). Runs
    /// on a panic too, when no async `close` can.
    fn drop(&mut self) {
        let Some(driver) = self.driver.take() else { return };
        if self.poolable {
            let seen = if !std::thread::panicking() && self.reusable.load(Ordering::Relaxed) {
                blank_page(self.port, &self.session).ok()
            } else {
                None
            };
            if let Some(seen) = seen {
                let kept = crate::browser_pool::Kept {
                    driver,
                    port: self.port,
                    session: std::mem::take(&mut self.session),
                    profile: self.own_profile.take(),
                    seen,
                };
                crate::browser_pool::give_back(kept);
                return;
            }
        }
        end_processes(driver, self.own_profile.as_deref());
    }
}

/// Kills chromedriver's process group (Chromium and its helpers are in it), waits for the driver
/// and removes the browser's own profile, if it has one.
fn end_processes(mut driver: Child, own_profile: Option<&Path>) {
    let group = format!("-{}", driver.id());
    let _ = Command::new("kill").args(["-KILL", "--", &group]).stdout(Stdio::null()).stderr(Stdio::null()).status();
    let _ = driver.kill();
    let _ = driver.wait();
    crate::browser_pool::process_group_ended(driver.id());
    if let Some(profile) = own_profile {
        let _ = std::fs::remove_dir_all(profile);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::static_server::StaticServer;

    fn site() -> (StaticServer, tempdir::Dir) {
        let dir = tempdir::Dir::new();
        std::fs::write(dir.0.join("index.html"), "<!doctype html><title>kept</title>").unwrap();
        (StaticServer::start(&dir.0), dir)
    }

    mod tempdir {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
                let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let dir = std::env::temp_dir().join(format!("execbench-pool-site-{}-{n}", std::process::id()));
                std::fs::create_dir_all(&dir).unwrap();
                Dir(dir)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    async fn stored_bytes(b: &Browser, origin: &str) -> f64 {
        let usage = b.cdp("Storage.getUsageAndQuota", serde_json::json!({ "origin": origin })).await.unwrap();
        usage["usage"].as_f64().unwrap()
    }

    /// The only test in this crate that starts browsers, so the pool is this test's alone: what a
    /// kept browser brings to the next test, and when it is not lent.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_kept_browser_comes_back_blank_at_its_size_with_nothing_stored_and_never_to_its_own_site() {
        let (first_site, _dir) = site();
        let b = Browser::launch().await;
        b.client.goto(&first_site.base_url).await.unwrap();
        let put = "const done = arguments[0];
            caches.open('kept').then((c) => c.put('/k', new Response('x'.repeat(10000)))).then(() => done(true), (e) => done(String(e)));";
        assert_eq!(b.client.execute_async(put, vec![]).await.unwrap(), serde_json::json!(true));
        assert!(stored_bytes(&b, &first_site.origin).await > 0.0);
        b.set_viewport(420, 700).await;
        let first_session = b.session.clone();
        drop(b);

        // Its site still served (the same test wants another browser on it): a new one.
        let other = Browser::launch().await;
        assert_ne!(other.session, first_session, "a browser was lent beside a site it had been to");
        drop(other);

        let origin = first_site.origin.clone();
        drop(first_site);
        // Now it may be lent (either of the two: the second went nowhere); the first one comes back
        // blank, at the first size, without what the page stored.
        let a = Browser::launch().await;
        let b = Browser::launch().await;
        let kept = if a.session == first_session { a } else { b };
        assert_eq!(kept.session, first_session, "the first browser was not kept");
        assert_eq!(kept.client.current_url().await.unwrap().as_str(), "about:blank");
        assert_eq!(kept.client.get_window_size().await.unwrap(), (WIDTH.into(), HEIGHT.into()));
        assert_eq!(stored_bytes(&kept, &origin).await, 0.0, "what the last test stored is still there");
    }
}
