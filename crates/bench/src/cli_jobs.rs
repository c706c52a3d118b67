//! The command line on every core: `execbench score` re-scoring a file with many time-outs in
//! compatible mode (input prediction, 3 s limit, CRUXEval's scorer's), with one job and with
//! all of them. Most of such a re-scoring is waiting out time limits one after another, so the
//! wall time should fall with cores.
//!
//! The answers are made here, since no model's file is in the repository: for each of the 800
//! samples ten distinct calls of its function, the first right, the others plain wrong
//! arguments; one sample in 25 gets a call that never returns (a generator that loops in Python
//! over `iter(int, 1)`), so 32 answers hit the time limit, about what the issue reports for
//! codellama-7b's 8000 input-prediction answers (98 s on one core). The outputs of both runs
//! must be the same bytes.
//!
//! And the native sandbox's price, two ways:
//! - the rules alone: the same 800 checks in two child processes of this binary
//!   (`__verify-child`), one held by the workers' own rules (`execbench_sandbox::confine`, Landlock
//!   and seccomp, applied before the engine starts, as the worker applies them) and one not;
//! - the process boundary too: `execbench verify --jobs 1` (one sandboxed worker process, its
//!   requests and results as JSON lines) against the same checks in this process. The command's
//!   own start (its process, the file, the worker's start) is measured on a one-sample file and
//!   taken off, so what is compared is the checks and their messages.

use std::path::{Path, PathBuf};
use std::time::Instant;

use execbench_core::Sample;
use serde_json::{Map, Value};

use crate::figures::{Amount, Figure};

/// One sample in this many gets an answer that runs forever.
const LOOPING_EVERY: usize = 25;
/// A call of `f` whose argument never finishes computing: pure bytecode, so the time limit stops it.
pub const LOOPING_CALL: &str = "f(next(x for x in iter(int, 1) if x))";

/// Ten distinct input-prediction answers for a sample; the first is right.
pub fn answers_for(index: usize, sample: &Sample) -> Vec<String> {
    let name = &sample.function_name;
    let mut answers = vec![sample.call.trim().to_string()];
    if index.is_multiple_of(LOOPING_EVERY) {
        answers.push(LOOPING_CALL.replace("f(", &format!("{name}(")));
    }
    for argument in ["", "None", "0", "-1", "''", "'x'", "[]", "{}", "(1, 2)", "True", "[0, 1]"] {
        let call = format!("{name}({argument})");
        if answers.len() < 10 && !answers.contains(&call) {
            answers.push(call);
        }
    }
    answers
}

pub fn write_generations(samples: &[Sample], dir: &Path) -> PathBuf {
    let map: Map<String, Value> =
        samples.iter().enumerate().map(|(i, s)| (s.id.clone(), Value::from(answers_for(i, s)))).collect();
    let path = dir.join("input-answers-with-timeouts.json");
    std::fs::write(&path, Value::Object(map).to_string()).expect("write the generations file");
    path
}

/// One `execbench score` run: wall time, what it printed, the rows it wrote.
struct ScoreRun {
    wall_ms: f64,
    stdout: Vec<u8>,
    rows: Vec<u8>,
}

fn score(binary: &Path, dataset: &Path, generations: &Path, jobs: usize, out: &Path) -> Result<ScoreRun, String> {
    let started = Instant::now();
    let output = std::process::Command::new(binary)
        .arg("score")
        .arg("--dataset")
        .arg(dataset)
        .arg("--generations")
        .arg(generations)
        .args(["--task", "input", "--mode", "compatible", "--jobs", &jobs.to_string(), "--out"])
        .arg(out)
        .output()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    if !output.status.success() {
        return Err(format!(
            "execbench score --jobs {jobs} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let rows = std::fs::read(out).map_err(|e| format!("cannot read {}: {e}", out.display()))?;
    Ok(ScoreRun { wall_ms, stdout: output.stdout, rows })
}

/// `execbench verify --jobs 1` over the dataset: wall time, ms. Its output must say all passed.
fn verify_in_a_worker(binary: &Path, dataset: &Path) -> Result<f64, String> {
    let started = Instant::now();
    let output = std::process::Command::new(binary)
        .args(["verify", "--dataset"])
        .arg(dataset)
        .args(["--jobs", "1"])
        .output()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    let wall_ms = started.elapsed().as_secs_f64() * 1000.0;
    if !output.status.success() {
        return Err(format!(
            "execbench verify failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(wall_ms)
}

/// The argument that makes this binary a child of [`sandbox_section`]: `__verify-child
/// confined|open DATASET`.
pub const VERIFY_CHILD: &str = "__verify-child";

/// In a child started by [`sandbox_section`]: reads the dataset, applies the workers' rules when
/// asked (before the engine starts, as the worker does), runs the checks and prints one JSON
/// line: `ms`, `passed`, and each rule's state. `None` when this process is not such a child.
pub fn serve_verify_child() -> Option<i32> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some(VERIFY_CHILD) {
        return None;
    }
    let (Some(how), Some(dataset)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: execbench-bench {VERIFY_CHILD} confined|open DATASET");
        return Some(2);
    };
    let samples = crate::read_samples(Path::new(dataset));
    let rules = match how.as_str() {
        "open" => ("none", "none"),
        "confined" => match execbench_sandbox::confine() {
            Ok(c) => (c.landlock.word(), c.seccomp.word()),
            Err(e) => {
                eprintln!("{e}");
                return Some(1);
            }
        },
        other => {
            eprintln!("{VERIFY_CHILD}: `{other}` is neither confined nor open");
            return Some(2);
        }
    };
    let (ms, passed) = verify_in_process(&samples);
    println!("{}", serde_json::json!({"ms": ms, "passed": passed, "landlock": rules.0, "seccomp": rules.1}));
    Some(0)
}

/// One child's pass: (ms, the line it printed).
fn verify_in_a_child(how: &str, dataset: &Path) -> Result<(f64, Value), String> {
    let me = std::env::current_exe().map_err(|e| format!("this binary's path: {e}"))?;
    let output = std::process::Command::new(me)
        .arg(VERIFY_CHILD)
        .arg(how)
        .arg(dataset)
        .output()
        .map_err(|e| format!("cannot start a {how} child: {e}"))?;
    let line: Value = serde_json::from_slice(&output.stdout).map_err(|e| {
        format!(
            "the {how} child ({}) said no figures ({e}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )
    })?;
    let ms = line["ms"].as_f64().ok_or_else(|| format!("the {how} child's line has no ms: {line}"))?;
    Ok((ms, line))
}

/// The same checks in this process, on a fresh engine: wall time of the checks, ms, and how many
/// passed.
fn verify_in_process(samples: &[Sample]) -> (f64, usize) {
    use execbench_core::verify::{Verdict, check_sample};
    // The interpreter's start is not timed: the worker's is taken off too.
    let mut engine = execbench_pyengine::RustPythonEngine::new();
    let started = Instant::now();
    let passed = samples
        .iter()
        .filter(|s| check_sample(&mut engine, s, execbench_core::Limits::default()).verdict == Verdict::Pass)
        .count();
    (started.elapsed().as_secs_f64() * 1000.0, passed)
}

/// The sandbox's price: medians of `reps` alternating runs of each.
pub fn sandbox_section(samples: &[Sample], dataset: &Path, reps: usize) -> Vec<Figure> {
    println!(
        "\nnative sandbox: `execbench verify --jobs 1` (a sandboxed worker) vs the same {} checks in this process, {reps} runs each...",
        samples.len()
    );
    let binary = crate::models::cli_binary();
    if !binary.is_file() {
        eprintln!("no execbench binary at {}: run `cargo build --release -p execbench-cli` first", binary.display());
        return Vec::new();
    }
    let one = std::env::temp_dir().join(format!("execbench-bench-one-sample-{}.jsonl", std::process::id()));
    let first_line = std::fs::read_to_string(dataset).ok().and_then(|t| t.lines().next().map(str::to_string));
    if std::fs::write(&one, first_line.unwrap_or_default() + "\n").is_err() {
        eprintln!("cannot write {}", one.display());
        return Vec::new();
    }
    let (mut worker, mut start, mut here) = (Vec::new(), Vec::new(), Vec::new());
    let (mut confined, mut open, mut rules) = (Vec::new(), Vec::new(), String::new());
    for _ in 0..reps.max(1) {
        match (verify_in_a_child("confined", dataset), verify_in_a_child("open", dataset)) {
            (Ok((held, line)), Ok((free, _))) => {
                if line["passed"].as_u64() != Some(samples.len() as u64) {
                    eprintln!("in the confined child only {} of {} samples passed", line["passed"], samples.len());
                    return Vec::new();
                }
                rules = format!("Landlock {}, seccomp {}", line["landlock"], line["seccomp"]).replace('"', "");
                confined.push(held);
                open.push(free);
            }
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("{e}");
                return Vec::new();
            }
        }
        match (verify_in_a_worker(&binary, dataset), verify_in_a_worker(&binary, &one)) {
            (Ok(all), Ok(started)) => {
                worker.push(all);
                start.push(started);
            }
            (Err(e), _) | (_, Err(e)) => {
                eprintln!("{e}");
                let _ = std::fs::remove_file(&one);
                return Vec::new();
            }
        }
        let (ms, passed) = verify_in_process(samples);
        if passed != samples.len() {
            eprintln!("in this process only {passed} of {} samples passed", samples.len());
            return Vec::new();
        }
        here.push(ms);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let _ = std::fs::remove_file(&one);
    let (start, here) = (median(start), median(here));
    let worker = (median(worker) - start).max(0.0);
    let (confined, open) = (median(confined), median(open));
    println!("(the command's own start, on a one-sample file: {start:.0} ms, taken off; the rules: {rules})");
    let figures = vec![
        Figure {
            section: "cli".into(),
            metric: format!("verify {} samples under the workers' rules ({rules}) vs without them", samples.len()),
            execbench: Some(Amount::Ms(confined)),
            reference: Some("the same process kind, no rules".into()),
            reference_amount: Some(Amount::Ms(open)),
            ratio: Some(confined / open),
            target: Some("<= 1.1".into()),
            met: Some(confined / open <= 1.1),
        },
        Figure {
            section: "cli".into(),
            metric: format!(
                "verify {} samples in a sandboxed worker process vs in this process (the command's start taken off)",
                samples.len()
            ),
            execbench: Some(Amount::Ms(worker)),
            reference: Some("in process, no sandbox".into()),
            reference_amount: Some(Amount::Ms(here)),
            ratio: Some(worker / here),
            // The process boundary (a key never shares a process with model-written code) has a
            // price per message; it is reported, not held to the rules' target.
            target: None,
            met: None,
        },
    ];
    println!("\n### Native sandbox: the rules alone, and a worker process against this one\n");
    println!("{}", crate::figures::markdown_table("in process", &figures));
    figures
}

/// Runs the section and returns its figures (also printed).
pub fn section(samples: &[Sample], dataset: &Path) -> Vec<Figure> {
    let all = execbench_core::parallel::available_jobs();
    println!(
        "\ncommand line on every core: `execbench score --task input --mode compatible` over {} samples x 10 answers with time-outs, --jobs 1 then --jobs {all}...",
        samples.len()
    );
    let binary = crate::models::cli_binary();
    if !binary.is_file() {
        eprintln!(
            "no execbench binary at {}: run `cargo build --release -p execbench-cli` first (scripts/bench.sh does), or point EXECBENCH_CLI at one",
            binary.display()
        );
        return Vec::new();
    }
    let scratch = std::env::temp_dir().join(format!("execbench-bench-cli-jobs-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&scratch);
    let generations = write_generations(samples, &scratch);
    let runs: Result<Vec<ScoreRun>, String> = [1, all]
        .iter()
        .map(|&jobs| score(&binary, dataset, &generations, jobs, &scratch.join(format!("rows-{jobs}.jsonl"))))
        .collect();
    let _ = std::fs::remove_dir_all(&scratch);
    let runs = match runs {
        Ok(runs) => runs,
        Err(e) => {
            eprintln!("{e}");
            return Vec::new();
        }
    };
    let (one, many) = (&runs[0], &runs[1]);
    let timeouts = String::from_utf8_lossy(&one.rows).matches(r#""verdict":"timeout""#).count();
    let same = one.stdout == many.stdout && one.rows == many.rows;
    let figures = figures(all, one.wall_ms, many.wall_ms, same);
    println!("\n### Command line, compatible re-scoring with time-outs: --jobs 1 and --jobs {all}\n");
    println!("{}", crate::figures::markdown_table("--jobs 1", &figures));
    println!(
        "\n{timeouts} answers timed out (3 s each). Wall time of the whole process (start-up and reading included). \
         Output with --jobs {all} {} the output with --jobs 1 (stdout and result rows).",
        if same { "is byte-identical to" } else { "**differs from**" }
    );
    figures
}

/// The rows: every job against one, the target being that the wall time falls with cores.
pub fn figures(all: usize, one_ms: f64, many_ms: f64, same: bool) -> Vec<Figure> {
    vec![
        Figure {
            section: "cli".into(),
            metric: format!("compatible re-scoring with time-outs, --jobs {all} vs --jobs 1"),
            execbench: Some(Amount::Ms(many_ms)),
            reference: Some("--jobs 1".into()),
            reference_amount: Some(Amount::Ms(one_ms)),
            ratio: Some(many_ms / one_ms),
            target: Some("< 1.0".into()),
            met: Some(many_ms < one_ms),
        },
        Figure {
            section: "cli".into(),
            metric: "same output with every job as with one".into(),
            execbench: None,
            reference: None,
            reference_amount: None,
            ratio: None,
            target: Some("byte-identical".into()),
            met: Some(same),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_distinct_calls_the_first_right_some_looping() {
        let sample = Sample::new("s", "def g(x):\n    return x", "g", "1", "1");
        let looping = answers_for(0, &sample);
        assert_eq!(
            (looping.len(), looping[0].as_str(), looping[1].as_str()),
            (10, "g(1)", "g(next(x for x in iter(int, 1) if x))")
        );
        let plain = answers_for(1, &sample);
        assert_eq!(plain.len(), 10);
        assert!(!plain.iter().any(|a| a.contains("iter(int")));
        let distinct: std::collections::HashSet<&String> = plain.iter().collect();
        assert_eq!(distinct.len(), 10);
    }
}
