//! `execbench score` end to end: the built binary on a small dataset and generations files written
//! here. Runs RustPython: use `cargo test --release --workspace --test cli score_cli::`.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

const DATASET: &str = concat!(
    r#"{"id": "s1", "code": "def f(nums):\n    return sorted(nums)", "input": "[3, 1, 2]", "output": "[1, 2, 3]"}"#,
    "\n",
    r#"{"id": "s2", "code": "def f(text):\n    return text.upper()", "input": "'ab'", "output": "'AB'"}"#,
    "\n",
);

/// s1: 5 answers, 2 right; `f([3, 1, 2])` repeats the call (not a literal in strict mode, dropped
/// in compatible mode). s2: 5 answers, 1 right, plus `'A' + 'B'` (an expression: wrong in strict
/// mode, right in compatible mode).
const GENERATIONS: &str = r#"{
  "s1": ["[1, 2, 3]", "[3, 1, 2]", "f([3, 1, 2])", "[1, 2, 3]", "(1, 2, 3)"],
  "s2": ["'AB'", "'ab'", "'A' + 'B'", "'Ab'", "''"]
}"#;

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-score-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn execbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_execbench")).args(args).output().expect("the execbench binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn prints_pass_at_k_in_both_modes_and_writes_rows() {
    let dir = scratch("good");
    let (dataset, generations, out) = (dir.join("tiny.jsonl"), dir.join("gen.json"), dir.join("results.jsonl"));
    std::fs::write(&dataset, DATASET).unwrap();
    std::fs::write(&generations, GENERATIONS).unwrap();
    let output = execbench(&[
        "score",
        "--dataset",
        dataset.to_str().unwrap(),
        "--generations",
        generations.to_str().unwrap(),
        "--task",
        "output",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{stderr}");
    // strict: s1 2/5, s2 1/5 → pass@1 = (0.4 + 0.2) / 2 = 30.0; pass@5 = 100.0.
    assert!(stdout.contains("output strict: pass@1 30.0  pass@5 100.0  (2 samples, 10 answers, 3 correct, 0 dropped, 0 extraction failed)"), "{stdout}");
    // compatible: s1 drops the call → 2/4; s2 accepts 'A' + 'B' → 2/5: (0.5 + 0.4) / 2 = 45.0.
    // pass@5 of s1 (n = 4 after dropping) is not available.
    assert!(
        stdout.contains("output compatible: pass@1 45.0  pass@5 100.0 (1 of 2 samples have 5 answers)"),
        "{stdout}"
    );
    assert!(stdout.contains("| output | strict | 2 | 10 | 30.0 | 100.0 |"), "{stdout}");
    let rows: Vec<Value> =
        std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let keys: Vec<(&str, &str)> =
        rows.iter().map(|r| (r["id"].as_str().unwrap(), r["mode"].as_str().unwrap())).collect();
    assert_eq!(keys, [("s1", "strict"), ("s2", "strict"), ("s1", "compatible"), ("s2", "compatible")]);
    assert_eq!(rows[2]["answers"][2]["verdict"]["verdict"], "dropped");
    assert_eq!(rows[1]["answers"][2]["verdict"]["verdict"], "not_a_literal");

    let one_mode = execbench(&[
        "score",
        "--dataset",
        dataset.to_str().unwrap(),
        "--generations",
        generations.to_str().unwrap(),
        "--task",
        "output",
        "--mode",
        "strict",
    ]);
    let stdout = text(&one_mode.stdout);
    assert_eq!(one_mode.status.code(), Some(0));
    assert!(stdout.contains("output strict:") && !stdout.contains("output compatible:"), "{stdout}");
}

#[test]
fn raw_responses_for_input_prediction() {
    let dir = scratch("responses");
    let (dataset, responses) = (dir.join("tiny.jsonl"), dir.join("responses.jsonl"));
    std::fs::write(&dataset, DATASET).unwrap();
    std::fs::write(
        &responses,
        concat!(
            r#"{"id": "s1", "responses": ["[ANSWER]\nassert f([2, 3, 1]) == [1, 2, 3]\n[/ANSWER]", "no answer here"]}"#,
            "\n",
            r#"{"id": "s2", "responses": ["[ANSWER]assert f(text='ab') == 'AB'[/ANSWER]"]}"#,
            "\n",
        ),
    )
    .unwrap();
    let output = execbench(&[
        "score",
        "--dataset",
        dataset.to_str().unwrap(),
        "--generations",
        responses.to_str().unwrap(),
        "--task",
        "input",
        "--mode",
        "strict",
    ]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}{}", text(&output.stderr));
    // s1 1/2, s2 1/1 → 75.0; one response has no answer at all.
    assert!(stdout.contains("input strict: pass@1 75.0  pass@5 n/a (0 of 2 samples have 5 answers)  (2 samples, 3 answers, 2 correct, 0 dropped, 1 extraction failed)"), "{stdout}");
}

#[test]
fn bad_input_is_named_by_file_line_and_field_and_fails() {
    let dir = scratch("bad");
    let (dataset, broken, wrong_shape) = (dir.join("tiny.jsonl"), dir.join("broken.json"), dir.join("shape.json"));
    std::fs::write(&dataset, DATASET).unwrap();
    std::fs::write(&broken, "{\n  \"s1\": [\"[1, 2, 3]\",\n").unwrap();
    std::fs::write(&wrong_shape, "{\n  \"s1\": [\"[1, 2, 3]\"],\n  \"s2\": [\"'AB'\", 7]\n}").unwrap();

    let output = execbench(&[
        "score",
        "--dataset",
        dataset.to_str().unwrap(),
        "--generations",
        broken.to_str().unwrap(),
        "--task",
        "output",
    ]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("invalid entry: {}:3: not valid JSON", broken.display())), "{stderr}");
    assert!(stderr.contains("nothing to score"), "{stderr}");

    // The good entry is still scored; the bad one is named and the exit code says so.
    let output = execbench(&[
        "score",
        "--dataset",
        dataset.to_str().unwrap(),
        "--generations",
        wrong_shape.to_str().unwrap(),
        "--task",
        "output",
    ]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "invalid entry: {}:3: field `s2[1]`: expected an answer string, found a number",
            wrong_shape.display()
        )),
        "{stderr}"
    );
    assert!(stdout.contains("output strict: pass@1 100.0"), "{stdout}");

    let output = execbench(&[
        "score",
        "--dataset",
        dataset.to_str().unwrap(),
        "--generations",
        broken.to_str().unwrap(),
        "--task",
        "outputs",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("unknown --task `outputs`"));

    let missing = dir.join("absent.json");
    let output = execbench(&[
        "score",
        "--dataset",
        dataset.to_str().unwrap(),
        "--generations",
        missing.to_str().unwrap(),
        "--task",
        "output",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("cannot read"), "{}", text(&output.stderr));
}
