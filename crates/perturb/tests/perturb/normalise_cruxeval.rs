//! CodeCrash's baseline on all 800 CRUXEval samples: each program normalised by `ast.unparse` in
//! execbench's engine (RustPython) must be exactly the text CPython's `ast.unparse` gives (the
//! machine's `python3`, run here over the same programs), and must run to the same output.

use std::io::Write;
use std::process::{Command, Stdio};

use execbench_core::{Limits, Sample};
use execbench_perturb::normalise::{is_normalised, normalise};
use execbench_pyengine::RustPythonEngine;

const DATASET: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cruxeval/cruxeval.jsonl");

fn samples() -> Vec<Sample> {
    let report =
        execbench_core::load_jsonl("cruxeval.jsonl", &std::fs::read_to_string(DATASET).expect("the bundled dataset"));
    assert!(report.errors.is_empty() && report.samples.len() == 800);
    report.samples
}

/// CPython's `ast.unparse` of every program, in order (JSON in, JSON out).
fn cpython_unparse(samples: &[Sample]) -> Vec<String> {
    let script = "import ast, json, sys\nprint(json.dumps([ast.unparse(ast.parse(c)) for c in json.load(sys.stdin)]))";
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs (CPython is on every machine of this kind)");
    let codes: Vec<&str> = samples.iter().map(|s| s.code.as_str()).collect();
    child.stdin.take().unwrap().write_all(serde_json::to_string(&codes).unwrap().as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn every_program_normalises_as_cpython_does_and_still_runs_to_its_output() {
    let samples = samples();
    let cpython = cpython_unparse(&samples);
    let mut engine = RustPythonEngine::new();
    let limits = Limits { time_ms: 5_000, max_steps: 0 };
    let mut changed = 0;
    let mut differ = Vec::new();
    for (sample, expected) in samples.iter().zip(&cpython) {
        let normalised = normalise(&mut engine, sample, Some(limits)).unwrap_or_else(|e| panic!("{}: {e}", sample.id));
        assert!(is_normalised(&normalised));
        if normalised.code.trim_end() != expected.trim_end() {
            differ.push(format!("{}:\n{}\n--- CPython:\n{expected}", sample.id, normalised.code));
        }
        changed += usize::from(normalised.code.trim_end() != sample.code.trim_end());
        // Normalising twice changes nothing (and runs nothing).
        assert_eq!(normalise(&mut engine, &normalised, None).unwrap(), normalised);
    }
    assert!(differ.is_empty(), "{} programs differ from CPython's ast.unparse:\n{}", differ.len(), differ.join("\n\n"));
    let changed_by_cpython = samples.iter().zip(&cpython).filter(|(s, c)| s.code.trim_end() != c.trim_end()).count();
    assert_eq!(changed, changed_by_cpython);
    println!("ast.unparse changed {changed} of 800 programs; all 800 equal CPython's and verify");
}
