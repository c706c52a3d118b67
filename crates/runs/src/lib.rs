//! What a stored run is, apart from what makes it: the page, the command line and the tests
//! keep and read runs through this crate, and what only reads them (`execbench-compare`, the
//! IndexedDB stores) needs nothing else. No engine, no HTTP, no Python.
//!
//! - [`manifest`]: what a run is (`RunManifest`: dataset, model, template, n, price; never a key),
//!   where it stands (`RunState`) and its running `Tally`; [`manifest::batch_run`] what a run keeps
//!   of its batches and how a batch run is priced.
//! - [`settings`]: what a run asks a model with, except the key (`ApiSettings`, `RetryPolicy`,
//!   the local model's files, the simulated model's behaviour).
//! - [`record`]: what a finished sample leaves behind.
//! - [`runfile`]: the run file's format (a manifest line, one record line per sample).
//! - [`store`]: `RunStore` (an entry per run, a record per sample), the engine's `ResultStore`,
//!   the in-memory store and the table of cases every store passes ([`store::conformance`]).
//! - [`naming`]: a run's default name, typed names checked (never a key), the endpoint's host.
//! - [`eviction`]: a run whose records the browser cleared; [`tabs`]: what a page does with a run
//!   another tab drives.
//! - [`shelf`]: the datasets kept in the browser; [`generation_store`]: kept Build generations.
//! - [`cost`]: prices (the bundled LiteLLM snapshot), spend caps and estimates before a run.

pub mod cost;
pub mod eviction;
pub mod generation_store;
pub mod manifest;
pub mod naming;
pub mod record;
pub mod runfile;
pub mod settings;
pub mod shelf;
pub mod store;
pub mod tabs;

pub use record::{AttemptRecord, SampleRecord};

#[cfg(test)]
mod prop_price_overrides;
