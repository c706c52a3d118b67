//! Time-outs while other engines of the same process are running Python.
//!
//! RustPython's "a signal is pending" flag is one per process, so a busy engine on another
//! thread can clear it between two instructions of a run that is being stopped. RustPython 0.5
//! raises a signal's exception without resetting its decoder's pending argument, and when the
//! same frame catches that exception the handler's first instruction decodes a wrong argument:
//! an `InvalidBytecode` panic, or a read past the value stack (a segfault that kills the whole
//! process). The engine raises its TimeoutError only where that cannot happen (`budget.rs`).
//! This binary has a process of its own so that a crash here fails only this test.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use execbench_core::{Limits, Outcome, PythonEngine, RunRequest};
use execbench_pyengine::{RustPythonEngine, engine_panics};

/// Programs whose time-out lands in code that a handler of the same frame covers: loops in a
/// `try` body, in an `except` body, in a `with` block, in comprehensions and generators, and in
/// a function big enough that its instructions need extended arguments.
fn programs() -> Vec<(&'static str, String)> {
    let many_constants: String = (0..300).map(|i| format!("        x = {i}.5\n")).collect();
    vec![
        ("loop in try", "while True:\n    try:\n        while True: pass\n    except BaseException:\n        pass\n".into()),
        (
            "loop in except",
            "while True:\n    try:\n        raise ValueError\n    except BaseException:\n        while True:\n            y = [1, 2, 3]\n".into(),
        ),
        (
            "loop in with",
            "class Quiet:\n    def __enter__(self): return self\n    def __exit__(self, *exc): return True\nwhile True:\n    with Quiet():\n        while True: z = (1, 2)\n".into(),
        ),
        (
            "comprehension",
            "while True:\n    try:\n        [i * 2 for i in range(10 ** 9)]\n    except BaseException:\n        pass\n".into(),
        ),
        (
            "generator",
            "def g():\n    while True:\n        try:\n            yield 1\n        except BaseException:\n            pass\nfor _ in g():\n    pass\n".into(),
        ),
        ("finally", "while True:\n    try:\n        while True: w = {1: 2}\n    finally:\n        pass\n".into()),
        (
            "extended arguments",
            format!("def f():\n    while True:\n      try:\n{many_constants}      except BaseException:\n        pass\nf()\n"),
        ),
    ]
}

#[test]
fn time_outs_beside_a_busy_engine_stop_cleanly() {
    let busy = Arc::new(AtomicBool::new(true));
    let neighbour = {
        let busy = busy.clone();
        // Keeps clearing the process-wide "signal pending" flag at every instruction it checks.
        thread::spawn(move || {
            let mut engine = RustPythonEngine::new();
            let mut runs = 0u32;
            let request = RunRequest::new("def f():\n    return sum(i % 7 for i in range(20000))", "f()")
                .with_limits(Limits { time_ms: 60_000, max_steps: 0 });
            while busy.load(Ordering::Relaxed) {
                let outcome = engine.run(&request).outcome;
                assert!(matches!(outcome, Outcome::Value { .. }), "the neighbour's run: {outcome:?}");
                runs += 1;
            }
            runs
        })
    };
    let panics_before = engine_panics();
    let mut engine = RustPythonEngine::new();
    let limits = Limits { time_ms: 3, max_steps: 0 };
    let rounds = 25;
    for round in 0..rounds {
        for (name, program) in programs() {
            let r = engine.run(&RunRequest::new(&program, "None").with_limits(limits));
            assert_eq!(r.outcome, Outcome::TimedOut { limit_ms: 3 }, "{name}, round {round}");
            assert!(r.elapsed_ms < 3_000.0, "{name} stopped late: {} ms", r.elapsed_ms);
        }
    }
    let after = engine.run(&RunRequest::new("", "1 + 1")).outcome;
    busy.store(false, Ordering::Relaxed);
    let neighbour_runs = neighbour.join().expect("the neighbour engine");
    assert_eq!(after, Outcome::Value { repr: "2".to_string(), matches: None });
    assert!(neighbour_runs > 0, "the neighbour never ran");
    assert_eq!(
        engine_panics() - panics_before,
        0,
        "RustPython panicked while stopping {} runs (a time-out decoded a wrong instruction)",
        rounds * programs().len()
    );
}
