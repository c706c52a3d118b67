//! The offline source's candidates run in the real engine: clean ones give a value for every
//! input (they are meant to survive a CRUXEval-style filter), the ones made to raise do raise,
//! and the other defects still run (only the filter's rules reject them).
//! Runs RustPython: `cargo test --release --workspace --test recipe offline_runs::`.

use execbench_core::{Outcome, PythonEngine, RunRequest};
use execbench_pyengine::RustPythonEngine;
use execbench_recipe::methods::all_methods;
use execbench_recipe::offline::{Defect, offline_generation};
use execbench_recipe::parse::parse_response;

#[test]
fn offline_candidates_run_as_they_were_made_to() {
    let mut engine = RustPythonEngine::new();
    let mut failures = Vec::new();
    let (mut clean_runs, mut raised_runs) = (0, 0);
    for method in all_methods() {
        for index in 1..=4 {
            let made = offline_generation(&method, 11, index).unwrap();
            let parsed = parse_response(&format!("{method}-{index}"), &method, &made.text);
            for candidate in &parsed.candidates {
                let result = engine.run(&RunRequest::new(candidate.code.clone(), format!("f({})", candidate.input)));
                let raised = matches!(result.outcome, Outcome::Raised { .. });
                let ok = match made.defect {
                    Some(Defect::Raises) => raised,
                    _ => matches!(result.outcome, Outcome::Value { .. }),
                };
                if made.defect.is_none() {
                    clean_runs += 1;
                }
                if raised {
                    raised_runs += 1;
                }
                if !ok {
                    failures.push(format!(
                        "{} ({:?}): f({}) -> {}\n{}",
                        candidate.id,
                        made.defect,
                        candidate.input,
                        result.outcome.summary(),
                        candidate.code
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} candidates did not run as made:\n{}", failures.len(), failures.join("\n\n"));
    assert!(clean_runs > 500 && raised_runs > 0, "{clean_runs} clean runs, {raised_runs} raised");
}
