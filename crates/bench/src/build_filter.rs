//! Filtering the 800 CRUXEval samples as candidates (the filter figure): candidates per second
//! natively, in CPython (the reference), and in the built app's Build page.
//!
//! Natively `execbench_recipe::filter_one` judges each sample as a candidate with RustPython: a
//! first pass on a new engine, then rounds of a warm pass (the same engine), a pass on a new
//! engine and the instrumented runs alone, each round with CPython's passes, interleaved so that
//! noise on a shared machine hits all alike; the static rules and the rewrite alone are timed too.
//! Wall and CPU times are both kept: on a busy machine the CPU times move much less. CPython runs
//! the same instrumented requests (`runtime_request`: prelude with the harness, rewritten program,
//! two calls of `f`) in one process (crates/bench/python/build_filter.py), so "runs alone" against
//! CPython is the same work in both engines, and their verdicts are compared.
//!
//! In the page, a fresh Chromium opens `#/build`, chooses the source "candidates", uploads the 800
//! as JSONL and presses Start: a first pass, then warm passes, reading the job's own elapsed time
//! from `build-progress`; a warm pass whose verdicts differ from the first pass's is reported.
//! Then, to see where the page's time goes: the same 800 with `, id` added to each input (the
//! static rules reject them last: all static work, no run), and 800 trivial candidates
//! (`def f(a): return a`: what one instrumented run costs apart from the candidate's own work),
//! with natively the trivial candidate run plainly and with the filter's prelude only.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use execbench_core::{Limits, Outcome, PythonEngine, RunRequest, Sample};
use execbench_recipe::{Candidate, check_static, filter_one, loading_harness, runtime_request};
use execbench_testkit::browser::Browser;
use fantoccini::Locator;
use serde_json::{Value, json};

use crate::figures::{Amount, Figure};
use crate::median;
use crate::page;

/// The page's target: all 800 filtered in under 3 s, warm.
const TARGET_MS: f64 = 3000.0;

pub fn candidates(samples: &[Sample]) -> Vec<Candidate> {
    samples
        .iter()
        .map(|s| Candidate { id: s.id.clone(), method: None, code: s.code.clone(), input: s.input.clone() })
        .collect()
}

/// The same candidates, each rejected by the last static check (a forbidden name in the input):
/// the static rules' whole work and no run.
pub fn static_rejects(candidates: &[Candidate]) -> Vec<Candidate> {
    candidates
        .iter()
        .map(|c| Candidate {
            input: if c.input.trim().is_empty() { "id".into() } else { format!("{}, id", c.input) },
            ..c.clone()
        })
        .collect()
}

/// `n` candidates that pass the static rules and whose run does almost nothing: what a run costs
/// apart from the candidate's own work (messages, the prelude, the harness's two calls).
pub fn trivial(n: usize) -> Vec<Candidate> {
    (0..n)
        .map(|i| Candidate {
            id: format!("trivial_{i}"),
            method: None,
            code: "def f(a):\n    return a".into(),
            input: "1".into(),
        })
        .collect()
}

pub fn write_jsonl(candidates: &[Candidate], path: &Path) {
    let text: String =
        candidates.iter().map(|c| json!({ "id": c.id, "code": c.code, "input": c.input }).to_string() + "\n").collect();
    std::fs::write(path, text).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

/// Wall and CPU times of repeated measurements, in ms.
#[derive(Default)]
pub struct Timed {
    pub wall: Vec<f64>,
    pub cpu: Vec<f64>,
}

impl Timed {
    fn push(&mut self, (wall, cpu): (f64, f64)) {
        self.wall.push(wall);
        self.cpu.push(cpu);
    }

    pub fn wall(&self) -> f64 {
        median(self.wall.iter().copied())
    }

    pub fn cpu(&self) -> f64 {
        median(self.cpu.iter().copied())
    }
}

/// Times `work` by the wall clock and by this thread's CPU time.
fn timed<T>(work: impl FnOnce() -> T) -> (T, (f64, f64)) {
    let started = Instant::now();
    let cpu = thread_cpu_ms();
    let value = work();
    (value, (ms(started), thread_cpu_ms() - cpu))
}

pub struct Native {
    pub engine_new_ms: f64,
    /// New engine's first pass (without starting the engine).
    pub first: Timed,
    /// Warm passes, one a round.
    pub warm: Timed,
    /// A first pass on a new engine each round (the engine's start not counted).
    pub fresh: Timed,
    /// The static rules alone over all candidates, `reps` times.
    pub static_only: Timed,
    /// Making the requests (the rewrite, `instrument`) of those that pass, `reps` times.
    pub requests: Timed,
    /// The instrumented runs alone (warm engine), one a round, and how many.
    pub runs_alone: Timed,
    /// `filter_one` on as many trivial candidates (warm engine), `reps` times.
    pub trivial: Timed,
    /// The trivial candidate run plainly (no prelude, `f(1)`), as many times, `reps` times.
    pub plain: Timed,
    /// The same with the filter's prelude (the harness loaded, not called), `reps` times.
    pub prelude_only: Timed,
    pub runs: usize,
    pub kept: usize,
    pub rejected_static: usize,
    /// The last runs' reports, to compare with CPython's.
    pub reprs: Vec<String>,
}

/// Natively and in CPython, interleaved: after the first pass, each round times a warm
/// `filter_one` pass, a pass on a new engine, the runs alone, and CPython's runs (a new process:
/// a first pass, which compiles the harness, then a warm one), so that noise on a shared machine
/// hits all alike. CPU times are taken too: on a busy machine they move much less than wall times.
pub fn measure(
    candidates: &[Candidate],
    trivial: &[Candidate],
    requests_path: &Path,
    rounds: usize,
    reps: usize,
) -> (Native, Option<Cpython>) {
    let started = Instant::now();
    let mut engine = execbench_pyengine::RustPythonEngine::new();
    let engine_new_ms = ms(started);
    let pass = |engine: &mut execbench_pyengine::RustPythonEngine| {
        timed(|| candidates.iter().filter(|c| filter_one(engine, c).is_kept()).count())
    };
    let (kept, first) = pass(&mut engine);
    println!(
        "  first pass: native filter_one {:.0} ms ({:.0} ms on the CPU), process {:.0} MB",
        first.0,
        first.1,
        rss_mb()
    );
    let mut native = Native {
        engine_new_ms,
        first: Timed::default(),
        warm: Timed::default(),
        fresh: Timed::default(),
        static_only: Timed::default(),
        requests: Timed::default(),
        runs_alone: Timed::default(),
        trivial: Timed::default(),
        plain: Timed::default(),
        prelude_only: Timed::default(),
        runs: 0,
        kept,
        rejected_static: 0,
        reprs: Vec::new(),
    };
    native.first.push(first);
    let mut passing = Vec::new();
    for _ in 0..reps.max(1) {
        let (value, time) = timed(|| candidates.iter().filter(|c| check_static(c).is_none()).collect::<Vec<_>>());
        passing = value;
        native.static_only.push(time);
    }
    let mut requests = Vec::new();
    for _ in 0..reps.max(1) {
        let (value, time) = timed(|| passing.iter().map(|c| runtime_request(c)).collect::<Vec<_>>());
        requests = value;
        native.requests.push(time);
    }
    native.runs = requests.len();
    native.rejected_static = candidates.len() - passing.len();
    let mut cpython: Option<Cpython> = None;
    for round in 1..=rounds.max(1) {
        let (_, warm) = pass(&mut engine);
        native.warm.push(warm);
        let (_, fresh) = pass(&mut execbench_pyengine::RustPythonEngine::new());
        native.fresh.push(fresh);
        let (results, runs) = timed(|| requests.iter().map(|r| engine.run(r)).collect::<Vec<_>>());
        native.runs_alone.push(runs);
        native.reprs = results
            .iter()
            .map(|r| match &r.outcome {
                Outcome::Value { repr, .. } => repr.clone(),
                Outcome::Raised { kind, .. } => format!("raised: {kind}"),
                other => format!("{other:?}"),
            })
            .collect();
        let reference = cpython_run(requests_path, 2);
        println!(
            "  round {round}: native filter_one {:.0} ms ({:.0} on the CPU), on a new engine {:.0} ms ({:.0}), runs alone {:.0} ms ({:.0}), process {:.0} MB; CPython runs {}",
            warm.0,
            warm.1,
            fresh.0,
            fresh.1,
            runs.0,
            runs.1,
            rss_mb(),
            reference
                .as_ref()
                .map(|c| format!(
                    "{:.0} ms first ({:.0}), {:.0} ms warm ({:.0})",
                    c.first.wall[0], c.first.cpu[0], c.warm.wall[0], c.warm.cpu[0]
                ))
                .unwrap_or_else(|| "failed".into())
        );
        if let Some(r) = reference {
            match &mut cpython {
                Some(c) => {
                    for (into, from) in [(&mut c.first, r.first), (&mut c.warm, r.warm)] {
                        into.wall.extend(from.wall);
                        into.cpu.extend(from.cpu);
                    }
                    c.reprs = r.reprs;
                }
                None => cpython = Some(r),
            }
        }
    }
    for _ in 0..reps.max(1) {
        native.trivial.push(timed(|| trivial.iter().filter(|c| filter_one(&mut engine, c).is_kept()).count()).1);
        let plain = |c: &Candidate| RunRequest {
            prelude: String::new(),
            program: c.code.clone(),
            expression: format!("f({})", c.input),
            expected: None,
            limits: Limits::default(),
            trace: None,
        };
        native.plain.push(timed(|| trivial.iter().map(|c| engine.run(&plain(c))).count()).1);
        let with_prelude = |c: &Candidate| RunRequest { prelude: runtime_request(c).prelude, ..plain(c) };
        native.prelude_only.push(timed(|| trivial.iter().map(|c| engine.run(&with_prelude(c))).count()).1);
    }
    (native, cpython)
}

/// What a run's report decides: the output, or the rule broken, or the exception raised (the
/// report's step count differs between engines: they trace lines differently).
fn decision(repr: &str) -> String {
    match serde_json::from_str::<Value>(repr) {
        Ok(report) if report.get("output").is_some() => format!("output {}", report["output"]),
        Ok(report) if report.get("broken").is_some() => format!("broken {}", report["broken"][1]),
        Ok(report) if report.get("raised").is_some() => format!("raised {}", report["raised"][0]),
        _ => repr.to_string(),
    }
}

/// The instrumented requests of the candidates that pass the static rules, as JSON for CPython.
pub fn write_requests(candidates: &[Candidate], path: &Path) -> usize {
    let requests: Vec<Value> = candidates
        .iter()
        .filter(|c| check_static(c).is_none())
        .enumerate()
        .map(|(i, c)| {
            // The first run loads the harness into the interpreter, as the engine's first does.
            let r = if i == 0 { loading_harness(runtime_request(c)) } else { runtime_request(c) };
            json!({ "id": c.id, "prelude": r.prelude, "program": r.program, "expression": r.expression })
        })
        .collect();
    let count = requests.len();
    std::fs::write(path, Value::from(requests).to_string()).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    count
}

pub struct Cpython {
    pub version: String,
    /// Each process's first pass (it compiles the harness) and its warm passes.
    pub first: Timed,
    pub warm: Timed,
    pub reprs: Vec<String>,
}

/// CPython running the requests (crates/bench/python/build_filter.py), `passes` times in one process.
fn cpython_run(requests: &Path, passes: usize) -> Option<Cpython> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("python/build_filter.py");
    let output =
        std::process::Command::new("python3").arg(script).arg(requests).arg(passes.to_string()).output().ok()?;
    if !output.status.success() {
        eprintln!("python3 build_filter.py failed: {}", String::from_utf8_lossy(&output.stderr));
        return None;
    }
    let value: Value = serde_json::from_slice(&output.stdout).ok()?;
    let version = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let list = |key: &str| {
        value[key].as_array().map(|a| a.iter().filter_map(Value::as_f64).collect::<Vec<_>>()).unwrap_or_default()
    };
    let (wall, cpu) = (list("ms"), list("cpu_ms"));
    let split =
        |v: &[f64]| (v.first().copied().into_iter().collect::<Vec<_>>(), v.iter().skip(1).copied().collect::<Vec<_>>());
    let ((first_wall, warm_wall), (first_cpu, warm_cpu)) = (split(&wall), split(&cpu));
    Some(Cpython {
        version,
        first: Timed { wall: first_wall, cpu: first_cpu },
        warm: Timed { wall: warm_wall, cpu: warm_cpu },
        reprs: value["reprs"].as_array()?.iter().map(|v| v.as_str().unwrap_or_default().to_string()).collect(),
    })
}

/// One page pass: the job's own elapsed time, the wall time from the click, and the funnel.
pub struct PagePass {
    pub ms: f64,
    pub wall_ms: f64,
    pub passed_static: i64,
    pub passed_runtime: i64,
    /// The rejected rows: candidate id to rule, and to the row's text.
    pub rejected: Value,
    pub details: Value,
}

pub struct Page {
    pub first: PagePass,
    pub warm: Vec<PagePass>,
    /// The static-rejections file, warm (its second pass).
    pub static_only: Option<PagePass>,
    /// The trivial candidates, warm (their second pass).
    pub trivial: Option<PagePass>,
}

pub async fn browser(
    app_url: &str,
    file: &Path,
    static_file: &Path,
    trivial_file: &Path,
    warm: usize,
) -> Result<Page, String> {
    let b = Browser::launch_fresh().await;
    let result = drive(&b, app_url, file, static_file, trivial_file, warm).await;
    b.close().await;
    result
}

async fn drive(
    b: &Browser,
    app_url: &str,
    file: &Path,
    static_file: &Path,
    trivial_file: &Path,
    warm: usize,
) -> Result<Page, String> {
    b.client.goto(&format!("{app_url}#/build")).await.map_err(|e| format!("could not open the app: {e}"))?;
    page::wait_text(b, ".engine", Duration::from_secs(120), |t| t.starts_with("Python ready")).await?;
    page::select(b, "[data-testid=build-source]", "candidates").await?;
    upload(b, file).await?;
    let first = pass(b).await?;
    let mut warm_passes = Vec::new();
    for _ in 0..warm {
        warm_passes.push(pass(b).await?);
    }
    upload(b, static_file).await?;
    let _ = pass(b).await?;
    let static_only = Some(pass(b).await?);
    upload(b, trivial_file).await?;
    let _ = pass(b).await?;
    let trivial = Some(pass(b).await?);
    Ok(Page { first, warm: warm_passes, static_only, trivial })
}

async fn upload(b: &Browser, file: &Path) -> Result<(), String> {
    let input = b
        .client
        .find(Locator::Css("[data-testid=build-candidates-file]"))
        .await
        .map_err(|e| format!("no file input: {e}"))?;
    input.send_keys(file.to_str().unwrap_or_default()).await.map_err(|e| format!("could not choose the file: {e}"))?;
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
    let status =
        page::wait_text(b, "[data-testid=build-candidates-status]", Duration::from_secs(30), |t| t.contains(&name))
            .await?;
    if !status.contains("800 candidates") {
        return Err(format!("the page read the file as: {status}"));
    }
    Ok(())
}

/// Presses Start and waits for the job to finish: "Last job finished · 800 / 800 · 1.2 s".
async fn pass(b: &Browser) -> Result<PagePass, String> {
    // Clicked from a script: the handler starts the job (the progress line leaves "Last job")
    // before the script returns, and a job with no run to wait for (all rejected by the static
    // rules) has also finished by then, so the next "Last job" read is this job's.
    page::wait_text(b, "[data-testid=build-start]", Duration::from_secs(20), |_| true).await?;
    let started = Instant::now();
    page::js(b, "document.querySelector('[data-testid=build-start]').click(); return true").await?;
    let line =
        page::wait_text(b, "[data-testid=build-progress]", Duration::from_secs(900), |t| t.starts_with("Last job"))
            .await?;
    let wall_ms = ms(started);
    if !line.starts_with("Last job finished") || !line.contains("800 / 800") {
        return Err(format!("the job ended with `{line}`"));
    }
    let seconds: f64 = line
        .rsplit(" · ")
        .next()
        .and_then(|t| t.strip_suffix(" s"))
        .and_then(|t| t.parse().ok())
        .ok_or(format!("unexpected progress line: {line}"))?;
    let count = |stage: &str| {
        format!(
            "const e = document.querySelector('[data-testid=funnel-{stage}]'); return e ? Number(e.dataset.count) : -1"
        )
    };
    let passed_static = page::js(b, &count("static")).await?.as_i64().unwrap_or(-1);
    let passed_runtime = page::js(b, &count("runtime")).await?.as_i64().unwrap_or(-1);
    let rejected = page::js(b, "return Object.fromEntries([...document.querySelectorAll('[data-testid=rejected-row]')].map(r => [r.dataset.id, r.dataset.rule]))").await?;
    let details = page::js(b, "return Object.fromEntries([...document.querySelectorAll('[data-testid=rejected-row]')].map(r => [r.dataset.id, [...r.cells].map(c => c.textContent.replace(/\\s+/g, ' ').trim()).join(' | ').slice(0, 200)]))").await?;
    Ok(PagePass { ms: seconds * 1000.0, wall_ms, passed_static, passed_runtime, rejected, details })
}

pub fn print(n: usize, native: &Native, cpython: Option<&Cpython>, page: Option<&Page>) {
    let reference = cpython.map(|c| (c.warm.wall(), c.warm.cpu())).filter(|(w, _)| w.is_finite());
    println!(
        "\n### Filtering the {n} CRUXEval samples as candidates ({} rejected by the static rules, {} run; natively {} kept; target: the page filters all {n} in under 3 s warm)\n",
        native.rejected_static, native.runs, native.kept
    );
    println!("| what | wall | CPU | candidates/s (wall) | ÷ CPython, wall | ÷ CPython, CPU | target |");
    println!("|---|---:|---:|---:|---:|---:|---|");
    let row = |what: String, wall: f64, cpu: Option<f64>, count: usize, target: &str| {
        let ratio = |mine: Option<f64>, theirs: Option<f64>| match (mine, theirs) {
            (Some(a), Some(b)) if a.is_finite() && b.is_finite() => format!("{:.2}x", a / b),
            _ => "-".into(),
        };
        println!(
            "| {what} | {wall:.0} ms | {} | {:.0} | {} | {} | {target} |",
            cpu.filter(|c| c.is_finite()).map(|c| format!("{c:.0} ms")).unwrap_or_else(|| "-".into()),
            count as f64 * 1000.0 / wall,
            ratio(Some(wall), reference.map(|r| r.0)),
            ratio(cpu, reference.map(|r| r.1)),
        );
        // The wall time, against CPython's warm runs; the target only on the row that has one.
        crate::figures::record([Figure {
            section: "build".into(),
            metric: what,
            execbench: Some(Amount::Ms(wall)),
            reference: reference.map(|_| "CPython warm runs".to_string()),
            reference_amount: reference.map(|r| Amount::Ms(r.0)),
            ratio: reference.map(|r| wall / r.0),
            target: (!target.is_empty()).then(|| format!("< {TARGET_MS:.0} ms")),
            met: (!target.is_empty()).then(|| !target.contains("missed")),
        }]);
    };
    let median_of = |t: &Timed| t.wall.len();
    row(
        format!("native, static rules alone ({n}, median of {})", median_of(&native.static_only)),
        native.static_only.wall(),
        Some(native.static_only.cpu()),
        n,
        "",
    );
    row(
        format!("native, making the requests alone ({}: the rewrite)", native.runs),
        native.requests.wall(),
        Some(native.requests.cpu()),
        native.runs,
        "",
    );
    row(
        format!(
            "native, instrumented runs alone ({}, warm engine, median of {})",
            native.runs,
            median_of(&native.runs_alone)
        ),
        native.runs_alone.wall(),
        Some(native.runs_alone.cpu()),
        native.runs,
        "",
    );
    row(
        format!("native, filter_one first pass ({n}; engine start {:.0} ms not counted)", native.engine_new_ms),
        native.first.wall(),
        Some(native.first.cpu()),
        n,
        "",
    );
    row(
        format!("native, filter_one warm pass ({n}, median of {})", median_of(&native.warm)),
        native.warm.wall(),
        Some(native.warm.cpu()),
        n,
        "",
    );
    row(
        format!("native, filter_one on a new engine each time ({n}, median of {})", median_of(&native.fresh)),
        native.fresh.wall(),
        Some(native.fresh.cpu()),
        n,
        "",
    );
    row(
        format!(
            "native, {n} trivial candidates (`def f(a): return a`, warm engine, median of {})",
            median_of(&native.trivial)
        ),
        native.trivial.wall(),
        Some(native.trivial.cpu()),
        n,
        "",
    );
    row(
        format!(
            "native, the same {n} run plainly (no prelude or harness: `f(1)`; median of {})",
            median_of(&native.plain)
        ),
        native.plain.wall(),
        Some(native.plain.cpu()),
        n,
        "",
    );
    row(
        format!(
            "native, the same with the filter's prelude (harness loaded, not called: `f(1)`; median of {})",
            median_of(&native.prelude_only)
        ),
        native.prelude_only.wall(),
        Some(native.prelude_only.cpu()),
        n,
        "",
    );
    if let Some(c) = cpython {
        let agree = c.reprs.iter().zip(&native.reprs).filter(|(a, b)| decision(a) == decision(b)).count();
        for (i, (a, b)) in
            c.reprs.iter().zip(&native.reprs).enumerate().filter(|(_, (a, b))| decision(a) != decision(b))
        {
            eprintln!("  run {i}: CPython {} / RustPython {}", decision(a), decision(b));
        }
        row(
            format!(
                "{}, runs first pass ({}, harness compiled once; median of {})",
                c.version,
                native.runs,
                median_of(&c.first)
            ),
            c.first.wall(),
            Some(c.first.cpu()),
            native.runs,
            "",
        );
        row(
            format!(
                "{}, runs warm pass ({}, median of {}; same verdict as RustPython: {agree})",
                c.version,
                native.runs,
                median_of(&c.warm)
            ),
            c.warm.wall(),
            Some(c.warm.cpu()),
            native.runs,
            "",
        );
    } else {
        println!("| CPython | failed | - | - | - | - | |");
    }
    match page {
        Some(p) => {
            let met = |ms: f64| if ms < TARGET_MS { "< 3 s: met" } else { "< 3 s: **missed**" };
            let funnel = |pass: &PagePass| format!("{} past static, {} kept", pass.passed_static, pass.passed_runtime);
            row(format!("page, first pass ({n}, fresh browser; {})", funnel(&p.first)), p.first.ms, None, n, "");
            let warm = median(p.warm.iter().map(|w| w.ms));
            let walls = p.warm.iter().map(|w| format!("{:.1}", w.wall_ms / 1000.0)).collect::<Vec<_>>().join("/");
            let times = p.warm.iter().map(|w| format!("{:.1}", w.ms / 1000.0)).collect::<Vec<_>>().join("/");
            let last = p.warm.last().map(funnel).unwrap_or_default();
            row(
                format!("page, warm pass ({n}, median of {times} s; wall from the click {walls} s; {last})"),
                warm,
                None,
                n,
                met(warm),
            );
            if let Some(s) = &p.static_only {
                row(
                    format!("page, static rejections only ({n} with `, id` in the input, warm; {})", funnel(s)),
                    s.ms,
                    None,
                    n,
                    "",
                );
            }
            if let Some(t) = &p.trivial {
                row(format!("page, {n} trivial candidates (`def f(a): return a`, warm)"), t.ms, None, n, "");
            }
            println!(
                "\nPage warm / native warm filter_one (wall): {:.2}x. Page time is the job's own elapsed time (0.1 s resolution): \
                 static rules on the page's thread, one run at a time in its worker. CPU: this thread's (native) or the process's (CPython) CPU time.",
                warm / native.warm.wall()
            );
            for w in &p.warm {
                if w.rejected != p.first.rejected {
                    let (first, again) = (p.first.rejected.as_object(), w.rejected.as_object());
                    let differ: Vec<String> = first
                        .into_iter()
                        .chain(again)
                        .flat_map(|m| m.keys())
                        .filter(|id| p.first.rejected.get(id.as_str()) != w.rejected.get(id.as_str()))
                        .map(|id| {
                            format!(
                                "{id}: {} then {}",
                                p.first.rejected.get(id.as_str()).unwrap_or(&Value::Null),
                                w.details.get(id.as_str()).unwrap_or(&Value::Null)
                            )
                        })
                        .collect::<std::collections::BTreeSet<_>>()
                        .into_iter()
                        .collect();
                    println!("A warm pass's verdicts differ from the first pass's: {}", differ.join(", "));
                }
            }
            if let (Some(s), Some(t)) = (&p.static_only, &p.trivial) {
                println!(
                    "A trivial candidate (static rules, one instrumented run doing almost nothing, its messages) costs the page {:.1} ms, natively {:.2} ms: \
                     the least a run costs apart from the candidate's own work; the static-rejections file costs the page {:.2} ms a candidate.",
                    t.ms / n as f64,
                    native.trivial.wall() / n as f64,
                    s.ms / n as f64
                );
            }
            if let Some(s) = &p.static_only {
                println!(
                    "Where the page's warm pass goes: static rules and the job's bookkeeping about {:.1} s (the static-rejections file), \
                     the {} instrumented runs in the worker with their messages about {:.1} s ({:.1} ms a run; natively {:.1} ms wall, {:.1} ms CPU).",
                    s.ms / 1000.0,
                    native.runs,
                    (warm - s.ms) / 1000.0,
                    (warm - s.ms) / native.runs as f64,
                    native.runs_alone.wall() / native.runs as f64,
                    native.runs_alone.cpu() / native.runs as f64
                );
            }
        }
        None => println!("| page | failed | - | - | - | - | |"),
    }
}

/// This thread's CPU time (Linux; NaN elsewhere): apart from the wall time, to tell a slower engine
/// from a busy machine.
fn thread_cpu_ms() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |ns| ns / 1e6)
}

/// The process's resident memory in MB (Linux; NaN elsewhere).
fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| t.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}
