//! The integration tests of `execbench-cli`, in one test binary: each module below was a file of
//! `tests/` and its own binary, which linked the crate and its dependencies again. One link per
//! crate saves that time in CI. Run one module with
//! `cargo test --release --workspace --locked --test cli MODULE::`.

mod batch_cli;
mod build_cli;
mod build_generate_cli;
mod compare_cli;
mod grammar_cli;
mod import_cli;
mod jobs_cli;
mod key_scope_cli;
mod local_model_cli;
mod perturb_cli;
mod perturb_profile_cli;
mod python_workers_cli;
mod questions_cli;
mod run_cli;
mod score_cli;
mod verify_cli;
