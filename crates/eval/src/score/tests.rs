use execbench_core::{Outcome, Sample};

use super::*;
use crate::fake_engine::FakeEngine;

fn sample(code: &str, input: &str, output: &str) -> Sample {
    Sample::new("s", code, "f", input, output)
}

fn verdict_of(engine: &mut FakeEngine, sample: &Sample, task: Task, mode: Mode, answer: &str) -> Verdict {
    judge(engine, sample, task, mode, &Extraction::verbatim(answer), &Expected::of(sample), &ScoreOptions::default())
}

/// Strict output prediction never runs anything: (expected output, answer, verdict label).
#[test]
fn strict_output_table() {
    let cases: &[(&str, &str, &str)] = &[
        ("[1, 2]", "[1, 2]", "correct"),
        ("[1, 2]", "[1,2]", "correct"),
        ("1", "1.0", "wrong_value"),
        ("1", "True", "wrong_value"),
        ("True", "1", "wrong_value"),
        ("0.5", "0.50", "correct"),
        ("[1, 2]", "(1, 2)", "wrong_value"),
        ("{1, 2, 3}", "{3, 2, 1}", "correct"),
        ("{'a': 1, 'b': 2}", "{'b': 2, 'a': 1}", "correct"),
        ("'a\\tb'", "\"a\\x09b\"", "correct"),
        ("-5", "- 5", "correct"),
        ("(1, 'x', [None])", "(1, 'x', [None])", "correct"),
        ("'abc'", "'ab' + 'c'", "not_a_literal"),
        ("3", "1 + 2", "not_a_literal"),
        ("3", "len('abc')", "not_a_literal"),
        // The attacks: each would pass `assert 3 == <answer>` in Python.
        ("3", "X or True", "not_a_literal"),
        ("3", "3 or True", "not_a_literal"),
        ("3", "True or 3", "not_a_literal"),
        ("3", "f(1)", "not_a_literal"),
        ("3", "type('Any', (), {'__eq__': lambda self, other: True})()", "not_a_literal"),
        ("3", "__import__('sys').exit(0)", "not_a_literal"),
        ("3", "[3][0]", "not_a_literal"),
        ("3", "(3 if True else 0)", "not_a_literal"),
        ("3", "(x := 3)", "not_a_literal"),
        ("3", "3.0", "wrong_value"),
        ("3", "??", "not_a_literal"),
    ];
    let s = sample("def f(x):\n    return x + 2", "1", "3");
    for (expected, answer, label) in cases {
        let s = Sample { output: expected.to_string(), ..s.clone() };
        let mut engine = FakeEngine::new();
        let verdict = verdict_of(&mut engine, &s, Task::Output, Mode::Strict, answer);
        assert_eq!(verdict.label(), *label, "expected {expected}, answer {answer}: {verdict}");
        assert!(engine.requests.is_empty(), "strict output ran the engine for {answer}");
    }
}

/// Strict input prediction: (answer, what the fake engine returns for it, verdict label).
#[test]
fn strict_input_table() {
    let s = sample("def f(x):\n    return x", "3", "3");
    let object = "<__main__.Forged object at 0x7f>";
    let cases: &[(&str, Option<Outcome>, &str)] = &[
        ("f(3)", Some(value("3")), "correct"),
        ("f(x=3)", Some(value("3")), "correct"),
        ("f(*[3])", Some(value("3")), "correct"),
        ("f((lambda: 3)())", Some(value("3")), "correct"),
        ("f(3.0)", Some(value("3.0")), "wrong_value"),
        ("f(True)", Some(value("True")), "wrong_value"),
        ("f(Forged())", Some(value(object)), "not_a_literal"),
        ("f(3)", Some(Outcome::TimedOut { limit_ms: 3000 }), "timeout"),
        ("f(3)", Some(Outcome::StepLimit { steps: 10 }), "timeout"),
        (
            "f('a')",
            Some(Outcome::Raised {
                kind: "TypeError".into(),
                message: "bad".into(),
                traceback: String::new(),
                phase: "expression".into(),
            }),
            "error",
        ),
        // The attacks are refused before anything runs.
        ("f(1) or True", None, "not_a_call"),
        ("True or f(1)", None, "not_a_call"),
        ("3", None, "not_a_call"),
        ("g(3)", None, "not_a_call"),
        ("(lambda: f(3))()", None, "not_a_call"),
        ("[f(3)][0]", None, "not_a_call"),
        ("f(type('Forged', (), {'__eq__': lambda s, o: True, '__repr__': lambda s: '3'})())", None, "not_a_call"),
        ("f(__import__('os').getcwd())", None, "not_a_call"),
        ("f((3).__class__)", None, "not_a_call"),
        ("f(getattr(int, 'real'))", None, "not_a_call"),
        ("f(eval('3'))", None, "not_a_call"),
        ("f(globals())", None, "not_a_call"),
        ("f(3", None, "not_a_call"),
    ];
    for (answer, outcome, label) in cases {
        let mut engine = match outcome {
            Some(outcome) => FakeEngine::new().rule(answer, outcome.clone()),
            None => FakeEngine::new(),
        };
        let verdict = verdict_of(&mut engine, &s, Task::Input, Mode::Strict, answer);
        assert_eq!(verdict.label(), *label, "{answer}: {verdict}");
        assert_eq!(engine.requests.len(), usize::from(outcome.is_some()), "{answer}: runs");
        if let Some(request) = engine.requests.first() {
            assert_eq!((request.program.as_str(), request.expression.as_str()), (s.code.as_str(), *answer));
            assert_eq!(request.limits.time_ms, COMPATIBLE_TIME_LIMIT_MS);
        }
    }
}

fn value(repr: &str) -> Outcome {
    Outcome::Value { repr: repr.into(), matches: None }
}

/// Compatible mode: (task, answer, fake outcome of `assert <expected> == <answer>`, verdict label).
#[test]
fn compatible_table() {
    let s = sample("def f(x):\n    return x * 2", "2", "4");
    let passes = || Some(value("None"));
    let fails = || {
        Some(Outcome::Raised {
            kind: "AssertionError".into(),
            message: String::new(),
            traceback: String::new(),
            phase: "program".into(),
        })
    };
    let cases: Vec<(Task, &str, Option<Outcome>, &str)> = vec![
        (Task::Output, "4", passes(), "correct"),
        (Task::Output, "5", fails(), "wrong_value"),
        // Python's == decides, so what strict mode refuses passes here.
        (Task::Output, "4.0", passes(), "correct"),
        (Task::Output, "X or True", passes(), "correct"),
        (Task::Output, "2 + 2", passes(), "correct"),
        // The drop rule.
        (Task::Output, "f(2)", None, "dropped"),
        (Task::Output, "f(2) + 0", None, "dropped"),
        (Task::Output, "f(1) * 2", fails(), "wrong_value"),
        (Task::Input, "f(2)", passes(), "correct"),
        (Task::Input, "f(3)", fails(), "wrong_value"),
        (Task::Input, "2", None, "dropped"),
        (Task::Input, "g(2)", None, "dropped"),
        (Task::Output, "4", Some(Outcome::TimedOut { limit_ms: 3000 }), "timeout"),
        (
            Task::Output,
            "nope(",
            Some(Outcome::Raised {
                kind: "SyntaxError".into(),
                message: "invalid syntax".into(),
                traceback: String::new(),
                phase: "program".into(),
            }),
            "error",
        ),
    ];
    for (task, answer, outcome, label) in cases {
        let assertion = format!("assert 4 == {answer}");
        let mut engine = match &outcome {
            Some(outcome) => FakeEngine::new().rule(&assertion, outcome.clone()),
            None => FakeEngine::new(),
        };
        let verdict = verdict_of(&mut engine, &s, task, Mode::Compatible, answer);
        assert_eq!(verdict.label(), label, "{task:?} {answer}: {verdict}");
        assert_eq!(engine.requests.len(), usize::from(outcome.is_some()), "{answer}: runs");
        if let Some(request) = engine.requests.first() {
            assert_eq!(request.program, format!("{}\n{assertion}", s.code));
            assert_eq!(request.limits.time_ms, 3000);
        }
    }
}

#[test]
fn failed_extractions_are_wrong_in_both_modes() {
    let s = sample("def f(x):\n    return x", "1", "1");
    let failed = crate::extract::extract("no idea", Task::Output);
    for mode in Mode::ALL {
        let verdict =
            judge(&mut FakeEngine::new(), &s, Task::Output, mode, &failed, &Expected::of(&s), &ScoreOptions::default());
        assert_eq!(verdict.label(), "extraction_failed", "{mode:?}");
    }
}

#[test]
fn expected_output_that_is_not_a_literal_is_an_error_not_a_pass() {
    let s = sample("def f(x):\n    return x", "1", "object()");
    let verdict = verdict_of(&mut FakeEngine::new(), &s, Task::Output, Mode::Strict, "object()");
    assert_eq!(verdict.label(), "not_a_literal");
    let mut engine = FakeEngine::new().value("f(1)", "1");
    let verdict = verdict_of(&mut engine, &s, Task::Input, Mode::Strict, "f(1)");
    assert!(
        matches!(&verdict, Verdict::Error { message } if message.contains("expected output `object()` is not a literal")),
        "{verdict}"
    );
}

/// How verdicts become n, c and pass@k in each mode: (mode, verdicts, n, correct, pass@1, pass@5).
#[test]
fn counting_table() {
    let c = || Verdict::Correct;
    let w = || Verdict::WrongValue { got: "1".into(), expected: "2".into() };
    let d = || Verdict::Dropped { why: "x".into() };
    let cases: Vec<(Mode, Vec<Verdict>, usize, usize, Option<f64>, Option<f64>)> = vec![
        (Mode::Strict, vec![c(), d(), d(), w()], 4, 1, Some(0.25), None),
        // Dropping the two answers inflates the sample from 1/4 to 1/2.
        (Mode::Compatible, vec![c(), d(), d(), w()], 2, 1, Some(0.5), None),
        // Nothing passed: all-false over every answer.
        (Mode::Compatible, vec![d(), w(), d()], 3, 0, Some(0.0), None),
        (Mode::Compatible, vec![d(), d()], 2, 0, Some(0.0), None),
        (Mode::Strict, vec![w(), w(), w(), w(), c()], 5, 1, Some(0.2), Some(1.0)),
        (Mode::Compatible, vec![w(), w(), d(), w(), w(), c()], 5, 1, Some(0.2), Some(1.0)),
        (Mode::Strict, vec![w(), w(), d(), w(), w(), c()], 6, 1, Some(1.0 / 6.0), Some(5.0 / 6.0)),
        (Mode::Strict, vec![], 0, 0, None, None),
    ];
    for (mode, verdicts, n, correct, p1, p5) in cases {
        let labels: Vec<&str> = verdicts.iter().map(Verdict::label).collect();
        let score = SampleScore::from_verdicts(mode, verdicts);
        assert_eq!((score.n, score.correct), (n, correct), "{mode:?} {labels:?}");
        for (got, want) in [(score.pass_at_1, p1), (score.pass_at_5, p5)] {
            match (got, want) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-12, "{mode:?} {labels:?}: {g} vs {w}"),
                _ => assert_eq!(got, want, "{mode:?} {labels:?}"),
            }
        }
    }
}

#[test]
fn verdicts_serialize_with_their_reason() {
    let v = Verdict::WrongValue { got: "1".into(), expected: "2".into() };
    assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"verdict":"wrong_value","got":"1","expected":"2"}"#);
    assert_eq!(v.to_string(), "wrong value: got 1, expected 2");
}

/// Every verdict has its own plain words, none of them its machine label's spelling with
/// underscores: (verdict, label, words).
#[test]
fn verdicts_in_words() {
    let d = || "d".to_string();
    let cases = [
        (Verdict::Correct, "correct", "right"),
        (Verdict::WrongValue { got: "1".into(), expected: "2".into() }, "wrong_value", "wrong value"),
        (Verdict::NotALiteral { detail: d() }, "not_a_literal", "not a literal"),
        (Verdict::NotACall { detail: d() }, "not_a_call", "not a plain call"),
        (Verdict::ExtractionFailed { detail: d() }, "extraction_failed", "no answer found"),
        (Verdict::Timeout { detail: d() }, "timeout", "timed out"),
        (Verdict::Error { message: d() }, "error", "raised an error"),
        (Verdict::Dropped { why: d() }, "dropped", "dropped"),
    ];
    for (verdict, label, words) in &cases {
        assert_eq!((verdict.label(), verdict.words()), (*label, *words), "{verdict:?}");
    }
    let mut all: Vec<&str> = cases.iter().map(|c| c.0.words()).collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), cases.len(), "two verdicts read the same");
}
