//! The integration tests of `execbench-model-files`, in one test binary (one link per crate).
//! Run one module with `cargo test --release -p execbench-model-files --test model_files MODULE::`.

mod fakes;

mod download_loop;
