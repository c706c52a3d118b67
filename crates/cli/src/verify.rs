//! `execbench verify --dataset FILE [--category FIELD] [--time-limit SECONDS]`: run every sample,
//! report failures, and the results per category when the dataset has one. Samples are spread over
//! `--jobs` interpreters; what is printed is in dataset order whatever the number.

use std::collections::BTreeMap;

use execbench_core::Limits;
use execbench_core::parallel::map_with_engines;
use execbench_core::verify::{Verdict, VerifySummary, check_sample};
use execbench_formats::categories::{category_value, dataset_shape};

use crate::args::Args;
use crate::progress::Progress;
use crate::python::Workers;

pub const USAGE: &str =
    "execbench verify --dataset FILE(.jsonl|.parquet) [--category FIELD] [--time-limit SECONDS] [--jobs N]";

/// Returns the process exit code.
pub fn run(args: &Args) -> Result<i32, String> {
    args.reject_unknown(&["dataset", "category", "time-limit", "jobs"])?;
    let path = args.required("dataset")?;
    let seconds: f64 = args.number("time-limit", 2.0)?;
    if !(seconds > 0.0 && seconds <= 3600.0) {
        return Err(format!("--time-limit must be between 0 and 3600 seconds, got {seconds}"));
    }
    let jobs = args.jobs()?;
    let report = crate::dataset::read_dataset(path)?;
    let workers = Workers::of_this_binary()?;
    let shape = dataset_shape(&report, args.optional("category"));
    for inconsistency in shape.inconsistencies() {
        eprintln!("schema: {inconsistency}");
    }
    let limits = Limits { time_ms: (seconds * 1000.0).round() as u32, max_steps: 0 };
    let mut progress = Progress::new(report.samples.len());
    let mut failed_so_far = 0;
    let checks = map_with_engines(
        &report.samples,
        jobs,
        || workers.engine(),
        |engine, sample| check_sample(engine, sample, limits),
        |check| {
            failed_so_far += usize::from(!check.verdict.is_pass());
            progress.tick(failed_so_far);
        },
    );
    let mut summary = VerifySummary::default();
    // Per category: (samples, passed).
    let mut by_category: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (sample, check) in report.samples.iter().zip(checks) {
        if let Some(field) = &shape.category_field {
            let category = category_value(sample, field).unwrap_or_else(|| "(none)".to_string());
            let counts = by_category.entry(category).or_insert((0, 0));
            counts.0 += 1;
            counts.1 += usize::from(check.verdict.is_pass());
        }
        summary.add(check);
    }
    for problem in &summary.problems {
        let (label, reason) = match &problem.verdict {
            Verdict::EngineDifference { reason } => ("engine difference", reason),
            Verdict::Fail { reason } => ("FAIL", reason),
            Verdict::Pass => continue,
        };
        println!("{label} {}: {reason}", problem.id);
    }
    if let Some(field) = &shape.category_field {
        let parts: Vec<String> = by_category
            .iter()
            .map(|(category, (samples, passed))| format!("{category} {passed} of {samples}"))
            .collect();
        println!("passed by {field}: {}", parts.join(", "));
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
