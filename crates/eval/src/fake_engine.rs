//! A fake Python engine for unit tests: it runs nothing and answers from a table of rules, so
//! tests can pin what the scorer asks for and how it reads each outcome. Real-engine tests live in
//! `tests/` and use `execbench-pyengine`.

use execbench_core::{Outcome, PythonEngine, RunRequest, RunResult};

/// Answers a request with the outcome of the first rule whose text is the request's expression or
/// ends its program; records every request.
#[derive(Default)]
pub struct FakeEngine {
    rules: Vec<(String, Outcome)>,
    pub requests: Vec<RunRequest>,
}

impl FakeEngine {
    pub fn new() -> Self {
        FakeEngine::default()
    }

    pub fn rule(mut self, text: &str, outcome: Outcome) -> Self {
        self.rules.push((text.to_string(), outcome));
        self
    }

    pub fn value(self, text: &str, repr: &str) -> Self {
        self.rule(text, Outcome::Value { repr: repr.to_string(), matches: None })
    }
}

impl PythonEngine for FakeEngine {
    fn run(&mut self, request: &RunRequest) -> RunResult {
        self.requests.push(request.clone());
        let outcome = self
            .rules
            .iter()
            .find(|(text, _)| request.expression == *text || request.program.ends_with(text.as_str()))
            .map(|(_, outcome)| outcome.clone())
            .unwrap_or(Outcome::Crashed {
                reason: format!("the fake engine has no rule for `{}`", request.expression),
            });
        RunResult { outcome, stdout: String::new(), elapsed_ms: 0.0, trace: None }
    }
}
