//! Perturbing the 800 CRUXEval samples with each deterministic kind (the perturbation figure), with
//! and without verification, natively and in the browser.
//!
//! Natively the library is called directly (the fastest of `reps` runs per kind; verification
//! with RustPython, once). In the browser the built app's Perturb view does the work, as a user
//! would start it: all six kinds, seed 0, "Perturb and verify all". The page times perturbing
//! (on its thread, in slices) apart from verifying (in the worker) and shows both per kind; the
//! figures are read from the summary table's `data-ms` attributes.

use std::time::{Duration, Instant};

use execbench_core::{Limits, PythonEngine, Sample};
use execbench_perturb::{Kind, Options, perturb_sample, verify};
use execbench_testkit::browser::Browser;

use crate::figures::{Amount, Figure};

/// One kind's figures, in milliseconds.
#[derive(Clone, Debug, Default)]
pub struct KindTimes {
    pub perturb_ms: f64,
    /// Perturbing plus verifying.
    pub with_verification_ms: f64,
    pub verified: usize,
}

pub struct PerturbationFigures {
    pub native: Vec<(Kind, KindTimes)>,
    pub browser: Vec<(Kind, KindTimes)>,
    /// Wall time of the whole page run (all six kinds, with its yields and redraws).
    pub browser_wall_ms: f64,
}

pub fn native(samples: &[Sample], reps: usize) -> Vec<(Kind, KindTimes)> {
    let options = Options::default();
    let mut engine = execbench_pyengine::RustPythonEngine::new();
    // The limit the page uses (Limits::default()), so both verify the same way.
    let limits = Limits::default();
    Kind::DETERMINISTIC
        .into_iter()
        .map(|kind| {
            // On a shared machine the fastest of several runs is the least disturbed one.
            let mut perturb_ms = f64::INFINITY;
            for _ in 0..reps.max(1) {
                let started = Instant::now();
                let done = samples.iter().filter(|s| perturb_sample(s, kind, &options).is_ok()).count();
                perturb_ms = perturb_ms.min(started.elapsed().as_secs_f64() * 1000.0);
                std::hint::black_box(done);
            }
            let started = Instant::now();
            let mut verified = 0;
            for sample in samples {
                if let Ok(perturbed) = perturb_sample(sample, kind, &options) {
                    verified +=
                        usize::from(verify(&mut engine as &mut dyn PythonEngine, sample, &perturbed, limits).is_ok());
                }
            }
            let with_verification_ms = started.elapsed().as_secs_f64() * 1000.0;
            (kind, KindTimes { perturb_ms, with_verification_ms, verified })
        })
        .collect()
}

/// Runs the six kinds over the bundled dataset in the app's Perturb view, in a fresh browser.
pub async fn browser(app_url: &str) -> Result<(Vec<(Kind, KindTimes)>, f64), String> {
    let b = Browser::launch_fresh().await;
    let result = drive(&b, app_url).await;
    b.close().await;
    result
}

async fn drive(b: &Browser, app_url: &str) -> Result<(Vec<(Kind, KindTimes)>, f64), String> {
    b.client.goto(&format!("{app_url}#/perturb")).await.map_err(|e| format!("could not open the app: {e}"))?;
    b.wait_text(".engine", Duration::from_secs(120), |t| t.starts_with("Python ready")).await;
    wait_enabled(b, "[data-testid=perturb-all-start]", Duration::from_secs(60)).await?;
    // RTF is chosen by default; add the other five.
    for kind in Kind::DETERMINISTIC.into_iter().filter(|k| *k != Kind::Rtf) {
        b.click(&format!("[data-testid=kind-{}]", kind.name())).await;
    }
    b.fill("[data-testid=seeds]", "0").await;
    let started = Instant::now();
    b.click("[data-testid=perturb-all-start]").await;
    let state = b.wait_text("[data-testid=perturb-all-state]", Duration::from_secs(1200), |t| !t.is_empty()).await;
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    if state != "finished" {
        return Err(format!("the page's run ended with `{state}`"));
    }
    let mut times = Vec::new();
    for kind in Kind::DETERMINISTIC {
        let name = kind.name();
        let perturb_ms = data_ms(b, &format!("perturb-ms-{name}")).await?;
        let verify_ms = data_ms(b, &format!("verify-ms-{name}")).await?;
        let verified = b.wait_text(&format!("[data-testid=verified-{name}]"), Duration::from_secs(5), |_| true).await;
        let verified = verified.parse().map_err(|_| format!("{name}: verified count `{verified}`"))?;
        times.push((kind, KindTimes { perturb_ms, with_verification_ms: perturb_ms + verify_ms, verified }));
    }
    Ok((times, wall_ms))
}

async fn wait_enabled(b: &Browser, css: &str, timeout: Duration) -> Result<(), String> {
    let deadline = Instant::now() + timeout;
    let script = format!("const e = document.querySelector('{css}'); return !!e && !e.disabled;");
    while Instant::now() < deadline {
        if b.client.execute(&script, vec![]).await.map_err(|e| e.to_string())?.as_bool() == Some(true) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(format!("`{css}` stayed disabled for {timeout:?} (dataset not loaded?)"))
}

async fn data_ms(b: &Browser, testid: &str) -> Result<f64, String> {
    let script = format!("const e = document.querySelector('[data-testid={testid}]'); return e ? e.dataset.ms : null;");
    let value = b.client.execute(&script, vec![]).await.map_err(|e| e.to_string())?;
    value.as_str().and_then(|v| v.parse().ok()).ok_or(format!("no figure in `{testid}`: {value}"))
}

/// Per kind: its four times (native, native + verify, browser, browser + verify).
fn times_of_kinds(figures: &PerturbationFigures) -> Vec<(String, [f64; 4])> {
    figures
        .native
        .iter()
        .zip(&figures.browser)
        .map(|((kind, n), (_, w))| {
            (kind.name().to_string(), [n.perturb_ms, n.with_verification_ms, w.perturb_ms, w.with_verification_ms])
        })
        .collect()
}

/// Every time of the table, a figure each: the browser's against the same work natively, the
/// six kinds' browser totals against their targets.
fn figures_of_times(kinds: Vec<(String, [f64; 4])>, totals: [f64; 4]) -> Vec<Figure> {
    const COLUMNS: [(&str, Option<f64>); 4] =
        [("native", None), ("native + verify", None), ("browser", Some(1000.0)), ("browser + verify", Some(3000.0))];
    let mut rows = Vec::new();
    for (name, times) in kinds.into_iter().chain([("six kinds".to_string(), totals)]) {
        for (i, (column, target)) in COLUMNS.iter().enumerate() {
            let native = (i >= 2).then(|| times[i - 2]);
            let target = target.filter(|_| name == "six kinds");
            rows.push(Figure {
                section: "perturb".into(),
                metric: format!("{name}, {column}"),
                execbench: Some(Amount::Ms(times[i])),
                reference: native.map(|_| "native".to_string()),
                reference_amount: native.map(Amount::Ms),
                ratio: native.map(|n| times[i] / n),
                target: target.map(|t| format!("< {t:.0} ms")),
                met: target.map(|t| times[i] < t),
            });
        }
    }
    rows
}

pub fn print(figures: &PerturbationFigures, samples: usize) {
    println!(
        "\n### Perturbing {samples} samples, seed 0 (ms; target: six kinds < 1000 ms in the browser without verification, < 3000 ms with it)\n"
    );
    println!("| kind | native | native + verify | browser | browser + verify | verified (browser) |");
    println!("|---|---:|---:|---:|---:|---:|");
    let mut totals = [0.0; 4];
    for ((kind, n), (_, w)) in figures.native.iter().zip(&figures.browser) {
        println!(
            "| {} | {:.0} | {:.0} | {:.0} | {:.0} | {}/{samples} |",
            kind.name(),
            n.perturb_ms,
            n.with_verification_ms,
            w.perturb_ms,
            w.with_verification_ms,
            w.verified
        );
        for (total, value) in
            totals.iter_mut().zip([n.perturb_ms, n.with_verification_ms, w.perturb_ms, w.with_verification_ms])
        {
            *total += value;
        }
    }
    println!("| **six kinds** | {:.0} | {:.0} | {:.0} | {:.0} | |", totals[0], totals[1], totals[2], totals[3]);
    crate::figures::record(figures_of_times(times_of_kinds(figures), totals));
    let met = |value: f64, target: f64| if value < target { "met" } else { "**missed**" };
    println!(
        "\nBrowser: {:.0} ms without verification ({} target 1000 ms), {:.0} ms with it ({} target 3000 ms); browser/native {:.2}x and {:.2}x. \
         Whole page run {:.1} s wall (with redraws and yields to the browser).",
        totals[2],
        met(totals[2], 1000.0),
        totals[3],
        met(totals[3], 3000.0),
        totals[2] / totals[0],
        totals[3] / totals[1],
        figures.browser_wall_ms / 1000.0
    );
}
