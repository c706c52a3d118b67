//! Verification: the perturbed program, run with its call, must give the original's result.
//! Printed output is captured by the engine and not compared.

use std::fmt;

use execbench_core::{Limits, Outcome, PythonEngine, RunRequest, Sample};
use serde::{Deserialize, Serialize};

use crate::kinds::hint::{hint_request, hint_verdict};
use crate::{Hint, Perturbed, Program};

/// Why a perturbed program failed verification.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "failure", rename_all = "snake_case")]
pub enum VerifyFailure {
    /// It returned something else.
    Mismatch { expected: String, actual: String },
    /// It raised. `phase`: `program`, `expression` or `expected`.
    Raised { kind: String, message: String, phase: String },
    TimedOut { limit_ms: u32 },
    StepLimit { steps: u64 },
    /// The engine failed.
    Crashed { reason: String },
    /// MHC: the hint's claimed answer is in fact right, or could not be evaluated.
    HintNotWrong { claimed: String, reason: String },
}

impl fmt::Display for VerifyFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VerifyFailure::Mismatch { expected, actual } => write!(f, "returned {actual}, expected {expected}"),
            VerifyFailure::Raised { kind, message, phase } => write!(f, "raised {kind}: {message} (in the {phase})"),
            VerifyFailure::TimedOut { limit_ms } => write!(f, "timed out after {}", execbench_core::engine::seconds(*limit_ms)),
            VerifyFailure::StepLimit { steps } => write!(f, "stopped after {steps} steps (step limit)"),
            VerifyFailure::Crashed { reason } => write!(f, "engine failure: {reason}"),
            VerifyFailure::HintNotWrong { claimed, reason } => write!(f, "the hint's answer {claimed} is not wrong: {reason}"),
        }
    }
}

fn failure_of(outcome: Outcome, expected: &str) -> VerifyFailure {
    match outcome {
        Outcome::Value { repr, .. } => VerifyFailure::Mismatch { expected: expected.to_string(), actual: repr },
        Outcome::Raised { kind, message, phase, .. } => VerifyFailure::Raised { kind, message, phase },
        Outcome::TimedOut { limit_ms } => VerifyFailure::TimedOut { limit_ms },
        Outcome::StepLimit { steps } => VerifyFailure::StepLimit { steps },
        Outcome::Crashed { reason } => VerifyFailure::Crashed { reason },
    }
}

/// Runs the perturbed code and call and compares with `original.output` (Python `==`). When the
/// engine does not reproduce the original's expected output either (a known engine difference,
/// such as RustPython's set order), the perturbed result must equal the original program's result
/// in the same engine instead. For MHC, the hint's answer must also be shown wrong.
pub fn verify(engine: &mut dyn PythonEngine, original: &Sample, perturbed: &Perturbed, limits: Limits) -> Result<(), VerifyFailure> {
    let (mut verification, mut step) = Verification::start(original, perturbed, limits);
    loop {
        match step {
            Step::Run(request) => step = verification.answer(engine.run(&request).outcome),
            Step::Done(verdict) => return verdict,
        }
    }
}

/// What [`Verification`] needs next: one more run, or nothing (the verdict).
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Run(RunRequest),
    Done(Result<(), VerifyFailure>),
}

/// [`verify`] one run at a time, for callers that run Python asynchronously (the page's worker):
/// `start` gives the first request, each `answer` takes that run's outcome and gives the next step.
#[derive(Clone, Debug)]
pub struct Verification {
    original: Program,
    expected_output: String,
    hint: Option<Hint>,
    limits: Limits,
    waiting_for: Waiting,
}

#[derive(Clone, Debug)]
enum Waiting {
    /// The perturbed program's run.
    Perturbed,
    /// The original program's run in this engine, to compare with the perturbed program's `repr`.
    Baseline { perturbed_repr: String },
    /// MHC: the run that shows the hint wrong.
    Hint,
    Finished,
}

impl Verification {
    pub fn start(original: &Sample, perturbed: &Perturbed, limits: Limits) -> (Verification, Step) {
        let verification = Verification {
            original: Program { code: original.code.clone(), call: original.call.clone(), function_name: original.function_name.clone() },
            expected_output: original.output.clone(),
            hint: perturbed.hint.clone(),
            limits,
            waiting_for: Waiting::Perturbed,
        };
        let request = RunRequest::new(perturbed.code.clone(), perturbed.call.clone()).expecting(original.output.clone()).with_limits(limits);
        (verification, Step::Run(request))
    }

    /// The outcome of the request the last step asked for.
    pub fn answer(&mut self, outcome: Outcome) -> Step {
        match std::mem::replace(&mut self.waiting_for, Waiting::Finished) {
            Waiting::Perturbed => match outcome {
                Outcome::Value { matches: Some(true), .. } => self.check_hint(),
                Outcome::Value { repr, .. } => {
                    self.waiting_for = Waiting::Baseline { perturbed_repr: repr };
                    Step::Run(RunRequest::new(self.original.code.clone(), self.original.call.clone()).with_limits(self.limits))
                }
                other => Step::Done(Err(failure_of(other, &self.expected_output))),
            },
            Waiting::Baseline { perturbed_repr } => match outcome {
                Outcome::Value { repr, .. } if repr == perturbed_repr => self.check_hint(),
                _ => Step::Done(Err(VerifyFailure::Mismatch { expected: self.expected_output.clone(), actual: perturbed_repr })),
            },
            Waiting::Hint => {
                let claimed = self.hint.as_ref().map(|h| h.claimed.clone()).unwrap_or_default();
                Step::Done(match hint_verdict(outcome) {
                    Ok(true) => Ok(()),
                    Ok(false) => Err(VerifyFailure::HintNotWrong { claimed, reason: "it equals the true answer".to_string() }),
                    Err(reason) => Err(VerifyFailure::HintNotWrong { claimed, reason }),
                })
            }
            Waiting::Finished => Step::Done(Err(VerifyFailure::Crashed { reason: "an answer came after the verdict".to_string() })),
        }
    }

    fn check_hint(&mut self) -> Step {
        match &self.hint {
            Some(hint) => {
                self.waiting_for = Waiting::Hint;
                Step::Run(hint_request(&self.original, &self.expected_output, hint, self.limits))
            }
            None => Step::Done(Ok(())),
        }
    }
}
