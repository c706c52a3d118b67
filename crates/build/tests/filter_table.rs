//! The filter's table of hand-written candidates (`execbench_build::filter::cases`), natively:
//! each must break exactly the rule listed, or be kept with the output CPython would give.

use execbench_build::filter::cases::CASES;
use execbench_build::{Candidate, Verdict, filter_one};
use execbench_pyengine::RustPythonEngine;

#[test]
fn every_case_gets_its_verdict() {
    assert!(CASES.len() >= 40, "the issue asks for at least 40 cases");
    let mut engine = RustPythonEngine::new();
    let mut wrong = Vec::new();
    for (name, code, input, rule) in CASES {
        let candidate = Candidate { id: name.to_string(), method: None, code: code.to_string(), input: input.to_string() };
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
    }
    assert!(wrong.is_empty(), "{} of {} cases wrong:\n{}", wrong.len(), CASES.len(), wrong.join("\n"));
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
