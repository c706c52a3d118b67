//! The `trace` section: what recording a run's trace (`RunRequest::traced`, the trace questions'
//! source) costs, natively in RustPython against the same runs untraced, and CPython's reference
//! tracer (`scripts/trace_reference.py`, a `sys.settrace` function in Python, as REval traces)
//! against its untraced runs, on the 800 CRUXEval samples.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use execbench_core::trace::TraceLimits;
use execbench_core::{Limits, PythonEngine, RunRequest, Sample};
use execbench_pyengine::RustPythonEngine;

use crate::figures::{Amount, Figure};

const SECTION: &str = "trace";

fn requests(samples: &[Sample], traced: bool) -> Vec<RunRequest> {
    samples
        .iter()
        .map(|s| {
            let request = s.request(s.call.clone()).with_limits(Limits { time_ms: 10_000, max_steps: 0 });
            if traced { request.traced(TraceLimits::default()) } else { request }
        })
        .collect()
}

/// Best of `reps` passes over `requests` on one warm engine, in ms.
fn best_pass(engine: &mut RustPythonEngine, requests: &[RunRequest], reps: usize) -> f64 {
    (0..reps.max(1))
        .map(|_| {
            let started = Instant::now();
            for request in requests {
                let _ = engine.run(request);
            }
            started.elapsed().as_secs_f64() * 1000.0
        })
        .fold(f64::INFINITY, f64::min)
}

/// CPython's (plain, traced) ms, best of 3, or `None` without python3.
fn cpython(requests: &[RunRequest]) -> Option<(f64, f64)> {
    let script = execbench_testkit::repo_root().join("scripts/trace_reference.py");
    let mut child =
        Command::new("python3").arg(script).arg("--time").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().ok()?;
    let mut input = String::new();
    for r in requests {
        input.push_str(
            &serde_json::json!({"program": r.program, "expression": r.expression, "prelude": r.prelude}).to_string(),
        );
        input.push('\n');
    }
    child.stdin.take()?.write_all(input.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    let figures: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    Some((figures["plain_ms"].as_f64()?, figures["traced_ms"].as_f64()?))
}

pub fn section(samples: &[Sample], reps: usize) -> Vec<Figure> {
    let mut engine = RustPythonEngine::new();
    let (plain, traced) = (requests(samples, false), requests(samples, true));
    // One pass each first, so both measure a warm engine.
    let _ = best_pass(&mut engine, &plain, 1);
    let _ = best_pass(&mut engine, &traced, 1);
    let plain_ms = best_pass(&mut engine, &plain, reps);
    let traced_ms = best_pass(&mut engine, &traced, reps);
    let steps: usize = traced.iter().filter_map(|r| engine.run(r).trace).map(|t| t.steps.len()).sum();
    let n = samples.len() as f64;
    let per_sample = |ms: f64| format!("{:.3} ms a sample", ms / n);
    let mut figures = vec![Figure {
        reference: Some("untraced".into()),
        reference_amount: Some(Amount::Ms(plain_ms)),
        ratio: Some(traced_ms / plain_ms),
        ..Figure::alone(
            SECTION,
            format!("RustPython, {} samples traced ({steps} steps) vs untraced", samples.len()),
            Some(Amount::Ms(traced_ms)),
        )
    }];
    figures.push(Figure::alone(SECTION, "RustPython, traced, a sample", Some(Amount::Text(per_sample(traced_ms)))));
    figures.push(Figure::alone(
        SECTION,
        "RustPython, the tracing alone, a sample",
        Some(Amount::Text(per_sample(traced_ms - plain_ms))),
    ));
    match cpython(&plain) {
        Some((cpython_plain, cpython_traced)) => {
            figures.push(Figure {
                reference: Some("untraced".into()),
                reference_amount: Some(Amount::Ms(cpython_plain)),
                ratio: Some(cpython_traced / cpython_plain),
                ..Figure::alone(
                    SECTION,
                    "CPython, the reference tracer (sys.settrace) vs untraced",
                    Some(Amount::Ms(cpython_traced)),
                )
            });
            figures.push(Figure {
                reference: Some("CPython traced".into()),
                reference_amount: Some(Amount::Ms(cpython_traced)),
                ratio: Some(traced_ms / cpython_traced),
                ..Figure::alone(
                    SECTION,
                    "traced: RustPython (Rust recorder) vs CPython (Python tracer)",
                    Some(Amount::Ms(traced_ms)),
                )
            });
        }
        None => eprintln!("no python3: the trace section's CPython rows are left out"),
    }
    figures
}
