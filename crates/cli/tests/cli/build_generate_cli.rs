//! `execbench build generate` end to end with the offline source and a replayed file: the
//! built binary writes generations and candidates, byte-identical for one seed, different for
//! another; `--resume` asks only for what is missing; a replayed file gives the same candidates.
//! No Python runs: `cargo test --workspace --test cli build_generate_cli::`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use execbench_recipe::read_candidates;
use execbench_recipe::replay::read_generations;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-recipe-generate-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn generate(dir: &Path, extra: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_execbench"));
    cmd.current_dir(dir).args(["build", "generate", "--out", "g.jsonl", "--candidates", "c.jsonl"]).args(extra);
    cmd.output().expect("the execbench binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_default()
}

#[test]
fn offline_generation_is_seeded_resumable_and_replayable() {
    let (a, b, c) = (scratch("a"), scratch("b"), scratch("c"));
    let all = ["--methods", "all", "--per-method", "2", "--seed", "7"];
    let out = generate(&a, &all);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (rows, errors) = read_generations("g.jsonl", &read(&a, "g.jsonl"));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(rows.len(), 138);
    let methods: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.method.as_str()).collect();
    assert_eq!(methods.len(), 69);
    let (candidates, errors) = read_candidates("c.jsonl", &read(&a, "c.jsonl"));
    assert!(errors.is_empty(), "{errors:?}");
    // Five inputs a function, a few responses not answers at all: a realistic funnel's top.
    assert!(candidates.len() > 500 && candidates.len() <= 138 * 5, "{} candidates", candidates.len());
    for cand in &candidates {
        let request = cand.id.rsplit_once('-').map(|(r, _)| r).unwrap();
        assert!(
            rows.iter().any(|r| r.id == request && Some(&r.method) == cand.method.as_ref()),
            "{} comes from a request of its method",
            cand.id
        );
    }
    let stdout = text(&out.stdout);
    assert!(stdout.contains(&format!("candidates: {} from", candidates.len())), "{stdout}");

    // Same seed: the same bytes; another seed: other candidates.
    assert_eq!(generate(&b, &all).status.code(), Some(0));
    assert_eq!(read(&a, "g.jsonl"), read(&b, "g.jsonl"));
    assert_eq!(read(&a, "c.jsonl"), read(&b, "c.jsonl"));
    assert_eq!(generate(&c, &["--methods", "all", "--per-method", "2", "--seed", "8"]).status.code(), Some(0));
    assert_ne!(read(&a, "c.jsonl"), read(&c, "c.jsonl"));

    // Resume: a run of 1 per method extended to 2 asks only for the new half and ends with the
    // same candidates as the single run.
    let r = scratch("resume");
    assert_eq!(generate(&r, &["--methods", "all", "--per-method", "1", "--seed", "7"]).status.code(), Some(0));
    let again = generate(&r, &["--methods", "all", "--per-method", "2", "--seed", "7"]);
    assert_eq!(again.status.code(), Some(2), "an existing file needs --resume");
    assert!(text(&again.stderr).contains("g.jsonl exists: pass --resume"), "{}", text(&again.stderr));
    let resumed = generate(&r, &["--methods", "all", "--per-method", "2", "--seed", "7", "--resume"]);
    assert_eq!(resumed.status.code(), Some(0), "{}", text(&resumed.stderr));
    assert!(
        text(&resumed.stderr).contains("138 requests for 69 methods (69 already answered, 69 to ask)"),
        "{}",
        text(&resumed.stderr)
    );
    assert_eq!(read_generations("g.jsonl", &read(&r, "g.jsonl")).0.len(), 138, "no request asked twice");
    assert_eq!(read(&r, "c.jsonl"), read(&a, "c.jsonl"));

    // Replay: the generations file as the source gives the same candidates.
    let p = scratch("replay");
    let replayed = generate(&p, &["--source", "replay", a.join("g.jsonl").to_str().unwrap()]);
    assert_eq!(replayed.status.code(), Some(0), "{}", text(&replayed.stderr));
    assert_eq!(read(&p, "c.jsonl"), read(&a, "c.jsonl"));
    // Only some methods of it.
    let q = scratch("replay-some");
    assert_eq!(
        generate(&q, &["--source", "replay", a.join("g.jsonl").to_str().unwrap(), "--methods", "list"]).status.code(),
        Some(0)
    );
    let (some, _) = read_candidates("c.jsonl", &read(&q, "c.jsonl"));
    assert!(!some.is_empty() && some.iter().all(|c| c.method.as_deref().is_some_and(|m| m.starts_with("list."))));

    for dir in [a, b, c, r, p, q] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn errors_are_named_and_exit_2() {
    let d = scratch("errors");
    std::fs::write(d.join("bad_pool.jsonl"), "{\"method\":\"str.split\"}\nnope\n").unwrap();
    std::fs::write(d.join("bad_prompt.txt"), "Write f for {method} with {exmples}").unwrap();
    // (flags, message the error starts with after "execbench build: ")
    let cases: &[(&[&str], &str)] = &[
        (&["--methods", "str.splat"], "unknown method `str.splat`"),
        (
            &["--methods", "all", "--pool", "bad_pool.jsonl"],
            "the example pool has bad lines:\n  bad_pool.jsonl:1: field `code`: missing\n  bad_pool.jsonl:2: not JSON",
        ),
        (
            &["--methods", "all", "--prompt", "bad_prompt.txt"],
            "bad_prompt.txt: the template has an unknown placeholder {exmples}",
        ),
        (
            &[
                "--methods",
                "all",
                "--source",
                "api",
                "--provider",
                "openai",
                "--model",
                "m",
                "--key-env",
                "EXECBENCH_NO_SUCH_KEY",
            ],
            "no API key: set the environment variable EXECBENCH_NO_SUCH_KEY",
        ),
    ];
    for (flags, message) in cases {
        let out = generate(&d, flags);
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.starts_with(&format!("execbench build generate: {message}")), "{flags:?}: {stderr}");
        assert!(!d.join("g.jsonl").exists(), "{flags:?}: nothing written");
    }
    // The built-in template and pool, printed to be edited, are read back as they are.
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_execbench"));
    let pool = cmd.current_dir(&d).args(["build", "generate", "--show-pool"]).output().unwrap();
    std::fs::write(d.join("pool.jsonl"), &pool.stdout).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_execbench"));
    let template = cmd.current_dir(&d).args(["build", "generate", "--show-template"]).output().unwrap();
    std::fs::write(d.join("prompt.txt"), &template.stdout).unwrap();
    let out = generate(&d, &["--methods", "str.split", "--pool", "pool.jsonl", "--prompt", "prompt.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(d);
}

/// Through a real HTTP server (the project's mock model server, which answers generation prompts
/// with text that holds no function): every request is sent once (after one scripted 500, twice),
/// its tokens counted and priced, each response kept as unparseable; the key is written nowhere.
/// A wrong key stops the run at once with exit 3.
#[test]
fn api_generation_through_the_mock_server() {
    use execbench_mockserver::{Fault, FaultRule, MockConfig, MockServer, SampleMatch, bundled_dataset};
    const KEY: &str = "sk-generate-SECRET-77";
    let config = MockConfig {
        api_key: Some(KEY.into()),
        faults: vec![FaultRule::on_attempts(SampleMatch::All, &[1], Fault::ServerError)],
        ..Default::default()
    };
    let server = MockServer::start_blocking(bundled_dataset().unwrap(), config, 0).unwrap();
    let base = format!("{}/v1", server.base_url());
    let api = |dir: &Path, key: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_execbench"));
        cmd.current_dir(dir).args([
            "build",
            "generate",
            "--out",
            "g.jsonl",
            "--candidates",
            "c.jsonl",
            "--methods",
            "str.split,list.sort",
            "--per-method",
            "3",
            "--seed",
            "1",
        ]);
        cmd.args([
            "--source",
            "api",
            "--provider",
            "openai-compatible",
            "--base-url",
            &base,
            "--model",
            "mock",
            "--key-env",
            "OPENAI_API_KEY",
            "--concurrency",
            "2",
            "--price",
            "1,2",
        ])
        .env("OPENAI_API_KEY", key);
        cmd.output().unwrap()
    };
    let d = scratch("api");
    let out = api(&d, KEY);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let (rows, errors) = read_generations("g.jsonl", &read(&d, "g.jsonl"));
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(rows.len(), 6);
    assert!(
        rows.iter()
            .all(|r| r.response.is_some() && r.prompt_tokens.unwrap_or(0) > 0 && r.completion_tokens.unwrap_or(0) > 0),
        "{rows:?}"
    );
    let stats = server.stats();
    assert_eq!(stats.unidentified, 7, "six requests, one sent twice after a 500");
    assert!(stdout.contains("responses: 6 answered, 6 unparseable, 0 failed"), "{stdout}");
    let prompt: u64 = rows.iter().filter_map(|r| r.prompt_tokens).sum();
    let completion: u64 = rows.iter().filter_map(|r| r.completion_tokens).sum();
    assert!(stdout.contains(&format!("tokens: {prompt} prompt, {completion} completion")), "{stdout}");
    assert!(stdout.contains("cost: $"), "{stdout}");
    for file in ["g.jsonl", "c.jsonl"] {
        assert!(!read(&d, file).contains(KEY), "{file} holds the key");
    }
    assert!(!stdout.contains(KEY) && !stderr.contains(KEY));

    let w = scratch("api-badkey");
    let out = api(&w, "sk-wrong");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("stopped by the provider"), "{}", text(&out.stderr));
    assert!(read(&w, "g.jsonl").is_empty(), "no row for a run that never got an answer");

    // A cap below one request's worst case (its prompt's bytes as tokens, 2000 tokens out at $2
    // per million is $0.004 alone): nothing is asked, and the run says why.
    let c = scratch("api-cap");
    let asked_before = server.stats().unidentified;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_execbench"));
    cmd.current_dir(&c).args([
        "build",
        "generate",
        "--out",
        "g.jsonl",
        "--candidates",
        "c.jsonl",
        "--methods",
        "str.split",
        "--per-method",
        "2",
    ]);
    cmd.args([
        "--source",
        "api",
        "--provider",
        "openai-compatible",
        "--base-url",
        &base,
        "--model",
        "mock",
        "--key-env",
        "OPENAI_API_KEY",
        "--price",
        "1,2",
        "--spend-cap",
        "0.004",
    ])
    .env("OPENAI_API_KEY", KEY);
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("spend cap"), "{}", text(&out.stderr));
    assert_eq!(server.stats().unidentified, asked_before, "no request past the cap");
    assert!(read(&c, "g.jsonl").is_empty());
    let _ = std::fs::remove_dir_all(d);
    let _ = std::fs::remove_dir_all(w);
    let _ = std::fs::remove_dir_all(c);
}
