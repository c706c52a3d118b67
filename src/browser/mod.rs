//! Everything the page does with the outside world, in one place: the Python worker, `fetch` for
//! model APIs, timers, files in and out, the bundled dataset, and the browser's storage
//! (IndexedDB for runs, datasets and generations; `localStorage` for the few settings that are
//! kept). Each piece is a small type that implements an interface of the library crates
//! (`execbench_run::io`, the store traits), so the logic never touches a browser API.

pub mod address;
pub mod clock;
pub mod data;
pub mod download;
pub mod fetch;
pub mod hf_rows;
pub mod key_scopes;
pub mod loader;
pub mod local_http;
pub mod locks;
pub mod model_worker;
pub mod notices;
pub mod offline;
pub mod page_http;
pub mod python;
pub mod storage;
pub mod stores;
pub mod theme;
