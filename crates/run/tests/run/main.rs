//! The integration tests of `execbench-run`, in one test binary: each module below was a file of
//! `tests/` and its own binary, which linked the crate and its dependencies again. One link per
//! crate saves that time in CI. Run one module with
//! `cargo test --release --workspace --locked --test run MODULE::`.

mod common;
mod virtual_clock;

mod engine;
mod generation;
mod kept_base_urls;
mod key_echo;
mod prop_runfile;
