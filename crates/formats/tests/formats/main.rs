//! The integration tests of `execbench-formats`, in one test binary: each module below was a file of
//! `tests/` and its own binary, which linked the crate and its dependencies again. One link per
//! crate saves that time in CI. Run one module with
//! `cargo test --release --workspace --locked --test formats MODULE::`.
//!
//! `prop_parquet.rs` stays a binary of its own: it silences the process's panic hook.

// Stays in tests/common/: the browser tests of the repository's tests/ include it by that path.
#[path = "../common/mod.rs"]
mod common;

mod categories;
mod codecrash;
mod hf_rows;
mod load;
mod parquet_lcb;
mod parquet_pyarrow;
mod prop_rows;
