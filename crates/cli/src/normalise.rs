//! `execbench normalise`: CodeCrash's baseline, the dataset with every program normalised by
//! `ast.unparse` (as CodeCrash normalises before perturbing), verified by execution, written as a
//! dataset file that every `--dataset` reads. Perturbing with `--profile codecrash` normalises the
//! same way first, so the two compare.

use execbench_core::{Limits, Provenance};
use execbench_perturb::normalise::dataset_jsonl;

use crate::args::Args;
use crate::perturb::{PERTURB_STACK_BYTES, dataset_name, normalise_all};
use crate::python::Workers;

pub const USAGE: &str =
    "execbench normalise --dataset FILE(.jsonl|.parquet) [--no-verify] [--time-limit SECONDS] --out FILE.jsonl";

pub const SWITCHES: &[&str] = &["no-verify"];

/// Exit code 0 when every row was read and normalised, 1 otherwise (the others are written).
pub fn run(args: &Args) -> Result<i32, String> {
    args.reject_unknown(&["dataset", "out", "no-verify", "time-limit"])?;
    let dataset = args.required("dataset")?;
    let out = args.required("out")?;
    let seconds: f64 = args.number("time-limit", 2.0)?;
    if !(seconds > 0.0 && seconds <= 3600.0) {
        return Err(format!("--time-limit must be between 0 and 3600 seconds, got {seconds}"));
    }
    let verify_limits =
        (!args.switch("no-verify")).then(|| Limits { time_ms: (seconds * 1000.0).round() as u32, max_steps: 0 });
    let report = crate::dataset::read_dataset(dataset)?;
    let workers = Workers::of_this_binary()?;
    // RustPython's frames are large: the same big stack as perturbing.
    let (normalised, failed) = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(PERTURB_STACK_BYTES)
            .spawn_scoped(scope, || normalise_all(&workers, &report.samples, verify_limits))
            .map_err(|e| format!("cannot start the normalising thread: {e}"))?
            .join()
            .map_err(|_| "the normalising thread panicked".to_string())
    })?;
    let provenance = Provenance::of_dataset(env!("CARGO_PKG_VERSION"), &dataset_name(dataset), &report.samples);
    std::fs::write(out, dataset_jsonl(&normalised, &provenance)).map_err(|e| format!("cannot write {out}: {e}"))?;
    let verified = if verify_limits.is_some() { "verified and " } else { "" };
    eprintln!(
        "{} rows, {} invalid; {} {verified}written to {out}, {} not normalised",
        report.rows,
        report.errors.len(),
        normalised.len(),
        failed.len()
    );
    Ok(if report.errors.is_empty() && failed.is_empty() { 0 } else { 1 })
}
