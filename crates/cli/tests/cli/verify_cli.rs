//! `execbench verify` end to end: the built binary on small datasets written here, and on the
//! bundled CRUXEval copy. Runs RustPython: use `cargo test --release --workspace --test cli verify_cli::`.

use std::path::PathBuf;
use std::process::{Command, Output};

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-verify-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn write(dir: &std::path::Path, name: &str, lines: &[&str]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n")).expect("dataset written");
    path.to_str().unwrap().to_string()
}

fn execbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_execbench")).args(args).output().expect("the execbench binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const GOOD: &str = r#"{"id": "ok1", "code": "def f(x):\n    return x * 2", "input": "21", "output": "42"}"#;
const GOOD_CONTEST: &str = r#"{"id": "ok2", "function_name": "minimumCost", "code": "def minimumCost(s):\n    return s.count('1')", "input": "minimumCost(s='0011')", "output": "2"}"#;
const WRONG: &str = r#"{"id": "wrong", "code": "def f(x):\n    return x + 1", "input": "1", "output": "3"}"#;
const RAISES: &str = r#"{"id": "raises", "code": "def f(x):\n    return x[5]", "input": "[1]", "output": "1"}"#;
const SPINS: &str =
    r#"{"id": "spins", "code": "def f(x):\n    while True:\n        x += 1", "input": "0", "output": "0"}"#;
const NO_OUTPUT: &str = r#"{"id": "bad", "code": "def f(x):\n    return x", "input": "1"}"#;

#[test]
fn a_clean_dataset_passes_with_exit_zero_and_the_summary_line() {
    let dir = scratch("clean");
    let file = write(&dir, "clean.jsonl", &[GOOD, GOOD_CONTEST]);
    let out = execbench(&["verify", "--dataset", &file]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert_eq!(stdout.lines().last(), Some("2 passed, 0 failed"), "{stdout}");
    // The progress bar goes to stderr, ending at 2/2.
    assert!(text(&out.stderr).contains("2/2 (0 failed)"), "{}", text(&out.stderr));
}

#[test]
fn failures_and_bad_rows_are_named_and_exit_one() {
    let dir = scratch("failing");
    let file = write(&dir, "mixed.jsonl", &[GOOD, WRONG, NO_OUTPUT, RAISES, SPINS, "{not json"]);
    let out = execbench(&["verify", "--dataset", &file, "--time-limit", "1"]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    let expected_lines = [
        "FAIL wrong: returned 2, expected 3",
        "FAIL raises: raised IndexError: list index out of range",
        "FAIL spins: timed out after 1 s",
        "6 rows, 2 invalid, 0 engine differences",
        "1 passed, 3 failed",
    ];
    for line in expected_lines {
        assert!(stdout.lines().any(|l| l.starts_with(line)), "no line starting `{line}` in:\n{stdout}");
    }
    assert!(stderr.contains("invalid row: ") && stderr.contains("mixed.jsonl:3: field `output`: missing"), "{stderr}");
    assert!(stderr.contains("mixed.jsonl:6: not valid JSON"), "{stderr}");
}

#[test]
fn a_bad_row_alone_fails_the_run() {
    let dir = scratch("bad-row");
    let file = write(&dir, "bad.jsonl", &[GOOD, NO_OUTPUT]);
    let out = execbench(&["verify", "--dataset", &file]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout).lines().last(), Some("1 passed, 0 failed"));
}

#[test]
fn usage_errors_exit_two_with_a_reason() {
    let dir = scratch("usage");
    let file = write(&dir, "clean.jsonl", &[GOOD]);
    let cases: [(&[&str], &str); 5] = [
        (&["verify"], "--dataset"),
        (&["verify", "--dataset", "/no/such/file.jsonl"], "cannot read /no/such/file.jsonl"),
        (
            &["verify", "--dataset", &file, "--time-limit", "0"],
            "--time-limit must be between 0 and 3600 seconds, got 0",
        ),
        (&["verify", "--dataset", &file, "--time-limit", "-1"], "--time-limit must be between"),
        (&["verify", "--dataset", &file, "--colour", "red"], "colour"),
    ];
    for (args, needle) in cases {
        let out = execbench(args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle) && stderr.contains("Usage: execbench verify"), "{args:?}: {stderr}");
    }
}

#[test]
fn all_800_bundled_cruxeval_samples_pass() {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../public/data/cruxeval/cruxeval.jsonl");
    let out = execbench(&["verify", "--dataset", file.to_str().unwrap()]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert_eq!(stdout.lines().last(), Some("800 passed, 0 failed"), "{stdout}");
}

/// A panic inside RustPython (0.5's `str.rfind` on this slice of non-ASCII text) is that sample's
/// failure, said once on stdout: the worker's panic message and backtrace never reach the user's
/// terminal, and the next sample still runs.
#[test]
fn a_panic_inside_the_engine_fails_its_sample_without_a_backtrace() {
    let dir = scratch("panic");
    let panics = r#"{"id": "panics", "code": "def f(s):\n    count = len(s) - 1\n    reverse_s = s[::-1]\n    while count > 0 and reverse_s[::2].rfind('sea') == -1:\n        count -= 1\n        reverse_s = reverse_s[:count]\n    return reverse_s[count:]", "input": "'Hëllo, wörld 42'", "output": "''"}"#;
    let file = write(&dir, "panics.jsonl", &[panics, GOOD]);
    let out = Command::new(env!("CARGO_BIN_EXE_execbench"))
        .args(["verify", "--dataset", &file, "--jobs", "2"])
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("RustPython failed inside the run"), "{stdout}");
    assert!(stdout.contains("1 passed, 1 failed"), "{stdout}");
    for noise in ["panicked at", "stack backtrace", "RUST_BACKTRACE"] {
        assert!(!stderr.contains(noise), "`{noise}` on stderr:\n{stderr}");
    }
}
