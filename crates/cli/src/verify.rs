//! `execbench verify --dataset FILE [--category FIELD] [--time-limit SECONDS]`: run every sample,
//! report failures, and the results per category when the dataset has one. Samples are spread over
//! `--jobs` interpreters; what is printed is in dataset order whatever the number.

use std::collections::BTreeMap;

use execbench_core::verify::Verdict;
use execbench_dataset_jobs::verify::verify_dataset;
use execbench_formats::categories::{category_value, dataset_shape};
use execbench_run::CancelToken;

use crate::progress::Progress;
use crate::python::Workers;

#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The dataset (.jsonl or .parquet)
    #[arg(long, value_name = "FILE")]
    dataset: String,
    /// The field that holds each sample's category (else one is looked for)
    #[arg(long, value_name = "FIELD")]
    category: Option<String>,
    /// How long a program may run
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0)]
    time_limit: f64,
    /// Python worker processes at once [default: every core]
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
}

/// Returns the process exit code. The samples go through the library's `verify_dataset`, the
/// page's Verify job, with this binary's worker processes as its Python.
pub fn run(args: &VerifyArgs) -> Result<i32, String> {
    let limits = crate::args::time_limit(args.time_limit)?;
    let jobs = crate::args::jobs(args.jobs)?;
    let report = crate::dataset::read_dataset(&args.dataset)?;
    let python = Workers::of_this_binary()?.python(jobs);
    let shape = dataset_shape(&report, args.category.as_deref());
    for inconsistency in shape.inconsistencies() {
        eprintln!("schema: {inconsistency}");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let mut progress = Progress::new(report.samples.len());
    let mut failed_so_far = 0;
    let outcome =
        runtime.block_on(verify_dataset(&python, &report.samples, limits, &CancelToken::new(), &mut |_, check| {
            failed_so_far += usize::from(!check.verdict.is_pass());
            progress.tick(failed_so_far);
        }));
    let summary = outcome.summary;
    // Per category: (samples, passed).
    let mut by_category: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    if let Some(field) = &shape.category_field {
        for (sample, check) in report.samples.iter().zip(&outcome.checks) {
            let category = category_value(sample, field).unwrap_or_else(|| "(none)".to_string());
            let counts = by_category.entry(category).or_insert((0, 0));
            counts.0 += 1;
            counts.1 += usize::from(check.verdict.is_pass());
        }
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
