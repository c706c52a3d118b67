//! `execbench questions` end to end: the built binary traces a small dataset in its worker
//! processes and writes questions; bad flags and samples that give no question are named. `execbench
//! reval` reads REval-shaped files, writes their truths and counts the agreement with a reference.

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

/// REval's two files, in its shape (its own have no licence; these are written here): a function
/// with two inputs, one place each.
fn reval_files(dir: &std::path::Path) -> (PathBuf, PathBuf) {
    let code = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n";
    let data = serde_json::json!({"task_id": "DREval/0", "entry_point": "f", "code": code,
        "inputs": ["([1, 2],)", "([],)"], "outputs": ["3", "0"], "test": null});
    let place = serde_json::json!([{"lineno": 4, "var": "total"}]);
    let tasks = serde_json::json!({"task_id": "DREval/0", "idx": 0, "tasks": [
        {"input_idx": 0, "task": place, "output_pred": ""}, {"input_idx": 1, "task": place, "output_pred": ""}]});
    let (data_file, tasks_file) = (dir.join("DREval_data.jsonl"), dir.join("DREval_tasks.jsonl"));
    std::fs::write(&data_file, format!("{data}\n")).unwrap();
    std::fs::write(&tasks_file, format!("{tasks}\n")).unwrap();
    (data_file, tasks_file)
}

#[test]
fn reval_writes_its_truths_and_counts_the_agreement_with_a_reference() {
    let dir = scratch("reval");
    let (data, tasks) = reval_files(&dir);
    let ours = dir.join("ours.jsonl");
    let paths = |p: &PathBuf| p.to_str().unwrap().to_owned();
    let out = execbench(&[
        "reval",
        "--data",
        &paths(&data),
        "--tasks",
        &paths(&tasks),
        "--out",
        &paths(&ours),
        "--jobs",
        "1",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("2 program inputs traced, 2 ran to the end"), "{stdout}");
    let rows: Vec<serde_json::Value> =
        std::fs::read_to_string(&ours).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows[0]["trace"], serde_json::json!([2, 3, 4, 3, 4, 3, 5]), "{}", rows[0]);
    assert_eq!(rows[0]["asks"][0]["next_lines"], serde_json::json!([3]));
    let values: Vec<&str> =
        rows[0]["asks"][0]["values"].as_array().unwrap().iter().map(|v| v["repr"].as_str().unwrap()).collect();
    assert_eq!(values, ["1", "3"]);
    assert_eq!(rows[1]["asks"][0]["coverage"], false);
    // Our truths as the reference, but for one next line: all agree except that one.
    let mut reference = std::fs::read_to_string(&ours).unwrap();
    reference = reference.replacen("\"next_lines\":[3]", "\"next_lines\":[5]", 1);
    let reference_file = dir.join("reference.jsonl");
    std::fs::write(&reference_file, reference).unwrap();
    let differences = dir.join("differences.jsonl");
    let out = execbench(&[
        "reval",
        "--data",
        &paths(&data),
        "--tasks",
        &paths(&tasks),
        "--reference",
        &paths(&reference_file),
        "--differences",
        &paths(&differences),
        "--jobs",
        "1",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    for line in [
        "coverage      2 / 2",
        "path          1 / 2",
        "state         2 / 2",
        "output        2 / 2",
        "1 path differences: differs though the same lines ran",
    ] {
        assert!(stdout.contains(line), "`{line}` in:\n{stdout}");
    }
    let written = std::fs::read_to_string(&differences).unwrap();
    assert!(written.contains("\"ours\":\"[3]\",\"theirs\":\"[5]\""), "{written}");
}

#[test]
fn a_broken_reval_file_is_named() {
    let dir = scratch("reval-broken");
    let (data, tasks) = reval_files(&dir);
    std::fs::write(&tasks, std::fs::read_to_string(&tasks).unwrap().replace("\"lineno\":4", "\"lineno\":9")).unwrap();
    let out = execbench(&["reval", "--data", data.to_str().unwrap(), "--tasks", tasks.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("DREval_tasks.jsonl, line 1: field `lineno`: 9 is not a line of the program's 5"),
        "{stderr}"
    );
}

/// A questions file is a dataset: `execbench run --task question` asks each question of the mock
/// model server (which answers the state and path questions wrong here), scores each by its kind,
/// prints the figures by kind, and `--resume` of the finished run asks nothing again.
#[test]
fn a_questions_file_runs_as_a_dataset_and_is_scored_by_kind() {
    use execbench_mockserver::{AnswerPolicy, MockConfig, MockServer};
    let dir = scratch("run");
    let cruxeval = std::fs::read_to_string(execbench_mockserver::bundled_dataset_path()).unwrap();
    let small = dir.join("cruxeval-20.jsonl");
    std::fs::write(&small, cruxeval.lines().take(20).map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let questions = dir.join("q.jsonl");
    let made = execbench(&[
        "questions",
        "--dataset",
        small.to_str().unwrap(),
        "--seed",
        "5",
        "--out",
        questions.to_str().unwrap(),
        "--jobs",
        "2",
    ]);
    assert_eq!(made.status.code(), Some(0), "{}", String::from_utf8_lossy(&made.stderr));
    let loaded = execbench_core::load_jsonl("q.jsonl", &std::fs::read_to_string(&questions).unwrap());
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    let samples = loaded.samples;
    let kind = |s: &execbench_core::Sample| s.meta["kind"].as_str().unwrap().to_owned();
    let wrong: std::collections::BTreeSet<String> =
        samples.iter().filter(|s| ["state", "path"].contains(&kind(s).as_str())).map(|s| s.id.clone()).collect();
    assert!(samples.len() >= 60 && !wrong.is_empty(), "{} questions", samples.len());
    let config =
        MockConfig { answers: AnswerPolicy { wrong_ids: wrong.clone(), ..Default::default() }, ..Default::default() };
    let server = MockServer::start_blocking(samples.clone(), config, 0).unwrap();
    let out = dir.join("run.jsonl");
    let base = format!("{}/v1", server.base_url());
    let run_args = [
        "run",
        "--dataset",
        questions.to_str().unwrap(),
        "--task",
        "question",
        "--provider",
        "openai-compatible",
        "--base-url",
        &base,
        "--model",
        "mock",
        "--out",
        out.to_str().unwrap(),
    ];
    let ran = execbench(&run_args);
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert_eq!(ran.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&ran.stderr));
    for line in [
        "coverage questions, strict: pass@1 100.0",
        "state questions, strict: pass@1 0.0",
        "path questions, compatible: pass@1 0.0",
        "output questions, strict: pass@1 100.0",
    ] {
        assert!(stdout.contains(line), "{line:?} not in:\n{stdout}");
    }
    let stats = server.stats();
    assert_eq!((stats.unidentified, stats.per_sample.len()), (0, samples.len()), "every question asked, and known");
    let text = std::fs::read_to_string(&out).unwrap();
    let records: Vec<serde_json::Value> = text
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|r: &serde_json::Value| r.get("sample_id").is_some())
        .collect();
    assert_eq!(records.len(), samples.len());
    for record in &records {
        let id = record["sample_id"].as_str().unwrap();
        let sample = samples.iter().find(|s| s.id == id).unwrap();
        let result = &record["results"][0];
        assert_eq!(result["question"].as_str(), Some(kind(sample).as_str()), "{record}");
        assert_eq!(result["correct"] == 1, !wrong.contains(id), "{record}");
    }
    // Finished: a resume asks for nothing.
    let again = execbench(&[&run_args[..], &["--resume"]].concat());
    assert_eq!(again.status.code(), Some(0), "{}", String::from_utf8_lossy(&again.stderr));
    assert!(server.stats().per_sample.values().all(|n| *n == 1));

    // The same questions as a batch (the mock's OpenAI batch service): submitted, collected a day
    // later, every question scored as the live run scored it.
    let batch_out = dir.join("batch.jsonl");
    let batch_args: Vec<&str> =
        run_args.iter().map(|a| if *a == out.to_str().unwrap() { batch_out.to_str().unwrap() } else { a }).collect();
    let submitted = execbench(&[&batch_args[..], &["--batch"]].concat());
    assert_eq!(submitted.status.code(), Some(4), "{}", String::from_utf8_lossy(&submitted.stdout));
    server.advance_batch_clock(86_400);
    let collected = execbench(&[&batch_args[..], &["--resume"]].concat());
    let stdout = String::from_utf8_lossy(&collected.stdout);
    assert_eq!(collected.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&collected.stderr));
    assert!(stdout.contains("state questions, strict: pass@1 0.0"), "{stdout}");
    let batch_text = std::fs::read_to_string(&batch_out).unwrap();
    let scored = |text: &str| -> std::collections::BTreeMap<String, (String, serde_json::Value)> {
        text.lines()
            .skip(1)
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|r| r.get("sample_id").is_some())
            .map(|r| {
                let result = &r["results"][0];
                (
                    r["sample_id"].as_str().unwrap().to_owned(),
                    (result["question"].to_string(), result["correct"].clone()),
                )
            })
            .collect()
    };
    assert_eq!(scored(&batch_text), scored(&text), "the batch scores every question as the live run did");
}
