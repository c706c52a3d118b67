//! The integration tests of `execbench-pyengine`, in one test binary: each module below was a file of
//! `tests/` and its own binary, which linked the crate and its dependencies again. One link per
//! crate saves that time in CI. Run one module with
//! `cargo test --release --workspace --locked --test pyengine MODULE::`.
//!
//! `time_outs.rs` and `lazy_stdlib.rs` stay binaries of their own: the first needs a process where a
//! crash fails only it, the second sets the process's standard-library fetcher (each says why at its top).

mod cruxeval;
mod engine;
mod trace_cpython;
