//! Judging answers, in two modes that are both reported.
//!
//! **Strict** (the default) cannot be gamed:
//! - output prediction: the answer must be a literal ([`crate::literal`]): nothing runs. It is
//!   compared with the expected output in Rust, by type-aware structural equality;
//! - input prediction: the answer must be a call of the function under test, as a whole (so
//!   `f(1) or True` is refused), whose arguments use no dunder or private names and none of the
//!   reflective builtins ([`FORBIDDEN_NAMES`]), so they cannot build objects with a forged
//!   `__eq__`/`__repr__` or import anything. The call runs with the time budget; the `repr` of what
//!   it returns must parse as a literal and equal the expected output in the same type-aware way.
//! - dropped, unextractable or unparseable answers count as wrong: `n` is every answer given.
//!
//! **Compatible** reproduces the rule of CRUXEval's own scorer, so published numbers
//! can be compared:
//! - it executes `<program>\nassert <expected output> == <answer>` (for input prediction the
//!   answer is the predicted call) with a 3 s limit; whatever Python's `==` says goes. Nothing is
//!   put before the program (no block of imports), as in the CRUXEval scorer;
//! - the drop rule: an output answer that contains the sample's call verbatim (`f(<input>)`) and
//!   an input answer that does not contain `<function name>(` are *dropped*: removed from the
//!   sample's list rather than counted wrong, so `n` shrinks;
//! - if no remaining answer passes (all dropped, or none right), the sample scores all-false over
//!   every answer given, the dropped ones counted in `n`;
//! - an answer that could not be extracted from a raw response is never dropped: it counts as
//!   wrong (the CRUXEval scorer takes answers extracted already and has no such case).
//!
//! Why compatible inflates scores: dropping shrinks `n` only for samples that have a correct
//! answer, so a wrong answer that happens to be dropped stops counting against the model
//! (3 answers passing out of 10 given, 5 of them dropped, is pass@1 = 3/5 instead of 3/10); and
//! Python's `==` accepts `1 == 1.0 == True`, `X or True`, answers that are expressions the model
//! did not simplify, and objects with a forged `__eq__`. (Some versions of the CRUXEval scorer
//! count the answers the rule names as wrong instead of dropping them, which never scores higher.)
//!
//! pass@k is the same estimator in both modes ([`crate::passk`]), with one deliberate difference
//! from the official code: when `n < k` (fewer than k answers given or, in compatible mode, left
//! after drops) we report the figure as not available and leave the sample out of the mean,
//! where the official estimator returns 1.0 whenever `n - c < k`, even with no correct answer.
//! So with n = 5 or 10 answers and many drops our pass@5 can come out lower than a published one
//! (it averages over fewer samples, and those left out would have counted 1.0); the summary says
//! over how many samples each figure is taken.

use std::fmt;

use execbench_core::{Limits, Outcome, PythonEngine, RunRequest, RunResult, Sample};
use ruff_python_ast::Expr;
use ruff_python_ast::visitor::{Visitor, walk_expr};
use serde::{Deserialize, Serialize};

use crate::extract::Extraction;
use crate::literal::{NotLiteral, PyValue, parse_expression_guarded, parse_literal};
use crate::passk::pass_at_k;
use crate::task::Task;

/// How answers are judged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    #[default]
    Strict,
    Compatible,
}

impl Mode {
    pub const ALL: [Mode; 2] = [Mode::Strict, Mode::Compatible];

    pub fn label(self) -> &'static str {
        match self {
            Mode::Strict => "strict",
            Mode::Compatible => "compatible",
        }
    }

    pub fn from_label(label: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.label() == label)
    }
}

/// The time limit of the official scorer.
pub const COMPATIBLE_TIME_LIMIT_MS: u32 = 3_000;

/// Budgets for the runs scoring needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoreOptions {
    pub limits: Limits,
}

impl Default for ScoreOptions {
    fn default() -> Self {
        ScoreOptions { limits: Limits { time_ms: COMPATIBLE_TIME_LIMIT_MS, max_steps: 0 } }
    }
}

/// The verdict on one answer, with its reason when it is not correct.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    Correct,
    /// A well-formed answer with the wrong value.
    WrongValue {
        got: String,
        expected: String,
    },
    /// Strict output: the answer (or, strict input, the call's result) is not a literal.
    NotALiteral {
        detail: String,
    },
    /// Strict input: the answer is not a plain call of the function under test, or its
    /// arguments use names that could forge a result.
    NotACall {
        detail: String,
    },
    ExtractionFailed {
        detail: String,
    },
    /// The time or step budget ran out.
    Timeout {
        detail: String,
    },
    /// Python raised, or the engine failed.
    Error {
        message: String,
    },
    /// Compatible mode only: removed from the sample's list (see the module documentation).
    Dropped {
        why: String,
    },
}

impl Verdict {
    pub fn is_correct(&self) -> bool {
        matches!(self, Verdict::Correct)
    }

    /// Short machine-friendly name, for filters and tables.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Correct => "correct",
            Verdict::WrongValue { .. } => "wrong_value",
            Verdict::NotALiteral { .. } => "not_a_literal",
            Verdict::NotACall { .. } => "not_a_call",
            Verdict::ExtractionFailed { .. } => "extraction_failed",
            Verdict::Timeout { .. } => "timeout",
            Verdict::Error { .. } => "error",
            Verdict::Dropped { .. } => "dropped",
        }
    }

    /// The verdict in plain words, for people reading a results table (the label stays the
    /// name for filters, tests and files).
    pub fn words(&self) -> &'static str {
        match self {
            Verdict::Correct => "right",
            Verdict::WrongValue { .. } => "wrong value",
            Verdict::NotALiteral { .. } => "not a literal",
            Verdict::NotACall { .. } => "not a plain call",
            Verdict::ExtractionFailed { .. } => "no answer found",
            Verdict::Timeout { .. } => "timed out",
            Verdict::Error { .. } => "raised an error",
            Verdict::Dropped { .. } => "dropped",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Correct => f.write_str("correct"),
            Verdict::WrongValue { got, expected } => write!(f, "wrong value: got {got}, expected {expected}"),
            Verdict::NotALiteral { detail } => write!(f, "not a literal: {detail}"),
            Verdict::NotACall { detail } => write!(f, "not a call of the function: {detail}"),
            Verdict::ExtractionFailed { detail } => write!(f, "extraction failed: {detail}"),
            Verdict::Timeout { detail } => write!(f, "timeout: {detail}"),
            Verdict::Error { message } => write!(f, "error: {message}"),
            Verdict::Dropped { why } => write!(f, "dropped: {why}"),
        }
    }
}

/// The expected output of a sample, parsed once for all its answers.
#[derive(Clone, Debug)]
pub struct Expected {
    pub text: String,
    pub value: Result<PyValue, NotLiteral>,
}

impl Expected {
    pub fn of(sample: &Sample) -> Self {
        Expected { text: sample.output.trim().to_string(), value: parse_literal(&sample.output) }
    }
}

/// What judging one answer needs next: nothing (the verdict is known) or one engine run. This
/// shape lets a caller whose engine is asynchronous (a Web Worker) drive the runs itself.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Done(Verdict),
    Run(RunRequest),
}

/// The first half of judging: decide without running, or say what to run.
pub fn plan(
    sample: &Sample,
    task: Task,
    mode: Mode,
    extraction: &Extraction,
    expected: &Expected,
    options: &ScoreOptions,
) -> Step {
    let answer = match extraction {
        Extraction::Found { answer, .. } => answer.trim(),
        Extraction::Failed { detail, .. } => return Step::Done(Verdict::ExtractionFailed { detail: detail.clone() }),
    };
    match mode {
        Mode::Strict => plan_strict(sample, task, answer, expected, options),
        Mode::Compatible => plan_compatible(sample, task, answer, expected, options),
    }
}

/// The second half: the verdict from the run [`plan`] asked for.
pub fn conclude(mode: Mode, answer: &str, expected: &Expected, result: &RunResult) -> Verdict {
    match (&result.outcome, mode) {
        (Outcome::Value { .. }, Mode::Compatible) => Verdict::Correct,
        (Outcome::Value { repr, .. }, Mode::Strict) => match (parse_literal(repr), &expected.value) {
            (Err(why), _) => Verdict::NotALiteral {
                detail: format!("the call returned `{}`, which is not a literal ({why})", short(repr)),
            },
            (Ok(_), Err(why)) => bad_expected(expected, why),
            (Ok(got), Ok(want)) if got == *want => Verdict::Correct,
            (Ok(_), Ok(_)) => Verdict::WrongValue { got: repr.clone(), expected: expected.text.clone() },
        },
        (Outcome::Raised { kind, .. }, Mode::Compatible) if kind == "AssertionError" => {
            Verdict::WrongValue { got: answer.to_string(), expected: expected.text.clone() }
        }
        (Outcome::Raised { .. } | Outcome::Crashed { .. }, _) => Verdict::Error { message: result.outcome.summary() },
        (Outcome::TimedOut { .. } | Outcome::StepLimit { .. }, _) => {
            Verdict::Timeout { detail: result.outcome.summary() }
        }
    }
}

/// Judges one answer, running the engine when needed.
pub fn judge(
    engine: &mut dyn PythonEngine,
    sample: &Sample,
    task: Task,
    mode: Mode,
    extraction: &Extraction,
    expected: &Expected,
    options: &ScoreOptions,
) -> Verdict {
    match plan(sample, task, mode, extraction, expected, options) {
        Step::Done(verdict) => verdict,
        Step::Run(request) => {
            let result = engine.run(&request);
            conclude(mode, extraction.answer().unwrap_or(""), expected, &result)
        }
    }
}

fn plan_strict(sample: &Sample, task: Task, answer: &str, expected: &Expected, options: &ScoreOptions) -> Step {
    match task {
        Task::Output => Step::Done(match (parse_literal(answer), &expected.value) {
            (Err(why), _) => Verdict::NotALiteral { detail: why.0 },
            (Ok(_), Err(why)) => bad_expected(expected, why),
            (Ok(got), Ok(want)) if got == *want => Verdict::Correct,
            (Ok(_), Ok(_)) => Verdict::WrongValue { got: answer.to_string(), expected: expected.text.clone() },
        }),
        Task::Input => match checked_call(answer, &sample.function_name) {
            Err(detail) => Step::Done(Verdict::NotACall { detail }),
            Ok(()) => Step::Run(sample.request(answer.to_string()).with_limits(options.limits)),
        },
        Task::Question => Step::Done(judge_question(sample, answer, Mode::Strict)),
    }
}

fn plan_compatible(sample: &Sample, task: Task, answer: &str, expected: &Expected, options: &ScoreOptions) -> Step {
    if task == Task::Question {
        return Step::Done(judge_question(sample, answer, Mode::Compatible));
    }
    let dropped = match task {
        Task::Output if answer.contains(sample.call.trim()) => {
            Some(format!("the answer contains the call `{}`", short(&sample.call)))
        }
        Task::Input if !answer.contains(&format!("{}(", sample.function_name)) => {
            Some(format!("the answer does not call `{}`", sample.function_name))
        }
        _ => None,
    };
    if let Some(why) = dropped {
        return Step::Done(Verdict::Dropped { why });
    }
    // The assertion follows the code as the harness runs it (a `class Solution` method gets its caller first).
    let mut request = sample.request("None");
    request.program = format!("{}\nassert {} == {}", request.program, expected.text, answer);
    Step::Run(request.with_limits(options.limits))
}

/// A question sample's answer, judged against the truth it holds: nothing runs.
fn judge_question(sample: &Sample, answer: &str, mode: Mode) -> Verdict {
    match execbench_core::question::Question::from_sample(sample) {
        Some(Ok(question)) => question::judge_answer(&question, answer, mode),
        Some(Err(why)) => Verdict::Error { message: why },
        None => Verdict::Error {
            message: format!("sample `{}` holds no question (its row has no `kind` and `truth`)", sample.id),
        },
    }
}

fn bad_expected(expected: &Expected, why: &NotLiteral) -> Verdict {
    Verdict::Error {
        message: format!("the dataset's expected output `{}` is not a literal: {why}", short(&expected.text)),
    }
}

/// Names an argument of a strict input answer may not use: with them an expression could build a
/// class (`type`), reach into interpreter state, or run arbitrary code.
pub const FORBIDDEN_NAMES: &[&str] = &[
    "eval",
    "exec",
    "compile",
    "getattr",
    "setattr",
    "delattr",
    "globals",
    "locals",
    "vars",
    "type",
    "object",
    "super",
    "open",
    "input",
    "breakpoint",
    "help",
    "exit",
    "quit",
    "classmethod",
    "staticmethod",
    "property",
    "memoryview",
    "dir",
    "id",
    "hash",
];

/// `Ok` when `answer` is, as a whole, a call of `function_name` with harmless arguments.
fn checked_call(answer: &str, function_name: &str) -> Result<(), String> {
    let expr = parse_expression_guarded(answer)?;
    let Expr::Call(call) = &expr else {
        return Err(format!(
            "`{}` is {}, not a call of `{function_name}`",
            short(answer),
            crate::literal::describe(&expr)
        ));
    };
    match &*call.func {
        Expr::Name(name) if name.id.as_str() == function_name => {}
        _ => return Err(format!("`{}` does not call `{function_name}` directly", short(answer))),
    }
    let mut guard = ForbiddenNames::default();
    for arg in call.arguments.args.iter() {
        guard.visit_expr(arg);
    }
    for keyword in call.arguments.keywords.iter() {
        guard.visit_expr(&keyword.value);
    }
    match guard.found {
        Some(name) => Err(format!("the arguments use `{name}`, which could forge the result")),
        None => Ok(()),
    }
}

#[derive(Default)]
struct ForbiddenNames {
    found: Option<String>,
}

impl<'a> Visitor<'a> for ForbiddenNames {
    fn visit_expr(&mut self, expr: &'a Expr) {
        if self.found.is_some() {
            return;
        }
        match expr {
            Expr::Name(name) if name.id.starts_with('_') || FORBIDDEN_NAMES.contains(&name.id.as_str()) => {
                self.found = Some(name.id.to_string());
            }
            Expr::Attribute(attribute) if attribute.attr.as_str().starts_with('_') => {
                self.found = Some(format!(".{}", attribute.attr.as_str()));
            }
            _ => walk_expr(self, expr),
        }
    }
}

fn short(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// Every answer's verdict for one sample, and what pass@k makes of them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleScore {
    pub verdicts: Vec<Verdict>,
    /// Answers counted: all of them in strict mode; in compatible mode the ones not dropped, or all
    /// of them when none passed.
    pub n: usize,
    pub correct: usize,
    pub dropped: usize,
    pub pass_at_1: Option<f64>,
    pub pass_at_5: Option<f64>,
}

impl SampleScore {
    /// Counts verdicts the way `mode` does.
    pub fn from_verdicts(mode: Mode, verdicts: Vec<Verdict>) -> Self {
        let correct = verdicts.iter().filter(|v| v.is_correct()).count();
        let dropped = verdicts.iter().filter(|v| matches!(v, Verdict::Dropped { .. })).count();
        let n = match mode {
            Mode::Compatible if correct > 0 => verdicts.len() - dropped,
            _ => verdicts.len(),
        };
        SampleScore {
            n,
            correct,
            dropped,
            pass_at_1: pass_at_k(n, correct, 1),
            pass_at_5: pass_at_k(n, correct, 5),
            verdicts,
        }
    }

    pub fn pass_at(&self, k: usize) -> Option<f64> {
        pass_at_k(self.n, self.correct, k)
    }
}

/// Judges every answer a model gave for one sample.
pub fn score_answers(
    engine: &mut dyn PythonEngine,
    sample: &Sample,
    task: Task,
    mode: Mode,
    answers: &[Extraction],
    options: &ScoreOptions,
) -> SampleScore {
    let expected = Expected::of(sample);
    let verdicts = answers.iter().map(|answer| judge(engine, sample, task, mode, answer, &expected, options)).collect();
    SampleScore::from_verdicts(mode, verdicts)
}

pub mod question;

#[cfg(test)]
mod tests;
