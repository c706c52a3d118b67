//! The dataset loader's worker: says `ready` (a message posted before would be lost while its
//! wasm loads), receives `{file, bytes}` (a file name and a `Uint8Array`), loads it with `execbench_formats::load_dataset` and answers with one [`Loaded`] message as JSON text,
//! then the page terminates it. A panic inside a decoder (the `parquet` crate asserts on some
//! damaged pages; on wasm32 a panic traps) ends this worker, never the page.

use execbench_core::LoadReport;
use serde::{Deserialize, Serialize};

/// Worker to page.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Loaded {
    /// Listening: the page may send the file.
    Ready,
    Report {
        report: LoadReport,
    },
    /// The decoder panicked; the worker is about to die.
    Panic {
        message: String,
    },
    BadMessage {
        error: String,
    },
}

#[cfg(target_arch = "wasm32")]
fn main() {
    use execbench_worker_protocol::bootstrap::Page;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::prelude::*;
    use web_sys::MessageEvent;

    let page = Page::this_worker();
    // The panic's own words, without the source path of the crate that panicked.
    page.post_panics(|info| {
        let payload = info.payload();
        let message = execbench_core::panic_message(payload).unwrap_or_else(|| info.to_string());
        Loaded::Panic { message }
    });
    let reply = page.clone();
    page.on_message(move |event: MessageEvent| {
        let post = |message: &Loaded| reply.post(message);
        let data = event.data();
        let get = |name: &str| js_sys::Reflect::get(&data, &JsValue::from_str(name)).ok();
        let file = get("file").and_then(|v| v.as_string());
        let bytes = get("bytes").and_then(|v| v.dyn_into::<js_sys::Uint8Array>().ok());
        match (file, bytes) {
            (Some(file), Some(bytes)) => {
                post(&Loaded::Report { report: execbench_formats::load_dataset(&file, &bytes.to_vec()).report })
            }
            _ => post(&Loaded::BadMessage { error: "expected {file, bytes}".to_string() }),
        }
    });
    page.post(&Loaded::Ready);
}

/// Natively there is no worker: the command line loads files itself.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let _ = Loaded::BadMessage { error: String::new() };
    eprintln!("execbench-loader-worker only runs in a browser, as a Web Worker built by Trunk");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page reads these shapes back: a report survives the trip as JSON.
    #[test]
    fn a_report_round_trips_as_json() {
        let report = execbench_core::load_jsonl(
            "d.jsonl",
            "{\"id\": \"a\", \"code\": \"def f(x):\\n    return x\", \"input\": \"1\", \"output\": \"1\"}\n{\"id\": 3}",
        );
        assert_eq!((report.samples.len(), report.errors.len()), (1, 1));
        let text = serde_json::to_string(&Loaded::Report { report: report.clone() }).unwrap();
        match serde_json::from_str::<Loaded>(&text).unwrap() {
            Loaded::Report { report: back } => assert_eq!(back, report),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            serde_json::to_string(&Loaded::Panic { message: "m".into() }).unwrap(),
            r#"{"kind":"panic","message":"m"}"#
        );
    }
}
