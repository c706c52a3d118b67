//! The `execbench-mock-server` binary: its one line, serving, and usage errors.

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_execbench-mock-server");

/// Kills the child when the test ends, passed or not.
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serves_the_bundled_dataset() {
    let mut child = Child(
        Command::new(BIN)
            .args(["--port", "0", "--wrong-every", "1", "--cors", "none", "--api-key", "k", "--latency-ms", "1"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut line = String::new();
    BufReader::new(child.0.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let rest = line.strip_prefix("mock model server on http://").unwrap_or_else(|| panic!("{line:?}"));
    assert!(line.trim_end().ends_with("(OpenAI: /v1, Anthropic: /v1/messages, Gemini: /v1beta)"), "{line:?}");
    let addr: std::net::SocketAddr = rest.split(' ').next().unwrap().parse().unwrap();
    assert_eq!(addr.ip().to_string(), "127.0.0.1");

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "def f(nums):\n    output = []\n    for n in nums:\n        output.append((nums.count(n), n))\n    output.sort(reverse=True)\n    return output\nassert f([1, 1, 3, 1, 3, 1]) == ??"}]}).to_string();
    let response =
        runtime.block_on(common::post(addr, "/v1/chat/completions", &[("Authorization", "Bearer k")], &body));
    assert_eq!(response.status, 200, "{}", response.body);
    // --wrong-every 1: every answer is wrong.
    assert_eq!(
        response.json()["choices"][0]["message"]["content"],
        "[ANSWER]\nassert f([1, 1, 3, 1, 3, 1]) == None\n[/ANSWER]"
    );
    assert_eq!(response.header("access-control-allow-origin"), None);
    let response = runtime.block_on(common::post(addr, "/v1/chat/completions", &[], &body));
    assert_eq!(response.status, 401);
}

/// (arguments, fragment of the message)
#[test]
fn usage_errors_exit_2() {
    let cases: [(&[&str], &str); 4] = [
        (&["--port", "eighty"], "invalid value 'eighty' for '--port <PORT>'"),
        (&["--bogus"], "unexpected argument '--bogus'"),
        (&["--dataset", "/nonexistent/data.jsonl", "--port", "0"], "--dataset /nonexistent/data.jsonl"),
        (&["--config", "/nonexistent/mock.json"], "--config /nonexistent/mock.json"),
    ];
    for (args, fragment) in cases {
        let output = Command::new(BIN).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(fragment), "{args:?}: {stderr}");
    }
}

/// Help and version come from the flags' declarations, and exit 0.
#[test]
fn help_lists_every_flag_and_version_names_the_binary() {
    let help = Command::new(BIN).arg("--help").output().unwrap();
    assert_eq!(help.status.code(), Some(0));
    let text = String::from_utf8_lossy(&help.stdout);
    for flag in ["--port", "--dataset", "--config", "--latency-ms", "--wrong-every", "--cors", "--api-key", "--models"]
    {
        assert!(text.contains(flag), "{flag}: {text}");
    }
    let version = Command::new(BIN).arg("--version").output().unwrap();
    assert_eq!(version.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        format!("execbench-mock-server {}", env!("CARGO_PKG_VERSION"))
    );
}
