//! The worker's side: `execbench __python-worker`, started by [`super::WorkerEngine`] with an
//! empty environment and a memory limit, and held by the kernel's rules (`crates/sandbox`) before it
//! reads its first request. One interpreter for the process's life; requests in as
//! JSON lines on stdin (the page's worker messages: `ToWorker`), each run's result out as one
//! JSON line on stdout (`FromWorker::Results`), after a first `FromWorker::Ready`. It ends at the
//! end of its input, or when its owner kills it.
//!
//! Programs cannot reach either pipe: the engine's `sys.stdout` is a buffer of its own for every
//! run, `sys.__stdout__` and `sys.stdin` are None, and file descriptors are not available to
//! Python (`os.write`, `io.open` refuse).

use std::io::{BufRead, Write};
use std::time::Instant;

use execbench_core::PythonEngine;
use execbench_pyengine::RustPythonEngine;
use execbench_worker_protocol::{FromWorker, RunOutput, ToWorker};

use execbench_sandbox as sandbox;

/// The stack of the thread that runs Python: RustPython's frames are large, and a program at
/// Python's recursion limit must get a RecursionError, not a native stack overflow. Only reserved
/// until deep recursion uses it (it counts towards the worker's address-space limit).
const ENGINE_STACK_BYTES: usize = 512 << 20;

/// Serves requests until stdin ends; returns the process's exit code.
pub fn serve() -> i32 {
    // Only someone starting a worker by hand can set it: its owner clears its environment.
    let self_test = std::env::var_os(sandbox::SELF_TEST_VARIABLE).is_some();
    // Here, before the engine's thread: the rules bind it and every thread it starts. The only
    // file the engine reads as it starts is the time zone, which the rules allow.
    let confinement = match sandbox::confine() {
        Ok(confinement) => confinement,
        Err(why) => {
            eprintln!("execbench python worker: {why}");
            return 1;
        }
    };
    // The self-test tries what the rules deny where a program would run: on the engine's thread.
    let body = move || if self_test { sandbox::self_test(confinement) } else { serve_here() };
    let engine_thread = std::thread::Builder::new().stack_size(ENGINE_STACK_BYTES).spawn(body);
    match engine_thread.map(|thread| thread.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => 101,
        Err(e) => {
            eprintln!("execbench python worker: cannot start the engine's thread: {e}");
            1
        }
    }
}

fn serve_here() -> i32 {
    let started = Instant::now();
    let mut engine = RustPythonEngine::new();
    let init_ms = started.elapsed().as_secs_f64() * 1000.0;
    let mut out = std::io::stdout().lock();
    if post(&mut out, &FromWorker::Ready { init_ms, memory_bytes: 0, restored: false }).is_err() {
        return 1;
    }
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { return 1 };
        let posted = match serde_json::from_str::<ToWorker>(&line) {
            Ok(ToWorker { runs, .. }) => runs.into_iter().try_for_each(|run| {
                let result = engine.run(&run.request);
                post(&mut out, &FromWorker::Results { results: vec![RunOutput { id: run.id, result }] })
            }),
            Err(e) => post(&mut out, &FromWorker::BadMessage { error: e.to_string() }),
        };
        // The owner has gone (its end of the pipe is closed): nothing left to serve.
        if posted.is_err() {
            return 1;
        }
    }
    0
}

fn post(out: &mut impl Write, message: &FromWorker) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}
