//! `execbench perturb --profile codecrash` end to end: the built binary on a dataset written here,
//! verified by execution (RustPython), compared with the default profile on the same samples.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// `s1` returns `False` (the codecrash return messages then happen to be true), `s2` a non-empty
/// string, `s3` loops (GBC can open an `else:` after it).
const ROWS: &str = concat!(
    r#"{"id": "s1", "code": "def f(xs, limit):\n    for x in xs:\n        if x > limit:\n            return True\n    return False", "input": "[1, 2], 5", "output": "False"}"#,
    "\n",
    r#"{"id": "s2", "code": "def f(text, sep):\n    parts = text.split(sep)\n    parts.reverse()\n    return sep.join(parts)", "input": "'a-b', '-'", "output": "'b-a'"}"#,
    "\n",
    r#"{"id": "s3", "code": "def f(n):\n    total = 0\n    while n > 0:\n        total += n\n        n -= 1\n    return total", "input": "3", "output": "6"}"#,
    "\n",
);

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-profile-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn perturb(dataset: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["perturb", "--dataset", dataset.to_str().unwrap(), "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    Command::new(env!("CARGO_BIN_EXE_execbench")).args(&args).output().expect("the execbench binary runs")
}

fn rows(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("output written")
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON"))
        .collect()
}

#[test]
fn codecrash_profile_is_recorded_flagged_and_verified() {
    let dir = scratch("mcc");
    let dataset = dir.join("tiny.jsonl");
    std::fs::write(&dataset, ROWS).unwrap();
    let (theirs, ours) = (dir.join("codecrash.jsonl"), dir.join("execbench.jsonl"));
    let output = perturb(&dataset, &theirs, &["--kind", "MCC", "--profile", "codecrash"]);
    let log = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{log}");
    assert!(log.contains("MCC seed 0 (codecrash profile): 3 rows, 0 invalid; 3 verified and written to"), "{log}");
    let output = perturb(&dataset, &ours, &["--kind", "MCC"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    for (path, profile) in [(&theirs, "codecrash"), (&ours, "execbench")] {
        for row in rows(path) {
            assert_eq!(row["options"]["profile"].as_str(), Some(profile), "{row}");
            assert_eq!(row["provenance"]["perturbation"]["options"]["profile"].as_str(), Some(profile), "{row}");
            // Flagged only where a codecrash message names the true output (`False` for s1).
            let flagged = row.get("message_true").and_then(Value::as_bool).unwrap_or(false);
            assert_eq!(flagged, profile == "codecrash" && row["id"] == "s1", "{row}");
        }
    }
    // s1 under codecrash: each of its two returns claims `False`, which is the truth.
    let s1 = &rows(&theirs)[0];
    assert_eq!(s1["code"].as_str().unwrap().matches("False").count(), 1 + 2, "{}", s1["code"]);
}

#[test]
fn codecrash_gbc_opens_else_clauses_and_still_verifies() {
    let dir = scratch("gbc");
    let dataset = dir.join("tiny.jsonl");
    std::fs::write(&dataset, ROWS).unwrap();
    let mut new_else = 0;
    for seed in 0..6 {
        let out = dir.join(format!("gbc{seed}.jsonl"));
        let output = perturb(&dataset, &out, &["--kind", "GBC", "--profile", "codecrash", "--seed", &seed.to_string()]);
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        for row in rows(&out) {
            let (code, original) = (row["code"].as_str().unwrap(), row["original_code"].as_str().unwrap());
            new_else += code.matches("else:").count() - original.matches("else:").count();
        }
        let default = dir.join(format!("default{seed}.jsonl"));
        let output = perturb(&dataset, &default, &["--kind", "GBC", "--seed", &seed.to_string()]);
        assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
        assert!(
            rows(&default).iter().all(|r| !r["code"].as_str().unwrap().contains("else:")),
            "the default profile never adds else"
        );
    }
    assert!(new_else > 0, "no new else clause in 18 codecrash programs");
}

/// `execbench normalise` writes CodeCrash's baseline (programs as `ast.unparse` gives them,
/// verified), and `perturb --profile codecrash` perturbs those same normalised programs: its rows'
/// original code is the baseline's code. A program that does not parse is named and not written.
#[test]
fn the_normalised_baseline_is_what_the_codecrash_profile_perturbs() {
    let dir = scratch("normalise");
    let dataset = dir.join("raw.jsonl");
    let rows_in = [
        // (row, its program after ast.unparse)
        (
            r#"{"id": "a", "code": "def f( a ):\n    # add one\n    return (a+1)", "input": "1", "output": "2"}"#,
            "def f(a):\n    return a + 1\n",
        ),
        (
            r#"{"id": "b", "code": "def f(s):\n    return s.upper( ) + \"!\"", "input": "'x'", "output": "'X!'"}"#,
            "def f(s):\n    return s.upper() + '!'\n",
        ),
        (r#"{"id": "c", "code": "def f(n):\n    return n", "input": "3", "output": "3"}"#, "def f(n):\n    return n\n"),
    ];
    let broken = r#"{"id": "bad", "code": "def f(n):\n    return n +", "input": "3", "output": "3"}"#;
    let text: Vec<&str> = rows_in.iter().map(|(row, _)| *row).chain([broken]).collect();
    std::fs::write(&dataset, text.join("\n")).unwrap();
    let baseline = dir.join("baseline.jsonl");
    let output = Command::new(env!("CARGO_BIN_EXE_execbench"))
        .args(["normalise", "--dataset", dataset.to_str().unwrap(), "--out", baseline.to_str().unwrap()])
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "the broken row fails the command: {log}");
    assert!(
        log.contains("ast.unparse changed 2 of 3 programs")
            && log.contains("not normalised: bad: ast.unparse failed: SyntaxError"),
        "{log}"
    );
    assert!(log.contains("4 rows, 0 invalid; 3 verified and written to"), "{log}");
    let written = rows(&baseline);
    let codes: Vec<&str> = written.iter().map(|r| r["code"].as_str().unwrap()).collect();
    assert_eq!(codes, rows_in.iter().map(|(_, code)| *code).collect::<Vec<_>>());
    assert!(
        written.iter().all(|r| r["normalised"] == "ast.unparse" && r["provenance"]["dataset"] == "raw"),
        "{written:?}"
    );

    // The baseline reads back as a dataset, and the profile perturbs exactly its programs.
    let out = dir.join("ren.jsonl");
    let output = perturb(&dataset, &out, &["--kind", "REN", "--profile", "codecrash"]);
    let log = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(log.contains("ast.unparse changed 2 of 3 programs"), "{log}");
    let perturbed = rows(&out);
    assert_eq!(perturbed.iter().map(|r| r["original_code"].as_str().unwrap()).collect::<Vec<_>>(), codes);
    let again = dir.join("ren-again.jsonl");
    let output = perturb(&baseline, &again, &["--kind", "REN", "--profile", "codecrash"]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let code_of = |rows: &[Value]| rows.iter().map(|r| r["code"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    assert_eq!(code_of(&rows(&again)), code_of(&perturbed), "perturbing the baseline file gives the same programs");
}
