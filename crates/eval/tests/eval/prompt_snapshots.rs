//! Pins the exact bytes each built-in template gives for a few CRUXEval samples (code with dict
//! braces, outputs with braces, tuple inputs). To rewrite the files after a deliberate change, run
//! with `EXECBENCH_BLESS=1` and read every diff before committing.

use execbench_core::load_jsonl;
use execbench_eval::prompt::{Template, builtin_templates};

const SAMPLES: &str = include_str!("../data/prompt_samples.jsonl");

/// (template id, sample id): one snapshot each.
const CASES: &[(&str, &str)] = &[
    ("output-direct", "sample_0"),
    ("output-cot", "sample_33"),
    ("output-zero-shot", "sample_1"),
    ("input-direct", "sample_11"),
    ("input-cot", "sample_33"),
];

#[test]
fn prompts_match_their_snapshots() {
    let report = load_jsonl("prompt_samples.jsonl", SAMPLES);
    assert!(report.is_clean(), "{:?}", report.errors);
    let templates = builtin_templates();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let bless = bless_requested();
    let mut mismatches = Vec::new();
    for (template_id, sample_id) in CASES {
        let template: &Template = templates.iter().find(|t| t.id == *template_id).expect("built-in template");
        let sample = report.samples.iter().find(|s| s.id == *sample_id).expect("sample in the file");
        let prompt = template.render(sample);
        let rendered = format!(
            "stop: {:?}\n{}",
            prompt.stop,
            prompt.messages.iter().map(|m| format!("--- {}\n{}", m.role, m.content)).collect::<String>()
        );
        let path = dir.join(format!("{template_id}__{sample_id}.txt"));
        if bless {
            std::fs::write(&path, &rendered).expect("write snapshot");
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(expected) if expected == rendered => {}
            Ok(_) => mismatches.push(format!("{} differs", path.display())),
            Err(e) => mismatches.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

/// `EXECBENCH_BLESS` rewrites the snapshots instead of checking them, which turns this test into
/// one that cannot fail: refused where the checks must hold (CI sets `CI=true`).
fn bless_requested() -> bool {
    let bless = std::env::var_os("EXECBENCH_BLESS").is_some();
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(!(bless && ci), "EXECBENCH_BLESS is set under CI=true: snapshots are checked there, never rewritten");
    bless
}
