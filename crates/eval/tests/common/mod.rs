//! The CRUXEval file these tests read: `EXECBENCH_CRUXEVAL`, else the shared copy.

use execbench_core::{Sample, load_jsonl};

pub fn cruxeval() -> Option<Vec<Sample>> {
    let path = std::env::var("EXECBENCH_CRUXEVAL").unwrap_or_else(|_| "/work/shared/data/cruxeval/cruxeval.jsonl".into());
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("SKIPPED: {path} not found (set EXECBENCH_CRUXEVAL)");
        return None;
    };
    let report = load_jsonl(&path, &text);
    assert!(report.is_clean(), "{:?}", &report.errors[..report.errors.len().min(5)]);
    assert_eq!(report.samples.len(), 800);
    Some(report.samples)
}
