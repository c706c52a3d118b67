//! Loading a whole dataset file off the page's thread: a short-lived Web Worker
//! (`crates/loader-worker`) decodes it with `execbench_formats::load_dataset` and sends the
//! report back. A decoder that traps on a damaged file (the `parquet` crate asserts on some
//! damaged pages, and a panic in wasm cannot be caught) ends that worker only: the page says the
//! file is damaged and keeps everything else.

use execbench_core::LoadReport;
use futures::channel::oneshot;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

/// Trunk writes the loader worker's shim next to index.html.
const LOADER_URL: &str = "execbench-loader-worker_loader.js";

/// The worker's answer, as `crates/loader-worker` sends it.
#[derive(serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Loaded {
    Ready,
    Report { report: LoadReport },
    Panic { message: String },
    BadMessage { error: String },
}

/// `file`'s bytes loaded in a worker. `Err` says why it could not be (a damaged file, or no
/// worker in this browser), naming the file.
pub async fn load_off_thread(file: &str, bytes: &[u8]) -> Result<LoadReport, String> {
    let worker = web_sys::Worker::new_with_options(LOADER_URL, &web_sys::WorkerOptions::new())
        .map_err(|e| format!("{file}: could not start the loader ({e:?})"))?;
    let (reply, answer) = oneshot::channel::<Result<LoadReport, String>>();
    let reply = std::rc::Rc::new(std::cell::RefCell::new(Some(reply)));
    let panic = std::rc::Rc::new(std::cell::RefCell::new(None::<String>));
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &JsValue::from_str("file"), &JsValue::from_str(file));
    let _ = js_sys::Reflect::set(&message, &JsValue::from_str("bytes"), &js_sys::Uint8Array::from(bytes));
    let on_message = {
        let (reply, panic, file, worker) = (reply.clone(), panic.clone(), file.to_string(), worker.clone());
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
            let text = event.data().as_string().unwrap_or_default();
            let outcome = match serde_json::from_str::<Loaded>(&text) {
                // Listening now: a message sent before its wasm had loaded would have been lost.
                Ok(Loaded::Ready) => match worker.post_message(&message) {
                    Ok(()) => return,
                    Err(e) => Err(format!("{file}: could not hand the file to the loader ({e:?})")),
                },
                Ok(Loaded::Report { report }) => Ok(report),
                // The worker dies right after; its error event answers, with this message.
                Ok(Loaded::Panic { message }) => {
                    *panic.borrow_mut() = Some(message);
                    return;
                }
                Ok(Loaded::BadMessage { error }) => Err(format!("{file}: the loader refused the file ({error})")),
                Err(e) => Err(format!("{file}: unreadable answer from the loader ({e})")),
            };
            if let Some(reply) = reply.borrow_mut().take() {
                let _ = reply.send(outcome);
            }
        })
    };
    let on_error = {
        let (reply, panic, file) = (reply.clone(), panic.clone(), file.to_string());
        Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |event: web_sys::ErrorEvent| {
            event.prevent_default();
            let why = panic.borrow_mut().take().unwrap_or_else(|| event.message());
            if let Some(reply) = reply.borrow_mut().take() {
                let _ = reply.send(Err(format!(
                    "{file}: the file is damaged: its decoder stopped ({why}); nothing was loaded from it"
                )));
            }
        })
    };
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let outcome = answer.await.unwrap_or_else(|_| Err(format!("{file}: the loader stopped without an answer")));
    worker.terminate();
    // The callbacks live until here, then go with the worker.
    drop((on_message, on_error));
    outcome
}
