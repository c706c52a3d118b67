//! `execbench compare` end to end: run files written here, the built binary run on them, and every
//! file it writes checked against the library's output for the same runs, byte for byte.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use execbench_compare::charts::{category_chart, drop_heatmap, pass_at_1_chart};
use execbench_compare::report::{append_section, csv_table, markdown_section, pairs_jsonl};
use execbench_compare::{CompareOptions, RunInput, compare};
use execbench_eval::Task;
use execbench_eval::extract::Extraction;
use execbench_eval::report::SampleResult;
use execbench_eval::score::{Mode, SampleScore, Verdict};
use execbench_run::manifest::RunManifest;
use execbench_run::record::SampleRecord;
use execbench_run::runfile::{manifest_line, record_line};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-compare-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

fn execbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_execbench")).args(args).output().expect("the execbench binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A run file in both modes: `right(i, answer)` says whether answer `answer` of sample `i` is right.
fn run_file(
    run_id: &str,
    model: &str,
    dataset: &str,
    kind: Option<&str>,
    samples: usize,
    right: impl Fn(usize, usize) -> bool,
) -> String {
    let manifest = RunManifest {
        model: model.to_string(),
        dataset: dataset.to_string(),
        dataset_hash: "0".to_string(),
        samples,
        n: 5,
        modes: vec![Mode::Strict, Mode::Compatible],
        provenance: kind.map(|k| serde_json::json!({ "kind": k, "seed": 0 })),
        ..execbench_run::manifest::fixtures::manifest(run_id, 0)
    };
    let mut lines = vec![manifest_line(&manifest)];
    for i in 0..samples {
        let id = format!("sample_{i}");
        let verdicts: Vec<Verdict> = (0..5)
            .map(|a| {
                if right(i, a) {
                    Verdict::Correct
                } else {
                    Verdict::WrongValue { got: "0".into(), expected: "1".into() }
                }
            })
            .collect();
        let result = |mode: Mode| {
            let extractions = verdicts.iter().map(|_| Extraction::verbatim("1")).collect();
            SampleResult::new(
                &id,
                Task::Output,
                mode,
                None,
                Vec::new(),
                extractions,
                SampleScore::from_verdicts(mode, verdicts.clone()),
            )
        };
        let record = SampleRecord {
            sample_id: id.clone(),
            index: i,
            results: vec![result(Mode::Strict), result(Mode::Compatible)],
            error: None,
            usage: None,
            live_usage: None,
            sent: None,
            finish_reasons: Vec::new(),
            attempts: Vec::new(),
            latency_ms: 1.0,
        };
        lines.push(record_line(&record));
    }
    lines.join("\n") + "\n"
}

#[test]
fn every_output_is_the_librarys_and_the_report_grows_by_sections() {
    let dir = scratch("outputs");
    let files = [
        ("vanilla.jsonl", run_file("v", "model A", "cruxeval.jsonl", None, 30, |i, a| (i + a) % 3 != 0)),
        (
            "ren.jsonl",
            run_file("r", "model A", "cruxeval-REN-perturbed.jsonl", Some("REN"), 30, |i, a| (i + a) % 4 != 0),
        ),
        ("mcc.jsonl", run_file("m", "model A", "crux_MCC_output.jsonl", None, 25, |i, a| (i * a) % 5 == 1)),
        ("other.jsonl", run_file("o", "model, \"B\"", "cruxeval.jsonl", None, 30, |i, _| i % 2 == 0)),
    ];
    let mut paths = Vec::new();
    for (name, content) in &files {
        let p = path(&dir, name);
        std::fs::write(&p, content).unwrap();
        paths.push(p);
    }
    let dataset = path(&dir, "dataset.jsonl");
    let rows: Vec<String> = (0..30)
        .map(|i| {
            serde_json::json!({"id": format!("sample_{i}"), "method": if i % 3 == 0 { "str" } else { "list" }})
                .to_string()
        })
        .collect();
    std::fs::write(&dataset, rows.join("\n")).unwrap();
    let (report, csv, pairs, svg_dir) =
        (path(&dir, "report.md"), path(&dir, "table.csv"), path(&dir, "pairs.jsonl"), path(&dir, "svg"));
    let mut args: Vec<&str> = vec!["compare"];
    args.extend(paths.iter().map(String::as_str));
    args.extend([
        "--out",
        &report,
        "--csv",
        &csv,
        "--pairs",
        &pairs,
        "--svg-dir",
        &svg_dir,
        "--seed",
        "5",
        "--bootstrap",
        "300",
        "--date",
        "2026-11-25",
        "--categories",
        &dataset,
        "--category-field",
        "method",
    ]);
    let output = execbench(&args);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        text(&output.stdout).starts_with("compared 4 runs: 2 models × 3 columns, 4 pairs; wrote "),
        "{}",
        text(&output.stdout)
    );

    // The library on the same files, named as the command was given them.
    let runs: Vec<RunInput> = paths.iter().map(|p| RunInput::parse(p, &read(p)).unwrap()).collect();
    let categories: BTreeMap<String, String> =
        (0..30).map(|i| (format!("sample_{i}"), if i % 3 == 0 { "str" } else { "list" }.to_string())).collect();
    let comparison = compare(&runs, &CompareOptions { seed: 5, bootstrap: 300, categories });
    let section = markdown_section(&comparison, "2026-11-25");
    assert_eq!(read(&report), section);
    assert_eq!(read(&csv), csv_table(&comparison));
    assert_eq!(read(&pairs), pairs_jsonl(&comparison));
    let mut charts = 0;
    for mode in [Mode::Strict, Mode::Compatible] {
        for (name, svg) in [
            ("pass_at_1", pass_at_1_chart(&comparison, mode)),
            ("relative_drop", drop_heatmap(&comparison, mode)),
            ("categories", category_chart(&comparison, mode)),
        ] {
            assert_eq!(
                read(&format!("{svg_dir}/{name}-{}.svg", mode.label())),
                svg.expect("every chart has data here"),
                "{name} {mode:?}"
            );
            charts += 1;
        }
    }
    assert_eq!(std::fs::read_dir(&svg_dir).unwrap().count(), charts);

    // Again with another date: the first section stays as it was, a second one follows.
    let output = execbench(&["compare", &paths[0], &paths[1], "--out", &report, "--date", "2026-11-26"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let two_runs: Vec<RunInput> = runs[..2].to_vec();
    let second = markdown_section(&compare(&two_runs, &CompareOptions::default()), "2026-11-26");
    assert_eq!(read(&report), append_section(&section, &second));
    assert_eq!(read(&report).matches("\n## Comparison 2026-11-26\n").count(), 1);
}

#[test]
fn errors_name_the_file_and_line() {
    let dir = scratch("errors");
    let good = run_file("v", "m", "d.jsonl", None, 3, |_, _| true);
    let mut lines: Vec<&str> = good.lines().collect();
    lines[2] = "{\"sample_id\": 3}";
    let bad = path(&dir, "bad.jsonl");
    std::fs::write(&bad, lines.join("\n")).unwrap();
    let report = path(&dir, "report.md");
    let missing = path(&dir, "missing.jsonl");
    let not_a_run = path(&dir, "dataset.jsonl");
    std::fs::write(&not_a_run, "{\"id\": \"s\", \"code\": \"def f(): pass\"}\n").unwrap();
    // (arguments, start of the message after `execbench compare: `)
    let cases: Vec<(Vec<&str>, String)> = vec![
        (vec![&bad, "--out", &report], format!("{bad}:3: not a sample record")),
        (vec![&missing, "--out", &report], format!("cannot read {missing}: ")),
        (vec![&not_a_run, "--out", &report], format!("{not_a_run}:1: not an execbench run manifest")),
    ];
    for (args, message) in cases {
        let mut all = vec!["compare"];
        all.extend(args);
        let output = execbench(&all);
        assert_eq!(output.status.code(), Some(2), "{all:?}");
        let stderr = text(&output.stderr);
        assert!(stderr.starts_with(&format!("execbench compare: {message}")), "{all:?}: {stderr}");
        assert!(!Path::new(&report).exists(), "nothing is written when an input is bad");
    }
    // No run file at all: clap's usage error, naming what is missing.
    let output = execbench(&["compare", "--out", &report]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("required arguments were not provided") && stderr.contains("<RUN.jsonl>"), "{stderr}");
}
