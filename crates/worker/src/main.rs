//! The Python worker: starts RustPython, then runs each batch of `ToWorker` runs in order,
//! answering every run as soon as it is done. Python runs here and never on the page's thread;
//! the page stops a runaway run by terminating this worker and starting a new one.

#[cfg(target_arch = "wasm32")]
fn main() {
    use std::cell::RefCell;

    use execbench_core::PythonEngine;
    use execbench_pyengine::RustPythonEngine;
    use execbench_worker_protocol::bootstrap::Page;
    use execbench_worker_protocol::{FromWorker, ToWorker};
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
    let engine = RefCell::new(RustPythonEngine::new());
    let init_ms = now() - started;
    let reply = page.clone();
    page.on_message(move |event: MessageEvent| {
        match event.data().as_string().map(|t| serde_json::from_str::<ToWorker>(&t)) {
            Some(Ok(ToWorker { runs })) => {
                for run in runs {
                    let result = engine.borrow_mut().run(&run.request);
                    reply.post(&FromWorker::Result { id: run.id, result });
                }
                reply.post(&FromWorker::Idle { memory_bytes: memory_bytes() });
            }
            Some(Err(e)) => reply.post(&FromWorker::BadMessage { error: e.to_string() }),
            None => reply.post(&FromWorker::BadMessage { error: "expected a JSON string".to_string() }),
        }
    });
    page.post(&FromWorker::Ready { init_ms, memory_bytes: memory_bytes() });
}

/// Natively there is no worker: the command line uses the engine directly.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("execbench-worker only runs in a browser, as a Web Worker built by Trunk");
}
