//! The engine as the app runs it: "ready" on the real app page (navigation start to
//! the first worker's ready message, read from the header's `data-ready-at`), and verify-all on
//! the Verify page with a pool of one worker and with a larger pool (first and warm passes, the
//! page's own `data-ms`), plus the workers' WebAssembly memory after the passes.

use std::time::Duration;

use execbench_testkit::browser::Browser;

use crate::page::{js, wait_text};

/// One pool size's figures.
#[derive(Clone, Debug, Default)]
pub struct AppPool {
    pub workers: usize,
    pub first_ms: f64,
    pub warm_ms: Vec<f64>,
    pub passed: Vec<u64>,
    /// Workers ready after the passes, and their memory together.
    pub workers_ready: usize,
    pub memory_bytes: u64,
}

#[derive(Clone, Debug, Default)]
pub struct AppFigures {
    /// Navigation start to the first worker's ready message, on a cold page.
    pub ready_ms: f64,
    /// One worker: the first verify-all pass of a fresh page clicked `IDLE_BEFORE_FIRST` after
    /// ready, as a person who looks at the page first would (the worker warms up meanwhile).
    pub first_after_idle_ms: f64,
    pub pools: Vec<AppPool>,
}

const POOL_SIZE_KEY: &str = "execbench.python-workers";
/// How long after ready the idle first pass is clicked.
pub const IDLE_BEFORE_FIRST: Duration = Duration::from_secs(3);

/// Measures in a fresh browser: a cold load for "ready", then each pool size (kept in
/// `localStorage`, the page reloaded) with one first and `warm` warm verify-all passes.
pub async fn measure(app_url: &str, pool_sizes: &[usize], warm: usize) -> Result<AppFigures, String> {
    let b = Browser::launch_fresh().await;
    let result = drive(&b, app_url, pool_sizes, warm).await;
    b.close().await;
    result
}

async fn ready_at(b: &Browser) -> Result<f64, String> {
    wait_text(b, ".engine", Duration::from_secs(120), |t| t.starts_with("Python ready")).await?;
    let at = js(b, "return document.querySelector('.engine').dataset.readyAt").await?;
    at.as_str().and_then(|t| t.parse().ok()).ok_or(format!("no data-ready-at: {at}"))
}

async fn drive(b: &Browser, app_url: &str, pool_sizes: &[usize], warm: usize) -> Result<AppFigures, String> {
    allow_long_scripts(b).await?;
    let mut figures = AppFigures::default();
    b.client.goto(&format!("{app_url}#/verify")).await.map_err(|e| format!("could not open the app: {e}"))?;
    figures.ready_ms = ready_at(b).await?;
    for &workers in pool_sizes {
        js(b, &format!("localStorage.setItem('{POOL_SIZE_KEY}', '{workers}'); return true")).await?;
        b.client.goto("about:blank").await.map_err(|e| e.to_string())?;
        b.client.goto(&format!("{app_url}#/verify")).await.map_err(|e| format!("could not open the app: {e}"))?;
        ready_at(b).await?;
        let mut pool = AppPool { workers, ..AppPool::default() };
        for pass in 0..=warm {
            let (ms, passed) = verify_all(b).await?;
            if pass == 0 {
                pool.first_ms = ms;
            } else {
                pool.warm_ms.push(ms);
            }
            pool.passed.push(passed);
        }
        let engine = js(
            b,
            "const e = document.querySelector('.engine'); return [Number(e.dataset.workers), Number(e.dataset.memory)]",
        )
        .await?;
        pool.workers_ready = engine[0].as_u64().unwrap_or(0) as usize;
        pool.memory_bytes = engine[1].as_u64().unwrap_or(0);
        figures.pools.push(pool);
    }
    // A fresh page with one worker, the first pass clicked a while after ready.
    js(b, &format!("localStorage.setItem('{POOL_SIZE_KEY}', '1'); return true")).await?;
    b.client.goto("about:blank").await.map_err(|e| e.to_string())?;
    b.client.goto(&format!("{app_url}#/verify")).await.map_err(|e| format!("could not open the app: {e}"))?;
    ready_at(b).await?;
    tokio::time::sleep(IDLE_BEFORE_FIRST).await;
    figures.first_after_idle_ms = verify_all(b).await?.0;
    js(b, &format!("localStorage.removeItem('{POOL_SIZE_KEY}'); return true")).await?;
    Ok(figures)
}

/// Clicks Verify all and waits for its outcome inside the page, without polling: a poll is a
/// WebDriver command that runs script on the page's thread (finding an element, reading its text),
/// and every 20 ms during a 150 ms pass it would take the thread from the pass being timed. The
/// script resolves once the outcome has gone (the pass started) and come back (it ended).
const CLICK_AND_AWAIT_VERIFY: &str = r#"
const done = arguments[arguments.length - 1];
const state = () => document.querySelector('[data-testid=verify-state]');
let started = false;
const check = () => {
  const element = state();
  if (!element) { started = true; return false; }
  if (started && element.textContent !== '') {
    observer.disconnect();
    console.timeStamp('execbench-pass-end');
    done(element.textContent);
    return true;
  }
  return false;
};
const observer = new MutationObserver(check);
observer.observe(document.body, { subtree: true, childList: true, characterData: true });
console.timeStamp('execbench-pass-start');
document.querySelector('[data-testid=verify-start]').click();
check();
"#;

/// A pass is awaited by one script: let scripts run as long as a first pass may take. Once per browser.
async fn allow_long_scripts(b: &Browser) -> Result<(), String> {
    b.client
        .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(Some(Duration::from_secs(600)), None, None))
        .await
        .map_err(|e| format!("setting the script time-out: {e}"))
}

/// One verify-all pass on the Verify page: (the page's elapsed ms, samples passed).
async fn verify_all(b: &Browser) -> Result<(f64, u64), String> {
    // The start button must be there and enabled (a dataset loaded) before the script clicks it.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while js(b, "const e = document.querySelector('[data-testid=verify-start]'); return !!e && !e.disabled").await?
        != serde_json::Value::Bool(true)
    {
        if std::time::Instant::now() > deadline {
            return Err("Verify all stayed disabled for 60 s".into());
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let state = b
        .client
        .execute_async(CLICK_AND_AWAIT_VERIFY, vec![])
        .await
        .map_err(|e| format!("waiting for verify-all: {e}"))?;
    let state = state.as_str().unwrap_or_default().to_string();
    if !state.contains("finished") {
        return Err(format!("verify-all ended with `{state}`"));
    }
    let read = js(b, "return [document.querySelector('[data-testid=verify-stats]').dataset.ms, document.querySelector('[data-testid=verify-passed]').textContent]").await?;
    let ms: f64 = read[0].as_str().and_then(|t| t.parse().ok()).ok_or(format!("no data-ms: {read}"))?;
    let passed: u64 = read[1]
        .as_str()
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .ok_or(format!("no passed count: {read}"))?;
    Ok((ms, passed))
}

/// Where a warm verify-all pass spends its time, thread by thread, from Chromium's trace.
#[derive(Clone, Debug, Default)]
pub struct PassProfile {
    pub workers: usize,
    /// The page's own elapsed time for the pass.
    pub pass_ms: f64,
    /// The page's thread: busy in all, and the parts: script (the app's wasm and its JS glue,
    /// message handlers included), garbage collection, style, layout and paint.
    pub page: ThreadBusy,
    /// Each Python worker's thread, busiest first: (busy, CPU) ms.
    pub workers_busy: Vec<(f64, f64)>,
}

/// `busy_ms` is wall time inside the thread's tasks; `cpu_ms` the thread's own CPU time in them
/// (the trace's thread clock): less than busy when the thread waited for a core.
#[derive(Clone, Debug, Default)]
pub struct ThreadBusy {
    pub busy_ms: f64,
    pub cpu_ms: f64,
    pub script_ms: f64,
    pub gc_ms: f64,
    pub render_ms: f64,
}

/// The trace categories a profile needs: the timeline's tasks (`RunTask`, every thread) and its
/// script, GC and rendering events. Few enough events that chromedriver's buffer (about 100,000
/// events) holds a page's start and a few passes; `toplevel` or `v8` would fill it in seconds.
const TRACE_CATEGORIES: &str = "devtools.timeline,disabled-by-default-devtools.timeline";

/// Profiles one warm verify-all pass per pool size (after `warm` untimed ones), each pool in a
/// traced browser of its own: chromedriver hands the trace over once, at the end. Tracing slows
/// the page, so these passes are not the table's figures.
pub async fn profile(app_url: &str, pool_sizes: &[usize], warm: usize) -> Result<Vec<PassProfile>, String> {
    let mut profiles = Vec::new();
    for &workers in pool_sizes {
        let b = Browser::launch_traced(TRACE_CATEGORIES).await;
        let result = profile_in(&b, app_url, workers, warm).await;
        b.close().await;
        profiles.push(result?);
    }
    Ok(profiles)
}

async fn profile_in(b: &Browser, app_url: &str, workers: usize, warm: usize) -> Result<PassProfile, String> {
    allow_long_scripts(b).await?;
    b.client.goto(&format!("{app_url}#/verify")).await.map_err(|e| format!("could not open the app: {e}"))?;
    ready_at(b).await?;
    js(b, &format!("localStorage.setItem('{POOL_SIZE_KEY}', '{workers}'); return true")).await?;
    b.client.goto("about:blank").await.map_err(|e| e.to_string())?;
    b.client.goto(&format!("{app_url}#/verify")).await.map_err(|e| format!("could not open the app: {e}"))?;
    ready_at(b).await?;
    for _ in 0..warm.max(1) {
        verify_all(b).await?;
    }
    let (pass_ms, _) = verify_all(b).await?;
    let events = b.trace_events().await?;
    if let Some(dir) = std::env::var_os("EXECBENCH_TRACE_DIR") {
        let path = std::path::Path::new(&dir).join(format!("verify-pass-{workers}-workers.json"));
        let trace = serde_json::json!({ "traceEvents": events });
        std::fs::write(&path, trace.to_string()).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let events = flatten(&events);
    let window = last_pass_window(&events).ok_or(format!("no pass marks among {} trace events", events.len()))?;
    Ok(PassProfile { workers, pass_ms, ..summarise(&events, window) })
}

/// chromedriver may hand trace events one by one or as a `value` list.
fn flatten(events: &[serde_json::Value]) -> Vec<serde_json::Value> {
    events
        .iter()
        .flat_map(|e| match e["value"].as_array() {
            Some(list) => list.clone(),
            None => vec![e.clone()],
        })
        .collect()
}

/// The last pass's start and end marks (`console.timeStamp` in the click script), in trace µs.
fn last_pass_window(events: &[serde_json::Value]) -> Option<(f64, f64)> {
    let marks = |label: &str| -> Vec<f64> {
        events
            .iter()
            .filter(|e| e["name"] == "TimeStamp" && e["args"]["data"]["message"] == label)
            .filter_map(|e| e["ts"].as_f64())
            .collect()
    };
    let start = marks("execbench-pass-start").into_iter().reduce(f64::max)?;
    let end = marks("execbench-pass-end").into_iter().filter(|&t| t > start).reduce(f64::min)?;
    Some((start, end))
}

/// Busy time per thread from trace events: the sum of each thread's tasks, and on the
/// page's thread the time inside script, GC and rendering events (outermost events only, so
/// nested ones are not counted twice).
/// Only the parts of events inside `window` (trace µs) count.
pub fn summarise(events: &[serde_json::Value], window: (f64, f64)) -> PassProfile {
    use std::collections::HashMap;
    type Thread = (u64, u64);
    let key = |e: &serde_json::Value| -> Thread { (e["pid"].as_u64().unwrap_or(0), e["tid"].as_u64().unwrap_or(0)) };
    let mut names: HashMap<Thread, String> = HashMap::new();
    for e in events {
        if e["ph"] == "M" && e["name"] == "thread_name" {
            names.insert(key(e), e["args"]["name"].as_str().unwrap_or_default().to_string());
        }
    }
    // Complete events ("X") with a duration; top-level tasks, then the page's parts.
    let mut busy: HashMap<Thread, (f64, f64)> = HashMap::new();
    let mut parts: HashMap<Thread, Vec<(f64, f64, &'static str)>> = HashMap::new();
    for e in events {
        if e["ph"] != "X" {
            continue;
        }
        let (Some(ts), Some(dur)) = (e["ts"].as_f64(), e["dur"].as_f64()) else { continue };
        // Clipped to the window.
        let (ts, end) = (ts.max(window.0), (ts + dur).min(window.1));
        if end <= ts {
            continue;
        }
        let cpu = e["tdur"].as_f64().unwrap_or(0.0) * if dur > 0.0 { (end - ts) / dur } else { 0.0 };
        let dur = end - ts;
        let name = e["name"].as_str().unwrap_or_default();
        let cat = e["cat"].as_str().unwrap_or_default();
        if name == "RunTask" && cat.contains("devtools.timeline") {
            let thread = busy.entry(key(e)).or_default();
            thread.0 += dur / 1000.0;
            thread.1 += cpu / 1000.0;
        }
        let part = match name {
            "FunctionCall" | "EvaluateScript" | "v8.callFunction" | "RunMicrotasks" | "EventDispatch"
            | "HandlePostMessage" | "TimerFire" => "script",
            "MinorGC" | "MajorGC" | "V8.GC_SCAVENGER" | "V8.GC_MARK_COMPACTOR" | "BlinkGC.AtomicPhase" => "gc",
            "UpdateLayoutTree" | "Layout" | "Paint" | "PrePaint" | "Layerize" | "Commit" | "UpdateLayer" => "render",
            _ => continue,
        };
        parts.entry(key(e)).or_default().push((ts, ts + dur, part));
    }
    let is = |thread: &Thread, want: &str| names.get(thread).is_some_and(|n| n.contains(want));
    let page_thread =
        busy.keys().filter(|t| is(t, "CrRendererMain")).max_by(|a, b| busy[a].0.total_cmp(&busy[b].0)).copied();
    let mut profile = PassProfile::default();
    if let Some(page) = page_thread {
        (profile.page.busy_ms, profile.page.cpu_ms) = busy[&page];
        let mut spans = parts.remove(&page).unwrap_or_default();
        spans.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
        let mut covered_to = f64::MIN;
        for (start, end, part) in spans {
            if start < covered_to {
                continue; // inside an outer event already counted
            }
            covered_to = end;
            let ms = (end - start) / 1000.0;
            match part {
                "script" => profile.page.script_ms += ms,
                "gc" => profile.page.gc_ms += ms,
                _ => profile.page.render_ms += ms,
            }
        }
    }
    let mut workers: Vec<(f64, f64)> =
        busy.iter().filter(|(t, (ms, _))| is(t, "DedicatedWorker") && *ms > 1.0).map(|(_, b)| *b).collect();
    workers.sort_by(|a, b| b.0.total_cmp(&a.0));
    profile.workers_busy = workers;
    profile
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_trace_is_summed_per_thread_with_nested_events_counted_once() {
        // Every event's thread CPU time is half its wall time.
        let x = |tid: u64, name: &str, cat: &str, ts: f64, dur: f64| json!({"ph": "X", "pid": 1, "tid": tid, "name": name, "cat": cat, "ts": ts, "dur": dur, "tdur": dur / 2.0});
        let events = vec![
            json!({"ph": "M", "pid": 1, "tid": 10, "name": "thread_name", "args": {"name": "CrRendererMain"}}),
            json!({"ph": "M", "pid": 1, "tid": 20, "name": "thread_name", "args": {"name": "DedicatedWorker thread"}}),
            json!({"ph": "M", "pid": 1, "tid": 30, "name": "thread_name", "args": {"name": "DedicatedWorker thread"}}),
            // The page: two tasks (5 ms + 3 ms); script 4 ms with a nested call, GC 1 ms, layout 2 ms.
            x(10, "RunTask", "disabled-by-default-devtools.timeline", 0.0, 5000.0),
            x(10, "FunctionCall", "devtools.timeline", 100.0, 4000.0),
            x(10, "FunctionCall", "devtools.timeline", 200.0, 1000.0),
            x(10, "MinorGC", "devtools.timeline,v8", 4200.0, 1000.0),
            x(10, "RunTask", "disabled-by-default-devtools.timeline", 10000.0, 3000.0),
            x(10, "Layout", "devtools.timeline", 10500.0, 2000.0),
            // Two workers; the idle one's tiny task is left out.
            x(20, "RunTask", "disabled-by-default-devtools.timeline", 0.0, 90000.0),
            x(30, "RunTask", "disabled-by-default-devtools.timeline", 0.0, 500.0),
        ];
        // chromedriver may hand the events one by one or as a `value` list: both read the same.
        for events in [events.clone(), vec![json!({"value": events})]] {
            let p = summarise(&flatten(&events), (0.0, 1e9));
            assert_eq!(
                (p.page.busy_ms, p.page.cpu_ms, p.page.script_ms, p.page.gc_ms, p.page.render_ms),
                (8.0, 4.0, 4.0, 1.0, 2.0)
            );
            assert_eq!(p.workers_busy, vec![(90.0, 45.0)]);
        }
        // A window keeps the parts of events inside it: 2.5 ms of the page's first task, 2 ms
        // of the worker's.
        let p = summarise(&events, (2500.0, 4500.0));
        assert_eq!((p.page.busy_ms, p.page.cpu_ms, p.page.script_ms, p.page.gc_ms), (2.0, 1.0, 1.6, 0.3));
        assert_eq!(p.workers_busy, vec![(2.0, 1.0)]);
    }

    #[test]
    fn the_last_pass_is_found_between_its_marks() {
        let mark = |label: &str, ts: f64| json!({"ph": "I", "name": "TimeStamp", "ts": ts, "args": {"data": {"message": label}}});
        let events = vec![
            mark("execbench-pass-start", 10.0),
            mark("execbench-pass-end", 20.0),
            mark("execbench-pass-start", 30.0),
            mark("execbench-pass-end", 45.0),
        ];
        assert_eq!(last_pass_window(&events), Some((30.0, 45.0)));
        assert_eq!(last_pass_window(&events[..3]), None, "a pass that has not ended");
    }
}
