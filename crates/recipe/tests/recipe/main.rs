//! The integration tests of `execbench-recipe`, in one test binary: each module below was a file of
//! `tests/` and its own binary, which linked the crate and its dependencies again. One link per
//! crate saves that time in CI. Run one module with
//! `cargo test --release --workspace --locked --test recipe MODULE::`.

mod cruxeval_filter;
mod filter_table;
mod offline_runs;
mod prop_responses;
