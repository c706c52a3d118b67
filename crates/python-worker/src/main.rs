//! The Python worker: starts RustPython, then runs each batch of `ToWorker` runs in order,
//! posting their results in groups by the protocol's `Outbox` rule. Python runs here and never on
//! the page's thread; the page stops a runaway run by terminating this worker and starting a new
//! one. Once ready, the worker warms its engine in idle time (`warm_up.rs`).
//!
//! Starting is two calls from the worker's loader (`scripts/python_worker_start.js`), so that the
//! loader can save the worker's memory between them and a later worker can begin from that copy:
//! `boot` starts the interpreter and keeps it in `BOOTED`; `serve` takes it from there (or starts
//! one if `boot` never ran), listens to the page and posts Ready. A memory copy taken after `boot`
//! holds `BOOTED` already filled, so a worker restored from it skips the interpreter's start.
//! Between the two calls no Rust frame is live, which is what makes the copy restorable.

#[cfg(any(target_arch = "wasm32", test))]
mod warm_up;

#[cfg(target_arch = "wasm32")]
mod start {
    use std::cell::RefCell;
    use std::rc::Rc;

    use execbench_core::PythonEngine;
    use execbench_pyengine::RustPythonEngine;
    use execbench_worker_protocol::bootstrap::Page;
    use execbench_worker_protocol::{FromWorker, Outbox, RunOutput, ToWorker};
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;
    use web_sys::MessageEvent;

    thread_local! {
        /// The interpreter `boot` started and how long that took, until `serve` takes it.
        static BOOTED: RefCell<Option<(RustPythonEngine, f64)>> = const { RefCell::new(None) };
    }

    fn now() -> f64 {
        js_sys::Date::now()
    }

    fn memory_bytes() -> u64 {
        let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().unchecked_into();
        memory.buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length() as u64
    }

    fn panics_to_page() -> Page {
        let page = Page::this_worker();
        page.post_panics(|info| FromWorker::Panic { message: info.to_string() });
        page
    }

    /// The part of the standard library not frozen into the engine, downloaded on the first import
    /// that needs it (`execbench_pyengine::stdlib_rest`). Synchronous, as an import is; a dedicated
    /// worker may block on a request. It goes through the service worker, which keeps the file
    /// from then on, offline too; the name beside the worker's script carries the content's hash.
    /// The page is told before and after, so that it holds the run's deadline meanwhile.
    fn download_stdlib_rest() -> Result<Vec<u8>, String> {
        let page = Page::this_worker();
        page.post(&FromWorker::StdlibDownload { finished: false });
        let downloaded = download(execbench_pyengine::stdlib_rest::REST_FILE);
        page.post(&FromWorker::StdlibDownload { finished: true });
        downloaded
    }

    fn download(file: &str) -> Result<Vec<u8>, String> {
        use web_sys::{XmlHttpRequest, XmlHttpRequestResponseType};

        let failed = |what: &str| format!("{what} {file} failed: the browser may be offline");
        let request = XmlHttpRequest::new().map_err(|_| failed("creating a request for"))?;
        request.open_with_async("GET", file, false).map_err(|_| failed("opening"))?;
        request.set_response_type(XmlHttpRequestResponseType::Arraybuffer);
        request.set_timeout(execbench_worker_protocol::STDLIB_DOWNLOAD_TIMEOUT_MS);
        request.send().map_err(|_| failed("downloading"))?;
        match request.status() {
            Ok(200) => {}
            Ok(status) => return Err(format!("the server answered {status} for {file}")),
            Err(_) => return Err(failed("downloading")),
        }
        let body = request.response().map_err(|_| failed("reading"))?;
        Ok(js_sys::Uint8Array::new(&body).to_vec())
    }

    /// Starts the interpreter and keeps it for `serve`.
    #[wasm_bindgen]
    pub fn boot() {
        panics_to_page();
        execbench_pyengine::stdlib_rest::fetch_rest_with(download_stdlib_rest);
        let started = now();
        let engine = RustPythonEngine::new();
        let init_ms = now() - started;
        BOOTED.with(|booted| *booted.borrow_mut() = Some((engine, init_ms)));
    }

    /// Serves the page: the interpreter `boot` kept (`restored_ms` is set when the loader put this
    /// worker's memory back from a saved copy, and says how long that took), or a new one.
    #[wasm_bindgen]
    pub fn serve(restored_ms: Option<f64>) {
        let page = panics_to_page();
        let booted = BOOTED.with(|booted| booted.borrow_mut().take());
        let (engine, init_ms) = match booted {
            Some(booted) => booted,
            None => {
                boot();
                BOOTED.with(|booted| booted.borrow_mut().take()).expect("boot keeps the engine")
            }
        };
        let engine = Rc::new(RefCell::new(engine));
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
        page.post(&FromWorker::Ready {
            init_ms: restored_ms.unwrap_or(init_ms),
            memory_bytes: memory_bytes(),
            restored: restored_ms.is_some(),
        });
        warm_up_when_idle(engine, 0);
    }

    /// Runs the warm-up programs one per task after Ready (`at` counts them): a batch that arrives
    /// meanwhile runs before the next one, so warming never delays a user's run by more than one
    /// short program.
    fn warm_up_when_idle(engine: Rc<RefCell<RustPythonEngine>>, at: usize) {
        use execbench_core::RunRequest;

        use super::warm_up;

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
}

/// In the browser the loader calls `boot` and `serve` (see the top of this file).
#[cfg(target_arch = "wasm32")]
fn main() {}

/// Natively there is no worker: the command line uses the engine directly.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("execbench-python-worker only runs in a browser, as a Web Worker built by Trunk");
}
