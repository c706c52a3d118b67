//! The question task end to end: question samples (as a questions file loads them) rendered with
//! the built-in question template, answered, extracted and judged, every result marked with its
//! kind.

use execbench_core::question::{Question, QuestionKind, Source, Truth};
use execbench_core::{PythonEngine, RunRequest, RunResult, Sample};
use execbench_eval::evaluate::{EvalSettings, evaluate, score_responses};
use execbench_eval::models::{Oracle, TypeDefault};
use execbench_eval::prompt::{Style, default_template};
use execbench_eval::{Mode, ScoreOptions, Task};

const CODE: &str = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    if total > 100:\n        return None\n    return total";

/// An engine that must never be asked: judging a question runs nothing.
struct NoEngine;

impl PythonEngine for NoEngine {
    fn run(&mut self, request: &RunRequest) -> RunResult {
        panic!("a question's answer ran Python: {}", request.program)
    }
}

fn question(n: usize, kind: QuestionKind, line: Option<u32>, variable: Option<&str>, truth: Truth) -> Sample {
    Question {
        id: format!("s/{}/{n}", kind.label()),
        kind,
        code: CODE.into(),
        call: "f([1, 2])".into(),
        line,
        variable: variable.map(str::to_owned),
        visit: line.map(|_| 1),
        truth,
        source: Source { sample: "s".into(), dataset: "mine".into(), seed: 0 },
    }
    .to_sample()
}

fn questions() -> Vec<Sample> {
    vec![
        question(0, QuestionKind::Coverage, Some(6), None, Truth::Runs { runs: false }),
        question(
            1,
            QuestionKind::State,
            Some(4),
            Some("total"),
            Truth::Value { repr: "1".into(), type_name: "int".into() },
        ),
        question(2, QuestionKind::Path, Some(2), None, Truth::NextLine { line: Some(3) }),
        question(3, QuestionKind::Output, None, None, Truth::Output { repr: "3".into() }),
    ]
}

fn plan(n: usize) -> EvalSettings {
    EvalSettings {
        template: default_template(Task::Question, Style::Direct),
        n,
        modes: vec![Mode::Strict, Mode::Compatible],
        options: ScoreOptions::default(),
    }
}

#[test]
fn the_prompt_numbers_the_lines_and_asks_the_samples_question() {
    let samples = questions();
    let template = default_template(Task::Question, Style::Direct);
    let state = template.render(&samples[1]).text();
    for part in [
        "\n4          total += x\n",
        "The call: `f([1, 2])`",
        "Right after its 1st run, what value does the variable `total` hold?",
    ] {
        assert!(state.contains(part), "{part:?} not in:\n{state}");
    }
    let path = template.render(&samples[2]).text();
    assert!(path.contains("after the 1st run of line 2 (`total = 0`), which line"), "{path}");
    // An ordinary sample has no question: the placeholder is empty, never a panic.
    let plain = Sample::new("p", "def f(x):\n    return x", "f", "1", "1");
    assert!(template.render(&plain).text().ends_with("then answer.\n\n\n"));
}

#[test]
fn the_oracle_is_right_on_every_kind_and_a_baseline_is_not() {
    let samples = questions();
    let oracle = evaluate(&mut Oracle::default(), &mut NoEngine, &samples, &plan(2), &mut |_, _| {});
    for (results, summary) in oracle.results.iter().zip(&oracle.summaries) {
        assert_eq!((summary.samples, summary.correct), (4, 8), "{:?}", summary.mode);
        let kinds: Vec<_> = results.iter().map(|r| r.question).collect();
        assert_eq!(kinds, QuestionKind::ALL.map(Some));
    }
    // `None` for a value, `yes` for coverage, `return` for path: wrong on each of these.
    let baseline = evaluate(&mut TypeDefault, &mut NoEngine, &samples, &plan(1), &mut |_, _| {});
    let verdicts: Vec<&str> = baseline.results[0].iter().map(|r| r.answers[0].verdict.label()).collect();
    assert_eq!(verdicts, ["wrong_value", "wrong_value", "wrong_value", "wrong_value"]);
}

/// (sample, response, strict verdict, compatible verdict)
#[test]
fn responses_are_judged_by_the_kind_of_question() {
    let samples = questions();
    let cases: &[(usize, &str, &str, &str)] = &[
        (0, "Line 6 is a return that never runs.\n[ANSWER]No.[/ANSWER]", "correct", "correct"),
        (0, "[ANSWER]maybe[/ANSWER]", "extraction_failed", "extraction_failed"),
        (1, "[ANSWER]1.0[/ANSWER]", "wrong_value", "correct"),
        (1, "[ANSWER]total[/ANSWER]", "not_a_literal", "not_a_literal"),
        (2, "[ANSWER]line 3[/ANSWER]", "correct", "correct"),
        (2, "[ANSWER]return[/ANSWER]", "wrong_value", "wrong_value"),
        (3, "[ANSWER]\n3\n[/ANSWER]", "correct", "correct"),
        (3, "[ANSWER]True[/ANSWER]", "wrong_value", "wrong_value"),
    ];
    for (index, response, strict, compatible) in cases {
        let got: Vec<&str> = [Mode::Strict, Mode::Compatible]
            .map(|mode| {
                let result = score_responses(
                    &mut NoEngine,
                    &samples[*index],
                    &plan(1),
                    mode,
                    None,
                    &Ok(vec![response.to_string()]),
                    false,
                );
                result.answers[0].verdict.label()
            })
            .to_vec();
        assert_eq!(got, [*strict, *compatible], "{response}");
    }
    // A question task over a sample with no question is an error that names it.
    let plain = Sample::new("p", "def f(x):\n    return x", "f", "1", "1");
    let result = score_responses(
        &mut NoEngine,
        &plain,
        &plan(1),
        Mode::Strict,
        None,
        &Ok(vec!["[ANSWER]1[/ANSWER]".into()]),
        false,
    );
    assert_eq!(
        result.answers[0].verdict.to_string(),
        "error: sample `p` holds no question (its row has no `kind` and `truth`)"
    );
}
