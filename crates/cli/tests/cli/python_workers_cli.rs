//! Python in worker processes: hostile answers end as errors (the run goes on, the next sample
//! scores), and a worker sees nothing of the environment of the `execbench` that starts it.
//! Runs RustPython: use `cargo test --release --workspace --test cli python_workers_cli::`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-python-workers-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn execbench() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_execbench"));
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

/// The command's output, or a failed test if it is still running after `limit` (a hostile answer
/// that hangs the run must fail the test, not hang it).
fn finished_within(mut child: Child, limit: Duration) -> Output {
    let mut pipes = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || {
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let _ = pipes.0.read_to_end(&mut stdout);
        let _ = pipes.1.read_to_end(&mut stderr);
        (stdout, stderr)
    });
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let (stdout, stderr) = out.join().unwrap();
            return Output { status, stdout, stderr };
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("execbench was still running after {limit:?}: a hostile answer hung the run");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Five samples, every one `f(x) = x`: each hostile answer is followed by a sample answered right.
const IDENTITY: &str = r#"{"id": "s1", "code": "def f(x):\n    return x", "input": "1", "output": "1"}
{"id": "s2", "code": "def f(x):\n    return x", "input": "2", "output": "2"}
{"id": "s3", "code": "def f(x):\n    return x", "input": "3", "output": "3"}
{"id": "s4", "code": "def f(x):\n    return x", "input": "4", "output": "4"}
{"id": "s5", "code": "def f(x):\n    return x", "input": "5", "output": "5"}
"#;

/// Hand-made bytecode, run: refused when the code object is made (pyengine's lockdown.rs).
const BYTECODE: &str =
    "__import__('types').FunctionType((lambda: 0).__code__.replace(co_code=bytes(64), co_stacksize=0), {})()";

/// (task, mode, sample, answer, verdict, text its detail must contain); the samples not listed are
/// answered right and must score `correct`.
const HOSTILE: &[(&str, &str, &str, &str, &str, &str)] = &[
    // A huge power is one builtin call: the watchdog cannot stop it; its result needs ~4.2 GB.
    ("input", "strict", "s1", "f(10**10**10)", "error", "the Python worker process died"),
    // A 1 TB string: the allocation aborts the process that makes it.
    ("input", "strict", "s3", "f(len('a' * 10**12))", "error", "the Python worker process died"),
    // time.sleep is one builtin call too: only the hard deadline (limit + margin) stops it.
    ("output", "compatible", "s1", "__import__('time').sleep(1e9)", "timeout", "timed out after 1 s"),
    ("output", "compatible", "s3", BYTECODE, "error", "PermissionError: code.replace() is not available"),
];

#[test]
fn hostile_answers_end_as_errors_and_the_next_sample_scores() {
    let dir = scratch("hostile");
    let dataset = dir.join("identity.jsonl");
    std::fs::write(&dataset, IDENTITY).unwrap();
    for (task, mode) in [("input", "strict"), ("output", "compatible")] {
        let hostile: Vec<_> = HOSTILE.iter().filter(|h| (h.0, h.1) == (task, mode)).collect();
        let generations: serde_json::Map<String, Value> = (1..=5)
            .map(|i| {
                let id = format!("s{i}");
                let right = if task == "input" { format!("f({i})") } else { i.to_string() };
                let answer = hostile.iter().find(|h| h.2 == id).map_or(right, |h| h.3.to_string());
                (id, Value::from(vec![answer]))
            })
            .collect();
        let generations_path = dir.join(format!("{task}.json"));
        std::fs::write(&generations_path, Value::Object(generations).to_string()).unwrap();
        for jobs in ["1", "2"] {
            let out = dir.join(format!("{task}-{jobs}.jsonl"));
            let child = execbench()
                .args(["score", "--dataset", path(&dataset), "--generations", path(&generations_path)])
                .args(["--task", task, "--mode", mode, "--time-limit", "1", "--jobs", jobs, "--out", path(&out)])
                .spawn()
                .unwrap();
            let output = finished_within(child, Duration::from_secs(60));
            let context = format!("{task} {mode} --jobs {jobs}:\n{}{}", text(&output.stdout), text(&output.stderr));
            assert_eq!(output.status.code(), Some(0), "{context}");
            let rows: Vec<Value> =
                std::fs::read_to_string(&out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
            assert_eq!(rows.len(), 5, "{context}");
            for row in &rows {
                let verdict = &row["answers"][0]["verdict"];
                let (label, detail) = (verdict["verdict"].as_str().unwrap(), verdict.to_string());
                match hostile.iter().find(|h| h.2 == row["id"]) {
                    Some(h) => assert!(label == h.4 && detail.contains(h.5), "{}: {detail}\n{context}", h.3),
                    None => assert_eq!(label, "correct", "{}, after a hostile answer: {detail}\n{context}", row["id"]),
                }
            }
        }
    }
}

/// A worker's environment, command line, address-space limit and kernel rules, read from /proc
/// while its run sleeps; the `execbench` that starts it has a secret in its environment.
#[cfg(target_os = "linux")]
#[test]
fn a_worker_sees_nothing_of_the_environment_of_the_execbench_that_starts_it() {
    let dir = scratch("environment");
    let dataset = dir.join("sleepy.jsonl");
    // The program also looks for itself: os.environ is the sandbox's (empty) one in any case.
    std::fs::write(
        &dataset,
        r#"{"id": "env", "code": "def f(x):\n    import os, time\n    time.sleep(1.5)\n    return dict(os.environ)", "input": "0", "output": "{}"}"#,
    )
    .unwrap();
    let child = execbench()
        .env("EXECBENCH_TEST_SECRET", "sk-not-for-python")
        .args(["verify", "--dataset", path(&dataset), "--time-limit", "5", "--jobs", "1"])
        .spawn()
        .unwrap();
    let parent = child.id();
    // Up to 10 s: on a loaded machine execbench itself can take seconds to start its worker.
    let worker = (0..1000).find_map(|_| {
        std::thread::sleep(Duration::from_millis(10));
        children_of(parent).into_iter().next()
    });
    let worker = worker.expect("execbench started no worker process: Python ran inside it");
    let read = |file: &str| std::fs::read(format!("/proc/{worker}/{file}")).unwrap_or_default();
    // A child found between its fork and its exec still shows execbench's own command line and
    // environment: wait (at most 5 s) until it is the worker program, then read what it holds.
    let started_as = |cmdline: &[u8]| text(cmdline).split('\0').nth(1).map(str::to_owned);
    let mut cmdline = read("cmdline");
    for _ in 0..500 {
        if cmdline.is_empty() || started_as(&cmdline).as_deref() != Some("verify") {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
        cmdline = read("cmdline");
    }
    let (environ, limits) = (read("environ"), text(&read("limits")));
    // The worker puts the rules in force itself, a moment after its process appears (its engine
    // starts first): read its status until they show, while its program sleeps. A worker that
    // never applies them fails below, once it has ended (an empty status) or after 5 s.
    let rules = ["Seccomp:\t2", "NoNewPrivs:\t1"];
    let in_force = |status: &str| rules.iter().all(|rule| status.lines().any(|line| line == *rule));
    let mut status = text(&read("status"));
    for _ in 0..500 {
        if in_force(&status) || status.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
        status = text(&read("status"));
    }
    let output = finished_within(child, Duration::from_secs(30));
    assert_eq!(output.status.code(), Some(0), "{}{}", text(&output.stdout), text(&output.stderr));
    assert!(text(&output.stdout).contains("1 passed, 0 failed"), "{}", text(&output.stdout));
    assert_eq!(text(&cmdline).split('\0').nth(1), Some("__python-worker"), "{}", text(&cmdline));
    assert!(environ.is_empty(), "the worker's environment is not empty: {}", text(&environ));
    // At most 4 GiB, at least 1 GiB, and within three quarters of the machine's RAM.
    let address_space = limits.lines().find(|l| l.starts_with("Max address space")).unwrap_or_default();
    let limit: u64 = address_space.split_whitespace().nth(3).and_then(|w| w.parse().ok()).expect(&limits);
    let ram = physical_memory();
    assert!((1 << 30..=4 << 30).contains(&limit) && limit <= (ram / 4 * 3).max(1 << 30), "RAM {ram}:\n{limits}");
    // The rules of crates/sandbox, in force while a program runs: a seccomp filter, no new privileges.
    for rule in rules {
        assert!(status.lines().any(|line| line == rule), "no {rule:?} in the worker's status:\n{status}");
    }
}

/// The machine's RAM in bytes, as the workers' memory limit counts it.
#[cfg(target_os = "linux")]
fn physical_memory() -> u64 {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
    let total = meminfo.lines().find_map(|line| line.strip_prefix("MemTotal:")).expect(&meminfo);
    total.trim().trim_end_matches("kB").trim().parse::<u64>().unwrap() * 1024
}

/// The kernel's rules, proved from inside a worker: a worker started with the self-test variable
/// applies the same rules at the same place as every worker (before the engine's thread starts),
/// then tries on the engine's thread, with libc, what an escape from RustPython would try, and
/// reports the kernel's answer to each. Where the kernel has no Landlock, reading a file is still
/// allowed (the test says so); everything seccomp denies must fail whatever the kernel.
#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
#[test]
fn a_worker_gets_the_kernels_error_for_files_network_programs_and_other_processes() {
    let child = Command::new(env!("CARGO_BIN_EXE_execbench"))
        .arg("__python-worker")
        .env_clear()
        .env("EXECBENCH_WORKER_SELF_TEST", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = finished_within(child, Duration::from_secs(30));
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    assert_eq!(report["seccomp"], "enforced", "{report}");
    let denied = [
        ("write_file", "EPERM"),
        ("socket", "EPERM"),
        ("socketpair", "EPERM"),
        ("execve", "EPERM"),
        ("ptrace", "EPERM"),
        ("kill_parent", "EPERM"),
        ("read_parent_memory", "EPERM"),
        ("fork", "EPERM"),
        ("io_uring", "EPERM"),
        ("push_terminal_input", "EPERM"),
        // Still allowed: the engine's deadline is a thread.
        ("thread", "ok"),
    ];
    for (attempt, answer) in denied {
        assert_eq!(report[attempt], answer, "{attempt}: {report}");
    }
    match report["landlock"].as_str() {
        Some("enforced" | "partial") => assert_eq!(report["read_file"], "EACCES", "{report}"),
        Some("unavailable") => {
            eprintln!("this kernel has no Landlock: the rule on reading files is not tested here");
            assert_eq!(report["read_file"], "ok", "{report}");
        }
        _ => panic!("no Landlock state: {report}"),
    }
}

/// A run still going at its deadline (limit + margin) has its worker killed; the next run gets a
/// new worker, which answers. The workers are seen in /proc while they live.
#[cfg(target_os = "linux")]
#[test]
fn a_worker_killed_at_the_deadline_is_replaced_by_a_new_one() {
    let dir = scratch("replaced");
    let dataset = dir.join("sleepers.jsonl");
    std::fs::write(
        &dataset,
        concat!(
            r#"{"id": "forever", "code": "def f(x):\n    import time\n    time.sleep(1e9)\n    return x", "input": "1", "output": "1"}"#,
            "\n",
            r#"{"id": "short", "code": "def f(x):\n    import time\n    time.sleep(0.3)\n    return x", "input": "2", "output": "2"}"#,
        ),
    )
    .unwrap();
    let child =
        execbench().args(["verify", "--dataset", path(&dataset), "--time-limit", "1", "--jobs", "1"]).spawn().unwrap();
    let parent = child.id();
    let mut workers = std::collections::BTreeSet::new();
    let started = Instant::now();
    // Until the second worker is seen (the first is killed 1.5 s in); both live for a while.
    while workers.len() < 2 && started.elapsed() < Duration::from_secs(10) {
        workers.extend(children_of(parent));
        std::thread::sleep(Duration::from_millis(10));
    }
    let output = finished_within(child, Duration::from_secs(30));
    let stdout = text(&output.stdout);
    assert_eq!(workers.len(), 2, "workers seen: {workers:?}\n{stdout}");
    assert!(stdout.contains("FAIL forever: timed out after 1 s"), "{stdout}");
    assert!(stdout.ends_with("1 passed, 1 failed\n"), "{stdout}");
}

/// The processes whose parent is `parent`, from /proc/*/stat.
#[cfg(target_os = "linux")]
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // "pid (name) state ppid …": the name may hold spaces and parentheses.
            let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
            after_name.split_whitespace().nth(1).and_then(|ppid| ppid.parse::<u32>().ok()) == Some(parent)
        })
        .collect()
}
