//! `execbench build filter`: every candidate through the filter with RustPython; kept rows (with
//! their computed output) and rejected rows (with the rule, its detail and the blamed line) go to
//! two files; the last line on stdout counts kept and rejected per rule.

use execbench_core::PythonEngine;
use execbench_dataset_jobs::build_filter::FilterTally;
use execbench_recipe::{
    Candidate, Judged, Verdict, check_static, filter_one, judge_run, kept_jsonl, read_candidates, rejected_jsonl,
    runtime_request,
};

use crate::progress::Progress;
use crate::python::Workers;

#[derive(clap::Args, Debug)]
pub struct FilterArgs {
    /// The candidates (`{id, method, code, input}` a line)
    #[arg(long, value_name = "FILE")]
    candidates: String,
    /// Where the kept rows go, with their computed output
    #[arg(long, value_name = "KEPT.jsonl")]
    out: String,
    /// Where the rejected rows go, with the rule that rejected each
    #[arg(long, value_name = "REJECTED.jsonl")]
    rejected: String,
    /// How long a candidate may run [default: the filter's own budget]
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
}

/// Returns the process exit code: 0 once it ran (bad rows are named on stderr and skipped).
pub fn run(args: &FilterArgs) -> Result<i32, String> {
    let (path, out, rejected_path) = (args.candidates.as_str(), args.out.as_str(), args.rejected.as_str());
    let time_ms = args.time_limit.map(crate::args::time_limit).transpose()?.map(|limits| limits.time_ms);
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let (candidates, errors) = read_candidates(path, &String::from_utf8_lossy(&bytes));
    for error in &errors {
        eprintln!("invalid row: {error}");
    }
    let mut engine = Workers::of_this_binary()?.engine();
    let mut tally = FilterTally::default();
    let mut judged = Vec::with_capacity(candidates.len());
    let mut progress = Progress::new(candidates.len());
    for candidate in candidates {
        let verdict = judge(&mut engine, &candidate, time_ms);
        tally.add(&verdict);
        progress.tick(tally.rejected());
        judged.push(Judged { candidate, verdict });
    }
    std::fs::write(out, kept_jsonl(&judged)).map_err(|e| format!("cannot write {out}: {e}"))?;
    std::fs::write(rejected_path, rejected_jsonl(&judged)).map_err(|e| format!("cannot write {rejected_path}: {e}"))?;
    println!(
        "{} candidates, {} invalid rows; kept rows in {out}, rejected rows in {rejected_path}",
        judged.len(),
        errors.len()
    );
    println!("{}", tally.summary());
    Ok(0)
}

/// The filter as the library runs it, with the run's time budget replaced when one is given.
fn judge<E: PythonEngine>(engine: &mut E, candidate: &Candidate, time_ms: Option<u32>) -> Verdict {
    let Some(time_ms) = time_ms else {
        return filter_one(engine, candidate);
    };
    if let Some(rejection) = check_static(candidate) {
        return Verdict::Rejected(rejection);
    }
    let mut request = runtime_request(candidate);
    request.limits.time_ms = time_ms;
    judge_run(candidate, &engine.run(&request))
}
