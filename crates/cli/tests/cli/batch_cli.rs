//! `execbench run --batch` end to end against the mock's OpenAI batch service: submit and return,
//! the mock's clock moves on a day, `--resume` collects; the records equal a live run's against
//! the same mock sample for sample, errored and expired lines are error records, and the key is
//! in no file. Runs RustPython: build with `cargo test --release --workspace --no-run`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use execbench_mockserver::{AnswerPolicy, BatchScript, MockConfig, MockServer, bundled_dataset};

const KEY: &str = "sk-batch-cli-SECRET-7777";
const SAMPLES: usize = 40;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-batch-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn execbench(server: &MockServer, out: &Path, extra: &[&str]) -> Output {
    let base = format!("{}/v1", server.base_url());
    let dataset = execbench_mockserver::bundled_dataset_path();
    let limit = SAMPLES.to_string();
    Command::new(env!("CARGO_BIN_EXE_execbench"))
        .args(["run", "--dataset", dataset.to_str().unwrap(), "--task", "output", "--provider", "openai-compatible"])
        .args(["--base-url", &base, "--model", "mock", "--key-env", "OPENAI_API_KEY", "--n", "2", "--jobs", "1"])
        .args(["--limit", &limit, "--out", out.to_str().unwrap()])
        .args(extra)
        .env("OPENAI_API_KEY", KEY)
        .output()
        .expect("the execbench binary runs")
}

/// `execbench batch cancel RUN` against the mock, with the key.
fn cancel_batches(server: &MockServer, file: &Path) -> Output {
    let base = format!("{}/v1", server.base_url());
    Command::new(env!("CARGO_BIN_EXE_execbench"))
        .args(["batch", "cancel", file.to_str().unwrap(), "--provider", "openai-compatible", "--base-url", &base])
        .args(["--model", "mock", "--key-env", "OPENAI_API_KEY"])
        .env("OPENAI_API_KEY", KEY)
        .output()
        .expect("the execbench binary runs")
}

/// `execbench run` of the first `SAMPLES` samples against the mock's Gemini API with n = 2, the
/// inline limit lowered so that a batch goes as an input file, into `out`.
fn gemini_file_run(server: &MockServer, out: &Path, extra: &[&str]) -> Output {
    let base = format!("{}/v1beta", server.base_url());
    let dataset = execbench_mockserver::bundled_dataset_path();
    let limit = SAMPLES.to_string();
    Command::new(env!("CARGO_BIN_EXE_execbench"))
        .args(["run", "--dataset", dataset.to_str().unwrap(), "--task", "output", "--provider", "gemini"])
        .args(["--base-url", &base, "--model", "mock", "--key-env", "EXECBENCH_TEST_KEY", "--n", "2"])
        .args(["--jobs", "1", "--limit", &limit, "--out", out.to_str().unwrap()])
        .args(extra)
        .env("EXECBENCH_TEST_KEY", KEY)
        .env("EXECBENCH_GEMINI_INLINE_BYTES", "4000")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Records by sample id (the latest line of a sample wins).
fn records(path: &Path) -> std::collections::BTreeMap<String, serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut by_id = std::collections::BTreeMap::new();
    for line in text.lines().skip(1).filter(|l| l.starts_with("{\"sample_id\"")) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        by_id.insert(v["sample_id"].as_str().unwrap().to_string(), v);
    }
    by_id
}

#[test]
fn a_batch_run_submitted_today_is_collected_tomorrow_with_the_live_runs_scores() {
    let dir = scratch("day");
    let config = MockConfig {
        api_key: Some(KEY.into()),
        answers: AnswerPolicy { wrong_every: Some(4), ..Default::default() },
        ..Default::default()
    };
    let server = MockServer::start_blocking(bundled_dataset().unwrap(), config, 0).unwrap();
    let live_file = dir.join("live.jsonl");
    let live = execbench(&server, &live_file, &[]);
    assert!(matches!(live.status.code(), Some(0 | 1)), "{}", text(&live.stderr));
    let live = records(&live_file);
    assert_eq!(live.len(), SAMPLES);

    // A batch that needs two days: after the 24 h window, the lines not yet run expire.
    server.set_batch_script(BatchScript { run_s: 172_800, errored_every: Some(7), ..Default::default() });
    server.reset();
    let batch_file = dir.join("batch.jsonl");
    let submitted = execbench(&server, &batch_file, &["--batch"]);
    let stdout = text(&submitted.stdout);
    assert_eq!(submitted.status.code(), Some(4), "{stdout}\n{}", text(&submitted.stderr));
    assert!(
        stdout.contains("submitted batch batch_mock") && stdout.contains(&format!("({SAMPLES} requests)")),
        "{stdout}"
    );
    assert!(stdout.contains("waiting: batch_mock") && stdout.contains("validating"), "{stdout}");
    assert!(stdout.contains("next check in 60 s") && stdout.contains("check again with --resume"), "{stdout}");
    assert!(records(&batch_file).is_empty());

    // Checked the same day: still waiting, nothing collected.
    server.advance_batch_clock(3_600);
    let early = execbench(&server, &batch_file, &["--resume"]);
    assert_eq!(early.status.code(), Some(4), "{}", text(&early.stderr));
    assert!(text(&early.stdout).contains("in progress"), "{}", text(&early.stdout));
    // Checked too eagerly: the provider's Retry-After sets the next check.
    server.set_batch_script(BatchScript { rate_limit_status: Some((1, 120)), ..Default::default() });
    let limited = execbench(&server, &batch_file, &["--resume"]);
    assert_eq!(limited.status.code(), Some(4), "{}", text(&limited.stderr));
    assert!(text(&limited.stderr).contains("rate limited (429)"), "{}", text(&limited.stderr));
    assert!(text(&limited.stdout).contains("next check in 120 s"), "{}", text(&limited.stdout));
    server.set_batch_script(BatchScript::default());

    // The next day: the batch expired with some lines run; --resume collects them.
    server.advance_batch_clock(86_400);
    let collected = execbench(&server, &batch_file, &["--resume"]);
    let (stdout, stderr) = (text(&collected.stdout), text(&collected.stderr));
    assert_eq!(collected.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("collected batch batch_mock") && stderr.contains("expired"), "{stderr}");
    assert!(stdout.contains("output strict: pass@1"), "{stdout}");
    let batch = records(&batch_file);
    assert_eq!(batch.len(), SAMPLES, "every sample has a record");
    // Lines ran in input order: 40 × (86400 - 60) / 172800 = 19 lines before the window closed.
    let (mut answered, mut errored, mut expired) = (0, 0, 0);
    for (id, record) in &batch {
        let index = record["index"].as_u64().unwrap() as usize;
        let message = record["error"]["message"].as_str().unwrap_or("");
        if index >= 19 {
            assert!(message.contains("expired"), "{id}: {record}");
            expired += 1;
        } else if (index + 1).is_multiple_of(7) {
            assert!(message.contains("server error"), "{id}: {record}");
            errored += 1;
        } else {
            assert!(record["error"].is_null(), "{id}: {record}");
            assert_eq!(record["results"], live[id]["results"], "{id}: the batch's scores are the live run's");
            assert_eq!(record["results"][0]["answers"].as_array().unwrap().len(), 2, "{id}: n = 2 answers");
            answered += 1;
        }
    }
    assert_eq!((answered, errored, expired), (17, 2, 21));
    let file = std::fs::read_to_string(&batch_file).unwrap();
    assert!(!file.contains(KEY), "the key is in no file");
    // A handful of calls: upload, create, four checks (one refused), the two result files.
    let calls = server.stats().batch_calls;
    assert_eq!(calls.values().sum::<u64>(), 8, "{calls:?}");
    assert_eq!(server.stats().requests_total, 0, "no live request");

    // The run file lists its batch without a request.
    let list = Command::new(env!("CARGO_BIN_EXE_execbench"))
        .args(["batch", "list", batch_file.to_str().unwrap()])
        .output()
        .unwrap();
    let listed = text(&list.stdout);
    assert!(
        listed.contains("batch_mock")
            && listed.contains("expired, 17 answered, 23 failed of 40")
            && listed.contains("collected"),
        "{listed}"
    );

    // Resumed again: nothing waits, nothing is asked.
    let again = execbench(&server, &batch_file, &["--resume"]);
    assert_eq!(again.status.code(), Some(1), "{}", text(&again.stderr));
    assert_eq!(server.stats().batch_calls.values().sum::<u64>(), 8);
}

/// `execbench batch cancel` stops a running batch at the provider; `--resume` collects what had
/// finished, and the cancelled lines are error records saying so.
#[test]
fn a_cancelled_batch_keeps_what_finished() {
    let dir = scratch("cancel");
    let config = MockConfig { api_key: Some(KEY.into()), ..Default::default() };
    let server = MockServer::start_blocking(bundled_dataset().unwrap(), config, 0).unwrap();
    let file = dir.join("batch.jsonl");
    let submitted = execbench(&server, &file, &["--batch"]);
    assert_eq!(submitted.status.code(), Some(4), "{}", text(&submitted.stderr));
    // A quarter of the hour's run: 10 of 40 lines done.
    server.advance_batch_clock(60 + 900);
    // While another process holds the run file (an `execbench run --resume` collecting), cancel
    // waits its turn: refused, nothing sent, nothing written.
    let before = std::fs::read_to_string(&file).unwrap();
    let held = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join("batch.jsonl.lock"))
        .unwrap();
    held.try_lock().expect("the test holds the run file's lock");
    let calls = server.stats().batch_calls.values().sum::<u64>();
    let refused = cancel_batches(&server, &file);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stderr));
    assert!(text(&refused.stderr).contains("lock"), "{}", text(&refused.stderr));
    assert_eq!(server.stats().batch_calls.values().sum::<u64>(), calls, "nothing sent while the file is held");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before, "nothing written while the file is held");
    drop(held);
    let cancel = cancel_batches(&server, &file);
    assert_eq!(cancel.status.code(), Some(0), "{}", text(&cancel.stderr));
    assert!(text(&cancel.stdout).contains("cancelled, 10 answered, 30 failed of 40"), "{}", text(&cancel.stdout));
    // Another origin is refused before the key goes anywhere.
    let elsewhere = Command::new(env!("CARGO_BIN_EXE_execbench"))
        .args([
            "batch",
            "cancel",
            file.to_str().unwrap(),
            "--provider",
            "openai-compatible",
            "--base-url",
            "http://127.0.0.2:9/v1",
        ])
        .args(["--model", "mock", "--key-env", "OPENAI_API_KEY"])
        .env("OPENAI_API_KEY", KEY)
        .output()
        .unwrap();
    assert_eq!(elsewhere.status.code(), Some(2), "{}", text(&elsewhere.stderr));
    let collected = execbench(&server, &file, &["--resume"]);
    assert_eq!(collected.status.code(), Some(1), "{}", text(&collected.stderr));
    let batch = records(&file);
    let answered = batch.values().filter(|r| r["error"].is_null()).count();
    let cancelled =
        batch.values().filter(|r| r["error"]["message"].as_str().unwrap_or("").contains("cancelled")).count();
    assert_eq!((answered, cancelled), (10, 30));
    assert!(!std::fs::read_to_string(&file).unwrap().contains(KEY));
}

/// Anthropic's and Gemini's batch services give the same records as a live run: Anthropic takes
/// no `n` (two lines a sample, joined back in answer order), Gemini takes `candidateCount`.
#[test]
fn anthropic_and_gemini_batches_score_as_live() {
    let dir = scratch("providers");
    let config = MockConfig {
        api_key: Some(KEY.into()),
        answers: AnswerPolicy { wrong_every: Some(3), ..Default::default() },
        ..Default::default()
    };
    let server = MockServer::start_blocking(bundled_dataset().unwrap(), config, 0).unwrap();
    let live_file = dir.join("live.jsonl");
    let live = execbench(&server, &live_file, &[]);
    assert!(matches!(live.status.code(), Some(0 | 1)), "{}", text(&live.stderr));
    let live = records(&live_file);
    // (provider, base path, lines submitted)
    for (provider, path, lines) in [("anthropic", "/v1", 2 * SAMPLES), ("gemini", "/v1beta", SAMPLES)] {
        let file = dir.join(format!("{provider}.jsonl"));
        let base = format!("{}{path}", server.base_url());
        let dataset = execbench_mockserver::bundled_dataset_path();
        let limit = SAMPLES.to_string();
        let run = |extra: &[&str]| {
            Command::new(env!("CARGO_BIN_EXE_execbench"))
                .args(["run", "--dataset", dataset.to_str().unwrap(), "--task", "output", "--provider", provider])
                .args(["--base-url", &base, "--model", "mock", "--key-env", "EXECBENCH_TEST_KEY", "--n", "2"])
                .args(["--jobs", "1", "--limit", &limit, "--out", file.to_str().unwrap()])
                .args(extra)
                .env("EXECBENCH_TEST_KEY", KEY)
                .output()
                .unwrap()
        };
        let submitted = run(&["--batch"]);
        assert_eq!(submitted.status.code(), Some(4), "{provider}: {}", text(&submitted.stderr));
        assert!(
            text(&submitted.stdout).contains(&format!("({lines} requests)")),
            "{provider}: {}",
            text(&submitted.stdout)
        );
        server.advance_batch_clock(86_400);
        let collected = run(&["--resume"]);
        assert_eq!(collected.status.code(), Some(0), "{provider}: {}", text(&collected.stderr));
        let batch = records(&file);
        assert_eq!(batch.len(), SAMPLES, "{provider}");
        for (id, record) in &batch {
            assert_eq!(record["results"], live[id]["results"], "{provider} {id}");
        }
        assert!(!std::fs::read_to_string(&file).unwrap().contains(KEY), "{provider}");
    }
}

/// A Gemini run over the inline limit (lowered for the test with `EXECBENCH_GEMINI_INLINE_BYTES`)
/// goes as one input file: uploaded in the Files API's two calls, one create, a status check at
/// submission and one the next day, one download of the responses file; it scores as the live
/// run sample for sample, and the key is in no file.
#[test]
fn a_gemini_run_over_the_inline_limit_goes_as_one_input_file() {
    let dir = scratch("gemini-file");
    let config = MockConfig {
        api_key: Some(KEY.into()),
        answers: AnswerPolicy { wrong_every: Some(3), ..Default::default() },
        ..Default::default()
    };
    let server = MockServer::start_blocking(bundled_dataset().unwrap(), config, 0).unwrap();
    let live_file = dir.join("live.jsonl");
    let live = execbench(&server, &live_file, &[]);
    assert!(matches!(live.status.code(), Some(0 | 1)), "{}", text(&live.stderr));
    let live = records(&live_file);
    server.reset();
    let file = dir.join("gemini.jsonl");
    let (base, dataset) = (format!("{}/v1beta", server.base_url()), execbench_mockserver::bundled_dataset_path());
    let run = |extra: &[&str]| gemini_file_run(&server, &file, extra);
    let submitted = run(&["--batch"]);
    let said = text(&submitted.stdout);
    assert_eq!(submitted.status.code(), Some(4), "{}", text(&submitted.stderr));
    assert!(said.contains(&format!("({SAMPLES} requests)")) && said.contains("as the input file files/"), "{said}");
    assert_eq!(said.matches("submitted batch").count(), 1, "one batch, not several inline ones: {said}");
    server.advance_batch_clock(86_400);
    let collected = run(&["--resume"]);
    assert_eq!(collected.status.code(), Some(0), "{}", text(&collected.stderr));
    let batch = records(&file);
    assert_eq!(batch.len(), SAMPLES);
    for (id, record) in &batch {
        assert_eq!(record["results"], live[id]["results"], "{id}");
    }
    let calls = server.stats().batch_calls;
    let count = |name: &str| calls.get(name).copied().unwrap_or(0);
    assert_eq!(
        (count("upload_start"), count("upload"), count("create"), count("status"), count("download")),
        (1, 1, 1, 2, 1),
        "{calls:?}"
    );
    assert_eq!(calls.values().sum::<u64>(), 6, "{calls:?}");
    assert!(!std::fs::read_to_string(&file).unwrap().contains(KEY));
    // A threshold that is not a number is refused before anything is sent.
    let bad = Command::new(env!("CARGO_BIN_EXE_execbench"))
        .args(["run", "--dataset", dataset.to_str().unwrap(), "--task", "output", "--provider", "gemini"])
        .args(["--base-url", &base, "--model", "mock", "--key-env", "EXECBENCH_TEST_KEY", "--limit", "2"])
        .args(["--out", dir.join("bad.jsonl").to_str().unwrap(), "--batch"])
        .env("EXECBENCH_TEST_KEY", KEY)
        .env("EXECBENCH_GEMINI_INLINE_BYTES", "20MB")
        .output()
        .unwrap();
    assert_ne!(bad.status.code(), Some(4));
    assert!(
        text(&bad.stderr).contains("EXECBENCH_GEMINI_INLINE_BYTES: \"20MB\" is not a number"),
        "{}",
        text(&bad.stderr)
    );
    assert_eq!(server.stats().batch_calls.values().sum::<u64>(), 6);
}

/// A batch collected after its results file expired at the provider (Gemini keeps it 48 h; the
/// download is 404): every sample gets an error record saying so, nothing is made up, and
/// `--resume --retry-errors live` asks them again, ending with the live run's answers.
#[test]
fn a_batch_whose_results_file_expired_becomes_error_records_that_retry_finishes() {
    let dir = scratch("gemini-expired");
    let config = MockConfig { api_key: Some(KEY.into()), ..Default::default() };
    let server = MockServer::start_blocking(bundled_dataset().unwrap(), config, 0).unwrap();
    let run = |file: &Path, extra: &[&str]| gemini_file_run(&server, file, extra);
    let live_file = dir.join("live.jsonl");
    let live = run(&live_file, &[]);
    assert!(matches!(live.status.code(), Some(0 | 1)), "{}", text(&live.stderr));
    let live = records(&live_file);

    let file = dir.join("expired.jsonl");
    let submitted = run(&file, &["--batch"]);
    assert_eq!(submitted.status.code(), Some(4), "{}", text(&submitted.stderr));
    // Done within the day, then left uncollected three days: the responses file is gone.
    server.advance_batch_clock(86_400 + 172_800);
    let collected = run(&file, &["--resume"]);
    let (stdout, stderr) = (text(&collected.stdout), text(&collected.stderr));
    assert_eq!(collected.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("--retry-errors"), "{stderr}");
    let expired = records(&file);
    assert_eq!(expired.len(), SAMPLES, "every sample has a record");
    for (id, record) in &expired {
        let message = record["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("results file is gone at the provider"), "{id}: {record}");
        assert!(record["results"].as_array().is_none_or(|r| r.is_empty()), "{id}: an answer made up: {record}");
    }

    server.reset();
    let retried = run(&file, &["--resume", "--retry-errors", "live"]);
    assert_eq!(retried.status.code(), Some(0), "{}", text(&retried.stderr));
    assert_eq!(server.stats().requests_total, SAMPLES as u64, "each expired sample asked once, live");
    let finished = records(&file);
    assert_eq!(finished.len(), SAMPLES);
    for (id, record) in &finished {
        assert!(record["error"].is_null(), "{id}: {record}");
        assert_eq!(record["results"], live[id]["results"], "{id}: the retried answer is the live one");
    }
    assert!(!std::fs::read_to_string(&file).unwrap().contains(KEY));
}

/// `--resume --retry-errors` finishes a batch run's error records (here the lines a cancel left
/// unrun): as a new batch by default, collected by the next `--resume`, or `live` at once. Both
/// end with every sample answered and the same scores; what cannot be retried is refused.
#[test]
fn retry_errors_finish_a_batch_run_as_a_new_batch_or_live() {
    let dir = scratch("retry");
    let config = MockConfig { api_key: Some(KEY.into()), ..Default::default() };
    let server = MockServer::start_blocking(bundled_dataset().unwrap(), config, 0).unwrap();
    // A batch run with 10 lines answered and 30 cancelled.
    let cancelled_run = |name: &str| {
        let file = dir.join(name);
        let submitted = execbench(&server, &file, &["--batch"]);
        assert_eq!(submitted.status.code(), Some(4), "{}", text(&submitted.stderr));
        server.advance_batch_clock(60 + 900);
        let cancel = cancel_batches(&server, &file);
        assert_eq!(cancel.status.code(), Some(0), "{}", text(&cancel.stderr));
        let collected = execbench(&server, &file, &["--resume"]);
        assert_eq!(collected.status.code(), Some(1), "{}", text(&collected.stderr));
        assert!(text(&collected.stderr).contains("--retry-errors"), "{}", text(&collected.stderr));
        file
    };
    // (--retry-errors as typed, exit code of the retry, live requests it sends, a second --resume needed)
    let cases: [(&[&str], i32, u64, bool); 3] = [
        (&["--retry-errors"], 4, 0, true),
        (&["--retry-errors", "batch"], 4, 0, true),
        (&["--retry-errors", "live"], 0, 30, false),
    ];
    let mut finished = Vec::new();
    for (i, (flags, code, live_requests, collect_again)) in cases.into_iter().enumerate() {
        let file = cancelled_run(&format!("retry-{i}.jsonl"));
        server.reset();
        let retried = execbench(&server, &file, &[&["--resume"][..], flags].concat());
        let (stdout, stderr) = (text(&retried.stdout), text(&retried.stderr));
        assert_eq!(retried.status.code(), Some(code), "{flags:?}: {stdout}\n{stderr}");
        assert_eq!(server.stats().requests_total, live_requests, "{flags:?}");
        if collect_again {
            assert!(stdout.contains("(30 requests)"), "{flags:?}: only the errors are submitted: {stdout}");
            server.advance_batch_clock(86_400);
            let collected = execbench(&server, &file, &["--resume"]);
            assert_eq!(collected.status.code(), Some(0), "{flags:?}: {}", text(&collected.stderr));
        }
        let records = records(&file);
        assert_eq!(records.len(), SAMPLES, "{flags:?}");
        assert!(records.values().all(|r| r["error"].is_null()), "{flags:?}: every error finished");
        assert!(!std::fs::read_to_string(&file).unwrap().contains(KEY), "{flags:?}");
        finished.push(records);
    }
    for (id, record) in &finished[0] {
        for other in &finished[1..] {
            assert_eq!(record["results"], other[id]["results"], "{id}: a batch retry scores as a live one");
        }
    }

    // Refused, naming why: nothing left to retry; a live retry while a batch waits; a batch retry
    // of a live run; the flag without --resume.
    let done = dir.join("retry-0.jsonl");
    let nothing = execbench(&server, &done, &["--resume", "--retry-errors"]);
    assert!(text(&nothing.stderr).contains("nothing to retry"), "{}", text(&nothing.stderr));
    let waiting = dir.join("waiting.jsonl");
    assert_eq!(execbench(&server, &waiting, &["--batch"]).status.code(), Some(4));
    let live_while_waiting = execbench(&server, &waiting, &["--resume", "--retry-errors", "live"]);
    assert!(
        text(&live_while_waiting.stderr).contains("still in batches not yet collected"),
        "{}",
        text(&live_while_waiting.stderr)
    );
    let live_file = dir.join("live.jsonl");
    assert!(matches!(execbench(&server, &live_file, &[]).status.code(), Some(0 | 1)));
    let batch_of_live = execbench(&server, &live_file, &["--resume", "--retry-errors", "batch"]);
    assert!(text(&batch_of_live.stderr).contains("is for batch runs"), "{}", text(&batch_of_live.stderr));
    let without_resume = execbench(&server, &dir.join("new.jsonl"), &["--retry-errors"]);
    assert_eq!(without_resume.status.code(), Some(2), "{}", text(&without_resume.stderr));
}

/// The spend cap at submission, at the batch price once (not halved twice): 40 samples x n = 2 at
/// $1 per output token, 10 tokens each, could cost $800 live, $400 as a batch. A cap of $300 is
/// refused with nothing sent; $500 is submitted.
#[test]
fn the_spend_cap_is_checked_at_the_batch_price_before_submitting() {
    let dir = scratch("cap");
    let config = MockConfig { api_key: Some(KEY.into()), ..Default::default() };
    let server = MockServer::start_blocking(bundled_dataset().unwrap(), config, 0).unwrap();
    let priced = ["--batch", "--price", "0,1000000", "--max-tokens", "10", "--spend-cap"];
    let refused = execbench(&server, &dir.join("refused.jsonl"), &[&priced[..], &["300"]].concat());
    let stderr = text(&refused.stderr);
    assert!(!matches!(refused.status.code(), Some(0 | 4)), "{stderr}");
    assert!(stderr.contains("not submitted: the batch could cost up to $400.00 at the batch price"), "{stderr}");
    // Said before: what the batch asks, at most, at the batch price, what that saves, the cap.
    let estimate = stderr.lines().find(|l| l.starts_with("estimate: ")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        estimate
            .starts_with("estimate: asks 80 answers of 40 samples in 40 requests: at most $400.00 at the batch price"),
        "{estimate}"
    );
    assert!(
        estimate.contains("$400.00 less than live") && estimate.contains("the batch would not be submitted"),
        "{estimate}"
    );
    assert!(server.stats().batch_calls.is_empty(), "nothing sent: {:?}", server.stats().batch_calls);
    let submitted = execbench(&server, &dir.join("submitted.jsonl"), &[&priced[..], &["500"]].concat());
    assert_eq!(submitted.status.code(), Some(4), "{}", text(&submitted.stderr));
    assert_eq!(server.stats().batch_calls.get("create"), Some(&1));
}

/// What a record's tokens cost at `per_output_token` dollars (input free).
fn output_cost(usage: &serde_json::Value, per_output_token: f64) -> f64 {
    usage["completion_tokens"].as_u64().unwrap_or(0) as f64 * per_output_token
}

/// A live retry of a batch run is billed live: the closing `cost:` line counts the retried
/// answers at the live price and the batch's at half (worked out from the run file's records),
/// and a spend cap with room for the first retried sample at the batch price, not at the live
/// price, pauses the retry before anything is sent. $1 per output token, input free.
#[test]
fn a_live_retry_of_a_batch_run_is_costed_and_capped_at_the_live_price() {
    let dir = scratch("live-cost");
    let config = MockConfig { api_key: Some(KEY.into()), ..Default::default() };
    let server = MockServer::start_blocking(bundled_dataset().unwrap(), config, 0).unwrap();
    // (a spend cap's room over what the batch cost, in dollars: None for no cap; the exit code)
    // With --max-tokens 10 and n = 2, the first retried sample could cost $20 live, $10 at the
    // batch price: $15 of room is enough only at the batch price.
    let cases: [(Option<f64>, i32); 2] = [(None, 0), (Some(15.0), 1)];
    for (i, (room, code)) in cases.into_iter().enumerate() {
        // A batch run with 10 samples answered and 30 cancelled (error records).
        let file = dir.join(format!("run-{i}.jsonl"));
        let priced = ["--price", "0,1000000"];
        let submitted = execbench(&server, &file, &[&["--batch"][..], &priced].concat());
        assert_eq!(submitted.status.code(), Some(4), "{}", text(&submitted.stderr));
        server.advance_batch_clock(60 + 900);
        let cancel = cancel_batches(&server, &file);
        assert_eq!(cancel.status.code(), Some(0), "{}", text(&cancel.stderr));
        let collected = execbench(&server, &file, &[&["--resume"][..], &priced].concat());
        assert_eq!(collected.status.code(), Some(1), "{}", text(&collected.stderr));
        let before = records(&file);
        let retried: Vec<String> =
            before.iter().filter(|(_, r)| !r["error"].is_null()).map(|(id, _)| id.clone()).collect();
        assert_eq!(retried.len(), 30, "the cancelled lines are error records");
        let batch_cost: f64 = before.values().map(|r| output_cost(&r["usage"], 0.5)).sum();
        assert!(batch_cost > 0.0, "the batch's answers carry the mock's usage");

        server.reset();
        let mut flags = vec!["--resume".to_string(), "--retry-errors".into(), "live".into()];
        flags.extend(priced.iter().map(|s| s.to_string()));
        if let Some(room) = room {
            flags.extend(["--max-tokens".into(), "10".into(), "--spend-cap".into(), format!("{}", batch_cost + room)]);
        }
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let retry = execbench(&server, &file, &flags);
        let (stdout, stderr) = (text(&retry.stdout), text(&retry.stderr));
        assert_eq!(retry.status.code(), Some(code), "{room:?}: {stdout}\n{stderr}");
        if room.is_some() {
            assert!(stderr.contains("spend cap"), "{room:?}: paused at the spend cap: {stderr}");
            assert_eq!(server.stats().requests_total, 0, "{room:?}: nothing sent at the live price");
            continue;
        }
        assert_eq!(server.stats().requests_total, 30, "the 30 errors asked live");
        let after = records(&file);
        let mut want = 0.0;
        for (id, record) in &after {
            assert!(record["error"].is_null(), "{id}");
            if retried.contains(id) {
                assert_eq!(record["live_usage"], record["usage"], "{id}: asked live, kept apart");
                want += output_cost(&record["usage"], 1.0);
            } else {
                assert!(record.get("live_usage").is_none(), "{id}: the batch's answer");
                want += output_cost(&record["usage"], 0.5);
            }
        }
        let line =
            stdout.lines().find(|l| l.starts_with("cost: $")).unwrap_or_else(|| panic!("no cost line: {stdout}"));
        let shown: f64 = line["cost: $".len()..].split_whitespace().next().unwrap().parse().unwrap();
        assert!((shown - want).abs() <= 0.005, "{line}: want ${want:.2} (the batch's at half, the retried live)");
        assert!(line.contains("answers asked live at"), "the line names both prices: {line}");
        let all_at_half: f64 = after.values().map(|r| output_cost(&r["usage"], 0.5)).sum();
        assert!(want - all_at_half > 1.0, "the test tells the prices apart: {want} vs {all_at_half}");
    }
}
