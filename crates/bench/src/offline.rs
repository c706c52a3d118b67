//! The second visit (issue 33): after one visit the service worker holds the build, so the app
//! should open with the network off, and online fetch nothing but the service worker's check.
//!
//! The site is served by a server of this section's own that counts every request and the bytes
//! of every response (the shared test server cannot say what the browser fetched). One fresh
//! browser a repetition: the first visit (until "Python ready" and the service worker in charge),
//! then a second visit with the network off (DevTools' network emulation), then one online, then
//! a third offline (the browser may have cached the modules' compiled code by then), on the
//! Playground, whose Run is clicked the moment Python is ready: the first run pays what the
//! engine's start left to its warm-up (the parser's first compile).

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{HeaderValue, Request, header};
use execbench_testkit::browser::Browser;
use serde_json::Value;

use crate::figures::{Amount, Figure};
use crate::median;

/// What the server answered: (path, bytes of the body) per request.
type Log = Arc<Mutex<Vec<(String, u64)>>>;

/// A static server for the built site at `/execbench/` that logs each response's size.
struct CountingServer {
    url: String,
    log: Log,
}

impl CountingServer {
    /// Serves on a thread and runtime of its own (as testkit's server: the benchmark's own
    /// runtime is busy driving the browser) until the benchmark ends.
    fn start(root: &Path) -> CountingServer {
        let log: Log = Arc::default();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a local port");
        listener.set_nonblocking(true).expect("a non-blocking listener");
        let url = format!("http://{}/execbench/", listener.local_addr().unwrap());
        let counted = log.clone();
        let app = axum::Router::new().nest_service("/execbench", tower_http::services::ServeDir::new(root)).layer(
            axum::middleware::from_fn(move |request: Request<axum::body::Body>, next: axum::middleware::Next| {
                let counted = counted.clone();
                async move {
                    let path = request.uri().path().to_string();
                    let mut response = next.run(request).await;
                    let bytes = response
                        .headers()
                        .get(header::CONTENT_LENGTH)
                        .and_then(|v| v.to_str().ok()?.parse().ok())
                        .unwrap_or(0);
                    // As the tests' server: every check reaches the server (the worst case for
                    // a second visit; a host's own caching headers can only save more).
                    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
                    counted.lock().unwrap().push((path, bytes));
                    response
                }
            }),
        );
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("the listener in tokio");
                axum::serve(listener, app).await
            })
        });
        CountingServer { url, log }
    }

    /// Requests and bytes since the last call, and the paths asked for.
    fn take(&self) -> (usize, u64, Vec<String>) {
        let log = std::mem::take(&mut *self.log.lock().unwrap());
        (log.len(), log.iter().map(|(_, b)| b).sum(), log.into_iter().map(|(p, _)| p).collect())
    }
}

#[derive(Default)]
struct Visits {
    first_ready_ms: Vec<f64>,
    first_requests: usize,
    first_bytes: u64,
    offline_ready_ms: Vec<f64>,
    offline_paint_ms: Vec<f64>,
    offline_mounted_ms: Vec<f64>,
    offline_requests: usize,
    offline_worker_start_ms: Vec<f64>,
    offline_interpreter_ms: Vec<f64>,
    /// Whether each visit's worker began from the saved start (then `interpreter_init` is the
    /// time putting it back took): second visits, then third visits.
    offline_restored: Vec<bool>,
    third_restored: Vec<bool>,
    /// A third visit, offline again: whether the browser's wasm code cache (written for modules
    /// answered from Cache Storage) makes the worker's module or the interpreter's start faster.
    third_ready_ms: Vec<f64>,
    third_worker_start_ms: Vec<f64>,
    third_interpreter_ms: Vec<f64>,
    /// The third visit's first Playground run, clicked when Python was ready: when its result
    /// was shown (from navigation start), and how long after the click.
    third_first_run_at_ms: Vec<f64>,
    third_first_run_ms: Vec<f64>,
    /// A last visit offline with the service worker stopped first, as a browser stops it after
    /// about 30 s idle: what a user's later visit meets (the visits above follow each other
    /// within seconds, while it still runs).
    stopped_ready_ms: Vec<f64>,
    stopped_paint_ms: Vec<f64>,
    stopped_mounted_ms: Vec<f64>,
    /// A visit offline two after a visit that verified the whole dataset: the browser may by then
    /// have kept compiled code of the modules (its wasm code cache), as after a user's session.
    used_ready_ms: Vec<f64>,
    used_worker_start_ms: Vec<f64>,
    online_ready_ms: Vec<f64>,
    online_paint_ms: Vec<f64>,
    online_requests: usize,
    online_bytes: u64,
    online_paths: Vec<String>,
}

/// Clicks the Playground's Run the moment the header says Python is ready (or at once, if it
/// already does) and answers [clicked, result shown], from navigation start.
const RUN_AT_READY: &str = "const done = arguments[arguments.length - 1];
const ready = () => (document.querySelector('.engine')?.textContent ?? '').startsWith('Python ready');
const go = () => {
  const clicked = performance.now();
  document.querySelector('[data-testid=run]').click();
  const poll = () => document.querySelector('[data-testid=run-number]') ? done([clicked, performance.now()]) : setTimeout(poll, 1);
  poll();
};
if (ready()) go();
else {
  const watch = new MutationObserver(() => { if (ready()) { watch.disconnect(); go(); } });
  watch.observe(document.body, { subtree: true, childList: true, characterData: true });
}";

/// Runs the service worker's update check (a fetch of sw.js) and resolves when it is done.
const UPDATE_CHECK: &str = "const done = arguments[arguments.length - 1];
navigator.serviceWorker.getRegistration()
  .then((r) => r ? r.update().then(() => true) : 'no registration')
  .then(done, (e) => done(String(e)));";

async fn js(b: &Browser, script: &str) -> Result<Value, String> {
    b.client.execute(script, vec![]).await.map_err(|e| format!("{script}: {e}"))
}

/// Times of one visit, from navigation start (ms).
struct Opened {
    /// "Python ready" (the header's `data-ready-at`).
    ready: f64,
    /// The first contentful paint: index.html's static shell (header and "Loading…").
    paint: f64,
    /// The app's own first screen in the document (`execbench-mounted`, marked by src/main.rs).
    mounted: f64,
    /// Of `ready`: from creating the Python worker to its Ready (`data-start-ms`), and of that
    /// the interpreter's start inside the worker (`data-init-ms`), or the time putting its saved
    /// start back took when `restored` (`data-restored`).
    worker_start: f64,
    interpreter_init: f64,
    restored: bool,
}

async fn opened(b: &Browser) -> Result<Opened, String> {
    b.wait_text(".engine", Duration::from_secs(120), |t| t.starts_with("Python ready")).await;
    let figures = js(
        b,
        "const e = document.querySelector('.engine').dataset;
         return [Number(e.readyAt), performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
                 Number(e.startMs), Number(e.initMs),
                 performance.getEntriesByName('execbench-mounted')[0]?.startTime ?? null, e.restored === 'true']",
    )
    .await?;
    let at = |i: usize| figures.get(i).and_then(Value::as_f64);
    match (at(0), at(1), at(2), at(3), at(4)) {
        (Some(ready), Some(paint), Some(worker_start), Some(interpreter_init), Some(mounted)) => {
            let restored = figures.get(5).and_then(Value::as_bool).unwrap_or(false);
            Ok(Opened { ready, paint, mounted, worker_start, interpreter_init, restored })
        }
        _ => Err(format!("no ready time, first paint, mount or worker times: {figures}")),
    }
}

/// How many of the visits' workers began from the saved start, in words.
fn restored_in(restored: &[bool]) -> String {
    let n = restored.iter().filter(|r| **r).count();
    format!("its saved start put back in {n} of {} visits", restored.len())
}

async fn visit_again(b: &Browser, url: &str) -> Result<Opened, String> {
    b.client.goto("about:blank").await.map_err(|e| e.to_string())?;
    b.client.goto(url).await.map_err(|e| e.to_string())?;
    opened(b).await
}

/// `text` as a JavaScript regular expression that matches it literally.
fn regex_literal(text: &str) -> String {
    text.chars().fold(String::new(), |mut out, c| {
        if "\\^$.|?*+()[]{}/".contains(c) {
            out.push('\\');
        }
        out.push(c);
        out
    })
}

/// `settled`: the files the page keeps once a visit has settled (`idle` in sw.js); the first
/// visit lasts until they are kept, as a user's first visit of more than a few seconds does.
async fn one_rep(server: &CountingServer, v: &mut Visits, settled: &[String]) -> Result<(), String> {
    let b = Browser::launch_fresh().await;
    let result = async {
        server.take();
        b.client.goto(&server.url).await.map_err(|e| e.to_string())?;
        v.first_ready_ms.push(opened(&b).await?.ready);
        // Installed and in charge: every file of the build is in its cache.
        let started = std::time::Instant::now();
        while js(&b, "return !!navigator.serviceWorker.controller").await? != Value::Bool(true) {
            if started.elapsed() > Duration::from_secs(120) {
                return Err("the service worker did not take control within 120 s".into());
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let patterns: Vec<String> = settled.iter().map(|path| format!("/{}$", regex_literal(path))).collect();
        while !b.all_cached(&patterns).await? {
            if started.elapsed() > Duration::from_secs(120) {
                return Err(format!("the page did not keep {settled:?} within 120 s"));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let (requests, bytes, _) = server.take();
        (v.first_requests, v.first_bytes) = (requests, bytes);

        b.set_offline(true).await;
        let offline = visit_again(&b, &server.url).await?;
        v.offline_ready_ms.push(offline.ready);
        v.offline_paint_ms.push(offline.paint);
        v.offline_mounted_ms.push(offline.mounted);
        v.offline_worker_start_ms.push(offline.worker_start);
        v.offline_interpreter_ms.push(offline.interpreter_init);
        v.offline_restored.push(offline.restored);
        v.offline_requests = server.take().0;
        b.set_offline(false).await;

        let online = visit_again(&b, &server.url).await?;
        v.online_ready_ms.push(online.ready);
        v.online_paint_ms.push(online.paint);
        // The browser checks sw.js on its own schedule (often later than any fixed wait), so ask
        // for the check a user's next visit makes and wait for it: the row then measures it.
        let checked = b.client.execute_async(UPDATE_CHECK, vec![]).await.map_err(|e| format!("update check: {e}"))?;
        if checked != Value::Bool(true) {
            return Err(format!("the service worker's update check failed: {checked}"));
        }
        let (requests, bytes, paths) = server.take();
        (v.online_requests, v.online_bytes, v.online_paths) = (requests, bytes, paths);

        b.set_offline(true).await;
        b.client.goto("about:blank").await.map_err(|e| e.to_string())?;
        b.client.goto(&format!("{}#/playground", server.url)).await.map_err(|e| e.to_string())?;
        let run = b.client.execute_async(RUN_AT_READY, vec![]).await.map_err(|e| format!("the first run: {e}"))?;
        let third = opened(&b).await?;
        match (run.get(0).and_then(Value::as_f64), run.get(1).and_then(Value::as_f64)) {
            (Some(clicked), Some(shown)) => {
                v.third_first_run_at_ms.push(shown);
                v.third_first_run_ms.push(shown - clicked);
            }
            _ => return Err(format!("the first run's times: {run}")),
        }
        v.third_ready_ms.push(third.ready);
        v.third_worker_start_ms.push(third.worker_start);
        v.third_interpreter_ms.push(third.interpreter_init);
        v.third_restored.push(third.restored);

        b.client.goto("about:blank").await.map_err(|e| e.to_string())?;
        b.cdp("ServiceWorker.enable", serde_json::json!({})).await?;
        b.cdp("ServiceWorker.stopAllWorkers", serde_json::json!({})).await?;
        b.client.goto(&server.url).await.map_err(|e| e.to_string())?;
        let stopped = opened(&b).await?;
        v.stopped_ready_ms.push(stopped.ready);
        v.stopped_paint_ms.push(stopped.paint);
        v.stopped_mounted_ms.push(stopped.mounted);

        // A session's use: every sample verified, then a pause longer than the browser waits
        // before it writes compiled code to its cache (2 s), then the next visit.
        b.client.goto(&format!("{}#/verify", server.url)).await.map_err(|e| e.to_string())?;
        b.click("[data-testid=verify-start]").await;
        b.wait_text("[data-testid=verify-state]", Duration::from_secs(300), |t| !t.is_empty()).await;
        tokio::time::sleep(Duration::from_secs(4)).await;
        // The browser writes its cache during or after the visit that follows (seen in traces),
        // so the one after that is the first that can read it.
        visit_again(&b, &server.url).await?;
        tokio::time::sleep(Duration::from_secs(4)).await;
        let used = visit_again(&b, &server.url).await?;
        v.used_ready_ms.push(used.ready);
        v.used_worker_start_ms.push(used.worker_start - used.interpreter_init);
        b.set_offline(false).await;
        Ok(())
    }
    .await;
    b.close().await;
    result
}

/// The section: `reps` fresh browsers; medians of the times, the counts of the last one.
/// Brotli sizes (as the engine section): the site's first visit, the files the page keeps once a
/// visit has settled (the standard library's rest and the Parquet loader; none in a build that
/// marks none) and Pyodide's engine files.
pub struct Transfer {
    pub first_visit: u64,
    pub kept_once_settled: Option<u64>,
    pub pyodide: u64,
}

pub async fn section(dist: &Path, reps: usize, transfer_brotli: Option<Transfer>) {
    println!("\nsecond visit: first visit, then the network off, then online (a fresh browser each of {reps})...");
    let server = CountingServer::start(dist);
    let settled: Vec<String> = crate::files_cached_on_first_use(dist)
        .into_iter()
        .filter(|(_, idle)| *idle)
        .filter_map(|(path, _)| Some(path.strip_prefix(dist).ok()?.to_str()?.replace('\\', "/")))
        .collect();
    let mut v = Visits::default();
    for rep in 0..reps {
        if let Err(e) = one_rep(&server, &mut v, &settled).await {
            eprintln!("the second-visit figures failed (repetition {}): {e}", rep + 1);
            return;
        }
    }
    let row = |metric: &str, execbench: Amount, reference: Option<(&str, Amount)>, target: Option<&str>, met| {
        let ratio = match (&execbench, &reference) {
            (Amount::Ms(a), Some((_, Amount::Ms(b)))) => Some(a / b),
            (Amount::Bytes(a), Some((_, Amount::Bytes(b)))) => Some(*a as f64 / *b as f64),
            _ => None,
        };
        Figure {
            section: "offline".into(),
            metric: metric.into(),
            execbench: Some(execbench),
            reference: reference.as_ref().map(|r| r.0.to_string()),
            reference_amount: reference.map(|r| r.1),
            ratio,
            target: target.map(String::from),
            met,
        }
    };
    let first_ready = median(v.first_ready_ms.iter().copied());
    let mut rows = Vec::new();
    if let Some(t) = transfer_brotli {
        rows.push(row(
            "first visit, transfer (brotli, every file the service worker caches on install)",
            Amount::Bytes(t.first_visit),
            Some(("Pyodide's engine files", Amount::Bytes(t.pyodide))),
            None,
            None,
        ));
        if let Some(later) = t.kept_once_settled {
            rows.push(row(
                "first visit in all, with what the page keeps once it has settled (the stdlib's rest, the Parquet loader; brotli)",
                Amount::Bytes(t.first_visit + later),
                Some(("Pyodide's engine files", Amount::Bytes(t.pyodide))),
                None,
                None,
            ));
        }
    }
    rows.extend([
        row("first visit, bytes served (uncompressed server; the visit lasts until what it keeps once settled is kept)", Amount::Bytes(v.first_bytes), None, None, None),
        row("first visit, Python ready", Amount::Ms(first_ready), None, None, None),
        row(
            "second visit offline, first screen painted (the static shell)",
            Amount::Ms(median(v.offline_paint_ms.iter().copied())),
            None,
            None,
            None,
        ),
        row(
            "second visit offline, the app's own first screen in the document",
            Amount::Ms(median(v.offline_mounted_ms.iter().copied())),
            None,
            None,
            None,
        ),
        row(
            "second visit offline, Python ready",
            Amount::Ms(median(v.offline_ready_ms.iter().copied())),
            Some(("first visit", Amount::Ms(first_ready))),
            Some("works offline"),
            Some(v.offline_requests == 0),
        ),
        row(
            "of which: the page until it creates the Python worker",
            Amount::Ms(median(v.offline_ready_ms.iter().zip(&v.offline_worker_start_ms).map(|(r, w)| r - w))),
            None,
            None,
            None,
        ),
        row(
            "of which: the worker's module fetched, compiled and instantiated",
            Amount::Ms(median(v.offline_worker_start_ms.iter().zip(&v.offline_interpreter_ms).map(|(w, i)| w - i))),
            None,
            None,
            None,
        ),
        row(
            &format!("of which: the interpreter's start in the worker ({})", restored_in(&v.offline_restored)),
            Amount::Ms(median(v.offline_interpreter_ms.iter().copied())),
            None,
            None,
            None,
        ),
        row(
            "third visit offline (on the Playground), Python ready",
            Amount::Ms(median(v.third_ready_ms.iter().copied())),
            None,
            None,
            None,
        ),
        row(
            "of which: the worker's module fetched, compiled and instantiated (third visit)",
            Amount::Ms(median(v.third_worker_start_ms.iter().zip(&v.third_interpreter_ms).map(|(w, i)| w - i))),
            None,
            None,
            None,
        ),
        row(
            &format!(
                "of which: the interpreter's start in the worker (third visit; {})",
                restored_in(&v.third_restored)
            ),
            Amount::Ms(median(v.third_interpreter_ms.iter().copied())),
            None,
            None,
            None,
        ),
        row(
            "third visit offline (Playground), first run answered, clicked when Python was ready",
            Amount::Ms(median(v.third_first_run_at_ms.iter().copied())),
            None,
            None,
            None,
        ),
        row(
            "of that: from the click to its result",
            Amount::Ms(median(v.third_first_run_ms.iter().copied())),
            None,
            None,
            None,
        ),
        row(
            "later visit offline, its service worker stopped first: first screen painted / the app's own / Python ready",
            Amount::Text(format!(
                "{:.0} / {:.0} / {:.0} ms",
                median(v.stopped_paint_ms.iter().copied()),
                median(v.stopped_mounted_ms.iter().copied()),
                median(v.stopped_ready_ms.iter().copied())
            )),
            None,
            None,
            None,
        ),
        row(
            "later visit offline, two after a visit that verified every sample: Python ready / of which the worker's module",
            Amount::Text(format!(
                "{:.0} / {:.0} ms",
                median(v.used_ready_ms.iter().copied()),
                median(v.used_worker_start_ms.iter().copied())
            )),
            None,
            None,
            None,
        ),
        row(
            "second visit online, first screen painted",
            Amount::Ms(median(v.online_paint_ms.iter().copied())),
            None,
            None,
            None,
        ),
        row(
            "second visit online, Python ready",
            Amount::Ms(median(v.online_ready_ms.iter().copied())),
            Some(("first visit", Amount::Ms(first_ready))),
            None,
            None,
        ),
        row(
            "second visit online, bytes fetched",
            Amount::Text(format!("{} B in {} request(s)", v.online_bytes, v.online_requests)),
            Some(("first visit", Amount::Bytes(v.first_bytes))),
            Some("only the service worker's check"),
            Some(!v.online_paths.is_empty() && v.online_paths.iter().all(|p| p.ends_with("/sw.js"))),
        ),
    ]);
    println!("{}", crate::figures::markdown_table("reference", &rows));
    println!(
        "Requests on the second visit online: {}. Offline: {} request(s) reached the server. \
         Times from navigation start, medians over {reps} fresh browser(s); first screen painted = first contentful paint (index.html's static shell); the app's own first screen = the `execbench-mounted` mark.",
        if v.online_paths.is_empty() { "none".to_string() } else { v.online_paths.join(", ") },
        v.offline_requests
    );
    crate::figures::record(rows);
}

#[cfg(test)]
mod tests {
    use super::regex_literal;

    #[test]
    fn file_names_become_literal_patterns() {
        let cases = [
            ("stdlib-2d173f1e762b81a5.bin", r"stdlib-2d173f1e762b81a5\.bin"),
            ("data/cruxeval/x.jsonl", r"data\/cruxeval\/x\.jsonl"),
            ("a(b)+[c]?.{d}^$|*\\", r"a\(b\)\+\[c\]\?\.\{d\}\^\$\|\*\\"),
            ("plain", "plain"),
        ];
        for (name, pattern) in cases {
            assert_eq!(regex_literal(name), pattern, "{name}");
        }
    }
}
