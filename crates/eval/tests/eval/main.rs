//! The integration tests of `execbench-eval`, in one test binary: each module below was a file of
//! `tests/` and its own binary, which linked the crate and its dependencies again. One link per
//! crate saves that time in CI. Run one module with
//! `cargo test --release --workspace --locked --test eval MODULE::`.
//!
//! The data and snapshot files these modules read stay in `tests/data/` and `tests/snapshots/`.

mod common;

mod prompt_parts;
mod prompt_snapshots;
mod prop_extract;
mod prop_generations;
mod prop_stored;
mod prop_templates;
mod question_task;
mod real_engine;
mod reproduction;
mod strict_timing;
