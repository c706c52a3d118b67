//! The in-browser model's worker (issue 36). The page starts it only when the user picks "In this
//! browser (no key)", so a first visit never downloads it. It says `ready`, then answers the
//! messages of `execbench_model_files::protocol` (JSON text):
//!
//! - `download`: fetches a file into Cache Storage in parts, resuming after what is kept, hashing
//!   it part by part and refusing it when the published SHA-256 differs (`files.rs`);
//! - `list`, `remove`, `size`: the kept files, for the page's list with its Remove buttons;
//! - `load`: one `LocalModel` from kept files (no network);
//! - `chat`: a chat-completions body answered by `execbench_localmodel::chat_api`.
//!
//! A chat runs to its end without yielding: the page's Stop terminates this worker, and the next
//! request starts a new one that loads the kept files again.

#[cfg(target_arch = "wasm32")]
mod blob_reader;
#[cfg(target_arch = "wasm32")]
mod files;
#[cfg(target_arch = "wasm32")]
mod worker;

#[cfg(target_arch = "wasm32")]
fn main() {
    worker::start();
}

/// Natively there is no worker: the command line runs the model itself (`--provider local`).
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let _ = execbench_model_files::protocol::FromWorker::Ready;
    eprintln!("execbench-model-worker only runs in a browser, as a Web Worker built by Trunk");
}
