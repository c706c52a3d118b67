//! `execbench build` end to end: the built binary on small files written here. `build filter` runs
//! RustPython: use `cargo test --release --workspace --test cli build_cli::`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("execbench-recipe-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    dir
}

fn write(dir: &Path, name: &str, lines: &[String]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, lines.join("\n") + "\n").expect("file written");
    path.to_str().unwrap().to_string()
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

/// 21 kept rows: three methods (12, 6 and 2 rows), each with its own code and input, then one
/// duplicate of the first row (spacing differs), as `build filter` writes them.
fn kept_rows() -> Vec<String> {
    let mut rows = Vec::new();
    for (m, (method, count)) in [("str.split", 12), ("list.pop", 6), ("dict.get", 2)].into_iter().enumerate() {
        for i in 0..count {
            let code = format!("def f(x, k):\n    # {method}\n    return x * k + {i}");
            rows.push(json!({"id": format!("{method}-{i}"), "method": method, "code": code, "input": format!("{i}, {}", m + 2), "output": (i * 3).to_string()}).to_string());
        }
    }
    rows.push(json!({"id": "dup", "method": "str.split", "code": "def f(x, k):\n    return x * k + 0   ", "input": "0 ,2", "output": "0"}).to_string());
    rows
}

#[test]
fn sample_is_deterministic_and_loads_as_a_dataset() {
    let dir = scratch("sample");
    let kept = write(&dir, "kept.jsonl", &kept_rows());
    let sample = |out: &str, seed: &str, extra: &[&str]| {
        let (out, prov) = (path(&dir, out), path(&dir, &format!("{out}.prov.json")));
        let mut args =
            vec!["build", "sample", "--in", &kept, "--n", "9", "--seed", seed, "--out", &out, "--provenance", &prov];
        args.extend_from_slice(extra);
        let run = execbench(&args);
        assert_eq!(run.status.code(), Some(0), "{}{}", text(&run.stdout), text(&run.stderr));
        (read(&out), read(&prov), text(&run.stdout))
    };
    let (first, first_prov, stdout) = sample("a.jsonl", "5", &[]);
    let (again, again_prov, _) = sample("b.jsonl", "5", &[]);
    assert_eq!((&first, &first_prov), (&again, &again_prov), "same seed, same bytes");
    let (other, _, _) = sample("c.jsonl", "6", &[]);
    assert_ne!(first, other, "another seed, another draw");
    assert!(stdout.contains("21 kept rows, 0 invalid rows, 1 duplicates dropped, 20 unique"), "{stdout}");

    // The file loads as any dataset, with zero errors, renumbered, and its hash is the provenance's.
    let report = execbench_core::load_jsonl("a.jsonl", &first);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let ids: Vec<&str> = report.samples.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, (0..9).map(|i| format!("sample_{i}")).collect::<Vec<_>>());
    let prov: Value = serde_json::from_str(&first_prov).unwrap();
    assert_eq!(prov["dataset_hash"], Value::String(execbench_core::provenance::dataset_hash(&report.samples)));
    assert_eq!(prov["sample"], json!({"n": 9, "seed": 5, "balanced": false}));
    assert_eq!(
        (
            prov["funnel"]["passed_runtime"].as_u64(),
            prov["funnel"]["unique"].as_u64(),
            prov["funnel"]["sampled"].as_u64()
        ),
        (Some(21), Some(20), Some(9))
    );
    assert_eq!(prov["methods"], json!(["dict.get", "list.pop", "str.split"]));
    assert!(prov["filter_version"].is_string() && prov["app_version"].is_string());
    for sample in &report.samples {
        assert!(sample.meta.contains_key("candidate_id") && sample.meta.contains_key("method"), "{sample:?}");
    }

    // Balanced: round-robin, so dict.get's two and four each from the others.
    let (balanced, prov, _) = sample("d.jsonl", "5", &["--balanced", "--n", "10"]);
    let report = execbench_core::load_jsonl("d.jsonl", &balanced);
    let methods: Vec<&str> = report.samples.iter().map(|s| s.meta["method"].as_str().unwrap()).collect();
    assert_eq!(
        methods,
        [
            "dict.get",
            "dict.get",
            "list.pop",
            "list.pop",
            "list.pop",
            "list.pop",
            "str.split",
            "str.split",
            "str.split",
            "str.split"
        ]
    );
    assert!(prov.contains("\"balanced\": true"), "{prov}");
}

#[test]
fn sample_names_bad_rows_and_keeps_the_rest() {
    let dir = scratch("bad-rows");
    let mut rows = kept_rows()[..3].to_vec();
    rows.insert(1, r#"{"id": "x", "code": "def f(x):\n    return x", "input": "1"}"#.to_string());
    rows.push("{oops".to_string());
    let kept = write(&dir, "kept.jsonl", &rows);
    let rejected = write(
        &dir,
        "rejected.jsonl",
        &[
            json!({"id": "r", "code": "x", "input": "1", "rule": "no_such_rule", "detail": ""}).to_string(),
            json!({"id": "s", "code": "x", "input": "1", "rule": "float", "detail": "1.5"}).to_string(),
        ],
    );
    let (out, prov) = (path(&dir, "bench.jsonl"), path(&dir, "prov.json"));
    let run =
        execbench(&["build", "sample", "--in", &kept, "--rejected", &rejected, "--out", &out, "--provenance", &prov]);
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert_eq!(run.status.code(), Some(0), "{stdout}{stderr}");
    for needle in [
        "kept.jsonl:2: field `output`: missing",
        "kept.jsonl:5: not JSON",
        "rejected.jsonl:1: field `rule`: unknown rule `no_such_rule`",
    ] {
        assert!(stderr.contains(needle), "no `{needle}` in:\n{stderr}");
    }
    assert!(stdout.contains("3 kept rows, 3 invalid rows"), "{stdout}");
    assert_eq!(execbench_core::load_jsonl("b", &read(&out)).samples.len(), 3);
    let prov: Value = serde_json::from_str(&read(&prov)).unwrap();
    assert_eq!(prov["funnel"]["parsed"].as_u64(), Some(4), "3 kept + 1 rejected");
    let float = prov["funnel"]["rejections"].as_array().unwrap().iter().find(|c| c["rule"] == "float").unwrap();
    assert_eq!(float["count"].as_u64(), Some(1));
}

#[test]
fn usage_errors_exit_two_with_a_reason() {
    let dir = scratch("usage");
    let kept = write(&dir, "kept.jsonl", &kept_rows());
    let generation = write(&dir, "gen.json", &[r#"{"generator": {"source": "model", "api_key": "sk-1"}}"#.to_string()]);
    let out = path(&dir, "out.jsonl");
    let cases: &[(&[&str], &str)] = &[
        (&["build"], "Usage: execbench build <COMMAND>"),
        (&["build", "nope"], "unrecognized subcommand 'nope'"),
        (&["build", "generate"], "--out <GENERATIONS.jsonl>"),
        (&["build", "sample", "--out", &out], "--in <KEPT.jsonl>"),
        (&["build", "sample", "--in", &kept], "--out <BENCH.jsonl>"),
        (&["build", "sample", "--in", &kept, "--out", &out, "--n", "many"], "invalid value 'many' for '--n <N>'"),
        (&["build", "sample", "--in", &kept, "--out", &out, "--colour", "red"], "unexpected argument '--colour'"),
        (&["build", "sample", "--in", "/no/such/kept.jsonl", "--out", &out], "cannot read /no/such/kept.jsonl"),
        (&["build", "sample", "--in", &kept, "--out", &out, "--generation", &generation], "unknown field `api_key`"),
        (&["build", "filter", "--out", &out, "--rejected", &out], "--candidates <FILE>"),
        (&["build", "filter", "--candidates", &kept, "--out", &out], "--rejected <REJECTED.jsonl>"),
        (
            &["build", "filter", "--candidates", &kept, "--out", &out, "--rejected", &out, "--time-limit", "0"],
            "--time-limit must be between 0 and 3600 seconds",
        ),
    ];
    for (args, needle) in cases {
        let run = execbench(args);
        let stderr = text(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {stderr}");
        // The message names the flag at fault; a usage line or clap's pointer to --help follows.
        let guided = stderr.contains("Usage: execbench build") || stderr.contains("try '--help'");
        assert!(stderr.contains(needle) && guided, "{args:?}: {stderr}");
    }
    // Nothing to export is not a usage error: it ran and wrote nothing.
    let run = execbench(&["build", "sample", "--in", &kept, "--out", &out, "--n", "0"]);
    assert_eq!(run.status.code(), Some(1));
    assert!(text(&run.stderr).contains("nothing to export: 21 kept candidates, 20 unique, --n 0"));
    assert!(!Path::new(&out).exists());
}

#[test]
fn filter_names_bad_candidate_rows() {
    // Only bad rows: the filter itself is never asked.
    let dir = scratch("filter-bad");
    let candidates =
        write(&dir, "cands.jsonl", &[r#"{"id": "a", "code": 3, "input": "1"}"#.to_string(), "[]".to_string()]);
    let (kept, rejected) = (path(&dir, "kept.jsonl"), path(&dir, "rejected.jsonl"));
    let run = execbench(&["build", "filter", "--candidates", &candidates, "--out", &kept, "--rejected", &rejected]);
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert_eq!(run.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stderr.contains("cands.jsonl:1: field `code`: must be a string, found a number"), "{stderr}");
    assert!(stderr.contains("cands.jsonl:2: a row must be a JSON object"), "{stderr}");
    assert_eq!(stdout.lines().last(), Some("kept 0, rejected 0"), "{stdout}");
    assert_eq!((read(&kept), read(&rejected)), (String::new(), String::new()));
}

/// Needs the real filter (`execbench_recipe::filter`): kept and rejected candidates, each breaking
/// one rule, then the kept file sampled with the rejected file into a funnel.
#[test]
fn filter_keeps_and_rejects_then_sample_builds_the_funnel() {
    let dir = scratch("filter");
    // (id, method, code, input, the rule it breaks or the output it keeps)
    let cases: &[(&str, &str, &str, &str, &str)] = &[
        (
            "k1",
            "str.replace",
            "def f(s):\n    out = ''\n    for ch in s:\n        if ch != 'b':\n            out = out + ch\n    return out\n",
            "'abc'",
            "'ac'",
        ),
        (
            "syntax",
            "list.index",
            "def f(x):\n    values = [y for y in range(3) if y > x\n    return values + [x, x]\n",
            "1",
            "syntax",
        ),
        (
            "import",
            "str.isdigit",
            "import string\n\ndef f(s):\n    return ''.join(c for c in s if c in string.digits)\n",
            "'a1'",
            "import",
        ),
        (
            "k2",
            "list.append",
            "def f(nums):\n    res = []\n    for n in nums:\n        res.append(n + 1)\n    return res\n",
            "[1, 2]",
            "[2, 3]",
        ),
        (
            "float",
            "int.__mul__",
            "def f(x):\n    y = x * 1.5\n    z = y - 1\n    return int(z) + 1 if z else x + 1\n",
            "2",
            "float",
        ),
        (
            "raised",
            "list.pop",
            "def f(items):\n    first = items[0]\n    rest = items[1:]\n    return rest + [first]\n",
            "[]",
            "raised",
        ),
    ];
    let mut rows: Vec<String> = cases
        .iter()
        .map(|(id, method, code, input, _)| {
            json!({"id": id, "method": method, "code": code, "input": input}).to_string()
        })
        .collect();
    rows.insert(2, r#"{"id": "bad", "code": "def f(x):\n    return x"}"#.to_string());
    let candidates = write(&dir, "cands.jsonl", &rows);
    let (kept, rejected) = (path(&dir, "kept.jsonl"), path(&dir, "rejected.jsonl"));
    let run = execbench(&["build", "filter", "--candidates", &candidates, "--out", &kept, "--rejected", &rejected]);
    let (stdout, stderr) = (text(&run.stdout), text(&run.stderr));
    assert_eq!(run.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stderr.contains("cands.jsonl:3: field `input`: missing"), "{stderr}");
    assert_eq!(stdout.lines().last(), Some("kept 2, rejected 4: syntax 1, import 1, float 1, raised 1"), "{stdout}");
    let kept_rows: Vec<Value> = read(&kept).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let rejected_rows: Vec<Value> = read(&rejected).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for (id, method, code, input, expected) in cases {
        let found = kept_rows
            .iter()
            .chain(&rejected_rows)
            .find(|r| r["id"] == *id)
            .unwrap_or_else(|| panic!("{id} in neither file"));
        assert_eq!(
            (&found["method"], &found["code"], &found["input"]),
            (&json!(method), &json!(code), &json!(input)),
            "{id}"
        );
        match found.get("output") {
            Some(output) => assert_eq!(output, &json!(expected), "{id}"),
            None => {
                assert_eq!(found["rule"], json!(expected), "{id}: {found}");
                assert!(found["detail"].is_string(), "{id}: {found}");
            }
        }
    }
    // Kept rows load as a dataset (CRUXEval's shape plus `method`), in input order.
    assert_eq!(kept_rows.iter().map(|r| r["id"].as_str().unwrap()).collect::<Vec<_>>(), ["k1", "k2"]);
    assert!(execbench_core::load_jsonl("kept", &read(&kept)).errors.is_empty());

    let (bench, prov) = (path(&dir, "bench.jsonl"), path(&dir, "prov.json"));
    let run = execbench(&[
        "build",
        "sample",
        "--in",
        &kept,
        "--rejected",
        &rejected,
        "--seed",
        "1",
        "--out",
        &bench,
        "--provenance",
        &prov,
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let prov: Value = serde_json::from_str(&read(&prov)).unwrap();
    let funnel = &prov["funnel"];
    assert_eq!(
        [&funnel["parsed"], &funnel["passed_static"], &funnel["passed_runtime"], &funnel["unique"], &funnel["sampled"]],
        [&json!(6), &json!(4), &json!(2), &json!(2), &json!(2)]
    );
}

#[test]
fn sample_records_the_generation_it_is_given() {
    let dir = scratch("generation");
    let kept = write(&dir, "kept.jsonl", &kept_rows());
    let record = json!({
        "generator": {"source": "model", "provider": "openai", "model": "gpt-4o-mini", "temperature": 0.8, "n": 5, "max_tokens": 400, "seed": 3},
        "methods": ["str.split", "list.pop", "dict.get", "set.add"],
        "prompt_template": "Write f using {method}.",
        "few_shot_pool_hash": "00ff",
        "responses": 40,
        "unparseable": 4
    });
    let generation = write(&dir, "gen.json", &[serde_json::to_string_pretty(&record).unwrap()]);
    let (out, prov) = (path(&dir, "bench.jsonl"), path(&dir, "prov.json"));
    let run = execbench(&[
        "build",
        "sample",
        "--in",
        &kept,
        "--generation",
        &generation,
        "--n",
        "4",
        "--out",
        &out,
        "--provenance",
        &prov,
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let prov: Value = serde_json::from_str(&read(&prov)).unwrap();
    assert_eq!(prov["generation"], record, "kept as given");
    assert_eq!(prov["methods"], record["methods"], "the methods prompted for, even one that kept nothing");
    assert_eq!(
        (prov["funnel"]["responses"].as_u64(), prov["funnel"]["rejections"][0]["count"].as_u64()),
        (Some(40), Some(4))
    );
    assert_eq!(prov["funnel"]["rejections"][0]["rule"], "unparseable");
}
