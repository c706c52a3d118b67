//! `execbench verify --dataset FILE [--time-limit SECONDS]`: run every sample, report failures.

use execbench_core::verify::{VerifySummary, check_sample};
use execbench_core::{Limits, load_jsonl_bytes};
use execbench_pyengine::RustPythonEngine;

use crate::args::Args;
use crate::progress::Progress;

pub const USAGE: &str = "execbench verify --dataset FILE.jsonl [--time-limit SECONDS]";

/// Returns the process exit code.
pub fn run(args: &Args) -> Result<i32, String> {
    args.reject_unknown(&["dataset", "time-limit"])?;
    let path = args.required("dataset")?;
    let seconds: f64 = args.number("time-limit", 2.0)?;
    if !(seconds > 0.0 && seconds <= 3600.0) {
        return Err(format!("--time-limit must be between 0 and 3600 seconds, got {seconds}"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let report = load_jsonl_bytes(path, &bytes);
    for error in &report.errors {
        eprintln!("invalid row: {error}");
    }
    let limits = Limits { time_ms: (seconds * 1000.0).round() as u32, max_steps: 0 };
    let mut engine = RustPythonEngine::new();
    let mut summary = VerifySummary::default();
    let mut progress = Progress::new(report.samples.len());
    for sample in &report.samples {
        summary.add(check_sample(&mut engine, sample, limits));
        progress.tick(summary.failed + summary.engine_differences);
    }
    for problem in &summary.problems {
        let (label, reason) = match &problem.verdict {
            execbench_core::verify::Verdict::EngineDifference { reason } => ("engine difference", reason),
            execbench_core::verify::Verdict::Fail { reason } => ("FAIL", reason),
            execbench_core::verify::Verdict::Pass => continue,
        };
        println!("{label} {}: {reason}", problem.id);
    }
    println!(
        "{} rows, {} invalid, {} engine differences ({:.0} ms in Python)",
        report.rows,
        report.errors.len(),
        summary.engine_differences,
        summary.elapsed_ms
    );
    // An engine difference is RustPython's doing, not the dataset's: listed, not failed.
    println!("{} passed, {} failed", summary.passed, summary.failed);
    let clean = report.errors.is_empty() && summary.failed == 0;
    Ok(if clean { 0 } else { 1 })
}
