//! The filter's table of hand-written candidates (`execbench_recipe::filter::cases`), natively:
//! each must break exactly the rule listed, or be kept with the output CPython would give.

use execbench_pyengine::RustPythonEngine;
use execbench_recipe::filter::cases::CASES;
use execbench_recipe::{Candidate, Verdict, filter_one};

#[test]
fn every_case_gets_its_verdict() {
    assert!(CASES.len() >= 40, "the issue asks for at least 40 cases");
    let mut engine = RustPythonEngine::new();
    let mut wrong = Vec::new();
    let mut kept = Vec::new();
    for (name, code, input, rule) in CASES {
        let candidate =
            Candidate { id: name.to_string(), method: None, code: code.to_string(), input: input.to_string() };
        let verdict = filter_one(&mut engine, &candidate);
        let got = verdict.rejection().map(|r| r.rule);
        if got != *rule {
            wrong.push(format!("{name}: expected {:?}, got {verdict:?}", rule.map(|r| r.id())));
        }
        if let Verdict::Rejected(r) = &verdict
            && let Some((start, end)) = r.at
        {
            assert!(start < end && end <= code.len(), "{name}: span {start}..{end} outside the code");
        }
        if let Verdict::Kept { output } = &verdict {
            kept.push((name.to_string(), code.to_string(), input.to_string(), output.clone()));
        }
    }
    assert!(wrong.is_empty(), "{} of {} cases wrong:\n{}", wrong.len(), CASES.len(), wrong.join("\n"));
    // A kept candidate's output is the one CPython gives (the machine's `python3`).
    assert!(kept.len() >= 5, "the table keeps a few candidates: {}", kept.len());
    let cpython = cpython_outputs(&kept);
    for ((name, _, _, ours), theirs) in kept.iter().zip(&cpython) {
        assert_eq!(ours, theirs, "{name}: the kept output against CPython's");
    }
}

/// `repr(f(input))` of each (name, code, input, _) in CPython, one process for all.
fn cpython_outputs(cases: &[(String, String, String, String)]) -> Vec<String> {
    let program = r#"
import json, sys
for case in json.load(sys.stdin):
    scope = {}
    exec(case["code"], scope)
    print(json.dumps(repr(eval("f(" + case["input"] + ")", scope))))
"#;
    let cases: Vec<serde_json::Value> =
        cases.iter().map(|(_, code, input, _)| serde_json::json!({"code": code, "input": input})).collect();
    let mut child = std::process::Command::new("python3")
        .args(["-c", program])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("CPython (python3) runs");
    use std::io::Write;
    child.stdin.take().unwrap().write_all(serde_json::Value::from(cases).to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "CPython failed");
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str::<String>(l).unwrap()).collect()
}

#[test]
fn a_rejection_points_at_the_operation() {
    let code = "def f(a, b):\n    product = a * b\n    return [product, str(product).zfill(6), len(str(product))]";
    let candidate = Candidate { id: "x".into(), method: None, code: code.into(), input: "12, 34".into() };
    let Verdict::Rejected(r) = filter_one(&mut RustPythonEngine::new(), &candidate) else { panic!("kept") };
    let (start, end) = r.at.expect("a span");
    assert_eq!(&code[start..end], "a * b");
    assert_eq!(r.line(code), Some(2));
    assert!(r.detail.contains("12 * 34"), "{}", r.detail);
}

#[test]
fn a_new_engine_loads_the_harness_once() {
    use execbench_core::PythonEngine;
    let candidate = Candidate {
        id: "x".into(),
        method: None,
        code: "def f(text):\n    return text.upper()\n".into(),
        input: "'ab'".into(),
    };
    let mut engine = RustPythonEngine::new();
    let request = execbench_recipe::runtime_request(&candidate);
    assert!(execbench_recipe::harness_missing(&engine.run(&request)), "a fresh engine has no harness");
    let loaded = engine.run(&execbench_recipe::loading_harness(request.clone()));
    assert!(!execbench_recipe::harness_missing(&loaded));
    let again = engine.run(&request);
    assert!(!execbench_recipe::harness_missing(&again), "{:?}", again.outcome);
    assert_eq!(execbench_recipe::judge_run(&candidate, &again), execbench_recipe::judge_run(&candidate, &loaded));
}
