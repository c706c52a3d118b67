//! The filter: static rules first (no Python), then one instrumented run that measures the
//! runtime rules and computes the output.

use execbench_core::{PythonEngine, RunRequest, RunResult};

use crate::candidate::Candidate;
use crate::rules::Rejection;
use crate::verdict::Verdict;

/// Bumped whenever a rule's meaning changes; written into every export's provenance.
pub const FILTER_VERSION: &str = "1";

/// The static rules, in order; the first broken one rejects.
pub fn check_static(candidate: &Candidate) -> Option<Rejection> {
    let _ = candidate;
    todo!("static rules")
}

/// The instrumented run of a candidate that passed the static rules.
pub fn runtime_request(candidate: &Candidate) -> RunRequest {
    let _ = candidate;
    todo!("instrumented run")
}

/// Reads the instrumented run's result: kept with its output, or the runtime rule it broke.
pub fn judge_run(candidate: &Candidate, result: &RunResult) -> Verdict {
    let _ = (candidate, result);
    todo!("runtime verdict")
}

/// Both stages with a synchronous engine (natively: tests and the CLI).
pub fn filter_one<E: PythonEngine>(engine: &mut E, candidate: &Candidate) -> Verdict {
    if let Some(rejection) = check_static(candidate) {
        return Verdict::Rejected(rejection);
    }
    judge_run(candidate, &engine.run(&runtime_request(candidate)))
}
