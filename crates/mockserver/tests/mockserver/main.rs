//! The integration tests of `execbench-mockserver`, in one test binary: each module below was a file of
//! `tests/` and its own binary, which linked the crate and its dependencies again. One link per
//! crate saves that time in CI. Run one module with
//! `cargo test --release --workspace --locked --test mockserver MODULE::`.
//!
//! `provider_definitions/` uses `batch`'s key, samples and client.

mod common;
mod provider_definitions;

mod batch;
mod binary;
mod prop_wire;
mod server;
