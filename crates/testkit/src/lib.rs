//! Plumbing shared by the end-to-end tests and the benchmark: serving a built site on 127.0.0.1
//! and driving headless Chromium. No test logic lives here.

pub mod browser;
mod browser_pool;
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

/// The `execbench` binary that `cargo test --workspace` built beside the running test (the test
/// is `target/<profile>/deps/<name>-<hash>`, the binary `target/<profile>/execbench`), refused
/// when missing or older than any source of the workspace crates it is built from (their `src/`,
/// `build.rs` and `Cargo.toml`, the crates read from `cargo metadata`): a test run alone
/// (`--test app`) after a change to the CLI's crates does not rebuild it, and would otherwise
/// test yesterday's binary.
pub fn fresh_cli_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let dir = exe.parent().and_then(std::path::Path::parent).expect("target/<profile>/deps/<test>");
    let cli = dir.join("execbench");
    let profile = dir.file_name().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
    let rebuild = format!(
        "build it with `cargo build --profile {profile} --workspace --bins` (or run the whole `cargo test --profile {profile} --workspace`)"
    );
    let built = std::fs::metadata(&cli)
        .and_then(|m| m.modified())
        .unwrap_or_else(|_| panic!("no {}: {rebuild}", cli.display()));
    let newest = cli_sources().into_iter().filter_map(|f| Some((f.metadata().ok()?.modified().ok()?, f))).max();
    if let Some((changed, file)) = newest.filter(|(changed, _)| *changed > built) {
        let by = changed.duration_since(built).unwrap_or_default().as_secs();
        panic!("{} is older than {} (by {by} s), one of its sources: {rebuild}", cli.display(), file.display());
    }
    cli
}

/// Every file of the workspace crates `execbench-cli` depends on, itself included.
fn cli_sources() -> Vec<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline", "--filter-platform", "x86_64-unknown-linux-gnu"])
        .current_dir(repo_root())
        .output()
        .expect("run cargo metadata");
    assert!(output.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON");
    let members: Vec<&str> =
        metadata["workspace_members"].as_array().into_iter().flatten().filter_map(|m| m.as_str()).collect();
    let nodes = metadata["resolve"]["nodes"].as_array().cloned().unwrap_or_default();
    let deps_of = |id: &str| -> Vec<String> {
        nodes
            .iter()
            .find(|n| n["id"] == id)
            .and_then(|n| n["deps"].as_array())
            .into_iter()
            .flatten()
            .filter(|d| {
                d["dep_kinds"].as_array().into_iter().flatten().any(|k| k["kind"].is_null() || k["kind"] == "build")
            })
            .filter_map(|d| d["pkg"].as_str().map(str::to_string))
            .collect()
    };
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    let cli =
        packages.iter().find(|p| p["name"] == "execbench-cli").and_then(|p| p["id"].as_str()).expect("execbench-cli");
    let (mut seen, mut todo) = (std::collections::BTreeSet::new(), vec![cli.to_string()]);
    while let Some(id) = todo.pop() {
        if members.contains(&id.as_str()) && seen.insert(id.clone()) {
            todo.extend(deps_of(&id));
        }
    }
    let mut files = Vec::new();
    for package in packages.iter().filter(|p| p["id"].as_str().is_some_and(|id| seen.contains(id))) {
        let manifest = PathBuf::from(package["manifest_path"].as_str().unwrap_or_default());
        let root = manifest.parent().map(std::path::Path::to_path_buf).unwrap_or_default();
        files.push(manifest);
        files.push(root.join("build.rs"));
        let mut stack = vec![root.join("src")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() { stack.push(path) } else { files.push(path) }
            }
        }
    }
    files
}
