//! The filter: static rules first (no Python), then one instrumented run that measures the
//! runtime rules and computes the output. What counts as an operation is defined in
//! `instrument.rs` (which operators are rewritten) and `harness.py` (what each rule checks);
//! `docs/build.md` says it in words.

pub mod cases;
mod instrument;
mod static_rules;
mod syntax;

use std::sync::OnceLock;

use execbench_core::{Limits, Outcome, PythonEngine, RunRequest, RunResult};
use serde_json::Value;

use crate::candidate::Candidate;
use crate::rules::{Rejection, Rule};
use crate::verdict::Verdict;

pub use instrument::{Instrumented, Site, instrument};
pub use static_rules::{FORBIDDEN_ATTRIBUTES, FORBIDDEN_NAMES, code_length, test_snippet};

/// Bumped whenever a rule's meaning changes; written into every export's provenance.
pub const FILTER_VERSION: &str = "2";

/// The recipe's budgets: one call within 2 s and 100,000 steps (lines of the candidate's code run).
pub const TIME_LIMIT_MS: u32 = 2_000;
pub const STEP_LIMIT: u64 = 100_000;

const HARNESS: &str = include_str!("harness.py");
const PRELUDE: &str = include_str!("prelude.py");

/// The module the harness is loaded as, once per engine (versioned: a new filter never meets an
/// old harness left in a long-lived worker).
fn harness_module() -> String {
    format!("_execbench_filter_{FILTER_VERSION}")
}

/// The prelude of a run whose engine has the harness loaded: one import from `sys.modules`.
fn short_prelude() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        format!("from {} import operation as __ebop__, inplace_operation as __ebiop__, builtin_call as __ebcall__, run as __ebrun__\n", harness_module())
    })
}

/// The prelude that loads the harness first (`prelude.py`: its source as a string literal,
/// compiled only when this engine has not loaded it yet).
fn loading_prelude() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut literal = String::with_capacity(HARNESS.len() + HARNESS.len() / 8);
        literal.push('\'');
        for c in HARNESS.chars() {
            match c {
                '\\' => literal.push_str("\\\\"),
                '\'' => literal.push_str("\\'"),
                '\n' => literal.push_str("\\n"),
                c => literal.push(c),
            }
        }
        literal.push('\'');
        PRELUDE.replace("_execbench_filter_VERSION", &harness_module()).replace("HARNESS_SOURCE", &literal)
    })
}

/// The same run, with the prelude that loads the harness: for an engine that answered
/// [`harness_missing`] (a new worker, or one restarted after a time-out).
pub fn loading_harness(mut request: RunRequest) -> RunRequest {
    request.prelude = loading_prelude().to_string();
    request
}

/// Whether a run failed only because its engine has not loaded the harness yet.
pub fn harness_missing(result: &RunResult) -> bool {
    matches!(&result.outcome, Outcome::Raised { kind, message, phase, .. }
        if phase == "program" && matches!(kind.as_str(), "ModuleNotFoundError" | "ImportError") && message.contains(&harness_module()))
}

/// The static rules, in order; the first broken one rejects.
pub fn check_static(candidate: &Candidate) -> Option<Rejection> {
    static_rules::check(candidate)
}

/// The instrumented run of a candidate that passed the static rules: the harness imported as
/// prelude (see [`harness_missing`] for an engine that has not loaded it), the rewritten code as
/// program, and two calls of `f` on fresh copies of the input. The engine's
/// budget covers both calls (the browser's engine has no clock to time one call by itself);
/// `judge_run` holds the two to `TIME_LIMIT_MS` each on average.
pub fn runtime_request(candidate: &Candidate) -> RunRequest {
    let program = instrument(&candidate.code).map(|i| i.program).unwrap_or_else(|| candidate.code.clone());
    let call = format!("lambda: f({})", candidate.input);
    let expression = format!("__ebrun__({call}, {call})");
    RunRequest {
        prelude: short_prelude().to_string(),
        program,
        expression,
        expected: None,
        limits: Limits { time_ms: 2 * TIME_LIMIT_MS + 500, max_steps: 0 },
        trace: None,
    }
}

/// Reads the instrumented run's result: kept with its output, or the rule it broke.
pub fn judge_run(candidate: &Candidate, result: &RunResult) -> Verdict {
    let rejection = match &result.outcome {
        Outcome::Value { .. } if result.elapsed_ms > 2.0 * TIME_LIMIT_MS as f64 => Rejection::new(
            Rule::TimedOut,
            format!(
                "two calls took {:.2} s, more than {} each",
                result.elapsed_ms / 1000.0,
                execbench_core::engine::seconds(TIME_LIMIT_MS)
            ),
        ),
        Outcome::Value { repr, .. } => match serde_json::from_str::<Value>(repr) {
            Ok(report) => return read_report(candidate, &report),
            Err(_) => Rejection::new(Rule::EngineFailure, format!("the harness answered `{}`", clip(repr))),
        },
        Outcome::Raised { kind, message, phase, .. } if phase == "program" && kind == "SyntaxError" => {
            Rejection::new(Rule::Syntax, format!("{kind}: {message}"))
        }
        Outcome::Raised { kind, message, phase, .. } => {
            let when = if phase == "program" { "while defining f" } else { "while calling f" };
            Rejection::new(Rule::Raised, format!("{kind}: {} ({when})", clip(message)))
        }
        Outcome::TimedOut { limit_ms } => Rejection::new(
            Rule::TimedOut,
            format!("still running after {}", execbench_core::engine::seconds(*limit_ms)),
        ),
        Outcome::StepLimit { steps } => Rejection::new(Rule::StepLimit, format!("more than {steps} steps")),
        Outcome::Crashed { reason } => Rejection::new(Rule::EngineFailure, reason.clone()),
    };
    Verdict::Rejected(rejection)
}

fn read_report(candidate: &Candidate, report: &Value) -> Verdict {
    if let Some(output) = report.get("output").and_then(Value::as_str) {
        return Verdict::Kept { output: output.to_string() };
    }
    if let Some([site, rule, detail]) = report.get("broken").and_then(Value::as_array).map(Vec::as_slice) {
        let rule = rule.as_str().and_then(Rule::from_id).unwrap_or(Rule::EngineFailure);
        let mut rejection = Rejection::new(rule, detail.as_str().unwrap_or_default());
        if let Some(site) = site.as_u64().and_then(|s| instrument(&candidate.code)?.sites.into_iter().nth(s as usize)) {
            rejection = rejection.at(site.start, site.end);
        }
        return Verdict::Rejected(rejection);
    }
    if let Some([kind, message, line]) = report.get("raised").and_then(Value::as_array).map(Vec::as_slice) {
        let kind = kind.as_str().unwrap_or("Exception");
        let message = message.as_str().unwrap_or_default();
        let mut detail = if message.is_empty() { kind.to_string() } else { format!("{kind}: {}", clip(message)) };
        let mut rejection = Rejection::new(Rule::Raised, String::new());
        if let Some(line) = line.as_u64().filter(|&l| l > 0) {
            detail = format!("{detail} (line {line})");
            if let Some((start, end)) = line_range(&candidate.code, line as usize) {
                rejection = rejection.at(start, end);
            }
        }
        rejection.detail = detail;
        return Verdict::Rejected(rejection);
    }
    Verdict::Rejected(Rejection::new(
        Rule::EngineFailure,
        format!("the harness answered `{}`", clip(&report.to_string())),
    ))
}

/// The byte range of a 1-based line, without its indentation.
fn line_range(code: &str, line: usize) -> Option<(usize, usize)> {
    let mut start = 0;
    for (index, text) in code.split('\n').enumerate() {
        if index + 1 == line {
            let indent = text.len() - text.trim_start().len();
            return Some((start + indent, start + text.trim_end().len()));
        }
        start += text.len() + 1;
    }
    None
}

fn clip(text: &str) -> String {
    if text.chars().count() <= 120 {
        text.to_string()
    } else {
        format!("{}...", text.chars().take(117).collect::<String>())
    }
}

/// Both stages with a synchronous engine (natively: tests and the CLI).
pub fn filter_one<E: PythonEngine>(engine: &mut E, candidate: &Candidate) -> Verdict {
    if let Some(rejection) = check_static(candidate) {
        return Verdict::Rejected(rejection);
    }
    let request = runtime_request(candidate);
    let mut result = engine.run(&request);
    if harness_missing(&result) {
        result = engine.run(&loading_harness(request));
    }
    judge_run(candidate, &result)
}
