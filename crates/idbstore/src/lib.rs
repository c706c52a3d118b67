//! Runs kept in the browser's IndexedDB: [`IdbRunStore`], the page's
//! [`RunStore`](execbench_run::store::RunStore), and [`storage_estimate`] for the Runs page.
//!
//! Layout (database version 1):
//! - object store `runs`: key `run_id`, value the [`RunEntry`](execbench_run::store::RunEntry)
//!   as a JSON string;
//! - object store `records`: key `[run_id, sample_id]`, value the
//!   [`SampleRecord`](execbench_run::record::SampleRecord) as a JSON string.
//!
//! No index is needed: a run's records are the key range `[run_id] ..= [run_id, []]` (an array
//! sorts after every string, so `[run_id, []]` is above every `[run_id, sample_id]`). Listing runs
//! reads only `runs`, however many records the runs have.
//!
//! Values are JSON strings (serde_json) rather than JS objects: the structured clone of one string
//! is a copy, there is no extra dependency (serde-wasm-bindgen) and the bytes are the run files'
//! format.
//!
//! Writes: `put_record` puts the record and the entry in one readwrite transaction over both
//! stores and resolves when the transaction's `complete` event fires (committed; a reload after
//! that loses nothing), or fails with the transaction's error if it aborts. Every write goes
//! through `IDBObjectStore.prototype.put` (deletes through `IDBObjectStore.prototype.delete`),
//! so a test can simulate a full disk by patching `put` to throw a `QuotaExceededError`
//! `DOMException`: that synchronous throw aborts the transaction and comes back as
//! [`StoreErrorKind::Quota`](execbench_run::store::StoreErrorKind::Quota).
//!
//! Natively (the app is compiled natively by `cargo test --workspace`) the same API exists over
//! nothing: [`IdbRunStore::open`] fails with `Unavailable` and [`storage_estimate`] is `None`.

#[cfg(target_arch = "wasm32")]
mod idb_store;
#[cfg(not(target_arch = "wasm32"))]
#[path = "native.rs"]
mod idb_store;

pub use idb_store::{IdbRunStore, storage_estimate};

/// The schema version this code creates and reads.
pub const DB_VERSION: u32 = 1;
/// Object store of run entries (key: run id).
pub const RUNS: &str = "runs";
/// Object store of sample records (key: `[run_id, sample_id]`).
pub const RECORDS: &str = "records";
