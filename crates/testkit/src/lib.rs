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

/// The `execbench` binary that `cargo test --workspace` built beside the running test (the test
/// is `target/<profile>/deps/<name>-<hash>`, the binary `target/<profile>/execbench`), refused
/// when missing or older than any source file it was built from, as its dep-info file
/// (`execbench.d`) lists them: a test run alone (`--test app`) after a change to the CLI's crates
/// does not rebuild it, and would otherwise test yesterday's binary.
pub fn fresh_cli_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let dir = exe.parent().and_then(std::path::Path::parent).expect("target/<profile>/deps/<test>");
    let cli = dir.join("execbench");
    let rebuild = "build it with `cargo build --release --workspace --bins` (or run the whole `cargo test --release --workspace`)";
    let built = std::fs::metadata(&cli)
        .and_then(|m| m.modified())
        .unwrap_or_else(|_| panic!("no {}: {rebuild}", cli.display()));
    let dep_info = std::fs::read_to_string(dir.join("execbench.d"))
        .unwrap_or_else(|e| panic!("{}: {e}: {rebuild}", dir.join("execbench.d").display()));
    if let Some(newer) = dep_info_sources(&dep_info)
        .into_iter()
        .find(|source| std::fs::metadata(source).and_then(|m| m.modified()).is_ok_and(|changed| changed > built))
    {
        panic!("{} is older than {newer}, one of its sources: {rebuild}", cli.display());
    }
    cli
}

/// The sources a make-style dep-info file lists for its first target (`target: a b\ c ...`, a
/// space in a name escaped by a backslash).
fn dep_info_sources(text: &str) -> Vec<String> {
    let Some(first) = text.lines().find(|l| !l.trim().is_empty()) else { return Vec::new() };
    let Some((_, sources)) = first.split_once(": ") else { return Vec::new() };
    let mut out = vec![String::new()];
    let mut chars = sources.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.last_mut().expect("never empty").extend(chars.next()),
            ' ' => out.push(String::new()),
            c => out.last_mut().expect("never empty").push(c),
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn dep_info_sources_are_read_with_escaped_spaces() {
        let text =
            "/t/release/execbench: /r/crates/cli/src/main.rs /r/a\\ b.rs /r/c.rs\n\n/r/crates/cli/src/main.rs:\n";
        assert_eq!(super::dep_info_sources(text), ["/r/crates/cli/src/main.rs", "/r/a b.rs", "/r/c.rs"]);
        assert!(super::dep_info_sources("").is_empty());
    }
}
