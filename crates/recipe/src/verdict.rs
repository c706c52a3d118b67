//! What the filter says about one candidate.

use serde::{Deserialize, Serialize};

use crate::candidate::Candidate;
use crate::rules::Rejection;

/// Kept with its computed output (a Python literal, `repr` of the value), or rejected by a rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    Kept { output: String },
    Rejected(Rejection),
}

impl Verdict {
    pub fn is_kept(&self) -> bool {
        matches!(self, Verdict::Kept { .. })
    }

    pub fn rejection(&self) -> Option<&Rejection> {
        match self {
            Verdict::Rejected(r) => Some(r),
            Verdict::Kept { .. } => None,
        }
    }
}

/// A candidate with its verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judged {
    pub candidate: Candidate,
    pub verdict: Verdict,
}
