//! A program's run as the lines it ran: what an engine records when a `RunRequest` asks for a
//! trace, and what questions about the run (coverage, state, next line) are made from.
//!
//! What is recorded, the same for every engine (RustPython in the worker, CPython's reference
//! tracer in `scripts/trace_reference.py`):
//! - a step for each `line` event in a frame of a named function of the program (its code's file
//!   is `<program>`); module code, lambdas, comprehensions and generator expressions (names in
//!   angle brackets) belong to the line that made them and give no steps of their own;
//! - a line that runs again right after itself, with no other step between (a one-line loop, a
//!   comprehension), is one step;
//! - after each step, the function's local variables as `repr` and type name, read at that
//!   frame's next event (its next line, or its return): the state right after the line ran;
//! - for each call, its local variables as the call starts (its arguments): what a question
//!   about "the state before a call's first line" reads (REval's state rule, `reval`);
//! - on the last step of a call, whether it returned or an exception left it (not the value:
//!   RustPython's `return` event does not carry it; the call under test's value is the run's).

use serde::{Deserialize, Serialize};

/// How much a trace may hold; recording stops there (`Trace::truncated`), the run goes on under
/// its own limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceLimits {
    /// Steps (line events of the program's functions).
    pub max_steps: u32,
    /// Bytes of recorded `repr` text, all steps together.
    pub max_bytes: u32,
}

impl Default for TraceLimits {
    fn default() -> Self {
        TraceLimits { max_steps: 10_000, max_bytes: 4 << 20 }
    }
}

/// Longer `repr`s are not kept: the value is recorded as too long (`TracedValue::repr` empty).
pub const MAX_REPR_CHARS: usize = 2_000;

/// The steps of one run, in the order they ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    pub steps: Vec<TraceStep>,
    /// The function of each call, by call number (`TraceStep::call`).
    pub calls: Vec<String>,
    /// Each call's local variables as it started (its arguments), by call number.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<Vec<TracedValue>>,
    /// Each `return` and `exception` event of the program's calls, in order, with where it came
    /// among the steps: REval's tracer counts them as states of their own (`reval`). Not held
    /// against CPython's (`first_difference` leaves them out).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exits: Vec<ExitMark>,
    /// Recording stopped at a `TraceLimits` bound; later steps are missing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// A call's `return` or `exception` trace event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitMark {
    /// How many steps had been recorded when it came.
    pub after: u32,
    pub call: u32,
    /// The frame's line at the event.
    pub line: u32,
    /// An `exception` event (an exception passing through the call), else a `return`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub raised: bool,
}

/// One line that ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceStep {
    /// The program's line number, from 1.
    pub line: u32,
    /// Which call of the program's functions this line ran in, numbered from 0 as calls start.
    pub call: u32,
    /// The call's local variables right after the line ran, in the frame's order.
    pub locals: Vec<TracedValue>,
    /// The call ended right after this line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<CallEnd>,
}

/// How a call ended. What it returned is not recorded: RustPython 0.5 passes `None` with every
/// `return` trace event (`VirtualMachine::dispatch_traced_frame`), where CPython passes the value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum CallEnd {
    Returned,
    /// An exception left the call (its type name).
    Raised {
        kind: String,
    },
}

/// A named value as the tracer saw it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TracedValue {
    /// The variable's name; empty for a returned value.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// `repr(value)`; empty when it was longer than `MAX_REPR_CHARS` or `repr` raised.
    pub repr: String,
    /// `type(value).__name__`.
    #[serde(rename = "type")]
    pub type_name: String,
}

impl Trace {
    /// How many times `line` had run up to and including step `index` (1 for its first run).
    pub fn visit_of(&self, index: usize) -> u32 {
        let line = self.steps[index].line;
        self.steps[..=index].iter().filter(|s| s.line == line).count() as u32
    }

    /// The index of the `visit`-th step (from 1) of `line`.
    pub fn step_of(&self, line: u32, visit: u32) -> Option<usize> {
        self.steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.line == line)
            .nth(visit.checked_sub(1)? as usize)
            .map(|(i, _)| i)
    }

    /// Lines that ran at least once, ascending.
    pub fn covered_lines(&self) -> Vec<u32> {
        let mut lines: Vec<u32> = self.steps.iter().map(|s| s.line).collect();
        lines.sort_unstable();
        lines.dedup();
        lines
    }
}

impl TracedValue {
    /// A value with no name (an expression's value, a returned value).
    pub fn unnamed(repr: impl Into<String>, type_name: impl Into<String>) -> TracedValue {
        TracedValue { name: String::new(), repr: repr.into(), type_name: type_name.into() }
    }

    /// The same value as `other`, as `first_difference` compares them: types by name, values as
    /// literals where both `repr`s are literals, as text (without addresses) otherwise.
    pub fn same_as(&self, other: &TracedValue) -> bool {
        same_value(self, other)
    }
}

impl TraceStep {
    pub fn local(&self, name: &str) -> Option<&TracedValue> {
        self.locals.iter().find(|v| v.name == name)
    }
}

/// The first place two traces of the same run differ, in words; `None` when they agree. Values
/// are compared as literals where both `repr`s are literals (so a set printed in another order
/// is the same set), as text otherwise; types by name.
pub fn first_difference(ours: &Trace, theirs: &Trace) -> Option<String> {
    if ours.truncated != theirs.truncated {
        return Some(format!("truncated: {} against {}", ours.truncated, theirs.truncated));
    }
    let lines = |t: &Trace| t.steps.iter().map(|s| s.line).collect::<Vec<_>>();
    if lines(ours) != lines(theirs) {
        return Some(format!("lines {:?} against {:?}", lines(ours), lines(theirs)));
    }
    if ours.calls != theirs.calls {
        return Some(format!("calls {:?} against {:?}", ours.calls, theirs.calls));
    }
    for (call, (a, b)) in ours.arguments.iter().zip(&theirs.arguments).enumerate() {
        if let Some(difference) = locals_difference(a, b) {
            return Some(format!("call {call} ({}) started with {difference}", ours.calls[call]));
        }
    }
    if ours.arguments.len() != theirs.arguments.len() {
        return Some(format!("arguments of {} calls against {}", ours.arguments.len(), theirs.arguments.len()));
    }
    for (i, (a, b)) in ours.steps.iter().zip(&theirs.steps).enumerate() {
        let at = format!("step {i} (line {})", a.line);
        if a.call != b.call {
            return Some(format!("{at}: call {} against {}", a.call, b.call));
        }
        if let Some(difference) = locals_difference(&a.locals, &b.locals) {
            return Some(format!("{at}: {difference}"));
        }
        let same_end = match (&a.ended, &b.ended) {
            (None, None) => true,
            (Some(CallEnd::Returned), Some(CallEnd::Returned)) => true,
            (Some(CallEnd::Raised { kind: x }), Some(CallEnd::Raised { kind: y })) => x == y,
            _ => false,
        };
        if !same_end {
            return Some(format!("{at}: ended {:?} against {:?}", a.ended, b.ended));
        }
    }
    None
}

/// How two sets of named values differ, in words; `None` when they agree.
fn locals_difference(a: &[TracedValue], b: &[TracedValue]) -> Option<String> {
    let names = |l: &[TracedValue]| l.iter().map(|v| v.name.clone()).collect::<std::collections::BTreeSet<_>>();
    if names(a) != names(b) {
        return Some(format!("locals {:?} against {:?}", names(a), names(b)));
    }
    for value in a {
        let other = b.iter().find(|v| v.name == value.name).expect("same names");
        if !same_value(value, other) {
            return Some(format!(
                "`{}` is {} ({}) against {} ({})",
                value.name, value.repr, value.type_name, other.repr, other.type_name
            ));
        }
    }
    None
}

fn same_value(a: &TracedValue, b: &TracedValue) -> bool {
    if a.type_name != b.type_name {
        return false;
    }
    match (execbench_literal::parse_literal(&a.repr), execbench_literal::parse_literal(&b.repr)) {
        (Ok(x), Ok(y)) => x.canonical() == y.canonical(),
        _ => without_addresses(&a.repr) == without_addresses(&b.repr),
    }
}

/// `<function <lambda> at 0x7f...>` without its address, which no two processes share.
fn without_addresses(repr: &str) -> String {
    let mut out = String::with_capacity(repr.len());
    let mut rest = repr;
    while let Some(at) = rest.find(" at 0x") {
        out.push_str(&rest[..at + " at 0x".len()]);
        rest = rest[at + " at 0x".len()..].trim_start_matches(|c: char| c.is_ascii_hexdigit());
    }
    out.push_str(rest);
    out
}
