//! Every bundled CRUXEval sample returns its expected output in the engine.

use execbench_core::verify::{Verdict, VerifySummary, check_sample};
use execbench_core::{Limits, load_jsonl_bytes};
use execbench_pyengine::RustPythonEngine;

#[test]
fn all_800_cruxeval_samples_pass() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cruxeval/cruxeval.jsonl");
    let report = load_jsonl_bytes("cruxeval.jsonl", &std::fs::read(path).expect("the bundled dataset"));
    assert!(report.is_clean(), "{:?}", report.errors);
    assert_eq!(report.samples.len(), 800);
    let mut engine = RustPythonEngine::new();
    let mut summary = VerifySummary::default();
    for sample in &report.samples {
        summary.add(check_sample(&mut engine, sample, Limits::default()));
    }
    let problems: Vec<String> = summary
        .problems
        .iter()
        .map(|p| match &p.verdict {
            Verdict::Fail { reason } | Verdict::EngineDifference { reason } => format!("{}: {reason}", p.id),
            Verdict::Pass => unreachable!(),
        })
        .collect();
    assert_eq!(summary.passed, 800, "failures:\n{}", problems.join("\n"));
}
