//! The integration tests of `execbench-providers`, in one test binary: each module below was a file of
//! `tests/` and its own binary, which linked the crate and its dependencies again. One link per
//! crate saves that time in CI. Run one module with
//! `cargo test --release --workspace --locked --test providers MODULE::`.

mod connection;
mod errors;
mod garbage;
mod prop_batch;
mod prop_streams;
mod requests;
mod responses;
mod streams;
