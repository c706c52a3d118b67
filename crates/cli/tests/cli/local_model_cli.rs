//! `execbench run --provider local`: the built binary runs the tiny random-weight GGUF fixture of
//! crates/localmodel in its own process (answers in milliseconds) over the bundled CRUXEval
//! samples. Records hold the model's real token counts at no cost, greedy runs repeat, resume asks
//! only for what is missing and refuses a changed or missing model file, and no key is involved.
//! Runs RustPython: use `cargo test --release --workspace --test cli local_model_cli::`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use execbench_eval::Task;
use execbench_eval::prompt::{Style, default_template};
use execbench_localmodel::{ChatMessage, LocalModel};

const SAMPLES: usize = 20;
const MAX_TOKENS: u64 = 24;
/// Set in the environment of every run: none may reach a file or an output.
const CANARY: &str = "sk-local-CANARY-7319";
const KEY_VARIABLES: [&str; 4] = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "DEEPSEEK_API_KEY"];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../localmodel/tests/fixtures").join(name)
}

/// A fresh directory holding its own copy of the model and tokenizer (so a test may change them).
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-local-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    for file in ["tiny-q8_0.gguf", "tiny-q4_0.gguf", "tokenizer.json"] {
        std::fs::copy(fixture(file), dir.join(file)).expect("copy the fixture");
    }
    dir
}

fn dataset() -> String {
    execbench_mockserver::bundled_dataset_path().to_string_lossy().into_owned()
}

/// `execbench run --provider local` in `dir` on the first `SAMPLES`, greedy.
fn local_run(dir: &Path, out: &str, extra: &[&str]) -> Command {
    run_command(dir, out, "local", SAMPLES, extra)
}

/// `execbench run` in `dir` with every key variable set to the canary.
fn run_command(dir: &Path, out: &str, provider: &str, limit: usize, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_execbench"));
    cmd.current_dir(dir).args(["run", "--dataset", &dataset(), "--task", "output", "--provider", provider]);
    cmd.args(["--limit", &limit.to_string(), "--temperature", "0", "--max-tokens", &MAX_TOKENS.to_string()]);
    cmd.args(["--mode", "strict", "--jobs", "2", "--out", out]).args(extra);
    for var in KEY_VARIABLES {
        cmd.env(var, CANARY);
    }
    cmd
}

const FILES: [&str; 4] = ["--model-file", "tiny-q8_0.gguf", "--tokenizer", "tokenizer.json"];

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("the execbench binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn says(output: &Output) -> String {
    format!("exit {:?}\nstdout:\n{}\nstderr:\n{}", output.status.code(), text(&output.stdout), text(&output.stderr))
}

/// Records by sample id (the latest line of a sample wins), in sample order.
fn records(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut by_index = std::collections::BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("{\"sample_id\"")) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        by_index.insert(v["index"].as_u64().unwrap(), v);
    }
    by_index.into_values().collect()
}

fn responses(rows: &[serde_json::Value]) -> Vec<String> {
    rows.iter().map(|r| r["results"][0]["answers"][0]["response"].as_str().unwrap_or("").to_string()).collect()
}

/// The prompt's token count as the model itself makes it: the template's messages through the
/// GGUF's chat template and the tokenizer.
fn prompt_tokens(sample_index: usize) -> u64 {
    let samples = execbench_mockserver::bundled_dataset().unwrap();
    let prompt = default_template(Task::Output, Style::Direct).render(&samples[sample_index]);
    let messages: Vec<ChatMessage> = prompt.messages.iter().map(|m| ChatMessage::new(&m.role, &m.content)).collect();
    let read = |name| std::fs::read(fixture(name)).unwrap();
    let model = LocalModel::load(&read("tiny-q8_0.gguf"), &read("tokenizer.json")).unwrap();
    model.encode(&model.render_chat(&messages).unwrap()).unwrap().len() as u64
}

#[test]
fn a_local_run_answers_every_sample_with_real_token_counts_at_no_cost_and_repeats() {
    let dir = scratch("run");
    let first = run(local_run(&dir, "first.jsonl", &FILES).arg("--stream"));
    assert_eq!(first.status.code(), Some(0), "{}", says(&first));
    let rows = records(&dir.join("first.jsonl"));
    assert_eq!(rows.len(), SAMPLES);
    assert_eq!(rows[0]["usage"]["prompt_tokens"].as_u64(), Some(prompt_tokens(0)), "{}", rows[0]["usage"]);
    for row in &rows {
        let completion = row["usage"]["completion_tokens"].as_u64().unwrap();
        assert!((1..=MAX_TOKENS).contains(&completion), "{}", row["usage"]);
        assert!(row["usage"]["prompt_tokens"].as_u64().unwrap() > 100, "{}", row["usage"]);
        assert!(row.get("error").is_none(), "{row}");
    }
    let stdout = text(&first.stdout);
    assert!(stdout.contains("cost: $0 "), "{stdout}");
    let speed = stdout.lines().find(|l| l.starts_with("local model: prefill ")).expect("a speed line");
    // Every sample's prompt starts as the one before did: the cache keeps that start.
    let reused = speed.split("tokens/s; ").nth(1).and_then(|r| r.split(' ').next()).and_then(|n| n.parse::<u64>().ok());
    assert!(reused.is_some_and(|n| n > 0) && speed.contains(" more reused from the cache), decode "), "{speed}");

    // The same run again (not streamed this time): the same answers.
    let second = run(&mut local_run(&dir, "second.jsonl", &FILES));
    assert_eq!(second.status.code(), Some(0), "{}", says(&second));
    assert_eq!(responses(&records(&dir.join("second.jsonl"))), responses(&rows));

    // The manifest names the files and their fingerprints; no key is anywhere.
    let file = std::fs::read_to_string(dir.join("first.jsonl")).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(file.lines().next().unwrap()).unwrap();
    let local = &manifest["manifest"]["api"]["local_model"];
    assert_eq!(local["gguf"], "tiny-q8_0.gguf");
    assert_eq!(local["gguf_bytes"].as_u64(), Some(std::fs::metadata(fixture("tiny-q8_0.gguf")).unwrap().len()));
    assert_eq!(local["gguf_sha256"].as_str().map(str::len), Some(64));
    assert!(manifest["manifest"].get("key_used").is_none(), "{manifest}");
    for output in [&first, &second] {
        assert!(!says(output).contains(CANARY));
    }
    assert!(!file.contains(CANARY));
}

#[test]
fn a_cut_run_resumes_asking_only_for_the_missing_samples() {
    let dir = scratch("resume");
    let out = dir.join("run.jsonl");
    let whole = run(&mut local_run(&dir, "run.jsonl", &FILES));
    assert_eq!(whole.status.code(), Some(0), "{}", says(&whole));
    let all = responses(&records(&out));
    // What a run killed after 15 samples leaves: the manifest and the first records.
    let text_before = std::fs::read_to_string(&out).unwrap();
    let kept: Vec<&str> = text_before.lines().filter(|l| !l.starts_with("{\"state\"")).take(16).collect();
    std::fs::write(&out, kept.join("\n") + "\n").unwrap();

    // No file flags: the run's own are found again through its manifest.
    let resumed = run(&mut local_run(&dir, "run.jsonl", &["--resume"]));
    assert_eq!(resumed.status.code(), Some(0), "{}", says(&resumed));
    let stderr = text(&resumed.stderr);
    assert!(stderr.contains("15 of 20 samples already done"), "{stderr}");
    assert!(stderr.contains("5 requests this session"), "{stderr}");
    assert_eq!(responses(&records(&out)), all, "greedy: the resumed answers are the ones a whole run gives");
}

#[test]
fn resume_refuses_a_changed_or_missing_model_file_naming_it() {
    let dir = scratch("changed");
    let made = run(&mut run_command(&dir, "run.jsonl", "local", 2, &FILES));
    assert_eq!(made.status.code(), Some(0), "{}", says(&made));
    let full = std::fs::read_to_string(dir.join("run.jsonl")).unwrap();
    let first_record_only: Vec<&str> = full.lines().filter(|l| !l.starts_with("{\"state\"")).take(2).collect();
    let reset = || std::fs::write(dir.join("run.jsonl"), first_record_only.join("\n") + "\n").unwrap();
    // (what is done to the files, the flags of the resume, what the refusal must say)
    type Change = fn(&Path);
    let other_model: Change = |d| std::fs::copy(d.join("tiny-q4_0.gguf"), d.join("tiny-q8_0.gguf")).map(drop).unwrap();
    let cases: [(&str, Change, &[&str], &str); 4] = [
        (
            "another model under the run's name",
            other_model,
            &[],
            "the model file tiny-q8_0.gguf is not the one the run used",
        ),
        (
            "the same, named on the command line",
            other_model,
            &FILES,
            "the model file tiny-q8_0.gguf is not the one the run used",
        ),
        (
            "a missing model file",
            |d| std::fs::remove_file(d.join("tiny-q8_0.gguf")).unwrap(),
            &[],
            "cannot read the model file tiny-q8_0.gguf",
        ),
        (
            "another tokenizer",
            |d| std::fs::write(d.join("tokenizer.json"), b"{}").unwrap(),
            &[],
            "the tokenizer tokenizer.json",
        ),
    ];
    for (what, change, flags, want) in cases {
        reset();
        change(&dir);
        let refused = run(run_command(&dir, "run.jsonl", "local", 2, flags).arg("--resume"));
        assert_eq!(refused.status.code(), Some(2), "{what}: {}", says(&refused));
        assert!(text(&refused.stderr).contains(want), "{what}: {}", says(&refused));
        assert_eq!(records(&dir.join("run.jsonl")).len(), 1, "{what}: nothing asked");
        // Put the right files back for the next case.
        for file in ["tiny-q8_0.gguf", "tokenizer.json"] {
            std::fs::copy(fixture(file), dir.join(file)).unwrap();
        }
    }
}

/// The GGUF file alone: its own tokenizer (the tiny fixture's agrees with its tokenizer.json, so
/// the answers are the same), which the manifest records as no tokenizer file, and resume keeps.
#[test]
fn a_gguf_file_alone_is_enough_and_resume_keeps_its_tokenizer() {
    let dir = scratch("alone");
    let with_json = run(&mut run_command(&dir, "json.jsonl", "local", 3, &FILES));
    assert_eq!(with_json.status.code(), Some(0), "{}", says(&with_json));
    let alone = run(&mut run_command(&dir, "alone.jsonl", "local", 3, &FILES[..2]));
    assert_eq!(alone.status.code(), Some(0), "{}", says(&alone));
    let rows = records(&dir.join("alone.jsonl"));
    assert_eq!(responses(&rows), responses(&records(&dir.join("json.jsonl"))));
    assert_eq!(rows[0]["usage"]["prompt_tokens"].as_u64(), Some(prompt_tokens(0)));
    let file = std::fs::read_to_string(dir.join("alone.jsonl")).unwrap();
    let manifest: serde_json::Value = serde_json::from_str(file.lines().next().unwrap()).unwrap();
    let local = &manifest["manifest"]["api"]["local_model"];
    assert_eq!((&local["tokenizer"], &local["tokenizer_sha256"]), (&serde_json::Value::Null, &serde_json::Value::Null));

    // Cut after the first sample: resumed with no flags it goes on with the GGUF's own tokenizer;
    // given a tokenizer.json it refuses, naming both.
    let first: Vec<&str> = file.lines().filter(|l| !l.starts_with("{\"state\"")).take(2).collect();
    std::fs::write(dir.join("alone.jsonl"), first.join("\n") + "\n").unwrap();
    let refused = run(run_command(&dir, "alone.jsonl", "local", 3, &FILES).arg("--resume"));
    assert_eq!(refused.status.code(), Some(2), "{}", says(&refused));
    let want = "the tokenizer tokenizer.json is not the one the run used (the run used the GGUF file's own tokenizer";
    assert!(text(&refused.stderr).contains(want), "{}", says(&refused));
    let resumed = run(run_command(&dir, "alone.jsonl", "local", 3, &[]).arg("--resume"));
    assert_eq!(resumed.status.code(), Some(0), "{}", says(&resumed));
    assert_eq!(responses(&records(&dir.join("alone.jsonl"))), responses(&rows));
}

#[test]
fn local_flags_are_checked_before_any_work() {
    let dir = scratch("flags");
    let oracle = run(&mut run_command(&dir, "out.jsonl", "oracle", SAMPLES, &FILES));
    assert_eq!(oracle.status.code(), Some(2), "{}", says(&oracle));
    assert!(
        text(&oracle.stderr).contains("--model-file and --tokenizer are for --provider local"),
        "{}",
        says(&oracle)
    );
    let cases: &[(&[&str], &str)] = &[
        (&[], "--provider local needs --model-file F.gguf"),
        (&["--tokenizer", "tokenizer.json"], "--tokenizer goes with --model-file"),
        (
            &[
                FILES[0],
                FILES[1],
                FILES[2],
                FILES[3],
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--key-env",
                "OPENAI_API_KEY",
            ],
            "--base-url, --key-env are for model APIs",
        ),
        (&[FILES[0], FILES[1], FILES[2], FILES[3], "--batch"], "--batch is for model APIs"),
        (&["--model-file", "nope.gguf", "--tokenizer", "tokenizer.json"], "cannot read the model file nope.gguf"),
        (
            &["--model-file", "tokenizer.json", "--tokenizer", "tokenizer.json"],
            "cannot load tokenizer.json with tokenizer.json: reading the GGUF file",
        ),
        (&["--resume"], "--provider local needs --model-file (cannot read out.jsonl"),
        (&["--model-file", "tokenizer.json"], "cannot load tokenizer.json: reading the GGUF file"),
    ];
    for (flags, want) in cases {
        let output = run(&mut local_run(&dir, "out.jsonl", flags));
        assert_eq!(output.status.code(), Some(2), "{flags:?}: {}", says(&output));
        assert!(text(&output.stderr).contains(want), "{flags:?}: {}", says(&output));
        assert!(!dir.join("out.jsonl").exists(), "{flags:?}: no run file");
    }
    // The other commands with provider flags send requests elsewhere: they refuse it.
    let perturb = run(Command::new(env!("CARGO_BIN_EXE_execbench")).current_dir(&dir).args([
        "perturb",
        "--dataset",
        &dataset(),
        "--kind",
        "MHC",
        "--out",
        "p.jsonl",
        "--wrong-answers",
        "model",
        "--provider",
        "local",
        "--model",
        "m",
    ]));
    assert_eq!(perturb.status.code(), Some(2), "{}", says(&perturb));
    assert!(
        text(&perturb.stderr).contains("--provider local (a GGUF model run in this process) is for `execbench run"),
        "{}",
        says(&perturb)
    );
}
