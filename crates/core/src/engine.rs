//! The one interface every Python engine offers: run a program, then evaluate an expression in
//! the same fresh globals, within limits. RustPython natively and in the Web Worker implement it;
//! verification, scoring and perturbation checks only ever see this.

use serde::{Deserialize, Serialize};

use crate::trace::{Trace, TraceLimits};

/// Budgets for one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Wall-clock budget for the program and the expression together.
    pub time_ms: u32,
    /// Budget of interpreter trace events (lines, calls, returns); 0 means none.
    pub max_steps: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { time_ms: 2_000, max_steps: 0 }
    }
}

/// What to run: `exec(prelude)` and `exec(program)` in fresh globals, then `eval(expression)` there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRequest {
    /// Run before the program in the same globals, as its own source, so the program's line
    /// numbers stay its own (LeetCode's pre-imports: `crate::program::LEETCODE_PRELUDE`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub prelude: String,
    pub program: String,
    pub expression: String,
    /// When set, also `eval(expected)` and report whether `value == expected` in Python.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    #[serde(default)]
    pub limits: Limits,
    /// When set, the engine records the run's line steps and states (`crate::trace`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceLimits>,
}

impl RunRequest {
    pub fn new(program: impl Into<String>, expression: impl Into<String>) -> Self {
        RunRequest {
            prelude: String::new(),
            program: program.into(),
            expression: expression.into(),
            expected: None,
            limits: Limits::default(),
            trace: None,
        }
    }

    pub fn expecting(mut self, expected: impl Into<String>) -> Self {
        self.expected = Some(expected.into());
        self
    }

    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    pub fn traced(mut self, limits: TraceLimits) -> Self {
        self.trace = Some(limits);
        self
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// The expression evaluated; `repr` of its value. `matches` answers `value == expected`
    /// when the request had an `expected` expression.
    Value { repr: String, matches: Option<bool> },
    /// Python raised: exception type, message, formatted traceback. `phase` says where:
    /// `program`, `expression` or `expected`.
    Raised { kind: String, message: String, traceback: String, phase: String },
    /// The wall-clock budget ran out.
    TimedOut { limit_ms: u32 },
    /// The step budget ran out.
    StepLimit { steps: u64 },
    /// The engine itself failed (the worker died, ran out of memory, or was stopped).
    Crashed { reason: String },
}

impl Outcome {
    /// One line for lists and logs.
    pub fn summary(&self) -> String {
        match self {
            Outcome::Value { repr, .. } => repr.clone(),
            Outcome::Raised { kind, message, .. } if message.is_empty() => kind.clone(),
            Outcome::Raised { kind, message, .. } => format!("{kind}: {message}"),
            Outcome::TimedOut { limit_ms } => format!("timed out after {}", seconds(*limit_ms)),
            Outcome::StepLimit { steps } => format!("stopped after {steps} steps (step limit)"),
            Outcome::Crashed { reason } => format!("engine failure: {reason}"),
        }
    }
}

/// `2 s`, `0.5 s`: how the UI and the CLI say a time limit.
pub fn seconds(ms: u32) -> String {
    if ms.is_multiple_of(1000) { format!("{} s", ms / 1000) } else { format!("{} s", ms as f64 / 1000.0) }
}

/// The result of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub outcome: Outcome,
    /// Everything the program printed.
    pub stdout: String,
    /// Time spent in Python, milliseconds.
    pub elapsed_ms: f64,
    /// The recorded steps, when the request asked for them and the engine could record them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<Trace>,
}

/// A Python engine. Every call runs in fresh globals: nothing leaks from one run to the next.
pub trait PythonEngine {
    fn run(&mut self, request: &RunRequest) -> RunResult;
}
