//! The page's run store (IndexedDB), driven as a user would in headless Chromium.
//!
//! 1. Writing a sample record: the Evaluate page runs the simulated model (no server, latency 0,
//!    concurrency 8) on the 800 CRUXEval samples with n = 10, both modes; the page times every
//!    record's write (record + run entry, one readwrite transaction, until it commits) and shows
//!    the median and p99 in `[data-testid=store-timing]`. Reference, in the same page right after:
//!    plain JavaScript IndexedDB writing 800 copies of one of the run's records (the median-sized
//!    one, read back from the app's database) with the run's entry, timed the same way (serialize
//!    both, one readwrite transaction over two object stores, wait for `complete`), into a scratch
//!    database deleted afterwards.
//! 2. Opening the Runs page with 20 runs of 800 x 10 records: the run of step 1 is read back from
//!    IndexedDB, written out as a run file (`execbench-run`: manifest line, one record a line,
//!    state line) and imported 20 times through the Runs page's file input; the original run is
//!    deleted (Delete, confirm). Then each repetition opens `#/runs` in a fresh navigation and
//!    reads the page's own `data-ready-ms` (the list read, `performance.now()`) and, from a
//!    `MutationObserver`, when the 20th `[data-testid=run-row]` appeared. No engine competes here:
//!    the reference is the target (300 ms to a usable list; records are read only when a run is
//!    opened).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use execbench_testkit::browser::Browser;
use fantoccini::Locator;
use serde_json::{Value, json};

use crate::figures::{Amount, Figure};
use crate::page::{click, js, select, wait_text};

const SAMPLES: usize = 800;
const N: usize = 10;
const CONCURRENCY: usize = 8;
/// Runs stored for the Runs page.
const RUNS: usize = 20;
/// The issue's target: a usable list of runs within this many ms of navigation start.
const LIST_TARGET_MS: f64 = 300.0;
/// The app's database and the reference's scratch database.
const APP_DB: &str = "execbench";
const SCRATCH_DB: &str = "execbench-bench-scratch";

/// Per-record write times, ms.
struct Writes {
    count: usize,
    median: f64,
    p99: f64,
}

/// One fresh navigation to the Runs page.
struct Opening {
    /// The page's `data-ready-ms`: when the list had been read.
    ready_ms: f64,
    /// When the 20th row was in the document.
    rows_ms: f64,
    /// The rows were already there when the observer started (`rows_ms` is then an upper bound).
    already: bool,
}

#[derive(Default)]
struct Figures {
    app: Option<Writes>,
    plain: Option<Writes>,
    /// Bytes of the record copied by the reference, and the run's mean record size.
    record_bytes: Option<(usize, f64)>,
    run_seconds: Option<f64>,
    page_timing: Option<String>,
    /// Wall time of each import (click to the new row), ms.
    imports_ms: Vec<f64>,
    run_file_bytes: Option<usize>,
    openings: Vec<Opening>,
    errors: Vec<String>,
}

pub async fn section(app_url: &str, reps: usize) {
    println!(
        "\nrun store: {SAMPLES} samples x n = {N} with the simulated model (latency 0, concurrency {CONCURRENCY}) from the Evaluate page, the same records written by plain JS IndexedDB, then {RUNS} imported runs and the Runs page opened {reps} time(s)..."
    );
    let started = Instant::now();
    let scratch = std::env::temp_dir().join(format!("execbench-bench-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let mut figures = Figures::default();
    let b = Browser::launch_fresh().await;
    if let Err(e) = drive(&b, app_url, reps, &scratch, &mut figures).await {
        figures.errors.push(e);
    }
    // The profile stays in the temporary folder: leave no 100+ MB of runs in it.
    if let Err(e) = delete_database(&b, APP_DB).await {
        eprintln!("  could not delete the app's database: {e}");
    }
    b.close().await;
    let _ = std::fs::remove_dir_all(&scratch);
    print(&figures, reps, started.elapsed().as_secs_f64());
}

async fn drive(
    b: &Browser,
    app_url: &str,
    reps: usize,
    scratch: &std::path::Path,
    figures: &mut Figures,
) -> Result<(), String> {
    // Reading a run back and the reference's 800 writes run as one async script each.
    b.client
        .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(Some(Duration::from_secs(180)), None, None))
        .await
        .map_err(|e| format!("cannot set the script time-out: {e}"))?;

    // 1. The app's writes.
    let run_started = Instant::now();
    let (count, median, p99) = app_run(b, app_url).await?;
    figures.run_seconds = Some(run_started.elapsed().as_secs_f64());
    figures.app = Some(Writes { count, median, p99 });
    figures.page_timing =
        wait_text(b, "[data-testid=run-timing]", Duration::from_secs(5), |t| !t.is_empty()).await.ok();
    println!(
        "  the page: {count} records, {median:.2} ms median, {p99:.2} ms p99 per record ({:.0} s for the run)",
        figures.run_seconds.unwrap_or(0.0)
    );

    let (entry_text, records) = read_run(b).await?;
    if records.len() != SAMPLES {
        return Err(format!("the app's database holds {} records for the run, expected {SAMPLES}", records.len()));
    }
    let mut by_size: Vec<&String> = records.iter().collect();
    by_size.sort_by_key(|r| r.len());
    let typical = by_size[by_size.len() / 2].clone();
    let mean = records.iter().map(String::len).sum::<usize>() as f64 / records.len() as f64;
    figures.record_bytes = Some((typical.len(), mean));

    // The reference, in the same page, now idle.
    match plain_js_writes(b, &typical, &entry_text).await {
        Ok(times) => {
            if let Some((median, p99)) = execbench_run::status::median_and_p99(&times) {
                println!("  plain JS: {} records, {median:.2} ms median, {p99:.2} ms p99 per record", times.len());
                figures.plain = Some(Writes { count: times.len(), median, p99 });
            }
        }
        Err(e) => figures.errors.push(format!("plain JS IndexedDB reference: {e}")),
    }

    // 2. Twenty stored runs, then the Runs page opened fresh.
    let entry: Value = serde_json::from_str(&entry_text).map_err(|e| format!("the run entry is not JSON: {e}"))?;
    let run_id = entry["manifest"]["run_id"].as_str().ok_or("the run entry has no manifest.run_id")?.to_string();
    let text = run_file(&entry, &records)?;
    figures.run_file_bytes = Some(text.len());
    std::fs::create_dir_all(scratch).map_err(|e| format!("cannot create {}: {e}", scratch.display()))?;
    let path: PathBuf = scratch.join("run.jsonl");
    std::fs::write(&path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;

    b.client.goto(&format!("{app_url}#/runs")).await.map_err(|e| format!("could not open the Runs page: {e}"))?;
    wait_rows(b, 1, Duration::from_secs(30)).await?;
    for k in 1..=RUNS {
        let input = b
            .client
            .wait()
            .at_most(Duration::from_secs(10))
            .for_element(Locator::Css("[data-testid=runs-import]"))
            .await
            .map_err(|e| format!("no import input: {e}"))?;
        let started = Instant::now();
        input
            .send_keys(path.to_str().ok_or("a temporary path that is not UTF-8")?)
            .await
            .map_err(|e| format!("import {k}: {e}"))?;
        wait_rows(b, 1 + k, Duration::from_secs(120)).await.map_err(|e| format!("import {k}: {e}"))?;
        figures.imports_ms.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    let said = js(
        b,
        "const m = document.querySelector('[data-testid=runs-message]'); return m ? [m.className, m.innerText] : null",
    )
    .await?;
    if said[0].as_str() != Some("ok-box") {
        return Err(format!("the last import said: {said}"));
    }
    println!(
        "  imported the run file ({:.1} MB) {RUNS} times: {:.1} s median per import",
        text.len() as f64 / 1e6,
        crate::median(figures.imports_ms.iter().copied()) / 1000.0
    );
    // The run of step 1 goes, so that exactly RUNS runs of SAMPLES x N records remain.
    click(b, &format!("tr[data-run='{run_id}'] [data-testid=run-delete]")).await?;
    click(b, &format!("tr[data-run='{run_id}'] [data-testid=run-delete-confirm]")).await?;
    wait_rows(b, RUNS, Duration::from_secs(30)).await.map_err(|e| format!("deleting the original run: {e}"))?;

    for rep in 1..=reps {
        b.client.goto("about:blank").await.map_err(|e| e.to_string())?;
        b.client.goto(&format!("{app_url}#/runs")).await.map_err(|e| format!("could not open the Runs page: {e}"))?;
        let seen = b
            .client
            .execute_async(OBSERVE_ROWS, vec![json!(RUNS)])
            .await
            .map_err(|e| format!("watching the rows: {e}"))?;
        if let Some(error) = seen["error"].as_str() {
            return Err(format!("opening {rep}: {error}"));
        }
        let opening = Opening {
            ready_ms: seen["ready_ms"].as_str().and_then(|s| s.parse().ok()).unwrap_or(f64::NAN),
            rows_ms: seen["rows_ms"].as_f64().unwrap_or(f64::NAN),
            already: seen["already"].as_bool().unwrap_or(false),
        };
        println!(
            "  opening {rep}/{reps}: list read at {:.0} ms, {RUNS} rows at {}{:.0} ms (load event at {:.0} ms)",
            opening.ready_ms,
            if opening.already { "<= " } else { "" },
            opening.rows_ms,
            seen["load_ms"].as_f64().unwrap_or(f64::NAN)
        );
        figures.openings.push(opening);
    }
    Ok(())
}

/// The simulated run from the Evaluate page; returns the page's (count, median, p99).
async fn app_run(b: &Browser, app_url: &str) -> Result<(usize, f64, f64), String> {
    b.client.goto(&format!("{app_url}#/evaluate")).await.map_err(|e| format!("could not open the app: {e}"))?;
    wait_text(b, ".engine", Duration::from_secs(120), |t| t.starts_with("Python ready")).await?;
    wait_text(b, ".evaluate .muted", Duration::from_secs(60), |t| t.contains("(800 samples)")).await?;
    select(b, "[data-testid=eval-model]", "api").await?;
    select(b, "[data-testid=api-provider]", "simulated").await?;
    b.fill("[data-testid=api-model]", "sim").await;
    b.fill("[data-testid=sim-latency]", "0").await;
    b.fill("[data-testid=api-concurrency]", &CONCURRENCY.to_string()).await;
    b.fill("[data-testid=eval-n]", &N.to_string()).await;
    let limit = js(b, "return document.querySelector('[data-testid=eval-limit]').value").await?;
    if limit.as_str() != Some("") {
        b.fill("[data-testid=eval-limit]", "").await;
    }
    click(b, "[data-testid=eval-run]").await?;
    click(b, "[data-testid=estimate-go]").await?;
    let state = wait_text(b, "[data-testid=eval-state]", Duration::from_secs(900), |t| !t.is_empty()).await?;
    if state != "finished" {
        let error = js(b, "const e = document.querySelector('[data-testid=eval-error]'); return e ? e.innerText : ''")
            .await
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        return Err(format!("the simulated run ended with `{state}` {error}"));
    }
    let timing = b
        .client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css("[data-testid=store-timing]"))
        .await
        .map_err(|e| format!("no `[data-testid=store-timing]` after the run: {e}"))?;
    let (count, median, p99) = (
        number_attr(&timing, "data-count").await?,
        number_attr(&timing, "data-median").await?,
        number_attr(&timing, "data-p99").await?,
    );
    if count as usize != SAMPLES {
        return Err(format!("the page timed {count} record writes, expected {SAMPLES}"));
    }
    Ok((count as usize, median, p99))
}

async fn number_attr(element: &fantoccini::elements::Element, name: &str) -> Result<f64, String> {
    let v = element.attr(name).await.map_err(|e| e.to_string())?;
    v.as_deref().and_then(|v| v.parse().ok()).ok_or_else(|| format!("store-timing has no number in `{name}`: {v:?}"))
}

/// The app's finished run, read back from IndexedDB: (entry JSON, record JSONs).
async fn read_run(b: &Browser) -> Result<(String, Vec<String>), String> {
    let got = b
        .client
        .execute_async(READ_RUN, vec![json!(APP_DB)])
        .await
        .map_err(|e| format!("reading the run back: {e}"))?;
    if let Some(error) = got["error"].as_str() {
        return Err(format!("reading the run back: {error}"));
    }
    let entry = got["entry"].as_str().ok_or("no run entry in the app's database")?.to_string();
    let records =
        got["records"].as_array().ok_or("no records")?.iter().filter_map(|v| v.as_str().map(String::from)).collect();
    Ok((entry, records))
}

/// A run file as `export_run` writes it (crates/runs/src/runfile.rs): manifest line, records, state.
fn run_file(entry: &Value, records: &[String]) -> Result<String, String> {
    let manifest = entry.get("manifest").ok_or("the run entry has no manifest")?;
    let mut state =
        json!({ "state": entry["state"], "updated_ms": entry["updated_ms"], "active_ms": entry["active_ms"] });
    if let Some(note) = entry.get("note").filter(|n| !n.is_null()) {
        state["note"] = note.clone();
    }
    let mut out = json!({ "manifest": manifest }).to_string();
    out.push('\n');
    for record in records {
        out.push_str(record);
        out.push('\n');
    }
    out.push_str(&json!({ "state": state }).to_string());
    out.push('\n');
    Ok(out)
}

/// 800 writes of `record` (new sample ids) and `entry` in plain JS, timed as the app times its own.
async fn plain_js_writes(b: &Browser, record: &str, entry: &str) -> Result<Vec<f64>, String> {
    let got = b
        .client
        .execute_async(PLAIN_WRITES, vec![json!(record), json!(entry), json!(SAMPLES), json!(SCRATCH_DB)])
        .await
        .map_err(|e| e.to_string())?;
    if let Some(error) = got["error"].as_str() {
        return Err(error.to_string());
    }
    if got["deleted"].as_bool() != Some(true) {
        eprintln!("  warning: the scratch database {SCRATCH_DB} could not be deleted");
    }
    Ok(got["times"].as_array().ok_or("no times")?.iter().filter_map(Value::as_f64).collect())
}

async fn delete_database(b: &Browser, name: &str) -> Result<(), String> {
    let got = b.client.execute_async(DELETE_DB, vec![json!(name)]).await.map_err(|e| e.to_string())?;
    match got.as_str() {
        Some("deleted") => Ok(()),
        other => Err(format!("{other:?}")),
    }
}

/// Reads `[entries, records of the newest run]` from the app's database.
const READ_RUN: &str = r#"
const done = arguments[arguments.length - 1];
const open = indexedDB.open(arguments[0]);
open.onerror = () => done({ error: 'open: ' + open.error });
open.onsuccess = () => {
    const db = open.result;
    const tx = db.transaction(['runs', 'records'], 'readonly');
    const all = tx.objectStore('runs').getAll();
    all.onsuccess = () => {
        const entries = all.result.map((text) => [text, JSON.parse(text)]);
        if (entries.length === 0) { db.close(); return done({ error: 'no run is stored' }); }
        entries.sort((a, b) => b[1].updated_ms - a[1].updated_ms);
        const [text, entry] = entries[0];
        const id = entry.manifest.run_id;
        const records = tx.objectStore('records').getAll(IDBKeyRange.bound([id], [id, []]));
        records.onsuccess = () => { db.close(); done({ runs: entries.length, entry: text, records: records.result }); };
        records.onerror = () => { db.close(); done({ error: 'records: ' + records.error }); };
    };
    all.onerror = () => { db.close(); done({ error: 'runs: ' + all.error }); };
};
"#;

/// The reference: one readwrite transaction per record over `runs` and `records`, the record and
/// the entry serialized inside the timed span (the app serializes both with serde_json there).
const PLAIN_WRITES: &str = r#"
const done = arguments[arguments.length - 1];
const [recordText, entryText, count, name] = arguments;
const request = (r) => new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
    if ('onblocked' in r) r.onblocked = () => resolve(null);
});
(async () => {
    await request(indexedDB.deleteDatabase(name));
    const open = indexedDB.open(name, 1);
    open.onupgradeneeded = () => { open.result.createObjectStore('runs'); open.result.createObjectStore('records'); };
    const db = await request(open);
    const record = JSON.parse(recordText);
    const entry = JSON.parse(entryText);
    const runId = 'scratch-run';
    entry.manifest.run_id = runId;
    const times = [];
    for (let i = 0; i < count; i++) {
        const started = performance.now();
        record.sample_id = 'sample_' + i;
        record.index = i;
        entry.updated_ms = Date.now();
        const recordValue = JSON.stringify(record);
        const entryValue = JSON.stringify(entry);
        await new Promise((resolve, reject) => {
            const tx = db.transaction(['runs', 'records'], 'readwrite');
            tx.oncomplete = resolve;
            tx.onabort = () => reject(tx.error || new Error('aborted'));
            tx.objectStore('records').put(recordValue, [runId, record.sample_id]);
            tx.objectStore('runs').put(entryValue, runId);
        });
        times.push(performance.now() - started);
    }
    db.close();
    let deleted = false;
    try { await request(indexedDB.deleteDatabase(name)); deleted = true; } catch (e) {}
    return { times, deleted };
})().then(done, (e) => done({ error: String(e) }));
"#;

/// Resolves when `arguments[0]` rows are in the document, with `performance.now()` then (from a
/// MutationObserver, so to within a task), the page's `data-ready-ms` and its load event time.
const OBSERVE_ROWS: &str = r#"
const done = arguments[arguments.length - 1];
const want = arguments[0];
const rows = () => document.querySelectorAll('[data-testid=run-row]').length;
const finish = (already) => {
    const at = performance.now();
    const table = document.querySelector('[data-testid=runs-table]');
    const nav = performance.getEntriesByType('navigation')[0];
    done({ rows_ms: at, already, rows: rows(), ready_ms: table && table.getAttribute('data-ready-ms'), load_ms: nav ? nav.loadEventEnd : null });
};
if (rows() >= want) {
    finish(true);
} else {
    const observer = new MutationObserver(() => {
        if (rows() >= want) { observer.disconnect(); clearTimeout(timer); finish(false); }
    });
    const timer = setTimeout(() => { observer.disconnect(); done({ error: `only ${rows()} of ${want} rows after 60 s` }); }, 60000);
    observer.observe(document.documentElement, { childList: true, subtree: true });
}
"#;

const DELETE_DB: &str = r#"
const done = arguments[arguments.length - 1];
const r = indexedDB.deleteDatabase(arguments[0]);
r.onsuccess = () => done('deleted');
r.onerror = () => done('error: ' + r.error);
r.onblocked = () => setTimeout(() => done('blocked'), 5000);
"#;

/// Waits until exactly `want` run rows are listed (an error box ends the wait).
async fn wait_rows(b: &Browser, want: usize, timeout: Duration) -> Result<(), String> {
    let deadline = Instant::now() + timeout;
    loop {
        let seen = js(
            b,
            "const m = document.querySelector('[data-testid=runs-message].error-box, [data-testid=runs-problem]'); \
             return [document.querySelectorAll('[data-testid=run-row]').length, m ? m.innerText : null]",
        )
        .await?;
        if let Some(problem) = seen[1].as_str() {
            return Err(format!("the Runs page says: {problem}"));
        }
        let rows = seen[0].as_u64().unwrap_or(0) as usize;
        if rows == want {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("waited {timeout:?} for {want} runs listed, there are {rows}"));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The table's rows as figures: writes against plain JS, the Runs page against its target.
fn figures(f: &Figures) -> Vec<Figure> {
    let row = |metric: String, ms: Option<f64>, reference: &str, reference_ms: Option<f64>, target: bool| Figure {
        section: "store".into(),
        metric,
        execbench: ms.map(Amount::Ms),
        reference: Some(reference.to_string()),
        reference_amount: reference_ms.map(Amount::Ms),
        ratio: ms.zip(reference_ms).map(|(a, b)| a / b),
        target: target.then(|| format!("<= {LIST_TARGET_MS:.0} ms")),
        met: ms.filter(|_| target).map(|ms| ms <= LIST_TARGET_MS),
    };
    let plain = "plain JS IndexedDB, same page";
    let mut rows = Vec::new();
    match &f.app {
        Some(a) => {
            for (label, ours, theirs) in [
                ("median", a.median, f.plain.as_ref().map(|p| p.median)),
                ("p99", a.p99, f.plain.as_ref().map(|p| p.p99)),
            ] {
                rows.push(row(
                    format!("write one record (+ run entry), {label} of {}", a.count),
                    Some(ours),
                    plain,
                    theirs,
                    false,
                ));
            }
        }
        None => rows.push(row("write one record (+ run entry)".into(), None, plain, None, false)),
    }
    if f.openings.is_empty() {
        rows.push(row(format!("Runs page, {RUNS} runs: list usable"), None, "target", Some(LIST_TARGET_MS), true));
    } else {
        let n = f.openings.len();
        let ready = crate::median(f.openings.iter().map(|o| o.ready_ms));
        let rows_ms = crate::median(f.openings.iter().map(|o| o.rows_ms));
        let worst = f.openings.iter().map(|o| o.rows_ms).fold(f64::NAN, f64::max);
        rows.push(row(
            format!("Runs page, {RUNS} runs: list read (`data-ready-ms`), median of {n}"),
            Some(ready),
            "target",
            Some(LIST_TARGET_MS),
            true,
        ));
        rows.push(row(
            format!("Runs page, {RUNS} runs: {RUNS} rows in the page, median of {n}"),
            Some(rows_ms),
            "target",
            Some(LIST_TARGET_MS),
            true,
        ));
        rows.push(row(
            format!("Runs page, {RUNS} runs: {RUNS} rows, slowest of {n}"),
            Some(worst),
            "target",
            Some(LIST_TARGET_MS),
            true,
        ));
    }
    rows
}

fn print(f: &Figures, reps: usize, seconds: f64) {
    println!("\n### Run store (IndexedDB): {SAMPLES} samples x n = {N}, then {RUNS} stored runs\n");
    println!("| metric | execbench | reference | ratio | reference is | met |");
    println!("|---|---:|---:|---:|---|---|");
    let plain = "plain JS IndexedDB, same page";
    crate::figures::record(figures(f));
    match (&f.app, &f.plain) {
        (Some(a), p) => {
            for (label, ours, theirs) in
                [("median", a.median, p.as_ref().map(|p| p.median)), ("p99", a.p99, p.as_ref().map(|p| p.p99))]
            {
                let (reference, ratio) = match theirs {
                    Some(t) => (format!("{t:.2} ms"), format!("{:.2}", ours / t)),
                    None => ("failed".into(), "-".into()),
                };
                println!(
                    "| write one record (+ run entry), {label} of {} | {ours:.2} ms | {reference} | {ratio} | {plain} | - |",
                    a.count
                );
            }
        }
        (None, _) => println!("| write one record (+ run entry) | failed | - | - | {plain} | - |"),
    }
    if f.openings.is_empty() {
        println!("| Runs page, {RUNS} runs: list usable | failed | {LIST_TARGET_MS:.0} ms | - | target | - |");
    } else {
        let ready = crate::median(f.openings.iter().map(|o| o.ready_ms));
        let rows = crate::median(f.openings.iter().map(|o| o.rows_ms));
        let worst = f.openings.iter().map(|o| o.rows_ms).fold(f64::NAN, f64::max);
        let met = |ms: f64| if ms <= LIST_TARGET_MS { "yes" } else { "**no**" };
        let upper = if f.openings.iter().any(|o| o.already) { "<= " } else { "" };
        println!(
            "| Runs page, {RUNS} runs: list read (`data-ready-ms`), median of {} | {ready:.0} ms | {LIST_TARGET_MS:.0} ms | {:.2} | target | {} |",
            f.openings.len(),
            ready / LIST_TARGET_MS,
            met(ready)
        );
        println!(
            "| Runs page, {RUNS} runs: {RUNS} rows in the page, median of {} | {upper}{rows:.0} ms | {LIST_TARGET_MS:.0} ms | {:.2} | target | {} |",
            f.openings.len(),
            rows / LIST_TARGET_MS,
            met(rows)
        );
        println!(
            "| Runs page, {RUNS} runs: {RUNS} rows, slowest of {} | {upper}{worst:.0} ms | {LIST_TARGET_MS:.0} ms | {:.2} | target | {} |",
            f.openings.len(),
            worst / LIST_TARGET_MS,
            met(worst)
        );
    }
    for e in &f.errors {
        println!("\nfailed: {e}");
    }
    println!(
        "\nWrites: ms per record from before serializing the record and the run entry to the readwrite transaction's `complete` \
         (one transaction over `runs` and `records` per record, as `IdbStore::put_record` does), median and p99 over the \
         run's {SAMPLES} records. The page's figures come from its own timing during the run (so its main thread also serves the \
         simulated model and the worker's results meanwhile); the plain JS reference writes {SAMPLES} copies of one of the run's \
         records into a scratch database right after, in the same page, with nothing else running, and deletes it. \
         performance.now() is coarsened to 0.1 ms in a page that is not cross-origin isolated."
    );
    if let Some((typical, mean)) = f.record_bytes {
        println!(
            "Record copied by the reference: {:.1} kB of JSON (the median-sized one; mean {:.1} kB).",
            typical as f64 / 1e3,
            mean / 1e3
        );
    }
    if let Some(s) = f.run_seconds {
        println!(
            "The simulated run took {s:.0} s from opening the page.{}",
            f.page_timing.as_ref().map(|t| format!(" The page: {t}.")).unwrap_or_default()
        );
    }
    println!(
        "Runs page: each of {reps} opening(s) is a fresh navigation (about:blank, then `#/runs`; HTTP cache warm) with {RUNS} runs of {SAMPLES} x {N} \
         records stored. 'list read' is the page's `data-ready-ms` (performance.now() when the entries had been read from IndexedDB); \
         '{RUNS} rows' is when a MutationObserver saw the {RUNS}th row (ms since navigation start; '<=' when the rows were there \
         before the observer started). The records are not read until a run is opened."
    );
    if let Some(bytes) = f.run_file_bytes {
        println!(
            "Imports: a {:.1} MB run file through the Runs page's file input, {} time(s), {:.1} s median each (click to row listed): \
             {:.2} ms per record with the page otherwise idle, reading and parsing the file included (one `put_record` a record).",
            bytes as f64 / 1e6,
            f.imports_ms.len(),
            crate::median(f.imports_ms.iter().copied()) / 1000.0,
            crate::median(f.imports_ms.iter().copied()) / SAMPLES as f64
        );
    }
    println!("Section wall time: {seconds:.0} s.");
}
