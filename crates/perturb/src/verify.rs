//! Verification: the perturbed program, run with its call, must give the original's result.
//! Printed output is captured by the engine and not compared.

use std::fmt;

use execbench_core::{Limits, Outcome, PythonEngine, RunRequest, Sample};
use serde::{Deserialize, Serialize};

use crate::kinds::hint::hint_is_wrong;
use crate::{Perturbed, Program};

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
    let request = RunRequest::new(perturbed.code.clone(), perturbed.call.clone()).expecting(original.output.clone()).with_limits(limits);
    match engine.run(&request).outcome {
        Outcome::Value { matches: Some(true), .. } => {}
        Outcome::Value { repr, .. } => {
            let baseline = engine.run(&RunRequest::new(original.code.clone(), original.call.clone()).with_limits(limits)).outcome;
            match baseline {
                Outcome::Value { repr: original_repr, .. } if original_repr == repr => {}
                _ => return Err(VerifyFailure::Mismatch { expected: original.output.clone(), actual: repr }),
            }
        }
        other => return Err(failure_of(other, &original.output)),
    }
    if let Some(hint) = &perturbed.hint {
        let program = Program { code: original.code.clone(), call: original.call.clone(), function_name: original.function_name.clone() };
        match hint_is_wrong(engine, &program, &original.output, hint, limits) {
            Ok(true) => {}
            Ok(false) => return Err(VerifyFailure::HintNotWrong { claimed: hint.claimed.clone(), reason: "it equals the true answer".to_string() }),
            Err(reason) => return Err(VerifyFailure::HintNotWrong { claimed: hint.claimed.clone(), reason }),
        }
    }
    Ok(())
}
