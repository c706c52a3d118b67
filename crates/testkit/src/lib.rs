//! Plumbing shared by the end-to-end tests and the benchmark: serving a built site on 127.0.0.1
//! and driving headless Chromium. No test logic lives here.

pub mod browser;
pub mod static_server;

use std::path::PathBuf;

/// The repository's root folder.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
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
