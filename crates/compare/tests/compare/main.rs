//! The integration tests of `execbench-compare`, in one test binary: each module below was a file of
//! `tests/` and its own binary, which linked the crate and its dependencies again. One link per
//! crate saves that time in CI. Run one module with
//! `cargo test --release --workspace --locked --test compare MODULE::`.
//!
//! The snapshot files stay in `tests/snapshots/`.

mod common;

mod charts;
mod pairing;
mod prop_identity;
mod reading;
mod reports;
mod stats;
mod table;
