pub mod browser;
pub mod static_server;

use std::path::PathBuf;

/// The built site. The test command builds it first (`trunk build --release`); a missing build
/// is a failure, not a skip.
pub fn dist_dir() -> PathBuf {
    let dist = std::env::var("EXECBENCH_DIST").map(PathBuf::from).unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("dist"));
    assert!(dist.join("index.html").is_file(), "no built site at {}: run `trunk build --release` (scripts/test.sh does)", dist.display());
    dist
}
