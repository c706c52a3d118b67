//! The command line's grammar as a user meets it: `--version`, help per command, the shell
//! completions, and refusals that name the flag at fault (exit 2), all from the built binary.

use std::process::{Command, Output};

fn execbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_execbench")).args(args).output().expect("the execbench binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const SUBCOMMANDS: [&str; 8] = ["verify", "perturb", "normalise", "score", "run", "build", "compare", "completions"];

#[test]
fn version_names_the_binary_and_its_version() {
    let out = execbench(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout).trim(), format!("execbench {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn help_lists_every_subcommand_and_no_argument_is_a_usage_error() {
    let out = execbench(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    for command in SUBCOMMANDS {
        assert!(help.contains(command), "{command}: {help}");
    }
    assert!(!help.contains("__python-worker"), "the worker is no one's to type: {help}");
    let bare = execbench(&[]);
    assert_eq!(bare.status.code(), Some(2));
    assert!(text(&bare.stderr).contains("Usage: execbench"), "{}", text(&bare.stderr));
}

#[test]
fn each_command_help_lists_its_flags() {
    let cases: &[(&[&str], &[&str])] = &[
        (&["verify"], &["--dataset", "--category", "--time-limit", "--jobs"]),
        (
            &["perturb"],
            &[
                "--kind",
                "--seed",
                "--p",
                "--once",
                "--no-verify",
                "--profile",
                "--format",
                "--wrong-answers",
                "--proposals",
            ],
        ),
        (&["normalise"], &["--dataset", "--no-verify", "--time-limit", "--out"]),
        (&["score"], &["--generations", "--task", "--mode", "--jobs", "--out"]),
        (
            &["run"],
            &[
                "--task",
                "--template",
                "--provider",
                "--model",
                "--base-url",
                "--n",
                "--key-env",
                "--allow-http",
                "--resume",
            ],
        ),
        (
            &["build", "generate"],
            &["--methods", "--per-method", "--source", "--show-template", "--record", "--provider"],
        ),
        (&["build", "filter"], &["--candidates", "--rejected", "--time-limit"]),
        (&["build", "sample"], &["--in", "--balanced", "--generation", "--provenance"]),
        (&["compare"], &["--out", "--csv", "--pairs", "--svg-dir", "--bootstrap", "--categories", "--category-field"]),
    ];
    for (command, flags) in cases {
        let out = execbench(&[&command[..], &["--help"]].concat());
        assert_eq!(out.status.code(), Some(0), "{command:?}");
        let help = text(&out.stdout);
        for flag in *flags {
            assert!(
                help.contains(&format!("{flag} ")) || help.contains(&format!("{flag}\n")),
                "{command:?} {flag}: {help}"
            );
        }
        // No command takes a key from a flag.
        assert!(!help.contains("--api-key"), "{command:?}: {help}");
    }
}

#[test]
fn completions_name_the_subcommands_and_their_flags() {
    for shell in ["bash", "zsh", "fish"] {
        let out = execbench(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = text(&out.stdout);
        // fish spells a long flag `-l dataset`.
        let flag = |name: &str| if shell == "fish" { format!("-l {name}") } else { format!("--{name}") };
        for word in [
            "verify".to_string(),
            "perturb".into(),
            "build".into(),
            "generate".into(),
            flag("dataset"),
            flag("key-env"),
        ] {
            assert!(script.contains(&word), "{shell}: {word}");
        }
    }
    let out = execbench(&["completions", "tcsh-ish"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("tcsh-ish"), "{}", text(&out.stderr));
}

#[test]
fn unknown_and_missing_flags_are_refused_by_name() {
    let cases: &[(&[&str], &str)] = &[
        (&["verify", "--dataset", "d.jsonl", "--colour", "red"], "'--colour'"),
        (
            &["run", "--dataset", "d", "--task", "output", "--provider", "openai", "--out", "o", "--api-key", "sk"],
            "'--api-key'",
        ),
        (&["score", "--dataset", "d", "--task", "output"], "--generations <FILE>"),
        (&["normalise", "--dataset", "d"], "--out <FILE>"),
        (&["nope"], "'nope'"),
    ];
    for (args, named) in cases {
        let out = execbench(args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
        assert!(!stderr.contains("sk\n") && !stderr.contains("'sk'"), "a refused key is not echoed: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
