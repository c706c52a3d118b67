//! Datasets people already have, through the built binary: LiveCodeBench Parquet and CodeCrash
//! files wherever `--dataset` is taken, and CRUXEval's evaluation JSON in `score --generations`.
//! Runs RustPython: `cargo test --release --workspace --test cli import_cli::` is faster.

#[path = "../../../formats/tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{LcbRow, lcb_file, lcb_row};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-import-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("file written");
    path.to_str().expect("UTF-8 path").to_string()
}

fn execbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_execbench")).args(args).output().expect("the execbench binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Four LiveCodeBench rows: two right, one whose stored output is wrong, one whose input is
/// not a call (an invalid row).
fn lcb_rows() -> Vec<LcbRow> {
    let mut rows = vec![lcb_row(0, "easy"), lcb_row(1, "easy"), lcb_row(2, "medium"), lcb_row(3, "hard")];
    rows[2].output = Some("7".into());
    rows[3].input = Some("s = '0011'".into());
    rows
}

#[test]
fn verify_reads_a_livecodebench_parquet_file() {
    let dir = scratch("lcb");
    let file = write(&dir, "lcb.parquet", &lcb_file(&lcb_rows(), 2));
    // LeetCode's prelude imports a dozen modules on the first run: slow in a debug build.
    let out = execbench(&["verify", "--dataset", &file, "--time-limit", "300"]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stderr.contains(&format!("{file}: read as Parquet")), "{stderr}");
    let invalid = format!("invalid row: {file}:4: field `input`: `s = '0011'` is not a call of `minimumCost`");
    assert!(stderr.contains(&invalid), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "FAIL sample_2: returned 2, expected 7", "{stdout}");
    assert_eq!(lines[1], "passed by difficulty: easy 2 of 2, medium 0 of 1", "{stdout}");
    assert!(lines[2].starts_with("4 rows, 1 invalid, 0 engine differences"), "{stdout}");
    assert_eq!(lines[3], "2 passed, 1 failed", "{stdout}");
}

/// The check docs/import.md tells a user to run on the real file, here on pyarrow's fixture in the
/// dataset card's schema (tests/fixtures/pyarrow): every row read and reproduced.
#[test]
fn verify_reads_a_pyarrow_written_livecodebench_file() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/pyarrow/lcb_execution.parquet");
    let out = execbench(&["verify", "--dataset", file, "--time-limit", "300"]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(!stderr.contains("invalid row"), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "passed by difficulty: easy 12 of 12, medium 12 of 12", "{stdout}");
    assert!(lines[1].starts_with("24 rows, 0 invalid, 0 engine differences"), "{stdout}");
    assert_eq!(lines[2], "24 passed, 0 failed", "{stdout}");
}

#[test]
fn verify_takes_the_category_field_from_the_caller() {
    let dir = scratch("category");
    let rows: Vec<LcbRow> = (0..3).map(|n| lcb_row(n, "easy")).collect();
    let file = write(&dir, "lcb.parquet", &lcb_file(&rows, 10));
    let out = execbench(&["verify", "--dataset", &file, "--category", "question_id", "--time-limit", "300"]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(stdout.lines().any(|l| l == "passed by question_id: 2700 3 of 3"), "{stdout}");
}

#[test]
fn verify_reads_a_codecrash_file_and_perturb_a_parquet_one() {
    let dir = scratch("codecrash");
    let record = |id: &str, call: &str, output: &str| {
        let code = "def f(Var_1, Var_2):\n    return Var_1 * Var_2";
        serde_json::json!({"task_id": id, "dataset": "crux", "code": code, "function_name": "f", "function_call": call, "output": output, "test": format!("assert {call} == {output}")}).to_string()
    };
    let lines = [record("sample_0", "f('ab', 2)", "'abab'"), record("sample_1", "f(3, 4)", "12")].join("\n");
    let file = write(&dir, "crux_REN_output.jsonl", lines.as_bytes());
    let out = execbench(&["verify", "--dataset", &file]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("read as CodeCrash JSON Lines"), "{}", text(&out.stderr));
    assert!(stdout.lines().any(|l| l == "passed by perturbation: REN 2 of 2"), "{stdout}");

    let parquet = write(&dir, "lcb.parquet", &lcb_file(&[lcb_row(1, "easy"), lcb_row(2, "hard")], 10));
    let out_file = dir.join("ren.jsonl");
    let out = execbench(&[
        "perturb",
        "--dataset",
        &parquet,
        "--kind",
        "REN",
        "--no-verify",
        "--out",
        out_file.to_str().expect("path"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    let written = std::fs::read_to_string(&out_file).expect("perturbed rows");
    let ids: Vec<String> = written
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).expect("JSON row")["id"].as_str().unwrap_or("").to_string()
        })
        .collect();
    assert_eq!(ids, ["sample_1", "sample_2"]);
}

/// CRUXEval's leaderboard file as published: its verdicts and figures printed next to
/// execbench's, each answer judged differently listed.
#[test]
fn score_reads_an_evaluation_file_and_shows_its_verdicts() {
    let dir = scratch("score");
    let dataset = [
        r#"{"id": "sample_0", "code": "def f(x):\n    return x * 2", "input": "1", "output": "2"}"#,
        r#"{"id": "sample_1", "code": "def f(x):\n    return x + 1", "input": "1", "output": "2"}"#,
    ]
    .join("\n");
    let dataset = write(&dir, "d.jsonl", dataset.as_bytes());
    // sample_1's second answer is wrong, but the file says right: one disagreement.
    let evaluation = r#"{"raw_generations": {"sample_0": ["2", "3"], "sample_1": ["2", "5"]}, "raw_scored_generations": {"sample_0": [true, false], "sample_1": [true, true]}, "pass_at_1": 75.0, "pass_at_5": null}"#;
    let generations = write(&dir, "eval.json", evaluation.as_bytes());
    let out = execbench(&[
        "score",
        "--dataset",
        &dataset,
        "--generations",
        &generations,
        "--task",
        "output",
        "--mode",
        "strict",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    let expected = [
        "stored in the file: pass@1 75.0  pass@5 -",
        "output strict: stored pass@1 75.0 vs execbench 50.0  pass@5 n/a vs n/a  (1 answers judged differently)",
        "  sample_1 answer 2: stored correct, execbench wrong_value",
    ];
    for line in expected {
        assert!(stdout.lines().any(|l| l == line), "missing `{line}` in:\n{stdout}");
    }
}

/// LiveCodeBench's own results file scored against its Parquet dataset: its graded verdicts next
/// to execbench's.
#[test]
fn score_reads_livecodebench_results_against_its_parquet_dataset() {
    let dir = scratch("lcb-results");
    let rows: Vec<LcbRow> = (0..2).map(|n| lcb_row(n, "easy")).collect();
    let dataset = write(&dir, "lcb.parquet", &lcb_file(&rows, 10));
    // sample_0's output is 0 and sample_1's is 1; LiveCodeBench graded "5" right by mistake.
    let results = r#"[
  {"id": "sample_0", "question_id": "2700", "pred_list": ["0", "5"], "graded_list": [true, true], "pass@1": 1.0},
  {"id": "sample_1", "question_id": "2700", "pred_list": ["1", "1"], "graded_list": [true, true], "pass@1": 1.0}
]"#;
    let generations = write(&dir, "Scenario.codeexecution_10_0.2_eval_all.json", results.as_bytes());
    let out = execbench(&[
        "score",
        "--dataset",
        &dataset,
        "--generations",
        &generations,
        "--task",
        "output",
        "--mode",
        "strict",
        "--time-limit",
        "300",
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    for line in [
        "stored in the file: pass@1 100.0  pass@5 -",
        "output strict: stored pass@1 100.0 vs execbench 75.0  pass@5 n/a vs n/a  (1 answers judged differently)",
        "  sample_0 answer 2: stored correct, execbench wrong_value",
    ] {
        assert!(stdout.lines().any(|l| l == line), "missing `{line}` in:\n{stdout}");
    }
}
