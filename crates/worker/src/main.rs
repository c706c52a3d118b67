//! The Python worker: starts RustPython, then runs each batch of `ToWorker` runs in order,
//! posting their results in groups by the protocol's `Outbox` rule. Python runs here and never on
//! the page's thread; the page stops a runaway run by terminating this worker and starting a new
//! one. Once ready, the worker warms its engine in idle time (`warm_up.rs`).

#[cfg(any(target_arch = "wasm32", test))]
mod warm_up;

#[cfg(target_arch = "wasm32")]
fn main() {
    use std::cell::RefCell;
    use std::rc::Rc;

    use execbench_core::PythonEngine;
    use execbench_pyengine::RustPythonEngine;
    use execbench_worker_protocol::bootstrap::Page;
    use execbench_worker_protocol::{FromWorker, Outbox, RunOutput, ToWorker};
    use wasm_bindgen::JsCast;
    use web_sys::MessageEvent;

    let page = Page::this_worker();
    page.post_panics(|info| FromWorker::Panic { message: info.to_string() });
    let memory_bytes = || {
        let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
        memory.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length() as u64
    };
    let now = || js_sys::Date::now();
    let started = now();
    let engine = Rc::new(RefCell::new(RustPythonEngine::new()));
    let init_ms = now() - started;
    let reply = page.clone();
    let run_engine = engine.clone();
    page.on_message(move |event: MessageEvent| {
        match event.data().as_string().map(|t| serde_json::from_str::<ToWorker>(&t)) {
            Some(Ok(ToWorker { runs, report_each })) => {
                let mut outbox = Outbox::new(report_each, now());
                for run in runs {
                    if let Some(results) = outbox.before_run(now()) {
                        reply.post(&results);
                    }
                    let result = run_engine.borrow_mut().run(&run.request);
                    if let Some(results) = outbox.finished(RunOutput { id: run.id, result }, now()) {
                        reply.post(&results);
                    }
                }
                if let Some(results) = outbox.end(now()) {
                    reply.post(&results);
                }
                reply.post(&FromWorker::Idle { memory_bytes: memory_bytes() });
            }
            Some(Err(e)) => reply.post(&FromWorker::BadMessage { error: e.to_string() }),
            None => reply.post(&FromWorker::BadMessage { error: "expected a JSON string".to_string() }),
        }
    });
    page.post(&FromWorker::Ready { init_ms, memory_bytes: memory_bytes() });
    warm_up_when_idle(engine, 0);
}

/// Runs the warm-up programs one per task after Ready (`at` counts them): a batch that arrives
/// meanwhile runs before the next one, so warming never delays a user's run by more than one
/// short program.
#[cfg(target_arch = "wasm32")]
fn warm_up_when_idle(engine: std::rc::Rc<std::cell::RefCell<execbench_pyengine::RustPythonEngine>>, at: usize) {
    use execbench_core::{PythonEngine, RunRequest};
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;

    if at >= warm_up::PROGRAMS.len() * warm_up::ROUNDS {
        return;
    }
    let tick = Closure::once_into_js(move || {
        let (program, expression) = warm_up::PROGRAMS[at % warm_up::PROGRAMS.len()];
        let _ = engine.borrow_mut().run(&RunRequest::new(program, expression));
        warm_up_when_idle(engine, at + 1);
    });
    let scope: web_sys::WorkerGlobalScope = js_sys::global().unchecked_into();
    let _ = scope.set_timeout_with_callback_and_timeout_and_arguments_0(tick.unchecked_ref(), 0);
}

/// Natively there is no worker: the command line uses the engine directly.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("execbench-worker only runs in a browser, as a Web Worker built by Trunk");
}
