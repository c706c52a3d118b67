//! REval's benchmark (r-eval/REval: `data/DREval_data.jsonl` and `data/DREval_tasks.jsonl`;
//! Chen et al., ICSE 2025) read as a format a user brings, and REval's ground truth made again
//! from execbench's own trace.
//!
//! REval's files hold programs, inputs and the places asked about, not answers: REval computes
//! each truth at evaluation time with its CPython tracer. Its rules, as its `dynamics.py` and
//! `evaluation.py` apply them (read there; nothing is copied), over the sequence of lines that ran
//! in the program's code (a line that runs again right after itself counted once, and a call's
//! return or exception at another line than the last counted as a line of its own):
//! - coverage: the line ran;
//! - path: the set of lines that ran right after any run of the line (-1 after the last line, and
//!   alone when the line never ran);
//! - state: the expression's values after each run of the line, read from the locals of the
//!   *next* line that ran (wherever that was: a called function's first line, whose locals are
//!   the call's arguments, or the caller's), or from the line's own locals before it ran when it
//!   was the last; REval's `Nil` when the line never ran or no run has the name;
//! - output: HumanEval's expected output; ClassEval's test passes.
//!
//! The half from HumanEval calls `entry_point(*input)`. The half from ClassEval runs a test class's
//! first test method (its setUp first, untraced), as REval does; the test code needs `unittest`,
//! which the engine's standard library leaves out, so a small stand-in with the assertions the
//! tests use is importable while the test code runs (and only then).
//!
//! No I/O: the caller reads the files, runs `RevalRun::request` in its engine and gives back
//! the trace.

use std::collections::BTreeMap;

use execbench_core::trace::{Trace, TraceStep, TracedValue};
use execbench_core::{Outcome, RunRequest};
use execbench_literal::PyValue;
use serde::{Deserialize, Serialize};

/// Which benchmark a REval program comes from (REval's `DREval` index ranges).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Half {
    HumanEval,
    ClassEval,
}

/// The last program index of REval's HumanEval half (`DREval.HUMANEVAL_END`); ClassEval's follow.
pub const HUMANEVAL_LAST: usize = 84;

/// A place REval asks about in one run: the line, and the expression for the state task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevalAsk {
    pub line: u32,
    pub var: String,
}

/// One program run REval asks about: a program and one of its inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct RevalRun {
    pub task_id: String,
    pub input_idx: usize,
    pub half: Half,
    /// The program as REval numbers it.
    pub code: String,
    /// HumanEval: the call's arguments as a tuple (`([1, 2], 3,)`); ClassEval: the test class's
    /// position among the program's test classes.
    pub input: String,
    /// The test code (ClassEval).
    pub test: Option<String>,
    /// The class (ClassEval) or function (HumanEval) under test.
    pub entry_point: String,
    pub asks: Vec<RevalAsk>,
    /// HumanEval's expected output, as the data file writes it.
    pub output: Option<String>,
}

/// A REval file that cannot be read, named by file, line and field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RevalError(pub String);

impl std::fmt::Display for RevalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Deserialize)]
struct DataRow {
    task_id: String,
    entry_point: String,
    code: String,
    inputs: Vec<String>,
    #[serde(default)]
    outputs: Vec<String>,
    #[serde(default)]
    test: Option<String>,
}

#[derive(Deserialize)]
struct TasksRow {
    task_id: String,
    idx: usize,
    tasks: Vec<TaskPair>,
}

#[derive(Deserialize)]
struct TaskPair {
    input_idx: usize,
    task: Vec<TaskPlace>,
}

#[derive(Deserialize)]
struct TaskPlace {
    lineno: u32,
    var: String,
}

/// The runs REval asks about, in its tasks file's order. `data_name` and `tasks_name` name the
/// files in messages.
pub fn read_reval(data_name: &str, data: &str, tasks_name: &str, tasks: &str) -> Result<Vec<RevalRun>, RevalError> {
    let mut programs = Vec::new();
    for (n, line) in data.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let row: DataRow = serde_json::from_str(line)
            .map_err(|e| RevalError(format!("{data_name}, line {}: not a REval program row: {e}", n + 1)))?;
        programs.push((n + 1, row));
    }
    let mut runs = Vec::new();
    for (n, line) in tasks.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let at = |what: String| RevalError(format!("{tasks_name}, line {}: {what}", n + 1));
        let row: TasksRow = serde_json::from_str(line).map_err(|e| at(format!("not a REval task row: {e}")))?;
        let (data_line, program) = programs.get(row.idx).ok_or_else(|| {
            at(format!("field `idx`: {} is past the data file's {} programs", row.idx, programs.len()))
        })?;
        if program.task_id != row.task_id {
            return Err(at(format!(
                "field `task_id`: {} where {data_name}'s program {} (line {data_line}) is {}",
                row.task_id, row.idx, program.task_id
            )));
        }
        let half = if row.idx <= HUMANEVAL_LAST { Half::HumanEval } else { Half::ClassEval };
        let lines = program.code.lines().count() as u32;
        for pair in row.tasks {
            let input = match half {
                Half::HumanEval => program.inputs.get(pair.input_idx).cloned().ok_or_else(|| {
                    at(format!(
                        "field `input_idx`: {} where the program has {} inputs",
                        pair.input_idx,
                        program.inputs.len()
                    ))
                })?,
                Half::ClassEval => pair.input_idx.to_string(),
            };
            if half == Half::ClassEval && program.test.is_none() {
                return Err(at(format!(
                    "{data_name}, line {data_line}, field `test`: a ClassEval program needs its test code"
                )));
            }
            let mut asks = Vec::new();
            for place in pair.task {
                if place.lineno == 0 || place.lineno > lines {
                    return Err(at(format!("field `lineno`: {} is not a line of the program's {lines}", place.lineno)));
                }
                asks.push(RevalAsk { line: place.lineno, var: place.var });
            }
            runs.push(RevalRun {
                task_id: row.task_id.clone(),
                input_idx: pair.input_idx,
                half,
                code: program.code.clone(),
                input,
                test: program.test.clone(),
                entry_point: program.entry_point.clone(),
                asks,
                output: match half {
                    Half::HumanEval => program.outputs.get(pair.input_idx).cloned(),
                    Half::ClassEval => None,
                },
            });
        }
    }
    Ok(runs)
}

/// The function the ClassEval runner calls between setUp and the test: its steps mark where the
/// traced test begins. Appended after the program, so the program's lines keep their numbers.
const BEGIN_MARK: &str = "_execbench_reval_begin";

/// The ClassEval runner, run as the request's prelude (its own file, so its lines give no steps):
/// a `unittest` stand-in with the assertions REval's tests use, and the function that runs a
/// test class's first test method as REval does.
const CLASS_RUNNER: &str = r#"
class _ExecbenchTestCase:
    def __init__(self, name='runTest'):
        pass
    def setUp(self):
        pass
    def assertEqual(self, a, b, msg=None):
        assert a == b, msg or f'{a!r} != {b!r}'
    def assertNotEqual(self, a, b, msg=None):
        assert a != b, msg or f'{a!r} == {b!r}'
    def assertTrue(self, x, msg=None):
        assert x, msg or f'{x!r} is not true'
    def assertFalse(self, x, msg=None):
        assert not x, msg or f'{x!r} is not false'
    def assertIsNone(self, x, msg=None):
        assert x is None, msg or f'{x!r} is not None'
    def assertIn(self, a, b, msg=None):
        assert a in b, msg or f'{a!r} not in {b!r}'
    def assertNotIn(self, a, b, msg=None):
        assert a not in b, msg or f'{a!r} in {b!r}'
    def assertAlmostEqual(self, a, b, places=None, msg=None, delta=None):
        if delta is not None:
            assert abs(a - b) <= delta, msg or f'{a!r} and {b!r} differ by more than {delta!r}'
        else:
            assert round(abs(a - b), 7 if places is None else places) == 0, msg or f'{a!r} != {b!r}'
    def assertRaises(self, kind, *call, **keywords):
        expecting = _ExecbenchRaises(kind)
        if not call:
            return expecting
        with expecting:
            call[0](*call[1:], **keywords)

class _ExecbenchRaises:
    def __init__(self, kind):
        self.kind = kind
    def __enter__(self):
        return self
    def __exit__(self, kind, value, traceback):
        if kind is None:
            raise AssertionError(f'{self.kind.__name__} not raised')
        return issubclass(kind, self.kind)

def _execbench_reval_test(source, name, which):
    import sys
    stand_in = type(sys)('unittest')
    stand_in.TestCase = _ExecbenchTestCase
    stand_in.main = lambda *args, **keywords: None
    scope = dict(globals())
    scope['__name__'] = 'execbench_reval_test'
    # The stand-in is importable while the test code runs, and only then: later runs in this
    # interpreter find the standard library as it was.
    before = sys.modules.get('unittest')
    sys.modules['unittest'] = stand_in
    try:
        exec(compile(source, '<reval-test>', 'exec'), scope)
    finally:
        if before is None:
            del sys.modules['unittest']
        else:
            sys.modules['unittest'] = before
    classes = [value for key, value in scope.items()
               if key.startswith(name + 'Test') and isinstance(value, type) and issubclass(value, _ExecbenchTestCase)]
    chosen = classes[which]
    method = [key for key in vars(chosen) if key.startswith('test')][0]
    test = chosen()
    test.setUp()
    _execbench_reval_begin()
    getattr(test, method)()
"#;

impl RevalRun {
    /// `DREval/3 input 1`.
    pub fn label(&self) -> String {
        format!("{} input {}", self.task_id, self.input_idx)
    }

    /// The program's lines as REval numbers them.
    pub fn code_lines(&self) -> u32 {
        self.code.lines().count() as u32
    }

    /// The run to trace.
    pub fn request(&self) -> RunRequest {
        match self.half {
            Half::HumanEval => {
                let mut request = RunRequest::new(self.code.clone(), format!("{}(*{})", self.entry_point, self.input));
                if let Some(output) = &self.output {
                    request = request.expecting(output.clone());
                }
                request
            }
            Half::ClassEval => {
                let separator = if self.code.ends_with('\n') { "\n" } else { "\n\n" };
                let program = format!("{}{separator}def {BEGIN_MARK}():\n    pass\n", self.code);
                let source = serde_json::to_string(self.test.as_deref().unwrap_or_default()).expect("a string");
                let name = serde_json::to_string(&self.entry_point).expect("a string");
                let mut request =
                    RunRequest::new(program, format!("_execbench_reval_test({source}, {name}, {})", self.input));
                request.prelude = CLASS_RUNNER.to_owned();
                request
            }
        }
    }

    /// The states REval's tracer would record, from execbench's trace: a state for each line
    /// event in the program's own lines (after the ClassEval runner's mark), holding the locals as
    /// they were before the line ran; a line repeated right after itself is one state (holding
    /// the later locals, as REval overwrites them); and a state with no locals for a call's
    /// `return` or `exception` event at a line other than the last state's.
    pub fn reval_states(&self, trace: &Trace) -> Vec<RevalState> {
        let start = match self.half {
            Half::HumanEval => 0,
            Half::ClassEval => {
                let marks: Vec<u32> =
                    (0..trace.calls.len() as u32).filter(|&c| trace.calls[c as usize] == BEGIN_MARK).collect();
                trace.steps.iter().rposition(|s| marks.contains(&s.call)).map_or(0, |i| i + 1)
            }
        };
        let lines = self.code_lines();
        let mut states: Vec<RevalState> = Vec::new();
        let mut exits = trace.exits.iter().filter(|e| e.after as usize >= start && e.line <= lines).peekable();
        // Each call's latest step: its locals are the next step's "before".
        let mut latest: BTreeMap<u32, &TraceStep> = BTreeMap::new();
        for p in 0..=trace.steps.len() {
            while let Some(exit) = exits.next_if(|e| e.after as usize == p) {
                if states.last().map(|s| s.line) != Some(exit.line) {
                    states.push(RevalState { line: exit.line, call: exit.call, locals: Vec::new() });
                }
            }
            let Some(step) = trace.steps.get(p) else { break };
            let before: &[TracedValue] = match latest.insert(step.call, step) {
                Some(previous) => &previous.locals,
                None => trace.arguments.get(step.call as usize).map_or(&[], Vec::as_slice),
            };
            if p < start || step.line > lines {
                continue;
            }
            match states.last_mut() {
                Some(last) if last.line == step.line => last.locals = before.to_vec(),
                _ => states.push(RevalState { line: step.line, call: step.call, locals: before.to_vec() }),
            }
        }
        states
    }
}

/// A state of REval's tracer: the line, and the locals it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct RevalState {
    pub line: u32,
    pub call: u32,
    pub locals: Vec<TracedValue>,
}

/// The truths of one place, by REval's rules.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlaceTruth {
    pub line: u32,
    pub var: String,
    pub coverage: bool,
    /// Lines from 1; -1 for "nothing after" (and alone for "never ran").
    pub next_lines: Vec<i64>,
    /// `None` is REval's `Nil`.
    pub values: Option<Vec<TracedValue>>,
}

/// Why a state truth cannot be made from a trace of `repr`s.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotFromTrace {
    /// `self.limit`: an attribute of an object the trace keeps only as its `repr`.
    Attribute,
    /// An expression REval's interpreter reads that this one does not.
    Expression,
}

/// REval's truths for each place of `run`, from its trace. A state truth that a `repr` trace
/// cannot give is `Err`.
pub fn truths(run: &RevalRun, trace: &Trace) -> Vec<(PlaceTruth, Result<(), NotFromTrace>)> {
    let states = run.reval_states(trace);
    run.asks
        .iter()
        .map(|ask| {
            let visits: Vec<usize> = (0..states.len()).filter(|&i| states[i].line == ask.line).collect();
            let next_lines = if visits.is_empty() {
                vec![-1]
            } else {
                let mut next: Vec<i64> =
                    visits.iter().map(|&i| states.get(i + 1).map_or(-1, |s| i64::from(s.line))).collect();
                next.sort_unstable();
                next.dedup();
                next
            };
            // Read at the next state, or at the line's own when it is the last (REval's
            // `get_states_after`).
            let values = if visits.is_empty() {
                Ok(None)
            } else {
                let read = visits.iter().map(|&i| states[(i + 1).min(states.len() - 1)].locals.as_slice());
                values_of(&ask.var, &read.collect::<Vec<_>>())
            };
            let (values, reproducible) = match values {
                Ok(values) => (values, Ok(())),
                Err(why) => (None, Err(why)),
            };
            (
                PlaceTruth { line: ask.line, var: ask.var.clone(), coverage: !visits.is_empty(), next_lines, values },
                reproducible,
            )
        })
        .collect()
}

/// REval's reading of `var` in each of the states, `None` for `Nil`.
fn values_of(var: &str, states: &[&[TracedValue]]) -> Result<Option<Vec<TracedValue>>, NotFromTrace> {
    let values = Expression::parse(var)?.values(states);
    Ok(if values.is_empty() { None } else { Some(values) })
}

/// The expressions REval's state task asks about that a `repr` trace can answer.
enum Expression {
    Name(String),
    Literal(TracedValue),
    Tuple(Vec<Expression>),
    Subscript(Box<Expression>, Box<Expression>),
}

impl Expression {
    fn parse(text: &str) -> Result<Expression, NotFromTrace> {
        let text = text.trim();
        if is_name(text) {
            return Ok(Expression::Name(text.to_owned()));
        }
        if text.contains('.') && text.split('.').all(|p| is_name(p.trim())) {
            return Err(NotFromTrace::Attribute);
        }
        if let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
            let parts = split_top(inner, ',');
            if parts.len() > 1 {
                return parts
                    .iter()
                    .filter(|p| !p.trim().is_empty())
                    .map(|p| Expression::parse(p))
                    .collect::<Result<_, _>>()
                    .map(Expression::Tuple);
            }
        }
        if let Some(body) = text.strip_suffix(']')
            && let Some(open) = top_level_open(body)
        {
            let container = Expression::parse(&body[..open])?;
            let key = Expression::parse(&body[open + 1..])?;
            return Ok(Expression::Subscript(Box::new(container), Box::new(key)));
        }
        match execbench_literal::parse_literal(text) {
            Ok(value) => Ok(Expression::Literal(TracedValue::unnamed(text, value.type_name()))),
            Err(_) if text.contains('.') => Err(NotFromTrace::Attribute),
            Err(_) => Err(NotFromTrace::Expression),
        }
    }

    /// The expression's values over all `states`, as REval's interpreter reads them: a name's
    /// value in each state that has it; a tuple or a subscript from every combination of its
    /// parts' values, across the states (REval's product of the parts' lists, not state by state).
    fn values(&self, states: &[&[TracedValue]]) -> Vec<TracedValue> {
        match self {
            Expression::Name(name) => states
                .iter()
                .filter_map(|state| state.iter().find(|v| v.name == *name))
                .map(|v| TracedValue::unnamed(v.repr.clone(), v.type_name.clone()))
                .collect(),
            Expression::Literal(value) => vec![value.clone()],
            Expression::Tuple(parts) => {
                let mut tuples: Vec<Vec<TracedValue>> = vec![Vec::new()];
                for part in parts {
                    let values = part.values(states);
                    tuples = tuples
                        .iter()
                        .flat_map(|t| values.iter().map(move |v| t.iter().cloned().chain([v.clone()]).collect()))
                        .collect();
                }
                tuples
                    .into_iter()
                    .filter(|t| t.len() == parts.len())
                    .map(|t| {
                        let reprs: Vec<&str> = t.iter().map(|v| v.repr.as_str()).collect();
                        let repr = if reprs.len() == 1 {
                            format!("({},)", reprs[0])
                        } else {
                            format!("({})", reprs.join(", "))
                        };
                        TracedValue::unnamed(repr, "tuple")
                    })
                    .collect()
            }
            Expression::Subscript(container, key) => {
                let mut out = Vec::new();
                let keys = key.values(states);
                for c in container.values(states) {
                    for k in &keys {
                        if let (Ok(c), Ok(k)) =
                            (execbench_literal::parse_literal(&c.repr), execbench_literal::parse_literal(&k.repr))
                            && let Some(item) = index(&c, &k)
                        {
                            out.push(TracedValue::unnamed(literal_text(&item), item.type_name()));
                        }
                    }
                }
                out
            }
        }
    }
}

fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic()) && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// `text` split at `sep` outside brackets and strings.
fn split_top(text: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<char>, 0);
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, c) if c == sep && depth == 0 => {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Where the last top-level `[` of `body` (a subscript without its closing `]`) opens.
fn top_level_open(body: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in body.char_indices().rev() {
        match c {
            ']' | ')' | '}' => depth += 1,
            '(' | '{' => depth -= 1,
            '[' if depth == 0 => return (i > 0).then_some(i),
            '[' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `container[key]` for the literals Python would index the same way.
fn index(container: &PyValue, key: &PyValue) -> Option<PyValue> {
    match (container, key) {
        (PyValue::List(items) | PyValue::Tuple(items), PyValue::Int(digits)) => {
            let i: i64 = digits.parse().ok()?;
            let at = if i < 0 { items.len() as i64 + i } else { i };
            items.get(usize::try_from(at).ok()?).cloned()
        }
        (PyValue::Str(text), PyValue::Int(digits)) => {
            let chars: Vec<char> = text.chars().collect();
            let i: i64 = digits.parse().ok()?;
            let at = if i < 0 { chars.len() as i64 + i } else { i };
            chars.get(usize::try_from(at).ok()?).map(|c| PyValue::Str(c.to_string()))
        }
        (PyValue::Dict(pairs), key) => {
            let key = key.canonical();
            pairs.iter().find(|(k, _)| k.canonical() == key).map(|(_, v)| v.clone())
        }
        _ => None,
    }
}

/// A Python literal that denotes `value` (not always its `repr`: a string is written with JSON's
/// escapes, which Python reads the same way).
fn literal_text(value: &PyValue) -> String {
    let items = |items: &[PyValue]| items.iter().map(literal_text).collect::<Vec<_>>().join(", ");
    match value {
        PyValue::None => "None".to_owned(),
        PyValue::Ellipsis => "...".to_owned(),
        PyValue::Bool(b) => if *b { "True" } else { "False" }.to_owned(),
        PyValue::Int(digits) => digits.clone(),
        PyValue::Float(f) if f.is_finite() => format!("{f:?}"),
        PyValue::Float(f) => format!("float('{f}')"),
        PyValue::Complex { re, im } => format!("complex({re:?}, {im:?})"),
        PyValue::Str(text) => serde_json::to_string(text).expect("a string"),
        PyValue::Bytes(bytes) => format!("b'{}'", bytes.iter().map(|b| format!("\\x{b:02x}")).collect::<String>()),
        PyValue::List(v) => format!("[{}]", items(v)),
        PyValue::Tuple(v) if v.len() == 1 => format!("({},)", items(v)),
        PyValue::Tuple(v) => format!("({})", items(v)),
        PyValue::Set(v) if v.is_empty() => "set()".to_owned(),
        PyValue::Set(v) => format!("{{{}}}", items(v)),
        PyValue::FrozenSet(v) => format!("frozenset({{{}}})", items(v)),
        PyValue::Dict(pairs) => {
            let pairs: Vec<String> =
                pairs.iter().map(|(k, v)| format!("{}: {}", literal_text(k), literal_text(v))).collect();
            format!("{{{}}}", pairs.join(", "))
        }
    }
}

/// One run's truths: REval's, as its own tracer made them (`scripts/reval_reference.py`), or
/// execbench's (`our_row`), in the same shape so the two files can be set side by side.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ReferenceRow {
    pub task_id: String,
    pub input_idx: usize,
    pub status: String,
    #[serde(default)]
    pub trace: Vec<i64>,
    #[serde(default)]
    pub asks: Vec<PlaceTruth>,
}

/// execbench's truths for one run, as a row of the reference's shape. `status` is `ok` when the
/// run returned (for ClassEval: its test passed) and its trace is whole; the state of a place a
/// `repr` trace cannot give is written as `Nil`.
pub fn our_row(run: &RevalRun, outcome: &Outcome, trace: Option<&Trace>) -> ReferenceRow {
    let mut row = ReferenceRow {
        task_id: run.task_id.clone(),
        input_idx: run.input_idx,
        status: String::new(),
        trace: Vec::new(),
        asks: Vec::new(),
    };
    match (outcome, trace) {
        (Outcome::Value { .. }, Some(trace)) if !trace.truncated => {
            row.status = "ok".to_owned();
            row.trace = run.reval_states(trace).iter().map(|s| i64::from(s.line)).collect();
            row.asks = truths(run, trace).into_iter().map(|(truth, _)| truth).collect();
        }
        (Outcome::Value { .. }, _) => row.status = "the trace was cut at its limits".to_owned(),
        (other, _) => row.status = format!("could not run: {}", first_words(&other.summary())),
    }
    row
}

/// Reads `scripts/reval_reference.py`'s file, keyed by (task, input).
pub fn read_reference(name: &str, text: &str) -> Result<BTreeMap<(String, usize), ReferenceRow>, RevalError> {
    let mut rows = BTreeMap::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let row: ReferenceRow = serde_json::from_str(line)
            .map_err(|e| RevalError(format!("{name}, line {}: not a reference row: {e}", n + 1)))?;
        rows.insert((row.task_id.clone(), row.input_idx), row);
    }
    Ok(rows)
}

/// REval's tasks, as the agreement counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Task {
    Coverage,
    Path,
    State,
    Output,
}

impl Task {
    pub const ALL: [Task; 4] = [Task::Coverage, Task::Path, Task::State, Task::Output];

    pub fn label(self) -> &'static str {
        match self {
            Task::Coverage => "coverage",
            Task::Path => "path",
            Task::State => "state",
            Task::Output => "output",
        }
    }
}

/// One truth where execbench and REval differ, or that one side could not make.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    pub run: String,
    pub task: Task,
    pub line: Option<u32>,
    pub var: Option<String>,
    pub ours: String,
    pub theirs: String,
    /// Why, in a few words that group differences of one cause.
    pub reason: String,
    /// Where it shows (the first step at which the lines differ, the counts of values).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// How far execbench's truths agree with REval's, task by task.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Agreement {
    /// Per task: (agreeing, compared).
    pub counts: BTreeMap<Task, (usize, usize)>,
    /// Places not compared, by why (REval could not run the program; our engine could not; the
    /// state expression is an attribute).
    pub not_compared: BTreeMap<String, usize>,
    pub differences: Vec<Difference>,
}

impl Agreement {
    fn count(&mut self, task: Task, agrees: bool) {
        let entry = self.counts.entry(task).or_default();
        entry.0 += usize::from(agrees);
        entry.1 += 1;
    }

    fn skip(&mut self, why: impl Into<String>, n: usize) {
        *self.not_compared.entry(why.into()).or_default() += n;
    }

    /// Adds one run: our outcome and trace against REval's row.
    pub fn add(&mut self, run: &RevalRun, outcome: &Outcome, trace: Option<&Trace>, theirs: Option<&ReferenceRow>) {
        let places = run.asks.len() * 3 + 1;
        let Some(theirs) = theirs.filter(|t| t.status == "ok") else {
            self.skip("REval's tracer could not run the program (here, under CPython)", places);
            return;
        };
        let ran = matches!(outcome, Outcome::Value { .. });
        let Some(trace) = trace.filter(|t| ran && !t.truncated) else {
            let why = match outcome {
                Outcome::Value { .. } => "execbench's trace was cut at its limits".to_owned(),
                other => format!("execbench's engine could not run it: {}", first_words(&other.summary())),
            };
            self.skip(why, places);
            return;
        };
        // Output: HumanEval's expected value; ClassEval's test passing, as it did under REval.
        let matches = match outcome {
            Outcome::Value { matches, .. } => matches.unwrap_or(true),
            _ => false,
        };
        self.count(Task::Output, matches);
        if !matches {
            self.differences.push(Difference {
                run: run.label(),
                task: Task::Output,
                line: None,
                var: None,
                ours: outcome.summary(),
                theirs: run.output.clone().unwrap_or_default(),
                reason: "the call's value differs from the data file's output".to_owned(),
                detail: String::new(),
            });
        }
        let ours_lines: Vec<i64> = run.reval_states(trace).iter().map(|s| i64::from(s.line)).collect();
        let lines_differ = first_line_difference(&ours_lines, &theirs.trace).map(|at| {
            (
                "the lines that ran differ".to_owned(),
                format!(
                    "from step {at}: ours {:?}, REval's {:?}",
                    &ours_lines[at.saturating_sub(1)..(at + 2).min(ours_lines.len())],
                    &theirs.trace[at.saturating_sub(1)..(at + 2).min(theirs.trace.len())]
                ),
            )
        });
        let reason = |fallback: (String, String)| lines_differ.clone().unwrap_or(fallback);
        let same_lines = || ("differs though the same lines ran".to_owned(), String::new());
        for ((ours, reproducible), theirs) in truths(run, trace).into_iter().zip(&theirs.asks) {
            let coverage = ours.coverage == theirs.coverage;
            self.count(Task::Coverage, coverage);
            if !coverage {
                self.differ(
                    run,
                    Task::Coverage,
                    &ours,
                    ours.coverage.to_string(),
                    theirs.coverage.to_string(),
                    reason(same_lines()),
                );
            }
            let path = ours.next_lines == theirs.next_lines;
            self.count(Task::Path, path);
            if !path {
                self.differ(
                    run,
                    Task::Path,
                    &ours,
                    format!("{:?}", ours.next_lines),
                    format!("{:?}", theirs.next_lines),
                    reason(same_lines()),
                );
            }
            match reproducible {
                Err(NotFromTrace::Attribute) => {
                    self.skip("state of an attribute (`self.x`): the trace keeps objects as their repr", 1)
                }
                Err(NotFromTrace::Expression) => {
                    self.skip("state of an expression beyond names, tuples and subscripts", 1)
                }
                Ok(()) => {
                    let same = match (&ours.values, &theirs.values) {
                        (None, None) => true,
                        (Some(a), Some(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_as(y)),
                        _ => false,
                    };
                    self.count(Task::State, same);
                    if !same {
                        let why = reason(state_reason(&ours, theirs));
                        self.differ(run, Task::State, &ours, show(&ours.values), show(&theirs.values), why);
                    }
                }
            }
        }
    }

    fn differ(
        &mut self,
        run: &RevalRun,
        task: Task,
        place: &PlaceTruth,
        ours: String,
        theirs: String,
        why: (String, String),
    ) {
        self.differences.push(Difference {
            run: run.label(),
            task,
            line: Some(place.line),
            var: (task == Task::State).then(|| place.var.clone()),
            ours,
            theirs,
            reason: why.0,
            detail: why.1,
        });
    }
}

/// Why a state truth differs when the same lines ran: (reason, detail).
fn state_reason(ours: &PlaceTruth, theirs: &PlaceTruth) -> (String, String) {
    let (reason, detail) = match (&ours.values, &theirs.values) {
        (Some(a), _) if a.iter().any(|v| v.repr.is_empty()) => {
            ("a value's repr was too long to keep, or raised", String::new())
        }
        (Some(a), Some(b)) if a.len() != b.len() => {
            ("a different number of values", format!("{} against {}", a.len(), b.len()))
        }
        (Some(_), Some(_)) => ("the values differ", String::new()),
        _ => ("one side found the name, the other not", String::new()),
    };
    (reason.to_owned(), detail)
}

fn show(values: &Option<Vec<TracedValue>>) -> String {
    match values {
        None => "Nil".to_owned(),
        Some(values) => {
            let shown: Vec<String> = values.iter().take(8).map(|v| format!("{} ({})", v.repr, v.type_name)).collect();
            let more = if values.len() > 8 { format!(", … {} in all", values.len()) } else { String::new() };
            format!("[{}{more}]", shown.join(", "))
        }
    }
}

fn first_line_difference(a: &[i64], b: &[i64]) -> Option<usize> {
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    (common < a.len().max(b.len())).then_some(common)
}

fn first_words(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    line.chars().take(80).collect()
}
