//! The engine's traces held against CPython's (the machine's `python3`, through
//! `scripts/trace_reference.py`, which records by the same rules): all 800 CRUXEval samples give
//! the same steps and states, but for the differences [`EXPLAINED`] lists with their reason.

use std::io::Write;
use std::process::{Command, Stdio};

use execbench_core::trace::{CallEnd, Trace, TraceLimits, first_difference};
use execbench_core::{Limits, PythonEngine, RunRequest, load_jsonl_bytes};
use execbench_pyengine::RustPythonEngine;

/// Samples whose traces differ, the part of the difference that must show, and why. A sample
/// that stops differing must leave the list (the test says so).
const EXPLAINED: &[(&str, &str, &str)] = &[
    ("sample_18", "lines [", MISSING),
    ("sample_43", "lines [", MISSING),
    ("sample_53", "kind: \"StopIteration\"", STOP),
    ("sample_96", "kind: \"StopIteration\"", STOP),
    ("sample_116", "lines [", MISSING),
    ("sample_130", "lines [", MULTI),
    ("sample_135", "lines [", MULTI),
    ("sample_163", "lines [", DEF),
    ("sample_185", "lines [", EXTRA),
    ("sample_273", "lines [", MISSING),
    ("sample_332", "lines [", MISSING),
    ("sample_351", "lines [", EXTRA),
    ("sample_382", "kind: \"StopIteration\"", STOP),
    ("sample_404", "kind: \"StopIteration\"", STOP),
    ("sample_411", "lines [", DEF),
    ("sample_422", "kind: \"StopIteration\"", STOP),
    ("sample_446", "lines [", MISSING),
    ("sample_484", "lines [", EXTRA),
    ("sample_490", "kind: \"StopIteration\"", STOP),
    ("sample_492", "lines [", EXTRA),
    ("sample_565", "lines [", DEF),
    ("sample_591", "lines [", EXTRA),
    ("sample_608", "kind: \"StopIteration\"", STOP),
    ("sample_614", "lines [", MISSING),
    ("sample_626", "lines [", MULTI),
    ("sample_649", "lines [", MULTI),
    ("sample_677", "lines [", MISSING),
    ("sample_682", "kind: \"StopIteration\"", STOP),
    ("sample_727", "lines [", DEF),
    ("sample_737", "lines [", EXTRA),
    ("sample_742", "lines [", MISSING),
    ("sample_790", "lines [", MULTI),
];

/// RustPython 0.5 reports no line event for the line that runs after a loop or a `try` is left
/// (by `break`, `return` or the loop's end): observed, its compiler's line table not examined.
const MISSING: &str = "no line event for the line after a loop or try is left";
/// The jump that closes a block (a loop's back edge, a `while` whose test fails, the end of an
/// `if` body) carries the block's last line in RustPython's line table, so that line seems to run
/// once more; CPython 3.11 gives such jumps no line.
const EXTRA: &str = "a block's closing jump reports the block's last line";
/// A statement over several lines: the two compilers give its instructions different lines of
/// it, so the line events inside it differ.
const MULTI: &str = "a multi-line statement's instructions carry other lines";
/// RustPython reports the function's `def` line when a generator expression in its body starts.
const DEF: &str = "the def line is reported when a generator expression starts";
/// RustPython sends an `exception` event for the StopIteration that ends an iterator a builtin
/// consumes (`list()`, `str.join`, a comprehension), so the call seems to end by it; CPython
/// does not. The lines and states agree.
const STOP: &str = "StopIteration inside a builtin is reported as an exception";

fn traced(request: RunRequest) -> RunRequest {
    request.with_limits(Limits { time_ms: 10_000, max_steps: 0 }).traced(TraceLimits::default())
}

/// CPython's traces of `requests`, one process for all.
fn cpython_traces(requests: &[RunRequest]) -> Vec<serde_json::Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/trace_reference.py");
    let mut child = Command::new("python3")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("CPython (python3) runs");
    let mut input = String::new();
    for r in requests {
        let line = serde_json::json!({"program": r.program, "expression": r.expression, "prelude": r.prelude});
        input.push_str(&line.to_string());
        input.push('\n');
    }
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "the reference tracer failed");
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn trace_of(value: &serde_json::Value) -> Trace {
    serde_json::from_value(value["trace"].clone()).expect("the reference tracer writes the engine's shape")
}

#[test]
fn traces_equal_cpythons_on_the_800_cruxeval_samples() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../public/data/cruxeval/cruxeval.jsonl");
    let report = load_jsonl_bytes("cruxeval.jsonl", &std::fs::read(path).expect("the bundled dataset"));
    assert_eq!(report.samples.len(), 800);
    let requests: Vec<RunRequest> = report.samples.iter().map(|s| traced(s.request(s.call.clone()))).collect();
    let theirs = cpython_traces(&requests);
    let mut engine = RustPythonEngine::new();
    let mut unexplained = Vec::new();
    let mut explained_seen = Vec::new();
    let mut steps = 0;
    for ((sample, request), reference) in report.samples.iter().zip(&requests).zip(&theirs) {
        let ours = engine.run(request).trace.expect("a traced run returns its trace");
        steps += ours.steps.len();
        let difference = first_difference(&ours, &trace_of(reference));
        match (difference, EXPLAINED.iter().find(|(id, _, _)| *id == sample.id)) {
            (None, None) => {}
            (None, Some(_)) => {
                unexplained.push(format!("{}: listed as differing, but the traces agree now", sample.id))
            }
            (Some(text), Some((_, shows, _))) if text.contains(shows) => explained_seen.push(sample.id.clone()),
            (Some(text), _) => unexplained.push(format!("{}: {text}", sample.id)),
        }
    }
    assert!(steps > 5_000, "the 800 traces hold steps: {steps}");
    assert!(unexplained.is_empty(), "{} traces differ from CPython's:\n{}", unexplained.len(), unexplained.join("\n"));
}

/// A hand table of what a trace holds, for the cases the rules single out.
#[test]
fn a_trace_records_lines_states_calls_and_how_calls_end() {
    let cases: &[(&str, &str, &[u32], &str)] = &[
        // (program, call, lines, how the last step ended)
        (
            "def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s",
            "f(2)",
            &[2, 3, 4, 3, 4, 3, 5],
            "returned",
        ),
        // A comprehension and a one-line loop are one step.
        ("def f(xs):\n    ys = [x * 2 for x in xs]\n    return ys", "f([1, 2, 3])", &[2, 3], "returned"),
        // A called function's lines are steps of their own call.
        ("def g(x):\n    return x + 1\ndef f(x):\n    y = g(x)\n    return y", "f(1)", &[4, 2, 5], "returned"),
        // An exception that leaves the call.
        ("def f(x):\n    y = x + 1\n    raise ValueError(y)", "f(1)", &[2, 3], "raised ValueError"),
        // Caught inside: the handler's lines run, the call returns (the line after the `try` is
        // left out: RustPython reports none for it, `MISSING`).
        (
            "def f(x):\n    try:\n        y = 1 // x\n    except ZeroDivisionError:\n        return -1\n    return y",
            "f(0)",
            &[2, 3, 4, 5],
            "returned",
        ),
    ];
    let mut engine = RustPythonEngine::new();
    let requests: Vec<RunRequest> = cases.iter().map(|(p, c, _, _)| traced(RunRequest::new(*p, *c))).collect();
    let theirs = cpython_traces(&requests);
    for (((program, call, lines, end), request), reference) in cases.iter().zip(&requests).zip(&theirs) {
        let ours = engine.run(request).trace.expect("a trace");
        let got: Vec<u32> = ours.steps.iter().map(|s| s.line).collect();
        assert_eq!(&got, lines, "{call} of:\n{program}");
        let last = ours.steps.last().unwrap();
        let shown = match &last.ended {
            Some(CallEnd::Returned) => "returned".to_owned(),
            Some(CallEnd::Raised { kind }) => format!("raised {kind}"),
            None => "no end".to_owned(),
        };
        assert_eq!(&shown, end, "{call} of:\n{program}");
        assert_eq!(first_difference(&ours, &trace_of(reference)), None, "{call} against CPython, of:\n{program}");
    }
}

/// The state after a line is read at the frame's next event: after `s += i` its new value.
#[test]
fn the_state_of_a_step_is_the_one_after_its_line() {
    let mut engine = RustPythonEngine::new();
    let request = traced(RunRequest::new("def f():\n    a = 1\n    a = a + 10\n    return a", "f()"));
    let trace = engine.run(&request).trace.unwrap();
    let values: Vec<String> =
        trace.steps.iter().map(|s| s.local("a").map(|v| v.repr.clone()).unwrap_or_default()).collect();
    assert_eq!(values, ["1", "11", "11"]);
}

/// The program can neither add steps by calling the trace function nor hide steps by removing
/// it without the trace saying so.
#[test]
fn the_program_cannot_forge_or_silently_stop_its_trace() {
    let mut engine = RustPythonEngine::new();
    let forge = "import sys\ndef f():\n    t = sys.gettrace()\n    t(sys._getframe(), 'line', None)\n    return 1";
    let trace = engine.run(&traced(RunRequest::new(forge, "f()"))).trace.unwrap();
    let lines: Vec<u32> = trace.steps.iter().map(|s| s.line).collect();
    assert_eq!(lines, [3, 4, 5], "a call of the trace function from the program records nothing");
    assert!(!trace.truncated);
    let stop = "import sys\ndef f():\n    sys.settrace(None)\n    x = 1\n    return x";
    let trace = engine.run(&traced(RunRequest::new(stop, "f()"))).trace.unwrap();
    assert!(trace.truncated, "a program that removed the trace function gets a trace marked truncated");
}

/// Recording stops at the trace's limits; the run goes on to its value.
#[test]
fn a_runaway_trace_is_cut_at_its_limit() {
    let mut engine = RustPythonEngine::new();
    let request =
        RunRequest::new("def f(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t", "f(100000)")
            .with_limits(Limits { time_ms: 20_000, max_steps: 0 })
            .traced(TraceLimits { max_steps: 500, max_bytes: 1 << 20 });
    let result = engine.run(&request);
    let trace = result.trace.unwrap();
    assert!(trace.truncated);
    assert_eq!(trace.steps.len(), 500);
    assert_eq!(result.outcome.summary(), "4999950000");
}
