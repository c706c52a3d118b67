//! `execbench normalise`: CodeCrash's baseline, the dataset with every program normalised by
//! `ast.unparse` (as CodeCrash normalises before perturbing), verified by execution, written as a
//! dataset file that every `--dataset` reads. Perturbing with `--profile codecrash` normalises the
//! same way first, so the two compare.

use execbench_core::Provenance;
use execbench_perturb::normalise::dataset_jsonl;

use crate::perturb::{PERTURB_STACK_BYTES, dataset_name, normalise_all};
use crate::python::Workers;

#[derive(clap::Args, Debug)]
pub struct NormaliseArgs {
    /// The dataset (.jsonl or .parquet)
    #[arg(long, value_name = "FILE")]
    dataset: String,
    /// Where the normalised dataset goes (JSON Lines)
    #[arg(long, value_name = "FILE")]
    out: String,
    /// Do not run the normalised programs to check them
    #[arg(long)]
    no_verify: bool,
    /// How long a program may run when verified
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0)]
    time_limit: f64,
}

/// Exit code 0 when every row was read and normalised, 1 otherwise (the others are written).
pub fn run(args: &NormaliseArgs) -> Result<i32, String> {
    let (dataset, out) = (args.dataset.as_str(), args.out.as_str());
    let limits = crate::args::time_limit(args.time_limit)?;
    let verify_limits = (!args.no_verify).then_some(limits);
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
