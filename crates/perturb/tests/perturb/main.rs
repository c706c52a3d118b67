//! The integration tests of `execbench-perturb`, in one test binary: each module below was a file of
//! `tests/` and its own binary, which linked the crate and its dependencies again. One link per
//! crate saves that time in CI. Run one module with
//! `cargo test --release --workspace --locked --test perturb MODULE::`.

mod cruxeval_all;
mod normalise_cruxeval;
mod profiles_cruxeval;
mod prop_claims;
mod sweep;
mod verify_cruxeval;
