//! Runs, imported datasets and Build generations kept in the browser's IndexedDB: [`IdbStore`],
//! the page's [`RunStore`](execbench_runs::store::RunStore), [`DatasetShelf`](execbench_runs::shelf::DatasetShelf)
//! and [`GenerationStore`](execbench_runs::generation_store::GenerationStore), and
//! [`storage_estimate`] and [`storage_persisted`] for the Runs page.
//!
//! Layout (database version 3; version 1 had only the first two stores, version 2 the first
//! four, and opening an older one upgrades it in place, keeping what it holds):
//! - object store `runs`: key `run_id`, value the [`RunEntry`](execbench_runs::manifest::RunEntry)
//!   as a JSON string;
//! - object store `records`: key `[run_id, sample_id]`, value the
//!   [`SampleRecord`](execbench_runs::record::SampleRecord) as a JSON string;
//! - object store `datasets`: key the shelf id, value the
//!   [`ShelfEntry`](execbench_runs::shelf::ShelfEntry) of an imported dataset as a JSON string;
//! - object store `dataset_bytes`: key the shelf id, value the file's bytes (a `Uint8Array`), so
//!   listing the shelf never reads a file;
//! - object store `generations`: key the generation id, value the
//!   [`GenerationEntry`](execbench_runs::generation_store::GenerationEntry) of a benchmark
//!   generation (Build page) as a JSON string;
//! - object store `generation_rows`: key `[generation_id, request_id]`, value the
//!   [`GenerationRow`](execbench_recipe::replay::GenerationRow) (a response or its error).
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
//! [`StoreErrorKind::Quota`](execbench_runs::store::StoreErrorKind::Quota).
//!
//! Natively (the app is compiled natively by `cargo test --workspace`) the same API exists over
//! nothing: [`IdbStore::open`] fails with `Unavailable` and [`storage_estimate`] is `None`.

#[cfg(target_arch = "wasm32")]
mod idb_generations;
#[cfg(target_arch = "wasm32")]
mod idb_shelf;
#[cfg(target_arch = "wasm32")]
mod idb_store;
#[cfg(not(target_arch = "wasm32"))]
#[path = "native.rs"]
mod idb_store;

pub use idb_store::{IdbStore, storage_estimate, storage_persisted};

/// The schema version this code creates and reads.
pub const DB_VERSION: u32 = 3;
/// Object store of run entries (key: run id).
pub const RUNS: &str = "runs";
/// Object store of sample records (key: `[run_id, sample_id]`).
pub const RECORDS: &str = "records";
/// Object store of imported datasets' entries (key: shelf id).
pub const DATASETS: &str = "datasets";
/// Object store of imported datasets' bytes (key: shelf id).
pub const DATASET_BYTES: &str = "dataset_bytes";
/// Object store of benchmark generations' entries (key: generation id).
pub const GENERATIONS: &str = "generations";
/// Object store of generation rows (key: `[generation_id, request_id]`).
pub const GENERATION_ROWS: &str = "generation_rows";
