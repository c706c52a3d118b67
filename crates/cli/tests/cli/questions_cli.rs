//! `execbench questions` end to end: the built binary traces a small dataset in its worker
//! processes and writes questions; bad flags and samples that give no question are named.

use std::path::PathBuf;
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-questions-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn execbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_execbench")).args(args).output().expect("the execbench binary runs")
}

const LOOP: &str = r#"{"id": "loop", "code": "def f(xs):\n    total = 0\n    for x in xs:\n        if x > 1:\n            total += x\n    return total", "input": "[1, 2, 3]", "output": "5"}"#;
const RAISES: &str = r#"{"id": "raises", "code": "def f(x):\n    return x[5]", "input": "[1]", "output": "1"}"#;

#[test]
fn questions_are_written_with_their_prompt_truth_and_source() {
    let dir = scratch("written");
    let dataset = dir.join("small.jsonl");
    std::fs::write(&dataset, [LOOP, RAISES].join("\n")).unwrap();
    let out_file = dir.join("q.jsonl");
    let args = ["questions", "--dataset", dataset.to_str().unwrap(), "--kinds", "coverage,state,path", "--seed", "3"];
    let out = execbench(&[&args[..], &["--out", out_file.to_str().unwrap(), "--jobs", "1"]].concat());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("skipped raises: the call did not return: IndexError"), "{stdout}");
    assert!(stdout.contains("2 samples traced"), "{stdout}");
    let rows: Vec<serde_json::Value> =
        std::fs::read_to_string(&out_file).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let kinds: Vec<&str> = rows.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["coverage", "state", "path"], "{rows:?}");
    for row in &rows {
        assert_eq!(row["source"]["sample"], "loop");
        assert_eq!(row["source"]["dataset"], "small");
        assert_eq!(row["source"]["seed"], 3);
        assert!(row["prompt"].as_str().unwrap().contains("[ANSWER]"), "{row}");
    }
    // The same seed writes the same bytes.
    let first = std::fs::read(&out_file).unwrap();
    let again = execbench(&[&args[..], &["--out", out_file.to_str().unwrap(), "--jobs", "2"]].concat());
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(std::fs::read(&out_file).unwrap(), first, "the questions do not depend on --jobs");
}

#[test]
fn an_unknown_kind_is_named() {
    let out = execbench(&["questions", "--dataset", "x.jsonl", "--kinds", "coverage,lines", "--out", "q.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--kinds: unknown question kind `lines`"), "{stderr}");
}
