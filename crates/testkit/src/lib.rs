//! Plumbing shared by the end-to-end tests and the benchmark: serving a built site on 127.0.0.1
//! and driving headless Chromium. No test logic lives here.

pub mod browser;
pub mod model_worker;
pub mod static_server;

use std::path::PathBuf;

/// The repository's root folder.
pub fn repo_root() -> PathBuf {
    // At run time first: builds share one cache across checkouts (scripts/setup.sh), and a
    // testkit compiled in another checkout would name that checkout's `dist/` and `tests/`.
    // `cargo test` and `cargo run` set CARGO_MANIFEST_DIR for what they run; the workspace root
    // is the folder above it that holds Trunk.toml.
    let running = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    running
        .and_then(|dir| dir.ancestors().find(|d| d.join("Trunk.toml").is_file()).map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

/// The built site. The test command builds it first (`trunk build --release`); a missing build
/// is a failure, not a skip.
pub fn dist_dir() -> PathBuf {
    let dist = std::env::var("EXECBENCH_DIST").map(PathBuf::from).unwrap_or_else(|_| repo_root().join("dist"));
    assert!(
        dist.join("index.html").is_file(),
        "no built site at {}: run `trunk build --release` (scripts/test.sh does)",
        dist.display()
    );
    dist
}
