//! The soak (issue 32, "A soak run"): not a test but a long run that counts what a user would
//! lose and watches memory, in the page and natively. `scripts/soak.sh` runs it.
//!
//! In the page: the Evaluate page runs the 800 CRUXEval samples x n = 5 against the mock model
//! server with faults on (a 429 on the first attempt of every ninth sample, a 500 on every
//! thirteenth's, a cut stream on every seventeenth's, one request that hangs 15 s) at concurrency
//! 8, while another page (a browser of its own) perturbs the dataset with every deterministic kind. The run is reloaded
//! twice (each time resumed from the Runs page) and stopped and resumed once. Then: records
//! lost (samples without their five answers; must be 0), samples asked again beyond their faults
//! (only those in flight at a reload or the stop), the page's JS heap and WebAssembly memory and
//! the workers' memory at start, middle and end, the longest frame, and IndexedDB's usage. Then
//! the same run again, four times (`EXECBENCH_SOAK_ROUNDS`) in the same page without a reload,
//! memory read after each: what grows run after run is a leak.
//!
//! Natively: `execbench run` scores 800 x n = 13 (10,400 answers) against the mock, and the
//! resident memory of the process and of its Python worker processes is read from /proc while it
//! runs: it must stay flat.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use execbench_mockserver::{Fault, FaultRule, MockConfig, MockServer, SampleMatch, bundled_dataset};
use execbench_testkit::browser::Browser;
use serde_json::{Value, json};

use crate::figures::{Amount, Figure};
use crate::page::{click, js, select, wait_text};

const SAMPLES: usize = 800;
const N: usize = 5;
const CONCURRENCY: usize = 8;
const LATENCY_MS: u64 = 30;
/// Where the run is reloaded, stopped and resumed: after this many stored records.
const FIRST_RELOAD_AT: usize = 200;
const SECOND_RELOAD_AT: usize = 400;
const STOP_AT: usize = 560;
const NATIVE_N: usize = 13;
/// The native run's mock latency: long enough for the run to last about a minute of readings.
const NATIVE_LATENCY_MS: u64 = 400;

/// Runs after the first, in the same page without a reload (`EXECBENCH_SOAK_ROUNDS`, 4 by default).
fn extra_rounds() -> usize {
    std::env::var("EXECBENCH_SOAK_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(4)
}

/// `EXECBENCH_SOAK_PAGE=0` leaves the page's part out (about 10 minutes) to watch only the
/// command line's memory.
fn page_part_wanted() -> bool {
    std::env::var("EXECBENCH_SOAK_PAGE").map_or(true, |v| v != "0")
}

/// The faults: (every k-th sample, on its first attempt, this fault). One more sample hangs.
fn faults() -> Vec<FaultRule> {
    let first = |k: u32, fault: Fault| FaultRule::on_attempts(SampleMatch::EveryKth(k), &[1], fault);
    vec![
        first(9, Fault::RateLimit { retry_after_s: Some(1.0), retry_after_ms: None }),
        first(13, Fault::ServerError),
        first(17, Fault::StreamCut { after_chunks: 2 }),
        FaultRule::on_attempts(SampleMatch::Id("sample_301".into()), &[1], Fault::Hang { ms: 15_000 }),
    ]
}

/// How many extra requests a sample's faults cost it (a hang costs none: it is answered late).
fn fault_retries(index: usize) -> u32 {
    [9usize, 13, 17].iter().filter(|&&k| index.is_multiple_of(k)).count() as u32
}

/// Memory seen at one moment of the page's run.
#[derive(Clone, Debug, Default)]
struct PageMemory {
    records: usize,
    js_heap_bytes: f64,
    page_wasm_bytes: f64,
    workers: u64,
    workers_wasm_bytes: f64,
    idb_bytes: f64,
    held: HeapCounts,
}

/// What the page's JS heap holds, counted to find what grows run after run: live objects per
/// kind (DevTools' `Runtime.queryObjects`), the JS values the wasm side holds (non-empty slots of
/// wasm-bindgen's externref table), DOM nodes and event listeners (`Performance.getMetrics`).
#[derive(Clone, Debug, Default)]
struct HeapCounts {
    functions: u64,
    objects: u64,
    arrays: u64,
    promises: u64,
    held_by_wasm: u64,
    nodes: u64,
    /// Of `nodes`, those in the document (the rest are detached, kept alive by a reference).
    nodes_in_document: u64,
    listeners: u64,
}

#[derive(Debug, Default)]
struct PageSoak {
    wall_ms: f64,
    points: Vec<(String, PageMemory)>,
    /// The first run's records, and those with every answer.
    records: usize,
    complete: usize,
    runs: usize,
    /// Every run's, at the end.
    all_records: usize,
    all_complete: usize,
    asked_again: u32,
    requests: u64,
    faults_served: u64,
    longest_frame_ms: f64,
    perturb_state: String,
    perturb_workers_wasm_bytes: (f64, f64),
}

/// The whole section.
pub async fn section(app_url: &str) {
    println!(
        "\nsoak: the page runs {SAMPLES} samples x n = {N} against the mock server with faults, concurrency {CONCURRENCY}, two reloads and a Stop/Resume, while another page perturbs; then `execbench run` scores {SAMPLES} x n = {NATIVE_N} natively..."
    );
    let dataset = match bundled_dataset() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cannot read the bundled dataset for the mock server: {e}");
            return;
        }
    };
    let ids: Vec<String> = dataset.iter().map(|s| s.id.clone()).collect();
    let config = MockConfig { latency_ms: LATENCY_MS, faults: faults(), ..Default::default() };
    let mock = match MockServer::start(dataset.clone(), config, 0).await {
        Ok(m) => m,
        Err(e) => {
            eprintln!("cannot start the mock model server: {e}");
            return;
        }
    };
    if page_part_wanted() {
        let b = Browser::launch_fresh().await;
        // The perturbing page runs in a browser of its own: a tab sharing the store would hear
        // the run start and take it over at the first reload (the two-tab e2e tests check that),
        // and this soak measures one page's reloads and resumes.
        let other = Browser::launch_fresh().await;
        let page = in_the_page(&b, &other, app_url, &mock, &ids).await;
        other.close().await;
        b.close().await;
        match &page {
            Ok(soak) => print_page(soak),
            Err(e) => println!("\n### Soak in the page\n\nfailed: {e}"),
        }
    } else {
        println!("\n### Soak in the page\n\nleft out (EXECBENCH_SOAK_PAGE=0)");
    }

    let quiet = MockConfig { latency_ms: NATIVE_LATENCY_MS, ..Default::default() };
    let mock = match MockServer::start(dataset, quiet, 0).await {
        Ok(m) => m,
        Err(e) => {
            eprintln!("cannot start the mock model server: {e}");
            return;
        }
    };
    match native(&mock).await {
        Ok(points) => print_native(&points),
        Err(e) => println!("\n### Soak natively\n\nfailed: {e}"),
    }
}

/// Records the longest gap between two animation frames in `window.__longestFrame` (ms); set
/// again after every load.
const FRAME_MONITOR: &str = "window.__longestFrame = 0; let last = performance.now(); const tick = now => { window.__longestFrame = Math.max(window.__longestFrame, now - last); last = now; requestAnimationFrame(tick); }; requestAnimationFrame(tick);";

/// Keeps the page's own WebAssembly memory where the soak can read it: Trunk's loader announces
/// the instance once started. Registered before any of the page's scripts run, on every load.
const KEEP_WASM_MEMORY: &str = "addEventListener('TrunkApplicationStarted', e => { window.__soakWasmMemory = e.detail.wasm.memory; window.__soakWasm = e.detail.wasm; });";

/// What the page stored for its runs: entries, records, distinct samples, records with every answer.
const STORED: &str = r#"
const done = arguments[arguments.length - 1];
const open = indexedDB.open('execbench');
open.onerror = () => done({error: String(open.error)});
open.onsuccess = () => {
    const db = open.result;
    const tx = db.transaction(['runs', 'records'], 'readonly');
    const out = {};
    tx.objectStore('runs').count().onsuccess = e => out.runs = e.target.result;
    tx.objectStore('records').getAll().onsuccess = e => {
        const records = e.target.result.map(v => typeof v === 'string' ? JSON.parse(v) : v);
        out.records = records.length;
        out.samples = new Set(records.map(r => r.sample_id)).size;
        out.complete = records.filter(r => (r.results?.[0]?.answers?.length ?? 0) === Number(arguments[0])).length;
    };
    tx.oncomplete = () => { db.close(); done(out); };
};"#;

async fn stored(b: &Browser) -> Result<Value, String> {
    let value = b.client.execute_async(STORED, vec![json!(N)]).await.map_err(|e| format!("reading IndexedDB: {e}"))?;
    if let Some(error) = value.get("error") {
        return Err(format!("IndexedDB: {error}"));
    }
    Ok(value)
}

async fn records(b: &Browser) -> Result<usize, String> {
    Ok(stored(b).await?["records"].as_u64().unwrap_or(0) as usize)
}

async fn wait_records(b: &Browser, at_least: usize, timeout: Duration) -> Result<usize, String> {
    let deadline = Instant::now() + timeout;
    loop {
        let have = records(b).await?;
        if have >= at_least {
            return Ok(have);
        }
        if Instant::now() > deadline {
            return Err(format!("only {have} of {at_least} records stored in {timeout:?}"));
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// The page's memory after a garbage collection, and the workers' as the engine panel reports it.
async fn page_memory(b: &Browser) -> Result<PageMemory, String> {
    b.cdp("HeapProfiler.collectGarbage", json!({})).await?;
    let heap = b.cdp("Runtime.getHeapUsage", json!({})).await?;
    let figures = b
        .client
        .execute_async(
            "const done = arguments[arguments.length - 1]; const e = document.querySelector('.engine');
             const wasm = window.__soakWasmMemory ? window.__soakWasmMemory.buffer.byteLength : 0;
             navigator.storage.estimate().then(s => done({wasm, usage: s.usage ?? 0, workers: Number(e?.dataset.workers ?? 0), memory: Number(e?.dataset.memory ?? 0)}));",
            vec![],
        )
        .await
        .map_err(|e| format!("reading the page's figures: {e}"))?;
    Ok(PageMemory {
        records: records(b).await?,
        js_heap_bytes: heap["usedSize"].as_f64().unwrap_or(0.0),
        page_wasm_bytes: figures["wasm"].as_f64().unwrap_or(0.0),
        workers: figures["workers"].as_u64().unwrap_or(0),
        workers_wasm_bytes: figures["memory"].as_f64().unwrap_or(0.0),
        idb_bytes: figures["usage"].as_f64().unwrap_or(0.0),
        held: heap_counts(b).await?,
    })
}

async fn heap_counts(b: &Browser) -> Result<HeapCounts, String> {
    b.cdp("Performance.enable", json!({})).await?;
    let metrics = b.cdp("Performance.getMetrics", json!({})).await?;
    let metric = |name: &str| {
        metrics["metrics"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|m| m["name"] == name)
            .and_then(|m| m["value"].as_f64())
    };
    let held = js(
        b,
        "const t = window.__soakWasm?.__wbindgen_externrefs; if (!t) { return 0; }
         let n = 0; for (let i = 0; i < t.length; i++) { if (t.get(i) !== undefined) { n++; } } return n;",
    )
    .await?;
    let in_document = js(
        b,
        "const walk = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
         let n = 1; while (walk.nextNode()) { n++; } return n;",
    )
    .await?;
    Ok(HeapCounts {
        functions: b.live_objects("Function.prototype").await?,
        objects: b.live_objects("Object.prototype").await?,
        arrays: b.live_objects("Array.prototype").await?,
        promises: b.live_objects("Promise.prototype").await?,
        held_by_wasm: held.as_u64().unwrap_or(0),
        nodes: metric("Nodes").unwrap_or(0.0) as u64,
        nodes_in_document: in_document.as_u64().unwrap_or(0),
        listeners: metric("JSEventListeners").unwrap_or(0.0) as u64,
    })
}

async fn longest_frame(b: &Browser) -> f64 {
    js(b, "return window.__longestFrame ?? 0").await.ok().and_then(|v| v.as_f64()).unwrap_or(0.0)
}

/// Opens the Runs page (after a load), waits for the run's row in `state`, and clicks Resume.
async fn resume_from_runs(b: &Browser, app_url: &str, state: &str) -> Result<(), String> {
    b.client.goto(&format!("{app_url}#/runs")).await.map_err(|e| format!("could not open Runs: {e}"))?;
    wait_text(b, ".engine", Duration::from_secs(120), |t| t.starts_with("Python ready")).await?;
    js(b, FRAME_MONITOR).await?;
    wait_row_state(b, state, Duration::from_secs(60)).await?;
    resume(b).await
}

/// Clicks Resume, and confirms the address if the page asks (it asks for an address this browser
/// has not sent a key to).
async fn resume(b: &Browser) -> Result<(), String> {
    click(b, "[data-testid=run-resume]").await?;
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        let asked = js(b, "return !!document.querySelector('[data-testid=runs-confirm-go]')").await?;
        if asked.as_bool() == Some(true) {
            return click(b, "[data-testid=runs-confirm-go]").await;
        }
        let running = js(b, "return document.querySelector('[data-testid=run-row]')?.dataset.state ?? ''").await?;
        if running.as_str() == Some("running") {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

async fn wait_row_state(b: &Browser, state: &str, timeout: Duration) -> Result<(), String> {
    let deadline = Instant::now() + timeout;
    loop {
        let now = js(b, "const r = document.querySelector('[data-testid=run-row]'); return r ? r.dataset.state : ''")
            .await?
            .as_str()
            .unwrap_or_default()
            .to_string();
        if now == state {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("the run's row stayed `{now}`, expected `{state}`"));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn in_the_page(
    b: &Browser,
    other: &Browser,
    app_url: &str,
    mock: &MockServer,
    ids: &[String],
) -> Result<PageSoak, String> {
    let mut soak = PageSoak::default();
    b.cdp("Page.enable", json!({})).await?;
    b.cdp("Page.addScriptToEvaluateOnNewDocument", json!({"source": KEEP_WASM_MEMORY})).await?;
    b.client.goto(&format!("{app_url}#/evaluate")).await.map_err(|e| format!("could not open the app: {e}"))?;
    wait_text(b, ".engine", Duration::from_secs(120), |t| t.starts_with("Python ready")).await?;
    wait_text(b, ".evaluate .muted", Duration::from_secs(60), |t| t.contains("(800 samples)")).await?;

    // The other page: perturb the whole dataset with every deterministic kind meanwhile.
    other.client.goto(&format!("{app_url}#/perturb")).await.map_err(|e| e.to_string())?;
    wait_text(other, ".engine", Duration::from_secs(120), |t| t.starts_with("Python ready")).await?;
    wait_enabled(other, "[data-testid=perturb-all-start]").await?;
    for kind in execbench_perturb::Kind::DETERMINISTIC.into_iter().filter(|k| *k != execbench_perturb::Kind::Rtf) {
        click(other, &format!("[data-testid=kind-{}]", kind.name())).await?;
    }
    click(other, "[data-testid=perturb-all-start]").await?;
    let perturb_start = page_memory(other).await?;

    select(b, "[data-testid=eval-model]", "api").await?;
    select(b, "[data-testid=api-provider]", "openai-compatible").await?;
    b.fill("[data-testid=api-base-url]", &format!("{}/v1", mock.base_url())).await;
    b.fill("[data-testid=api-model]", "mock").await;
    b.fill("[data-testid=api-concurrency]", &CONCURRENCY.to_string()).await;
    select(b, "[data-testid=eval-task]", "output").await?;
    b.fill("[data-testid=eval-n]", &N.to_string()).await;
    b.fill("[data-testid=eval-limit]", "").await;
    mock.reset();
    js(b, FRAME_MONITOR).await?;
    soak.points.push(("start".into(), page_memory(b).await?));
    let started = Instant::now();
    click(b, "[data-testid=eval-run]").await?;
    wait_text(b, "[data-testid=estimate-go]", Duration::from_secs(30), |_| true).await?;
    click(b, "[data-testid=estimate-go]").await?;

    let long = Duration::from_secs(900);
    wait_records(b, FIRST_RELOAD_AT, long).await?;
    println!("  {FIRST_RELOAD_AT} records stored after {:.0} s: reloading", started.elapsed().as_secs_f64());
    soak.longest_frame_ms = soak.longest_frame_ms.max(longest_frame(b).await);
    b.client.refresh().await.map_err(|e| format!("reload: {e}"))?;
    resume_from_runs(b, app_url, "interrupted").await?;

    wait_records(b, SECOND_RELOAD_AT, long).await?;
    println!("  {SECOND_RELOAD_AT} records stored after {:.0} s: reloading again", started.elapsed().as_secs_f64());
    soak.points.push(("middle".into(), page_memory(b).await?));
    soak.longest_frame_ms = soak.longest_frame_ms.max(longest_frame(b).await);
    b.client.refresh().await.map_err(|e| format!("reload: {e}"))?;
    resume_from_runs(b, app_url, "interrupted").await?;

    wait_records(b, STOP_AT, long).await?;
    println!("  {STOP_AT} records stored after {:.0} s: Stop, then Resume", started.elapsed().as_secs_f64());
    click(b, "[data-testid=runs-stop]").await?;
    wait_row_state(b, "paused", Duration::from_secs(60)).await?;
    resume(b).await?;
    wait_row_state(b, "finished", long).await?;
    soak.wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    soak.longest_frame_ms = soak.longest_frame_ms.max(longest_frame(b).await);
    soak.points.push(("end".into(), page_memory(b).await?));

    // The server's counts for the first run alone, before the runs below add theirs.
    let stats = mock.stats();
    soak.requests = stats.requests_total;
    soak.faults_served = stats.faults_served;
    soak.asked_again = asked_again(&stats.per_sample, ids);
    let first = stored(b).await?;
    soak.records = first["records"].as_u64().unwrap_or(0) as usize;
    soak.complete = first["complete"].as_u64().unwrap_or(0) as usize;

    // Then more runs in the same page, no reload between them: memory that grows run after run
    // is a leak, memory that levels off is the page's working set.
    // Driven from inside the page: WebDriver keeps every element it found and every script
    // result it returned alive (its own handles), so polling through it would grow the very
    // counts these rounds are here to read. One script per run finds nothing and returns a string.
    b.client
        .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(Some(long), None, None))
        .await
        .map_err(|e| format!("script time-out: {e}"))?;
    for round in 1..=extra_rounds() {
        let state = b
            .client
            .execute_async(QUIET_RUN, vec![json!(long.as_millis() as u64)])
            .await
            .map_err(|e| format!("run {} of the same page: {e}", round + 1))?;
        let state = state.as_str().unwrap_or_default().to_string();
        if state != "finished" {
            return Err(format!("run {} of the same page ended `{state}`", round + 1));
        }
        soak.longest_frame_ms = soak.longest_frame_ms.max(longest_frame(b).await);
        soak.points.push((format!("after run {}", round + 1), page_memory(b).await?));
        println!("  run {} of the same page finished", round + 1);
    }

    let all = stored(b).await?;
    soak.runs = all["runs"].as_u64().unwrap_or(0) as usize;
    soak.all_records = all["records"].as_u64().unwrap_or(0) as usize;
    soak.all_complete = all["complete"].as_u64().unwrap_or(0) as usize;

    soak.perturb_state = wait_text(other, "[data-testid=perturb-all-state]", long, |t| !t.is_empty()).await?;
    let perturb_end = page_memory(other).await?;
    soak.perturb_workers_wasm_bytes = (perturb_start.workers_wasm_bytes, perturb_end.workers_wasm_bytes);
    Ok(soak)
}

/// One more run of the Evaluate form as it stands, started, confirmed and waited for by the page
/// itself (a timer polls the DOM); answers the run's end state, or `error: …`.
const QUIET_RUN: &str = r#"
const [limitMs, done] = arguments;
const find = css => document.querySelector(css);
const until = (what, test, ms) => new Promise((resolve, reject) => {
  const start = performance.now();
  const tick = () => {
    const value = test();
    if (value) return resolve(value);
    if (performance.now() - start > ms) return reject(new Error(`no ${what} after ${ms} ms`));
    setTimeout(tick, 200);
  };
  tick();
});
(async () => {
  location.hash = '#/evaluate';
  await until('dataset', () => (find('.evaluate .muted')?.textContent ?? '').includes('(800 samples)'), 60000);
  find('[data-testid=eval-run]').click();
  (await until('estimate', () => find('[data-testid=estimate-go]'), 30000)).click();
  // The last run's end state goes when this one begins.
  await until('start', () => !find('[data-testid=eval-state]'), 30000);
  return until('end state', () => find('[data-testid=eval-state]')?.textContent ?? '', limitMs);
})().then(done, e => done(`error: ${e.message}`));
"#;

/// Requests beyond one per sample plus its faults' retries, summed over the samples: what was
/// asked again because it was in flight at a reload or the stop.
fn asked_again(per_sample: &BTreeMap<String, u32>, ids: &[String]) -> u32 {
    ids.iter()
        .enumerate()
        .map(|(index, id)| per_sample.get(id).copied().unwrap_or(0).saturating_sub(1 + fault_retries(index)))
        .sum()
}

async fn wait_enabled(b: &Browser, css: &str) -> Result<(), String> {
    let script = format!("const e = document.querySelector('{css}'); return !!e && !e.disabled;");
    let deadline = Instant::now() + Duration::from_secs(60);
    while js(b, &script).await?.as_bool() != Some(true) {
        if Instant::now() > deadline {
            return Err(format!("`{css}` stayed disabled"));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

fn mb(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1e6)
}

fn print_page(soak: &PageSoak) {
    println!(
        "\n### Soak in the page: {SAMPLES} samples x n = {N}, faults on, two reloads, one Stop/Resume, another page perturbing\n"
    );
    let lost = SAMPLES.saturating_sub(soak.complete);
    println!("| figure | value |");
    println!("|---|---:|");
    println!("| wall time, first click to finished | {:.1} s |", soak.wall_ms / 1000.0);
    println!("| first run: records stored | {} |", soak.records);
    println!("| first run: samples with all {N} answers | {} |", soak.complete);
    println!("| first run: records lost (must be 0) | {lost} |");
    println!("| first run: requests the server saw / faults it served | {} / {} |", soak.requests, soak.faults_served);
    println!("| first run: requests asked again (in flight at a reload or the stop) | {} |", soak.asked_again);
    println!("| longest frame | {:.0} ms |", soak.longest_frame_ms);
    let all_lost = (soak.runs * SAMPLES).saturating_sub(soak.all_complete);
    println!(
        "| all {} runs: records stored / with all {N} answers / lost | {} / {} / {all_lost} |",
        soak.runs, soak.all_records, soak.all_complete
    );
    println!(
        "| the other page: perturbation | {} (its workers {} → {}) |",
        soak.perturb_state,
        mb(soak.perturb_workers_wasm_bytes.0),
        mb(soak.perturb_workers_wasm_bytes.1)
    );
    println!(
        "\n| moment | records | JS heap (after GC) | page wasm memory | workers | workers' wasm memory | IndexedDB usage |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (moment, m) in &soak.points {
        println!(
            "| {moment} | {} | {} | {} | {} | {} | {} |",
            m.records,
            mb(m.js_heap_bytes),
            mb(m.page_wasm_bytes),
            m.workers,
            mb(m.workers_wasm_bytes),
            mb(m.idb_bytes)
        );
    }
    println!(
        "\n| moment | functions | objects | arrays | promises | JS values held by wasm | DOM nodes | of which in the document | event listeners |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (moment, m) in &soak.points {
        let h = &m.held;
        println!(
            "| {moment} | {} | {} | {} | {} | {} | {} | {} | {} |",
            h.functions, h.objects, h.arrays, h.promises, h.held_by_wasm, h.nodes, h.nodes_in_document, h.listeners
        );
    }
    println!(
        "\nThe page's memory is read after a forced garbage collection (DevTools' HeapProfiler.collectGarbage, then Runtime.getHeapUsage); WebAssembly memory only grows, so the end figure is each module's high-water mark. The middle is read before the second reload, the end after the run finished, in a page loaded since."
    );
    crate::figures::record([Figure {
        section: "soak".into(),
        metric: format!("page: records lost of {SAMPLES} x n = {N}"),
        execbench: Some(Amount::Text(lost.to_string())),
        reference: None,
        reference_amount: None,
        ratio: None,
        target: Some("0".into()),
        met: Some(lost == 0),
    }]);
}

/// Resident memory (bytes) of a process, from /proc.
fn rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The children of a process (its Python worker processes), started from any of its threads.
fn children(pid: u32) -> Vec<u32> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten().flatten();
    tasks
        .flat_map(|task| {
            std::fs::read_to_string(task.path().join("children"))
                .unwrap_or_default()
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

/// One reading of the native run.
struct NativePoint {
    answers: usize,
    main_rss: u64,
    worker_rss: Vec<u64>,
}

fn count_answers(path: &Path) -> usize {
    // A record line per sample, each with all its answers: count records x n.
    std::fs::read_to_string(path).map(|t| t.lines().filter(|l| l.contains("\"sample_id\"")).count()).unwrap_or(0)
        * NATIVE_N
}

async fn native(mock: &MockServer) -> Result<Vec<NativePoint>, String> {
    let binary = crate::models::cli_binary();
    if !binary.is_file() {
        return Err(format!("no execbench binary at {}: scripts/soak.sh builds it", binary.display()));
    }
    let dataset = execbench_testkit::repo_root().join("public/data/cruxeval/cruxeval.jsonl");
    let scratch = std::env::temp_dir().join(format!("execbench-soak-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).map_err(|e| e.to_string())?;
    let out = scratch.join("run.jsonl");
    let mut child = std::process::Command::new(&binary)
        .arg("run")
        .arg("--dataset")
        .arg(&dataset)
        .args(["--task", "output", "--provider", "openai-compatible", "--base-url"])
        .arg(format!("{}/v1", mock.base_url()))
        .args(["--model", "mock", "--n", &NATIVE_N.to_string(), "--concurrency", "8", "--mode", "strict", "--out"])
        .arg(&out)
        .env_remove("OPENAI_API_KEY")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    let pid = child.id();
    let mut points = Vec::new();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            if !status.success() {
                let mut stderr = String::new();
                if let Some(mut pipe) = child.stderr.take() {
                    use std::io::Read;
                    let _ = pipe.read_to_string(&mut stderr);
                }
                return Err(format!("execbench run failed ({status}): {}", stderr.lines().last().unwrap_or("")));
            }
            break;
        }
        if let Some(main_rss) = rss_bytes(pid) {
            let worker_rss = children(pid).into_iter().filter_map(rss_bytes).collect();
            points.push(NativePoint { answers: count_answers(&out), main_rss, worker_rss });
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let answers = count_answers(&out);
    let _ = std::fs::remove_dir_all(&scratch);
    if answers < SAMPLES * NATIVE_N {
        return Err(format!("the run file holds {answers} answers, expected {}", SAMPLES * NATIVE_N));
    }
    Ok(points)
}

fn print_native(points: &[NativePoint]) {
    let total = SAMPLES * NATIVE_N;
    println!("\n### Soak natively: `execbench run`, {SAMPLES} samples x n = {NATIVE_N} ({total} answers scored)\n");
    println!("| answers scored | execbench's RSS | worker processes | their RSS (each) |");
    println!("|---:|---:|---:|---|");
    // The first reading with answers, then readings near a quarter, a half, three quarters, the last.
    let mut shown = Vec::new();
    for fraction in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let want = (fraction * total as f64) as usize;
        if let Some(point) = points.iter().filter(|p| p.answers > 0).min_by_key(|p| p.answers.abs_diff(want))
            && !shown.iter().any(|p: &&NativePoint| std::ptr::eq(*p, point))
        {
            shown.push(point);
        }
    }
    for p in &shown {
        let each: Vec<String> = p.worker_rss.iter().map(|&b| mb(b as f64)).collect();
        println!("| {} | {} | {} | {} |", p.answers, mb(p.main_rss as f64), p.worker_rss.len(), each.join(", "));
    }
    if let (Some(first), Some(last)) = (shown.first(), shown.last()) {
        let growth = last.main_rss as f64 / first.main_rss.max(1) as f64;
        println!("\nexecbench's RSS, last reading over the first with answers: {growth:.2}x.");
        crate::figures::record([Figure {
            section: "soak".into(),
            metric: format!("native: RSS over {total} answers, last / first"),
            execbench: Some(Amount::Text(format!("{growth:.2}x"))),
            reference: None,
            reference_amount: None,
            ratio: Some(growth),
            target: Some("flat (~1)".into()),
            met: None,
        }]);
    }
}
