//! Comparing runs (the comparison figure): 6 runs × 800 samples × n = 10 (two models, each vanilla,
//! REN and MCC; `execbench_compare::synthetic`), compared natively, by the pure-Python script a
//! researcher would write instead (crates/bench/python/compare.py: the same pass@1, bootstrap and
//! McNemar, figures checked against ours), and in the built app: the runs imported on the Runs
//! page, then on Compare the time from the click to the table (records read from IndexedDB, the
//! comparison, the table drawn). Target: under 500 ms to the table.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use execbench_compare::synthetic::synthetic_runs;
use execbench_compare::{CompareOptions, RunInput, compare};
use execbench_eval::score::Mode;
use execbench_run::runfile::{manifest_line, record_line};
use execbench_testkit::browser::Browser;
use fantoccini::Locator;
use serde_json::Value;

use crate::figures::{Amount, Figure};
use crate::median;
use crate::page;

const TARGET_MS: f64 = 500.0;

fn write_run(run: &RunInput, path: &Path) {
    let mut records: Vec<_> = run.records.values().collect();
    records.sort_by_key(|r| r.index);
    let text = std::iter::once(manifest_line(&run.manifest))
        .chain(records.into_iter().map(record_line))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// The figures Python prints, computed from our comparison: pass@1 per run and mode, and
/// McNemar's (b, c, p) per perturbed run and mode.
fn our_figures(runs: &[RunInput]) -> Vec<(String, Value)> {
    let c = compare(runs, &CompareOptions::default());
    let mut out = Vec::new();
    for mode in [Mode::Strict, Mode::Compatible] {
        for table in c.tables.iter().filter(|t| t.mode == mode) {
            for cell in table.cells.iter().flatten().flatten() {
                let id = &c.runs[cell.run].run_id;
                out.push((
                    format!("{id} {} pass@1", mode.label()),
                    Value::from((cell.score.pass_at_1.unwrap_or(f64::NAN) * 1e6).round() / 1e6),
                ));
                if let Some(d) = &cell.drop {
                    out.push((
                        format!("{id} {} mcnemar", mode.label()),
                        serde_json::json!([d.mcnemar.b, d.mcnemar.c, (d.mcnemar.p_value * 1e9).round() / 1e9]),
                    ));
                }
            }
        }
    }
    out
}

pub async fn section(app_url: &str, reps: usize) {
    println!(
        "\ncompare: 6 runs x 800 samples x n = 10 (2 models: vanilla, REN, MCC), natively, in CPython, then in the app's Compare page..."
    );
    let runs = synthetic_runs(2, 800, 10, 1);
    let scratch = std::env::temp_dir().join(format!("execbench-bench-compare-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&scratch);
    let files: Vec<PathBuf> = runs.iter().map(|r| scratch.join(format!("{}.jsonl", r.manifest.run_id))).collect();
    for (run, path) in runs.iter().zip(&files) {
        write_run(run, path);
    }

    // Natively: the comparison alone (the files parsed once, as the page reads its store once).
    let mut native = Vec::new();
    for _ in 0..reps.max(3) {
        let started = Instant::now();
        let c = compare(&runs, &CompareOptions::default());
        native.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(c.tables.len(), 2);
    }
    let native_ms = median(native.iter().copied());
    println!(
        "  natively: {native_ms:.1} ms to the table (median of {}; both modes, 1000 bootstrap resamples per run and mode)",
        native.len()
    );

    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("python/compare.py");
    let mut cpython = Vec::new();
    let mut agree = None;
    for _ in 0..reps.max(3) {
        let Ok(output) = std::process::Command::new("python3").arg(&script).args(&files).output() else { break };
        let Ok(value) = serde_json::from_slice::<Value>(&output.stdout) else {
            eprintln!("python3 compare.py failed: {}", String::from_utf8_lossy(&output.stderr));
            break;
        };
        cpython.push(value["ms"].as_f64().unwrap_or(f64::NAN));
        let ours = our_figures(&runs);
        let differing: Vec<&String> =
            ours.iter().filter(|(k, v)| value["figures"].get(k) != Some(v)).map(|(k, _)| k).collect();
        agree = Some((ours.len(), differing.len()));
        if !differing.is_empty() {
            eprintln!("  figures that differ from Python's: {differing:?}");
        }
    }
    if !cpython.is_empty() {
        let cpython_ms = median(cpython.iter().copied());
        let (checked, differing) = agree.unwrap_or((0, 0));
        println!(
            "  CPython (pure Python, the same figures): {cpython_ms:.1} ms; execbench natively is {:.1}x faster; {checked} figures compared, {differing} differ",
            cpython_ms / native_ms
        );
        crate::figures::record([compare_figure("natively", native_ms, Some(("CPython", cpython_ms)))]);
    }

    match page_times(app_url, &files, reps).await {
        Ok(times) => {
            // The first comparison reads the runs from IndexedDB; later ones find them read.
            let first = times[0];
            let warm = median(times.iter().skip(1).copied());
            println!(
                "  in the page: first {first:.0} ms from the click to the table (the runs read from IndexedDB), then {warm:.0} ms (median of {}: {}; runs already read), {:.1}x the native comparison; target < {TARGET_MS:.0} ms: first {}, again {}",
                times.len() - 1,
                times.iter().skip(1).map(|t| format!("{t:.0}")).collect::<Vec<_>>().join(", "),
                warm / native_ms,
                if first < TARGET_MS { "met" } else { "NOT met" },
                if warm < TARGET_MS { "met" } else { "NOT met" }
            );
            crate::figures::record([
                compare_figure("in the page, first", first, None),
                compare_figure("in the page, again", warm, None),
            ]);
        }
        Err(e) => eprintln!("  comparing in the page failed: {e}"),
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// A comparison's time to the table: natively against CPython, in the page against the target.
fn compare_figure(place: &str, ms: f64, against: Option<(&str, f64)>) -> Figure {
    let target = against.is_none().then_some(TARGET_MS);
    Figure {
        section: "compare".into(),
        metric: format!("comparison to the table, {place}"),
        execbench: Some(Amount::Ms(ms)),
        reference: against.map(|(name, _)| name.to_string()),
        reference_amount: against.map(|(_, ms)| Amount::Ms(ms)),
        ratio: against.map(|(_, theirs)| ms / theirs),
        target: target.map(|t| format!("< {t:.0} ms")),
        met: target.map(|t| ms < t),
    }
}

async fn page_times(app_url: &str, files: &[PathBuf], reps: usize) -> Result<Vec<f64>, String> {
    let b = Browser::launch_fresh().await;
    b.client.goto(&format!("{app_url}#/runs")).await.map_err(|e| e.to_string())?;
    page::wait_text(&b, ".engine", Duration::from_secs(60), |t| t.starts_with("Python ready")).await?;
    for file in files {
        let name = file.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        b.client
            .find(Locator::Css("[data-testid=runs-import]"))
            .await
            .map_err(|e| e.to_string())?
            .send_keys(file.to_str().unwrap_or_default())
            .await
            .map_err(|e| e.to_string())?;
        page::wait_text(&b, "[data-testid=runs-message]", Duration::from_secs(120), |t| t.contains(&name)).await?;
    }
    b.client.goto(&format!("{app_url}#/compare")).await.map_err(|e| e.to_string())?;
    b.client
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css("[data-testid=compare-run]"))
        .await
        .map_err(|e| e.to_string())?;
    page::js(&b, "document.querySelectorAll('[data-testid=compare-run]').forEach(c => c.click())").await?;
    let mut times = Vec::new();
    for _ in 0..reps.max(3) + 1 {
        // The click, then the next comparison's table (`data-made` counts them), polled; the
        // time is the page's own clock, to the poll that saw it.
        page::js(&b, "const old = document.querySelector('[data-testid=compare-table]'); window.__made = old ? Number(old.dataset.made) : 0; window.__started = performance.now(); document.querySelector('[data-testid=compare-start]').click();").await?;
        let deadline = Instant::now() + Duration::from_secs(120);
        let ms = loop {
            let seen = page::js(&b, "const t = document.querySelector('[data-testid=compare-table]'); return t && Number(t.dataset.made) > window.__made && t.querySelectorAll('[data-testid=compare-cell]').length === 6 ? performance.now() - window.__started : null").await?;
            if let Some(ms) = seen.as_f64() {
                break Value::from(ms);
            }
            if Instant::now() > deadline {
                return Err("no table within 120 s".into());
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        };
        times.push(ms.as_f64().ok_or("no time")?);
    }
    b.close().await;
    Ok(times)
}
