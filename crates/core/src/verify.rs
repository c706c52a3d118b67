//! Dataset verification: does each sample's call really return its expected output?

use serde::{Deserialize, Serialize};

use crate::engine::{Limits, Outcome, PythonEngine, RunRequest, RunResult};
use crate::sample::{OutputKind, Sample};

/// The verdict on one sample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    /// The call returned something else, raised, or ran out of budget.
    Fail {
        reason: String,
    },
    /// A mismatch explained by a known difference between RustPython and CPython, not by the data.
    EngineDifference {
        reason: String,
    },
}

impl Verdict {
    pub fn is_pass(&self) -> bool {
        matches!(self, Verdict::Pass)
    }
}

/// The check of one sample, with what the call actually gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SampleCheck {
    pub id: String,
    #[serde(flatten)]
    pub verdict: Verdict,
    pub actual: String,
    pub elapsed_ms: f64,
}

/// The request that checks `sample`: run its code (as its dataset's harness would:
/// `crate::program`), evaluate its call, compare with `==` in Python (the comparison CRUXEval's own
/// harness makes).
pub fn request_for(sample: &Sample, limits: Limits) -> RunRequest {
    sample.request(sample.call.clone()).expecting(sample.output.clone()).with_limits(limits)
}

/// Judges an engine's result for `sample`.
pub fn judge(sample: &Sample, result: &RunResult) -> SampleCheck {
    let actual = result.outcome.summary();
    let verdict = match &result.outcome {
        Outcome::Value { matches: Some(true), .. } => Verdict::Pass,
        Outcome::Value { repr, .. } => classify_mismatch(sample, repr),
        Outcome::Raised { phase, .. } if phase == "expected" => {
            Verdict::Fail { reason: format!("the expected output is not a valid Python expression: {actual}") }
        }
        Outcome::Raised { .. } => Verdict::Fail { reason: format!("raised {actual}") },
        _ => Verdict::Fail { reason: actual.clone() },
    };
    SampleCheck { id: sample.id.clone(), verdict, actual, elapsed_ms: result.elapsed_ms }
}

pub fn check_sample(engine: &mut dyn PythonEngine, sample: &Sample, limits: Limits) -> SampleCheck {
    judge(sample, &engine.run(&request_for(sample, limits)))
}

/// RustPython iterates sets in insertion order, CPython by hash: when the only difference is the
/// order of the same characters, both values are collections or strings of the same type (a
/// number's digits are never reordered by iteration) and the code builds a set, the data is not
/// to blame.
fn classify_mismatch(sample: &Sample, actual: &str) -> Verdict {
    let reason = format!("returned {actual}, expected {}", sample.output);
    let uses_sets = sample.code.contains("set(")
        || sample.code.contains("frozenset")
        || actual.contains('{') && !actual.contains(':');
    let kind = OutputKind::of_literal(actual);
    let orderable =
        matches!(kind, OutputKind::Str | OutputKind::List | OutputKind::Tuple | OutputKind::Set | OutputKind::Dict);
    if uses_sets
        && orderable
        && kind == OutputKind::of_literal(&sample.output)
        && same_characters(actual, &sample.output)
    {
        return Verdict::EngineDifference {
            reason: format!("{reason} (same items in another order: set iteration order differs from CPython)"),
        };
    }
    Verdict::Fail { reason }
}

fn same_characters(a: &str, b: &str) -> bool {
    let mut a: Vec<char> = a.chars().collect();
    let mut b: Vec<char> = b.chars().collect();
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

/// Running totals over a verification.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VerifySummary {
    pub passed: usize,
    pub failed: usize,
    pub engine_differences: usize,
    pub elapsed_ms: f64,
    /// Every check that did not pass, in order.
    pub problems: Vec<SampleCheck>,
}

impl VerifySummary {
    pub fn add(&mut self, check: SampleCheck) {
        self.elapsed_ms += check.elapsed_ms;
        match check.verdict {
            Verdict::Pass => self.passed += 1,
            Verdict::Fail { .. } => {
                self.failed += 1;
                self.problems.push(check);
            }
            Verdict::EngineDifference { .. } => {
                self.engine_differences += 1;
                self.problems.push(check);
            }
        }
    }

    pub fn total(&self) -> usize {
        self.passed + self.failed + self.engine_differences
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(code: &str, output: &str) -> Sample {
        Sample::new("s", code, "f", "", output)
    }

    fn value(repr: &str, matches: bool) -> RunResult {
        RunResult {
            outcome: Outcome::Value { repr: repr.into(), matches: Some(matches) },
            stdout: String::new(),
            elapsed_ms: 1.0,
            trace: None,
        }
    }

    #[test]
    fn verdicts() {
        let set_code = "def f():\n    return list(set('abc'))";
        let cases: Vec<(Sample, RunResult, Verdict)> = vec![
            (sample("def f(): return 1", "1"), value("1", true), Verdict::Pass),
            (sample("def f(): return 2", "1"), value("2", false), Verdict::Fail { reason: "returned 2, expected 1".into() }),
            (
                sample(set_code, "['b', 'a', 'c']"),
                value("['a', 'b', 'c']", false),
                Verdict::EngineDifference {
                    reason: "returned ['a', 'b', 'c'], expected ['b', 'a', 'c'] (same items in another order: set iteration order differs from CPython)".into(),
                },
            ),
            // Digits of a number are not set order, even in code that builds sets.
            (
                sample("def f():\n    return len(set('ab')) * 6", "21"),
                value("12", false),
                Verdict::Fail { reason: "returned 12, expected 21".into() },
            ),
            (
                sample("def f():\n    return ''.join(set('abc'))", "'cab'"),
                value("'abc'", false),
                Verdict::EngineDifference { reason: "returned 'abc', expected 'cab' (same items in another order: set iteration order differs from CPython)".into() },
            ),
            (
                sample("def f(): return [1, 2]", "[2, 1]"),
                value("[1, 2]", false),
                Verdict::Fail { reason: "returned [1, 2], expected [2, 1]".into() },
            ),
            (
                sample("def f(): 1/0", "1"),
                RunResult {
                    outcome: Outcome::Raised { kind: "ZeroDivisionError".into(), message: "division by zero".into(), traceback: String::new(), phase: "expression".into() },
                    stdout: String::new(),
                    elapsed_ms: 0.0,
                 trace: None, },
                Verdict::Fail { reason: "raised ZeroDivisionError: division by zero".into() },
            ),
            (
                sample("def f(): pass", "1"),
                RunResult { outcome: Outcome::TimedOut { limit_ms: 2000 }, stdout: String::new(), elapsed_ms: 2000.0, trace: None },
                Verdict::Fail { reason: "timed out after 2 s".into() },
            ),
        ];
        for (sample, result, verdict) in cases {
            assert_eq!(judge(&sample, &result).verdict, verdict, "{}", sample.code);
        }
    }

    #[test]
    fn summary_counts() {
        let mut s = VerifySummary::default();
        s.add(SampleCheck { id: "a".into(), verdict: Verdict::Pass, actual: "1".into(), elapsed_ms: 1.5 });
        s.add(SampleCheck {
            id: "b".into(),
            verdict: Verdict::Fail { reason: "x".into() },
            actual: "2".into(),
            elapsed_ms: 0.5,
        });
        assert_eq!((s.passed, s.failed, s.total(), s.problems.len(), s.elapsed_ms), (1, 1, 2, 1, 2.0));
    }
}
