//! The CRUXEval file these tests read: the copy bundled with the app (`EXECBENCH_CRUXEVAL`
//! overrides it). A missing file fails the test: nothing is skipped.

use execbench_core::{Sample, load_jsonl};

pub fn cruxeval() -> Vec<Sample> {
    let bundled = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cruxeval/cruxeval.jsonl");
    let path = std::env::var("EXECBENCH_CRUXEVAL").unwrap_or_else(|_| bundled.into());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let report = load_jsonl(&path, &text);
    assert!(report.is_clean(), "{:?}", &report.errors[..report.errors.len().min(5)]);
    assert_eq!(report.samples.len(), 800);
    report.samples
}
