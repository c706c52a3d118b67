//! `execbench perturb` end to end: the built binary on a small dataset written here. Runs
//! RustPython to verify (the default): use `cargo test --release --workspace --test cli perturb_cli::`.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

const GOOD_ROWS: &str = concat!(
    r#"{"id": "s1", "code": "def f(nums, k):\n    total = 0\n    for n in nums:\n        if n > k:\n            total += n\n    return total", "input": "[1, 5, 7], 4", "output": "12"}"#,
    "\n",
    r#"{"id": "s2", "code": "def f(text):\n    words = text.split()\n    return '-'.join(w.upper() for w in words)", "input": "'a bc'", "output": "'A-BC'"}"#,
    "\n",
    r#"{"id": "s3", "code": "def f(d, key):\n    while key in d:\n        key = d[key]\n    return key", "input": "{1: 2, 2: 3}, 1", "output": "3"}"#,
    "\n",
);

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-perturb-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn execbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_execbench")).args(args).output().expect("the execbench binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn rows(path: &PathBuf) -> Vec<Value> {
    let text = std::fs::read_to_string(path).expect("output file written");
    text.lines().map(|line| serde_json::from_str(line).expect("each line is JSON")).collect()
}

#[test]
fn writes_one_row_per_sample_and_the_same_bytes_twice() {
    let dir = scratch("determinism");
    let dataset = dir.join("tiny.jsonl");
    std::fs::write(&dataset, GOOD_ROWS).unwrap();
    let (first, second) = (dir.join("first.jsonl"), dir.join("second.jsonl"));
    for out in [&first, &second] {
        let output = execbench(&[
            "perturb",
            "--dataset",
            dataset.to_str().unwrap(),
            "--kind",
            "PSC_ALL",
            "--seed",
            "3",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let log = stderr(&output);
        assert!(log.contains("PSC_ALL seed 3: 3 rows, 0 invalid; 3 verified and written to"), "{log}");
        assert!(log.contains("(0 unchanged: nothing to perturb)"), "{log}");
        assert!(log.contains("3/3"), "no progress line: {log}");
    }
    assert_eq!(std::fs::read(&first).unwrap(), std::fs::read(&second).unwrap());
    let rows = rows(&first);
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["s1", "s2", "s3"]);
    for row in &rows {
        assert_eq!(
            (row["dataset"].as_str(), row["kind"].as_str(), row["seed"].as_u64()),
            (Some("tiny"), Some("PSC_ALL"), Some(3))
        );
        // PSC_ALL: renamed (REN), with garbage statements added (GBC).
        let (code, original) = (row["code"].as_str().unwrap(), row["original_code"].as_str().unwrap());
        assert!(code.contains("def f(Var_1") && code.lines().count() > original.lines().count() + 3, "{code}");
        assert!(row["call"].as_str().unwrap().starts_with("f("));
    }
    // Without verification: the same rows (only MHC's hint can change when verified).
    let unverified = dir.join("unverified.jsonl");
    let output = execbench(&[
        "perturb",
        "--dataset",
        dataset.to_str().unwrap(),
        "--kind",
        "PSC_ALL",
        "--seed",
        "3",
        "--no-verify",
        "--out",
        unverified.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("3 rows, 0 invalid; 3 written to"), "{}", stderr(&output));
    assert_eq!(std::fs::read(&first).unwrap(), std::fs::read(&unverified).unwrap());
    // Another seed gives other code.
    let other = dir.join("other.jsonl");
    let output = execbench(&[
        "perturb",
        "--dataset",
        dataset.to_str().unwrap(),
        "--kind",
        "PSC_ALL",
        "--out",
        other.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_ne!(std::fs::read(&first).unwrap(), std::fs::read(&other).unwrap());
}

#[test]
fn verified_rows_in_the_codecrash_layout() {
    let dir = scratch("codecrash");
    let dataset = dir.join("tiny.jsonl");
    std::fs::write(&dataset, GOOD_ROWS).unwrap();
    let out = dir.join("out.jsonl");
    let output = execbench(&[
        "perturb",
        "--dataset",
        dataset.to_str().unwrap(),
        "--kind",
        "mps",
        "--p",
        "0.5",
        "--once",
        "--verify",
        "--format",
        "codecrash",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("3 verified and written"), "{}", stderr(&output));
    let rows = rows(&out);
    assert_eq!(rows.len(), 3);
    let first_line = std::fs::read_to_string(&out).unwrap().lines().next().unwrap().to_string();
    let positions: Vec<usize> = ["task_id", "code", "function_name", "function_call", "output", "test"]
        .iter()
        .map(|k| first_line.find(&format!("\"{k}\":")).unwrap())
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "fields out of order: {first_line}");
    // CodeCrash's six fields, then what tells rows of several kinds and seeds apart.
    let fields: Vec<&str> = rows[0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(fields.len(), 9, "{fields:?}");
    assert_eq!((rows[0]["perturbation"].as_str(), rows[0]["seed"].as_u64()), (Some("MPS"), Some(0)));
    assert_eq!(rows[0]["provenance"]["dataset"].as_str(), Some("tiny"));
    assert_eq!(rows[0]["provenance"]["perturbation"]["options"]["once"].as_bool(), Some(true));
    assert_eq!(rows[0]["test"].as_str(), Some("assert f([1, 5, 7], 4) == 12"));
}

/// Bad rows are named by file, line and field; samples that cannot be perturbed or that fail
/// verification are reported with their reason and left out; the exit code says so.
#[test]
fn bad_rows_refusals_and_failed_verification_are_reported_and_not_written() {
    let dir = scratch("failures");
    let dataset = dir.join("mixed.jsonl");
    let extra = concat!(
        r#"{"id": "bad", "code": "def f(x):\n    return x", "input": "1"}"#,
        "\n",
        r#"{"id": "introspects", "code": "def f(x):\n    return len(locals())", "input": "1", "output": "1"}"#,
        "\n",
        r#"{"id": "raises", "code": "def f(x):\n    return 1 // x", "input": "0", "output": "0"}"#,
        "\n",
    );
    std::fs::write(&dataset, format!("{GOOD_ROWS}{extra}")).unwrap();
    let out = dir.join("out.jsonl");
    let output = execbench(&[
        "perturb",
        "--dataset",
        dataset.to_str().unwrap(),
        "--kind",
        "REN",
        "--verify",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let log = stderr(&output);
    let path = dataset.to_str().unwrap();
    assert!(log.contains(&format!("invalid row: {path}:4: field `output`")), "{log}");
    assert!(
        log.contains("not perturbed: introspects REN seed 0: unsupported: REN: the code calls `locals()`"),
        "{log}"
    );
    assert!(log.contains("failed verification: raises REN seed 0: raised ZeroDivisionError"), "{log}");
    assert!(log.contains("6 rows, 1 invalid; 3 verified and written to"), "{log}");
    assert!(log.contains("1 not perturbed, 1 failed verification"), "{log}");
    let ids: Vec<String> = rows(&out).iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids, ["s1", "s2", "s3"]);
}

/// MHC for input prediction: the hint names a call on the definition line, and verification has
/// checked that the claimed call really gives another result.
#[test]
fn misleading_hints_for_input_prediction() {
    let dir = scratch("mhc-input");
    let dataset = dir.join("tiny.jsonl");
    std::fs::write(&dataset, GOOD_ROWS).unwrap();
    let out = dir.join("out.jsonl");
    let output = execbench(&[
        "perturb",
        "--dataset",
        dataset.to_str().unwrap(),
        "--kind",
        "MHC",
        "--prediction",
        "input",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("MHC seed 1: 3 rows, 0 invalid; 3 verified and written to"),
        "{}",
        stderr(&output)
    );
    for row in rows(&out) {
        assert_eq!(row["options"]["prediction"].as_str(), Some("input"));
        let code = row["code"].as_str().unwrap();
        let first_line = code.lines().next().unwrap();
        assert!(first_line.contains("  # The function call is f("), "{code}");
        // The claimed arguments are not the real ones.
        let claimed = first_line.split("# The function call is ").nth(1).unwrap();
        assert_ne!(claimed, row["call"].as_str().unwrap(), "{code}");
    }
}

/// `GOOD_ROWS` with CRUXEval's ids (`sample_N`), as a file of CodeCrash's MHC rows refers to them.
fn crux_rows() -> String {
    GOOD_ROWS
        .replace(r#""id": "s1""#, r#""id": "sample_0""#)
        .replace(r#""id": "s2""#, r#""id": "sample_1""#)
        .replace(r#""id": "s3""#, r#""id": "sample_2""#)
}

/// One row of CodeCrash's layout, with `code` holding a hint comment.
fn codecrash_row(task_id: &str, code: &str, call: &str, output: &str) -> String {
    serde_json::json!({"task_id": task_id, "dataset": "crux", "code": code, "function_name": "f", "function_call": call, "output": output, "test": format!("assert {call} == {output}")}).to_string()
}

/// `--wrong-answers file:PATH` with CodeCrash-shaped rows (ids `sample_N` or bare `N`) and our own
/// `{"id", "claim"}` rows: the file's claim is used where execution shows it wrong; a claim that
/// is right for this program, and a sample the file lacks, fall back on offline proposals and the
/// summary says which.
#[test]
fn misleading_hints_from_a_file_of_claims() {
    let dir = scratch("mhc-file");
    let dataset = dir.join("crux.jsonl");
    std::fs::write(&dataset, crux_rows()).unwrap();
    let s1_code = "def f(nums, k):\n    total = 0\n    for n in nums:\n        if n > k:\n            total += n\n    return total";
    let s2_code = "def f(text):\n    words = text.split()\n    return '-'.join((w.upper() for w in words))";
    let output_rows = [
        codecrash_row("sample_0", &format!("{s1_code}  # The return value is 99"), "f([1, 5, 7], 4)", "12"),
        // Right for this program: execution rejects it, the offline source takes over.
        codecrash_row("1", &format!("{s2_code}  # The return value is 'A-BC'"), "f('a bc')", "'A-BC'"),
    ];
    let input_rows = [
        codecrash_row(
            "sample_0",
            &s1_code.replacen("def f(nums, k):", "def f(nums, k):  # The function call is f([1, 2, 3], 0)", 1),
            "f([1, 5, 7], 4)",
            "12",
        ),
        r#"{"id": "sample_1", "claim": "f('x y')", "prediction": "input"}"#.to_string(),
    ];
    // (task, file rows, text expected in the code by sample, report lines expected)
    type Case<'a> = (&'a str, &'a [String], &'a [(&'a str, &'a str)], &'a [&'a str]);
    let cases: [Case; 2] = [
        (
            "output",
            &output_rows,
            &[("sample_0", "  # The return value is 99")],
            &[
                "MHC claims: 1 of 3 hints from",
                "no claim in the file for 1: sample_2",
                "the file's claim is not wrong here (execution says so) for 1: sample_1",
            ],
        ),
        (
            "input",
            &input_rows,
            &[
                ("sample_0", "def f(nums, k):  # The function call is f([1, 2, 3], 0)"),
                ("sample_1", "def f(text):  # The function call is f('x y')"),
            ],
            &["MHC claims: 2 of 3 hints from", "no claim in the file for 1: sample_2"],
        ),
    ];
    for (task, file_rows, in_code, report) in cases {
        let claims = dir.join(format!("crux_MHC_{task}.jsonl"));
        std::fs::write(&claims, file_rows.join("\n")).unwrap();
        let out = dir.join(format!("out-{task}.jsonl"));
        let source = format!("file:{}", claims.to_str().unwrap());
        let output = execbench(&[
            "perturb",
            "--dataset",
            dataset.to_str().unwrap(),
            "--kind",
            "MHC",
            "--prediction",
            task,
            "--wrong-answers",
            &source,
            "--out",
            out.to_str().unwrap(),
        ]);
        let log = stderr(&output);
        assert_eq!(output.status.code(), Some(0), "{task}: {log}");
        assert!(log.contains("3 verified and written to"), "{task}: {log}");
        for line in report {
            assert!(log.contains(line), "{task}: `{line}` missing in {log}");
        }
        let rows = rows(&out);
        for (id, text) in in_code {
            let row = rows.iter().find(|r| r["id"] == *id).expect("row exported");
            assert!(row["code"].as_str().unwrap().contains(text), "{task} {id}: {}", row["code"]);
        }
        // The fallback rows carry a hint all the same, never the file's rejected claim.
        let fallback = rows.iter().find(|r| r["id"] == "sample_1").unwrap()["code"].as_str().unwrap().to_string();
        assert!(fallback.contains("# The ") && !fallback.contains("is 'A-BC'"), "{task}: {fallback}");
    }
}

/// `--wrong-answers model` against the mock model server. It answers sample_1 wrong (`None` for an
/// output, a call without arguments for an input, which cannot be a hint) and the others right, as a
/// model that keeps proposing the true answer would: those fall back on the offline source, every
/// row still carries a verified hint, and the summary names the samples that fell back.
#[test]
fn misleading_hints_from_a_model() {
    use execbench_mockserver::{AnswerPolicy, MockConfig, MockServer, bundled_dataset, bundled_dataset_path};
    let dir = scratch("mhc-model");
    let dataset = dir.join("crux4.jsonl");
    let text = std::fs::read_to_string(bundled_dataset_path()).unwrap();
    std::fs::write(&dataset, text.lines().take(4).collect::<Vec<_>>().join("\n")).unwrap();
    // sample_1 is answered wrong at once, sample_2 from its second request on; sample_0 and
    // sample_3 always get the true answer: a model that keeps proposing it.
    let answers = AnswerPolicy {
        wrong_ids: ["sample_1".to_string()].into(),
        wrong_from_attempt: [("sample_2".to_string(), 2)].into(),
        ..Default::default()
    };
    let perturb = |server: &MockServer, task: &str, out: &std::path::Path| {
        let base = format!("{}/v1", server.base_url());
        let output = Command::new(env!("CARGO_BIN_EXE_execbench"))
            .args([
                "perturb",
                "--dataset",
                dataset.to_str().unwrap(),
                "--kind",
                "MHC",
                "--prediction",
                task,
                "--wrong-answers",
                "model",
            ])
            .args([
                "--provider",
                "openai-compatible",
                "--base-url",
                &base,
                "--model",
                "mock",
                "--key-env",
                "OPENAI_API_KEY",
                "--out",
                out.to_str().unwrap(),
            ])
            .env("OPENAI_API_KEY", "test-key")
            .output()
            .expect("the execbench binary runs");
        let log = stderr(&output);
        assert_eq!(output.status.code(), Some(0), "{task}: {log}");
        assert!(log.contains("4 verified and written to"), "{task}: {log}");
        log
    };
    // (task, requests per sample, summary lines, the hints of sample_1 and sample_2)
    type Case<'a> = (&'a str, [u32; 4], &'a [&'a str], [&'a str; 2]);
    let cases: &[Case] = &[
        (
            "output",
            [3, 1, 2, 3],
            &[
                "MHC claims: 2 of 4 hints from the model mock; 2 fell back on offline proposals",
                "no usable proposal from the model for 2:",
                "sample_0: 3 proposals, none usable (last: [(4, 1), (4, 1), (4, 1), (4, 1), (2, 3), (2, 3)]: that is the true return value)",
                "9 requests (",
            ],
            ["# The return value is None", "# The return value is None"],
        ),
        // The mock's wrong input answer is a call without arguments, which raises: never a hint.
        (
            "input",
            [3, 3, 3, 3],
            &[
                "MHC claims: 0 of 4 hints from the model mock; 4 fell back on offline proposals",
                "sample_1: 3 proposals, none usable (last: f(): that call raises TypeError)",
            ],
            ["# The function call is f(", "# The function call is f("],
        ),
    ];
    for (task, requests, lines, hints) in cases {
        let config = MockConfig { answers: answers.clone(), ..Default::default() };
        let server = MockServer::start_blocking(bundled_dataset().unwrap(), config, 0).unwrap();
        let out = dir.join(format!("out-{task}.jsonl"));
        let log = perturb(&server, task, &out);
        for line in *lines {
            assert!(log.contains(line), "{task}: `{line}` missing in {log}");
        }
        let asked: Vec<u32> =
            (0..4).map(|i| server.stats().per_sample.get(&format!("sample_{i}")).copied().unwrap_or(0)).collect();
        assert_eq!(asked, requests, "{task}: requests per sample");
        let written = rows(&out);
        let code = |id: &str| written.iter().find(|r| r["id"] == id).unwrap()["code"].as_str().unwrap().to_string();
        for (id, hint) in ["sample_1", "sample_2"].iter().zip(hints) {
            assert!(code(id).contains(hint) && !code(id).contains("f()"), "{task} {id}: {}", code(id));
        }
        // The proposals were kept beside the output: the same command again asks nothing and
        // writes the same rows.
        let proposals = std::fs::read_to_string(format!("{}.proposals.jsonl", out.display())).unwrap();
        assert_eq!(proposals.lines().count(), 4, "{proposals}");
        assert!(!proposals.contains("test-key"), "no key in stored proposals");
        let first = std::fs::read_to_string(&out).unwrap();
        let again = perturb(&server, task, &out);
        assert!(again.contains("0 requests (0 tokens in, 0 out); 4 of 4 samples from"), "{task}: {again}");
        let asked_again: Vec<u32> =
            (0..4).map(|i| server.stats().per_sample.get(&format!("sample_{i}")).copied().unwrap_or(0)).collect();
        assert_eq!(asked_again, requests, "{task}: nothing asked the second time");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), first, "{task}: the same rows");
    }
}

/// A kind that finds nothing to change writes the row as it was and says how many.
#[test]
fn unchanged_rows_are_written_and_counted() {
    let dir = scratch("unchanged");
    let dataset = dir.join("tiny.jsonl");
    std::fs::write(&dataset, GOOD_ROWS).unwrap();
    let out = dir.join("out.jsonl");
    let output = execbench(&[
        "perturb",
        "--dataset",
        dataset.to_str().unwrap(),
        "--kind",
        "RTF",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    // s2 has no `if`, `elif` or `while`.
    assert!(
        stderr(&output).contains("3 verified and written to")
            && stderr(&output).contains("(1 unchanged: nothing to perturb)"),
        "{}",
        stderr(&output)
    );
    let rows = rows(&out);
    let same: Vec<&str> =
        rows.iter().filter(|r| r["code"] == r["original_code"]).map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(same, ["s2"]);
}

#[test]
fn clear_errors_for_bad_arguments() {
    let dir = scratch("errors");
    let dataset = dir.join("tiny.jsonl");
    std::fs::write(&dataset, GOOD_ROWS).unwrap();
    let (dataset, out) = (dataset.to_str().unwrap().to_string(), dir.join("out.jsonl").to_str().unwrap().to_string());
    let missing = dir.join("missing.jsonl").to_str().unwrap().to_string();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["--dataset", &dataset, "--out", &out],
            "required arguments were not provided:\n  --kind <KIND>".to_string(),
        ),
        (
            vec!["--dataset", &dataset, "--kind", "XYZ", "--out", &out],
            "unknown kind `XYZ` (known: REN, RTF, GBC, PSC_ALL, MCC, MPS, MHC)".to_string(),
        ),
        (vec!["--dataset", &missing, "--kind", "REN", "--out", &out], format!("cannot read {missing}: ")),
        (
            vec!["--dataset", &dataset, "--kind", "MCC", "--p", "2", "--out", &out],
            "--p must be between 0 and 1, got 2".to_string(),
        ),
        (
            vec!["--dataset", &dataset, "--kind", "MHC", "--prediction", "guess", "--out", &out],
            "unknown --prediction `guess` (known: output, input)".to_string(),
        ),
    ];
    for (args, message) in cases {
        let output = execbench(&[&["perturb"], &args[..]].concat());
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let log = stderr(&output);
        assert!(log.contains(&message), "{args:?}: {log}");
        assert!(log.contains("Usage: execbench perturb ") && log.contains("--kind <KIND>"), "{args:?}: {log}");
    }
    assert!(!dir.join("out.jsonl").exists(), "nothing is written when the arguments are wrong");
}
