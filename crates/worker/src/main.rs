//! The Python worker: starts RustPython, then answers `ToWorker` messages one at a time. Python
//! runs here and never on the page's thread; the page stops a runaway run by terminating this
//! worker and starting a new one.

// Natively only the tests use the messages; the worker itself is wasm32 only.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod protocol;

#[cfg(target_arch = "wasm32")]
fn main() {
    use std::cell::RefCell;

    use execbench_core::PythonEngine;
    use execbench_pyengine::RustPythonEngine;
    use protocol::{FromWorker, ToWorker};
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let post = {
        let scope = scope.clone();
        move |message: &FromWorker| {
            let text = serde_json::to_string(message).unwrap_or_else(|e| format!("{{\"kind\":\"bad_message\",\"error\":\"{e}\"}}"));
            let _ = scope.post_message(&JsValue::from_str(&text));
        }
    };
    {
        let post = post.clone();
        std::panic::set_hook(Box::new(move |info| post(&FromWorker::Panic { message: info.to_string() })));
    }
    let now = || js_sys::Date::now();
    let started = now();
    let engine = RefCell::new(RustPythonEngine::new());
    let init_ms = now() - started;
    let reply_with = post.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let reply = match event.data().as_string().map(|t| serde_json::from_str::<ToWorker>(&t)) {
            Some(Ok(ToWorker { id, request })) => FromWorker::Result { id, result: engine.borrow_mut().run(&request) },
            Some(Err(e)) => FromWorker::BadMessage { error: e.to_string() },
            None => FromWorker::BadMessage { error: "expected a JSON string".to_string() },
        };
        reply_with(&reply);
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    on_message.forget();
    post(&FromWorker::Ready { init_ms });
}

/// Natively there is no worker: the command line uses the engine directly.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("execbench-worker only runs in a browser, as a Web Worker built by Trunk");
}

#[cfg(test)]
mod tests {
    use super::protocol::*;
    use execbench_core::{Outcome, RunRequest, RunResult};

    /// The JSON shapes are the contract with the page: pin them.
    #[test]
    fn messages_round_trip_in_their_documented_shape() {
        let to = ToWorker { id: 3, request: RunRequest::new("x = 1", "x") };
        let text = serde_json::to_string(&to).unwrap();
        assert_eq!(text, r#"{"id":3,"request":{"program":"x = 1","expression":"x","limits":{"time_ms":2000,"max_steps":0}}}"#);
        let from = FromWorker::Result {
            id: 3,
            result: RunResult { outcome: Outcome::Value { repr: "1".into(), matches: None }, stdout: String::new(), elapsed_ms: 0.5 },
        };
        let text = serde_json::to_string(&from).unwrap();
        assert_eq!(text, r#"{"kind":"result","id":3,"result":{"outcome":{"status":"value","repr":"1","matches":null},"stdout":"","elapsed_ms":0.5}}"#);
        assert!(matches!(serde_json::from_str::<FromWorker>(&text).unwrap(), FromWorker::Result { id: 3, .. }));
        assert_eq!(serde_json::to_string(&FromWorker::Ready { init_ms: 1.0 }).unwrap(), r#"{"kind":"ready","init_ms":1.0}"#);
    }
}
