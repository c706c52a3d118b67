//! What each of execbench's Web Workers (the Python worker, the dataset loader) sets up first, in
//! the worker itself: its link to the page, messages posted as JSON text, and a panic hook that
//! posts the panic before the worker dies (on wasm32 a panic traps, so the hook's message is all
//! the page learns of why). wasm32 only.

use std::panic::PanicHookInfo;

use serde::Serialize;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// The worker's side of its link to the page (the worker's global scope). Clones share it.
#[derive(Clone)]
pub struct Page {
    scope: DedicatedWorkerGlobalScope,
}

impl Page {
    /// The page of the worker this code runs in.
    pub fn this_worker() -> Page {
        Page { scope: js_sys::global().unchecked_into() }
    }

    /// Posts `message` to the page as JSON text. One that cannot be written as JSON is posted as
    /// `{"kind":"bad_message","error":"..."}`, which both workers' messages read as `BadMessage`.
    pub fn post<M: Serialize>(&self, message: &M) {
        let text = serde_json::to_string(message)
            .unwrap_or_else(|e| format!("{{\"kind\":\"bad_message\",\"error\":\"{e}\"}}"));
        let _ = self.scope.post_message(&JsValue::from_str(&text));
    }

    /// From now on, a panic is posted to the page as `message(info)` before the worker dies.
    pub fn post_panics<M: Serialize>(&self, message: impl Fn(&PanicHookInfo) -> M + Send + Sync + 'static) {
        let page = self.clone();
        std::panic::set_hook(Box::new(move |info| page.post(&message(info))));
    }

    /// Hands every message from the page to `handler`, for as long as the worker lives.
    pub fn on_message(&self, handler: impl FnMut(MessageEvent) + 'static) {
        let handler = Closure::<dyn FnMut(MessageEvent)>::new(handler);
        self.scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
        handler.forget();
    }
}
