//! `--jobs`: the built binary's output is the same with one interpreter and with several, on data
//! full of time-outs and errors (the runs that finish out of order). No timing is asserted.
//! Runs RustPython: use `cargo test --release --workspace --test cli jobs_cli::`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-jobs-cli-{}-{name}", std::process::id()));
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

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Counts down to zero: `f(-1)` never gets there.
const COUNTDOWN: &str = r"def f(n):\n    while n != 0:\n        n -= 1\n    return n";

/// Samples that pass, fail, raise and time out, interleaved so that slow ones sit between fast ones.
fn verify_rows() -> Vec<String> {
    let mut rows = Vec::new();
    for i in 0..4 {
        rows.push(format!(
            r#"{{"id": "ok{i}", "code": "def f(x):\n    return x * 2", "input": "{i}", "output": "{}"}}"#,
            i * 2
        ));
        rows.push(format!(r#"{{"id": "spins{i}", "code": "{COUNTDOWN}", "input": "-{i}", "output": "0"}}"#));
        rows.push(format!(
            r#"{{"id": "raises{i}", "code": "def f(x):\n    return x[5]", "input": "[{i}]", "output": "1"}}"#
        ));
        rows.push(format!(
            r#"{{"id": "wrong{i}", "code": "def f(x):\n    return x + 1", "input": "{i}", "output": "{i}"}}"#
        ));
    }
    rows.push("{not json".to_string());
    rows
}

/// Everything but the figure of time spent in Python, which no two runs share.
fn without_timing(stdout: &str) -> String {
    stdout
        .lines()
        .map(|line| match line.find(" engine differences (") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn verify_prints_the_same_with_one_job_and_with_several() {
    let dir = scratch("verify");
    let file = dir.join("mixed.jsonl");
    std::fs::write(&file, verify_rows().join("\n")).unwrap();
    let outputs: Vec<Output> = ["1", "2", "3"]
        .iter()
        .map(|jobs| execbench(&["verify", "--dataset", path(&file), "--time-limit", "1", "--jobs", jobs]))
        .collect();
    let one = text(&outputs[0].stdout);
    assert_eq!(outputs[0].status.code(), Some(1), "{one}");
    // spins0 counts down from 0 and passes; the other three never reach 0.
    assert!(one.contains("FAIL spins1: timed out after 1 s\nFAIL raises1: raised IndexError"), "{one}");
    assert!(one.ends_with("5 passed, 11 failed\n"), "{one}");
    for output in &outputs[1..] {
        assert_eq!(output.status.code(), Some(1));
        assert_eq!(without_timing(&text(&output.stdout)), without_timing(&one));
        assert!(text(&output.stderr).contains("16/16 (11 failed)"), "{}", text(&output.stderr));
    }
}

#[test]
fn score_prints_and_writes_the_same_bytes_with_one_job_and_with_several() {
    let dir = scratch("score");
    let (dataset, generations) = (dir.join("countdown.jsonl"), dir.join("gen.json"));
    // Three samples are enough to share among jobs; each answer that runs forever costs a whole
    // time limit of CPU in every scoring.
    let rows: Vec<String> =
        (0..3).map(|i| format!(r#"{{"id": "s{i}", "code": "{COUNTDOWN}", "input": "{i}", "output": "0"}}"#)).collect();
    std::fs::write(&dataset, rows.join("\n")).unwrap();
    // Input prediction: right, runs forever, raises, dropped (no call of f), right again.
    let answers = r#"["f(3)", "f(-1)", "f('a')", "g(1)", "f(0)"]"#;
    let entries: Vec<String> = (0..3).map(|i| format!(r#""s{i}": {answers}"#)).collect();
    std::fs::write(&generations, format!("{{{}}}", entries.join(", "))).unwrap();
    let score = |jobs: &str| {
        let out = dir.join(format!("results-{jobs}.jsonl"));
        let output = execbench(&[
            "score",
            "--dataset",
            path(&dataset),
            "--generations",
            path(&generations),
            "--task",
            "input",
            "--time-limit",
            "1",
            "--jobs",
            jobs,
            "--out",
            path(&out),
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        (output.stdout, std::fs::read(&out).unwrap())
    };
    let (stdout, rows) = score("1");
    let printed = text(&stdout);
    assert!(printed.contains("input compatible: pass@1 50.0"), "{printed}");
    let rows_text = text(&rows);
    assert!(
        rows_text.contains(r#""verdict":"timeout""#)
            && rows_text.contains(r#""verdict":"error""#)
            && rows_text.contains(r#""verdict":"dropped""#),
        "{rows_text}"
    );
    for jobs in ["2", "4"] {
        let (other_stdout, other_rows) = score(jobs);
        assert_eq!(text(&other_stdout), printed, "--jobs {jobs}");
        assert!(other_rows == rows, "--jobs {jobs}: the result rows differ");
    }
}

/// The scoring step of `run`: the records' results and what is printed.
#[test]
fn run_scores_the_same_with_one_job_and_with_several() {
    let dir = scratch("run");
    let dataset = dir.join("d.jsonl");
    let rows = [
        r#"{"id": "a", "code": "def f(x):\n    return x * 2", "input": "2", "output": "4"}"#.to_string(),
        // The program itself never ends, so every compatible run of it times out.
        r#"{"id": "loops", "code": "def f(x):\n    return x\nwhile True:\n    pass", "input": "1", "output": "1"}"#
            .to_string(),
        r#"{"id": "b", "code": "def f(x):\n    return [x]", "input": "0", "output": "[0]"}"#.to_string(),
        r#"{"id": "c", "code": "def f(x):\n    return ''", "input": "'q'", "output": "''"}"#.to_string(),
    ];
    std::fs::write(&dataset, rows.join("\n")).unwrap();
    let run = |jobs: &str| {
        let out = dir.join(format!("run-{jobs}.jsonl"));
        let output = execbench(&[
            "run",
            "--dataset",
            path(&dataset),
            "--task",
            "output",
            "--provider",
            "type-default",
            "--n",
            "2",
            "--jobs",
            jobs,
            "--out",
            path(&out),
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let results: Vec<serde_json::Value> = std::fs::read_to_string(&out)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("{\"sample_id\""))
            .map(|l| {
                let record: serde_json::Value = serde_json::from_str(l).unwrap();
                serde_json::json!([record["sample_id"], record["results"]])
            })
            .collect();
        (text(&output.stdout), results)
    };
    let (printed, results) = run("1");
    assert_eq!(results.len(), 4);
    assert!(results[1].to_string().contains(r#""verdict":"timeout""#), "{}", results[1]);
    assert_eq!(run("2"), (printed, results));
}
