//! Trace questions, made from real traces (RustPython, the engine the page runs): one table of
//! programs, questions and truths per kind; the seeded choice; judging; the 800 CRUXEval samples.

use execbench_core::trace::{Trace, TraceLimits};
use execbench_core::{Limits, PythonEngine, Sample, load_jsonl_bytes};
use execbench_eval::score::{Mode, Verdict};
use execbench_pyengine::RustPythonEngine;
use execbench_trace_questions::{
    MakeOptions, Question, QuestionKind, Truth, chain_depth, judge_response, make_questions, prompt, truth_at,
};

fn trace(engine: &mut RustPythonEngine, sample: &Sample) -> Trace {
    let request = sample
        .request(sample.call.clone())
        .with_limits(Limits { time_ms: 10_000, max_steps: 0 })
        .traced(TraceLimits::default());
    engine.run(&request).trace.expect("a traced run returns its trace")
}

const LOOP: &str = "def f(xs):\n    total = 0\n    for x in xs:\n        if x > 1:\n            total += x\n        else:\n            total -= 1\n    return total";
const CALLS: &str = "def double(v):\n    return v * 2\n\ndef f(a):\n    b = double(a)\n    c = [b, a]\n    return c";
const WHILE: &str =
    "def f(s):\n    i = 0\n    while i < len(s) and s[i] == ' ':\n        i += 1\n    out = s[i:]\n    return out";

/// (program, input, kind, line, variable, visit, the truth as a model should write it)
const CASES: &[(&str, &str, QuestionKind, u32, &str, u32, &str)] = &[
    (LOOP, "[1, 2, 3]", QuestionKind::Coverage, 5, "", 1, "yes"),
    (LOOP, "[1, 2, 3]", QuestionKind::Coverage, 7, "", 1, "yes"),
    (LOOP, "[2, 3]", QuestionKind::Coverage, 7, "", 1, "no"),
    (LOOP, "[]", QuestionKind::Coverage, 4, "", 1, "no"),
    (LOOP, "[]", QuestionKind::Coverage, 8, "", 1, "yes"),
    (LOOP, "[1, 2, 3]", QuestionKind::State, 5, "total", 1, "1"),
    (LOOP, "[1, 2, 3]", QuestionKind::State, 5, "total", 2, "4"),
    (LOOP, "[1, 2, 3]", QuestionKind::State, 7, "total", 1, "-1"),
    (LOOP, "[1, 2, 3]", QuestionKind::Path, 7, "", 1, "3"),
    (LOOP, "[1, 2, 3]", QuestionKind::Path, 3, "", 4, "8"),
    (LOOP, "[1, 2, 3]", QuestionKind::Path, 8, "", 1, "return"),
    (LOOP, "[1, 2, 3]", QuestionKind::Output, 0, "", 1, "4"),
    (CALLS, "3", QuestionKind::Coverage, 2, "", 1, "yes"),
    (CALLS, "3", QuestionKind::State, 5, "b", 1, "6"),
    (CALLS, "3", QuestionKind::State, 6, "c", 1, "[6, 3]"),
    // Into the called function, and back to the caller's next line.
    (CALLS, "3", QuestionKind::Path, 5, "", 1, "2"),
    (CALLS, "3", QuestionKind::Path, 2, "", 1, "6"),
    (WHILE, "'  ab'", QuestionKind::State, 4, "i", 2, "2"),
    (WHILE, "'  ab'", QuestionKind::Path, 4, "", 2, "3"),
    (WHILE, "'  ab'", QuestionKind::Path, 3, "", 3, "5"),
    (WHILE, "'  ab'", QuestionKind::State, 5, "out", 1, "'ab'"),
    (WHILE, "'ab'", QuestionKind::Coverage, 4, "", 1, "no"),
];

#[test]
fn each_kind_reads_its_truth_from_the_trace() {
    let mut engine = RustPythonEngine::new();
    let mut wrong = Vec::new();
    for (program, input, kind, line, variable, visit, expected) in CASES {
        let sample = Sample::new("case", program, "f", input, "None");
        let mut sample = sample;
        // The output case's expected value comes from the engine: the trace questions take the
        // dataset's output as the truth.
        if *kind == QuestionKind::Output {
            sample.output = expected.to_string();
        }
        let trace = trace(&mut engine, &sample);
        match truth_at(&sample, &trace, *kind, *line, variable, *visit) {
            Ok(truth) if truth.answer_text() == *expected => {}
            other => wrong.push(format!(
                "{} line {line} `{variable}` run {visit} of f({input}): {other:?}, expected {expected}",
                kind.label()
            )),
        }
    }
    assert!(wrong.is_empty(), "{} of {} cases wrong:\n{}", wrong.len(), CASES.len(), wrong.join("\n"));
}

#[test]
fn a_question_the_trace_cannot_answer_says_why() {
    let mut engine = RustPythonEngine::new();
    let sample = Sample::new("s", LOOP, "f", "[1, 2, 3]", "4");
    let trace = trace(&mut engine, &sample);
    let cases: &[(QuestionKind, u32, &str, u32, &str)] = &[
        (QuestionKind::State, 5, "total", 3, "line 5 runs 2 times, not 3"),
        (QuestionKind::State, 2, "nothing", 1, "`nothing` is not bound"),
        (QuestionKind::Coverage, 6, "", 1, "line 6 is in no statement"),
        (QuestionKind::Path, 4, "", 9, "line 4 runs 3 times, not 9"),
    ];
    for (kind, line, variable, visit, says) in cases {
        let err = truth_at(&sample, &trace, *kind, *line, variable, *visit).unwrap_err();
        assert!(err.contains(says), "{}: {err}", kind.label());
    }
}

/// (kind's truth, response, strict verdict label, compatible verdict label)
#[test]
fn answers_are_judged_as_words_numbers_and_literals() {
    let question = |truth: Truth| Question {
        id: "q".into(),
        kind: match truth {
            Truth::Runs { .. } => QuestionKind::Coverage,
            Truth::Value { .. } => QuestionKind::State,
            Truth::NextLine { .. } => QuestionKind::Path,
            Truth::Output { .. } => QuestionKind::Output,
        },
        code: LOOP.into(),
        call: "f([1])".into(),
        line: Some(5),
        variable: None,
        visit: Some(1),
        truth,
        source: execbench_trace_questions::Source { sample: "s".into(), dataset: String::new(), seed: 0 },
    };
    let value = |repr: &str, ty: &str| Truth::Value { repr: repr.into(), type_name: ty.into() };
    let cases: Vec<(Truth, &str, &str, &str)> = vec![
        (Truth::Runs { runs: true }, "[ANSWER]yes[/ANSWER]", "correct", "correct"),
        (Truth::Runs { runs: true }, "I think so.\n[ANSWER] Yes. [/ANSWER]", "correct", "correct"),
        (Truth::Runs { runs: false }, "[ANSWER]yes[/ANSWER]", "wrong_value", "wrong_value"),
        (Truth::Runs { runs: false }, "[ANSWER]maybe[/ANSWER]", "extraction_failed", "extraction_failed"),
        (Truth::NextLine { line: Some(3) }, "[ANSWER]3[/ANSWER]", "correct", "correct"),
        (Truth::NextLine { line: Some(3) }, "[ANSWER]line 3[/ANSWER]", "correct", "correct"),
        (Truth::NextLine { line: Some(3) }, "[ANSWER]4[/ANSWER]", "wrong_value", "wrong_value"),
        (Truth::NextLine { line: None }, "[ANSWER]return[/ANSWER]", "correct", "correct"),
        (Truth::NextLine { line: None }, "[ANSWER]-1[/ANSWER]", "correct", "correct"),
        (Truth::NextLine { line: None }, "[ANSWER]8[/ANSWER]", "wrong_value", "wrong_value"),
        (value("4", "int"), "[ANSWER]4[/ANSWER]", "correct", "correct"),
        (value("4", "int"), "[ANSWER]4.0[/ANSWER]", "wrong_value", "correct"),
        (value("1", "int"), "[ANSWER]True[/ANSWER]", "wrong_value", "correct"),
        (value("[6, 3]", "list"), "[ANSWER](6, 3)[/ANSWER]", "wrong_value", "wrong_value"),
        (value("{1, 2}", "set"), "[ANSWER]{2, 1}[/ANSWER]", "correct", "correct"),
        (value("{'a': 1}", "dict"), "[ANSWER]{'a': 1.0}[/ANSWER]", "wrong_value", "correct"),
        (value("'ab'", "str"), "[ANSWER]ab[/ANSWER]", "not_a_literal", "not_a_literal"),
        (
            Truth::Output { repr: "'ab'".into() },
            "<think>it returns 'x'</think>[ANSWER]'ab'[/ANSWER]",
            "correct",
            "correct",
        ),
        (Truth::Output { repr: "'ab'".into() }, "<think>never ends", "extraction_failed", "extraction_failed"),
    ];
    let mut wrong = Vec::new();
    for (truth, response, strict, compatible) in cases {
        let q = question(truth);
        let got = (judge_response(&q, response, Mode::Strict), judge_response(&q, response, Mode::Compatible));
        if (got.0.label(), got.1.label()) != (strict, compatible) {
            wrong
                .push(format!("{:?} / {response:?}: {} / {}, expected {strict} / {compatible}", q.truth, got.0, got.1));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(judge_response(&question(Truth::Runs { runs: true }), "", Mode::Strict).label(), "extraction_failed");
    assert!(matches!(
        judge_response(&question(value("4", "int")), "[ANSWER]5[/ANSWER]", Mode::Strict),
        Verdict::WrongValue { got, expected } if got == "5" && expected == "4"
    ));
}

#[test]
fn a_chain_counts_the_kinds_right_before_the_first_wrong_one() {
    for (verdicts, depth) in
        [(&[true, true, false, true][..], 2), (&[false, true, true, true], 0), (&[true; 4], 4), (&[], 0)]
    {
        assert_eq!(chain_depth(verdicts), depth, "{verdicts:?}");
    }
}

fn cruxeval() -> Vec<Sample> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cruxeval/cruxeval.jsonl");
    load_jsonl_bytes("cruxeval.jsonl", &std::fs::read(path).expect("the bundled dataset")).samples
}

/// On the 800 CRUXEval samples: every kind is made for most samples, ids are unique, each
/// question's truth is the one `truth_at` reads at its place, coverage asks about lines that ran
/// and lines that did not, the same seed makes the same questions and another seed others, and
/// every prompt quotes its line.
#[test]
fn the_800_cruxeval_samples_give_questions_of_every_kind() {
    let samples = cruxeval();
    let mut engine = RustPythonEngine::new();
    let options = |seed| MakeOptions { seed, per_kind: 2, dataset: "cruxeval".into(), ..MakeOptions::default() };
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    let (mut ran, mut not_ran, mut changed_by_seed) = (0, 0, 0);
    let mut ids = std::collections::HashSet::new();
    for sample in &samples {
        let trace = trace(&mut engine, sample);
        let made = make_questions(sample, &trace, &options(7)).unwrap_or_else(|why| panic!("{}: {why}", sample.id));
        assert_eq!(made, make_questions(sample, &trace, &options(7)).unwrap(), "{}: the same seed", sample.id);
        if made != make_questions(sample, &trace, &options(8)).unwrap() {
            changed_by_seed += 1;
        }
        for q in &made.questions {
            assert!(ids.insert(q.id.clone()), "repeated id {}", q.id);
            *counts.entry(q.kind.label()).or_default() += 1;
            let again = truth_at(
                sample,
                &trace,
                q.kind,
                q.line.unwrap_or(0),
                q.variable.as_deref().unwrap_or(""),
                q.visit.unwrap_or(1),
            );
            assert_eq!(again.as_ref(), Ok(&q.truth), "{}", q.id);
            match q.truth {
                Truth::Runs { runs: true } => ran += 1,
                Truth::Runs { runs: false } => not_ran += 1,
                _ => {}
            }
            let text = prompt(q);
            if let Some(line) = q.line {
                let quoted = sample.code.lines().nth(line as usize - 1).unwrap().trim();
                assert!(text.contains(&format!("line {line} (`{quoted}`)")), "{}:\n{text}", q.id);
            }
        }
    }
    eprintln!(
        "questions made: {counts:?}; coverage ran {ran}, did not run {not_ran}; changed by the seed: {changed_by_seed}"
    );
    // Two a kind a sample at most; many programs have one assignment of a plain name or none.
    for (kind, least) in [("coverage", 1400), ("state", 600), ("path", 1400), ("output", 800)] {
        assert!(counts[kind] >= least, "{kind}: {} questions from 800 samples, expected {least} or more", counts[kind]);
    }
    assert!(not_ran >= 200 && ran >= 800, "coverage: ran {ran}, did not run {not_ran}");
    assert!(changed_by_seed >= 400, "another seed changes the questions of {changed_by_seed} samples");
}

mod reval;
