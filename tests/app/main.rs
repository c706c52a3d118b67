//! The app's tests, in one test binary: browser tests of the built site's workers, end-to-end
//! tests that drive the built app in headless Chromium as a person would, and the property tests
//! of the page's address parser. Each module below was a file of `tests/` and a binary of its
//! own, which linked fantoccini, tokio, the mock server and the workspace's crates again (21
//! links); one binary links them once, and its tests share the two test threads without a gap
//! between binaries. Run one module with
//! `cargo test --profile suite --workspace --locked --test app MODULE::` (scripts/test.sh's profile).
//!
//! None needs a process of its own: no test sets an environment variable or a process-wide
//! setting, each starts its own browser (a fresh profile) and its own servers on port 0.

mod common;
#[path = "../../crates/formats/tests/common/mod.rs"]
mod parquet_writer;
mod url_cases;

mod browser_engine;
mod browser_llama;
mod browser_model;
mod e2e;
mod e2e_batch;
mod e2e_build;
mod e2e_comfort;
mod e2e_compare;
mod e2e_evaluate;
mod e2e_import;
mod e2e_keyboard;
mod e2e_keys;
mod e2e_leetcode;
mod e2e_llama_server;
mod e2e_local_model;
mod e2e_models;
mod e2e_offline;
mod e2e_perturb;
mod e2e_questions;
mod e2e_runs;
mod e2e_walkthrough;
mod prop_route;
