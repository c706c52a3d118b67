//! Judging an answer to a question about a program's run (`crate::question`), with the verdicts
//! output prediction uses; nothing is executed.
//! - coverage: `yes`/`no` (also `true`/`false`), any letter case, a final `.` allowed;
//! - path: a line number, or `return` (also `none`, `-1`: REval's word for "no next line");
//! - state and output: a Python literal, read by execbench's parser. **Strict** compares with
//!   type-aware equality (`1`, `1.0` and `True` differ; set and dict order does not matter);
//!   **compatible** accepts what Python's `==` would between the two literals (`1 == 1.0 ==
//!   True`, a list never equal to a tuple).

use execbench_core::question::{Question, Truth};
use execbench_literal::{PyValue, parse_literal};

use super::{Mode, Verdict};
use crate::extract::{Extraction, extract_text};

/// The verdict on a model's whole response to `question`.
pub fn judge_response(question: &Question, response: &str, mode: Mode) -> Verdict {
    match extract_text(response) {
        Extraction::Found { answer, .. } => judge_answer(question, &answer, mode),
        Extraction::Failed { detail, .. } => Verdict::ExtractionFailed { detail },
    }
}

/// The verdict on an extracted answer.
pub fn judge_answer(question: &Question, answer: &str, mode: Mode) -> Verdict {
    let answer = answer.trim();
    let wrong = || Verdict::WrongValue { got: answer.to_owned(), expected: question.truth.answer_text() };
    match &question.truth {
        Truth::Runs { runs } => match yes_or_no(answer) {
            Some(said) if said == *runs => Verdict::Correct,
            Some(_) => wrong(),
            None => Verdict::ExtractionFailed { detail: format!("`{}` is neither yes nor no", short(answer)) },
        },
        Truth::NextLine { line } => match next_line(answer) {
            Some(said) if said == *line => Verdict::Correct,
            Some(_) => wrong(),
            None => Verdict::ExtractionFailed {
                detail: format!("`{}` is neither a line number nor `return`", short(answer)),
            },
        },
        Truth::Value { repr, .. } | Truth::Output { repr } => {
            let got = match parse_literal(answer) {
                Ok(value) => value,
                Err(why) => return Verdict::NotALiteral { detail: why.0 },
            };
            let want = match parse_literal(repr) {
                Ok(value) => value,
                Err(why) => {
                    return Verdict::Error { message: format!("the truth `{}` is not a literal: {why}", short(repr)) };
                }
            };
            let same = match mode {
                Mode::Strict => got == want,
                Mode::Compatible => python_equal(&got, &want),
            };
            if same { Verdict::Correct } else { wrong() }
        }
    }
}

fn yes_or_no(answer: &str) -> Option<bool> {
    let word = answer.trim().trim_end_matches('.').trim_matches('`').trim().to_ascii_lowercase();
    match word.as_str() {
        "yes" | "true" => Some(true),
        "no" | "false" => Some(false),
        _ => None,
    }
}

/// `Some(Some(n))` for a line, `Some(None)` for "returns", `None` when neither.
fn next_line(answer: &str) -> Option<Option<u32>> {
    let word = answer.trim().trim_end_matches('.').trim_matches('`').trim().to_ascii_lowercase();
    let word = word.strip_prefix("line").map(str::trim).unwrap_or(&word);
    match word {
        "return" | "returns" | "none" | "-1" => Some(None),
        _ => word.parse::<u32>().ok().filter(|&n| n > 0).map(Some),
    }
}

/// Python's `==` between two literal values: numbers across `bool`, `int` and `float` by value;
/// containers of the same kind element by element (a set or a dict by membership).
pub fn python_equal(a: &PyValue, b: &PyValue) -> bool {
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return x == y || (x.is_nan() && y.is_nan() && a == b);
    }
    match (a, b) {
        (PyValue::List(x), PyValue::List(y)) | (PyValue::Tuple(x), PyValue::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| python_equal(p, q))
        }
        (PyValue::Set(x) | PyValue::FrozenSet(x), PyValue::Set(y) | PyValue::FrozenSet(y)) => {
            x.iter().all(|p| y.iter().any(|q| python_equal(p, q)))
                && y.iter().all(|q| x.iter().any(|p| python_equal(p, q)))
        }
        (PyValue::Dict(x), PyValue::Dict(y)) => {
            let holds = |from: &[(PyValue, PyValue)], to: &[(PyValue, PyValue)]| {
                from.iter().all(|(k, v)| to.iter().any(|(k2, v2)| python_equal(k, k2) && python_equal(v, v2)))
            };
            holds(x, y) && holds(y, x)
        }
        _ => a == b,
    }
}

/// Ints beyond f64's exact range compare by their digits instead (through `==`).
fn number(value: &PyValue) -> Option<f64> {
    match value {
        PyValue::Bool(b) => Some(f64::from(u8::from(*b))),
        PyValue::Int(digits) if digits.trim_start_matches('-').len() <= 15 => digits.parse().ok(),
        PyValue::Float(f) => Some(*f),
        _ => None,
    }
}

fn short(text: &str) -> String {
    let mut out: String = text.chars().take(60).collect();
    if text.chars().count() > 60 {
        out.push('…');
    }
    out
}

/// How far a model got along one program's chain of questions, asked in the order
/// coverage, state, path, output: the number of kinds answered right before the first wrong
/// one (execbench's own measure of consistency; REval weighs its chain differently).
pub fn chain_depth(verdicts_in_order: &[bool]) -> usize {
    verdicts_in_order.iter().take_while(|right| **right).count()
}
