//! `execbench build filter`: every candidate through the filter with RustPython; kept rows (with
//! their computed output) and rejected rows (with the rule, its detail and the blamed line) go to
//! two files; the last line on stdout counts kept and rejected per rule.

use execbench_build::{
    Candidate, Judged, Verdict, check_static, filter_one, judge_run, kept_jsonl, read_candidates, rejected_jsonl,
    runtime_request,
};
use execbench_core::PythonEngine;
use execbench_run::build_filter::FilterTally;

use crate::args::Args;
use crate::progress::Progress;
use crate::python::Workers;

pub const USAGE: &str =
    "execbench build filter --candidates FILE.jsonl --out KEPT.jsonl --rejected REJECTED.jsonl [--time-limit SECONDS]";

/// Returns the process exit code: 0 once it ran (bad rows are named on stderr and skipped).
pub fn run(args: &Args) -> Result<i32, String> {
    args.reject_unknown(&["candidates", "out", "rejected", "time-limit"])?;
    let path = args.required("candidates")?;
    let out = args.required("out")?;
    let rejected_path = args.required("rejected")?;
    let time_ms = match args.optional("time-limit") {
        None => None,
        Some(_) => {
            let seconds: f64 = args.number("time-limit", 2.0)?;
            if !(seconds > 0.0 && seconds <= 3600.0) {
                return Err(format!("--time-limit must be between 0 and 3600 seconds, got {seconds}"));
            }
            Some((seconds * 1000.0).round() as u32)
        }
    };
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
