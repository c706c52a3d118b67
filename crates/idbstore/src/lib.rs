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
//! Natively the crate is empty (the browser is the only place with IndexedDB).

#[cfg(target_arch = "wasm32")]
mod idb_store;

#[cfg(target_arch = "wasm32")]
pub use idb_store::{DB_VERSION, IdbRunStore, RECORDS, RUNS, storage_estimate};
