//! The worker engine in real headless Chromium, through the Playground: runaway programs, memory
//! bombs and sandbox escapes end in clear errors and the page keeps working.

use crate::common;

use common::run_in_playground;
use execbench_testkit::browser::Browser;
use execbench_testkit::static_server::StaticServer;

#[tokio::test(flavor = "multi_thread")]
async fn runaway_programs_memory_bombs_and_escapes_end_in_clear_errors() {
    let server = StaticServer::start(&execbench_testkit::dist_dir());
    let b = Browser::launch().await;
    b.client.goto(&format!("{}#/playground", server.base_url)).await.unwrap();
    // (program, expression, time limit, text the result must contain)
    let cases = [
        // One long builtin call: only killing the worker stops it. (wasm32's sizes are 32-bit, so
        // `range(10**12)` is refused at once with an OverflowError; this is the longest range it takes.)
        ("", "sum(range(2**31 - 1))", "1", "timed out after 1 s"),
        ("", "sum(range(10**12))", "1", "OverflowError"),
        ("import os", "os.system('ls')", "2", "PermissionError: os.system() is not available"),
        ("", "open('/etc/passwd').read()", "2", "PermissionError: files are not available"),
        ("import js", "1", "2", "ModuleNotFoundError"),
        ("import socket", "1", "2", "ModuleNotFoundError"),
        ("", "__import__('sys').modules.get('js') is None and 'no js bridge'", "2", "'no js bridge'"),
        // Hand-made bytecode could corrupt the engine's memory: no code object from fields or bytes.
        ("import types", "types.CodeType(*range(18))", "2", "PermissionError: types.CodeType() is not available"),
        ("import marshal", "marshal.loads(marshal.dumps(1))", "2", "PermissionError: marshal.loads() is not available"),
        // Nor a frame moved to another instruction (RustPython would take it outside a tracer).
        (
            "import sys\ndef g():\n    yield 1\n    yield 2\nit = g()\nnext(it)",
            "setattr(it.gi_frame, 'f_lineno', 1)",
            "2",
            "PermissionError: setting frame.f_lineno is not available",
        ),
        ("import sys", "setattr(sys._getframe(), 'f_lineno', 2)", "2", "PermissionError: setting frame.f_lineno"),
        ("def f(n):\n    return f(n + 1)\n", "f(0)", "5", "RecursionError"),
        ("", "6 * 7", "2", "42"),
        // Modules whose imports reach further than they look (threading, codeop, punycode).
        (
            "import queue\nq = queue.PriorityQueue()\nfor x in (3, 1, 2):\n    q.put(x)",
            "[q.get() for _ in range(3)]",
            "2",
            "[1, 2, 3]",
        ),
        ("import traceback", "traceback.format_exception_only(ValueError('bad'))", "2", "['ValueError: bad\\n']"),
        ("", "'münchen.de'.encode('idna')", "2", "b'xn--mnchen-3ya.de'"),
    ];
    for (program, expression, limit, expected) in cases {
        let text = run_in_playground(&b, program, expression, limit).await;
        assert!(text.contains(expected), "{expression}: expected {expected:?} in {text:?}");
    }
    b.screenshot("playground-sandbox").await;

    // A memory bomb ends in Python's own error, or, when it takes the worker down, in the page's
    // report of that; either way the next run works.
    for bomb in ["'a' * 10**11", "len([0] * 10**10)", "[[0] * 10**6 for _ in range(10**5)]"] {
        let text = run_in_playground(&b, "", bomb, "5").await;
        let clear = ["MemoryError", "OverflowError", "engine failure: "].iter().any(|e| text.contains(e));
        assert!(clear, "{bomb}: no clear error in {text:?}");
        assert!(run_in_playground(&b, "", "6 * 7", "2").await.contains("42"), "the run after {bomb}");
    }

    // The step limit: the in-engine stop, which leaves the worker running (no restart).
    b.fill("[data-testid=step-limit]", "20000").await;
    let text = run_in_playground(&b, "def spin():\n    while True:\n        pass\n", "spin()", "30").await;
    assert!(text.contains("stopped after 20000 steps (step limit)"), "{text:?}");
    let text = run_in_playground(&b, "", "sum(i for i in range(100))", "30").await;
    assert!(text.contains("4950"), "a short run under the step limit: {text:?}");
    b.fill("[data-testid=step-limit]", "").await;
    b.screenshot("playground-step-limit").await;
    b.close().await;
}
