//! CodeCrash's perturbed datasets: records in its shape, the file name's kind and task in meta.

use execbench_core::Convention;
use execbench_formats::{Format, load_dataset};
use serde_json::{Value, json};

fn record(id: &str, dataset: &str, code: &str, name: &str, call: &str, output: &str) -> String {
    let test = format!("assert {call} == {output}");
    format!(
        "{}\n",
        json!({"task_id": id, "dataset": dataset, "code": code, "function_name": name, "function_call": call, "output": output, "test": test})
    )
}

fn crux(id: &str, code: &str) -> String {
    record(id, "crux", code, "f", "f('ab', 2)", "'abab'")
}

const VANILLA: &str = "def f(text, n):\n    return text * n";
const RENAMED: &str = "def f(Var_1, Var_2):\n    return Var_1 * Var_2";

/// (file, its text, the meta every sample gets: perturbation, task, original_id, dataset).
#[test]
fn the_file_name_gives_kind_and_task() {
    let cases: Vec<(&str, String, [Option<&str>; 4])> = vec![
        (
            "crux_REN_output.jsonl",
            crux("sample_7", RENAMED),
            [Some("REN"), Some("output"), Some("sample_7"), Some("crux")],
        ),
        (
            "/data/crux_VAN_input.jsonl",
            crux("sample_7", VANILLA),
            [Some("VAN"), Some("input"), Some("sample_7"), Some("crux")],
        ),
        (
            "crux_ALL_output.jsonl",
            crux("sample_7", RENAMED),
            [Some("PSC_ALL"), Some("output"), Some("sample_7"), Some("crux")],
        ),
        (
            "crux_MDC_input.jsonl",
            crux("sample_7", VANILLA),
            [Some("MCC"), Some("input"), Some("sample_7"), Some("crux")],
        ),
        // Not CodeCrash's name, but its records: the original id is still known, the kind is not.
        ("mine.jsonl", crux("sample_7", RENAMED), [None, None, Some("sample_7"), Some("crux")]),
        // execbench's own CodeCrash-layout export says the kind in each row.
        (
            "export.jsonl",
            crux("sample_7", RENAMED).replace("\"test\"", "\"perturbation\": \"REN\", \"seed\": 0, \"test\""),
            [Some("REN"), None, Some("sample_7"), Some("crux")],
        ),
        (
            "lcb_MHC_output.jsonl",
            record(
                "sample_3",
                "lcb",
                "def minimumCost(s: List[str]) -> int:\n    return 2",
                "minimumCost",
                "minimumCost(s = ['0'])",
                "2",
            ),
            [Some("MHC"), Some("output"), Some("sample_3"), Some("lcb")],
        ),
    ];
    for (file, text, [perturbation, task, original_id, dataset]) in cases {
        let loaded = load_dataset(file, text.as_bytes());
        assert_eq!(loaded.format, Format::CodeCrash, "{file}");
        assert!(loaded.report.is_clean(), "{file}: {:?}", loaded.report.errors);
        let meta = &loaded.report.samples[0].meta;
        let get = |key: &str| meta.get(key).and_then(Value::as_str);
        assert_eq!(
            [get("perturbation"), get("task"), get("original_id"), get("dataset")],
            [perturbation, task, original_id, dataset],
            "{file}"
        );
    }
}

/// A perturbed file and the vanilla one pair sample by sample on (`dataset`, `original_id`).
#[test]
fn perturbed_samples_pair_with_vanilla_ones_by_original_id() {
    let vanilla: String = (0..3).map(|i| crux(&format!("sample_{i}"), VANILLA)).collect();
    let perturbed: String = [2, 0].iter().map(|i| crux(&format!("sample_{i}"), RENAMED)).collect();
    let vanilla = load_dataset("crux_VAN_output.jsonl", vanilla.as_bytes()).report.samples;
    let perturbed = load_dataset("crux_REN_output.jsonl", perturbed.as_bytes()).report.samples;
    let key = |s: &execbench_core::Sample| (s.meta["dataset"].clone(), s.meta["original_id"].clone());
    let pairs: Vec<(String, String)> = perturbed
        .iter()
        .map(|p| {
            let v = vanilla.iter().find(|v| key(v) == key(p)).expect("a vanilla twin");
            (v.code.clone(), p.meta["perturbation"].as_str().unwrap_or("").to_string())
        })
        .collect();
    assert_eq!(pairs, [(VANILLA.to_string(), "REN".to_string()), (VANILLA.to_string(), "REN".to_string())]);
    assert_eq!(perturbed[0].call, vanilla[2].call);
}

#[test]
fn lcb_records_run_with_leetcode_names() {
    let text = record("sample_3", "lcb", "def g(s: List[str]) -> int:\n    return 2", "g", "g(s = ['0'])", "2");
    let report = load_dataset("lcb_VAN_output.jsonl", text.as_bytes()).report;
    assert_eq!(Convention::of(&report.samples[0]), Convention::LeetCode);
    let report = load_dataset("crux_VAN_output.jsonl", crux("sample_1", VANILLA).as_bytes()).report;
    assert_eq!(Convention::of(&report.samples[0]), Convention::Plain);
}

/// One bad record per kind of problem, with the exact message; the good rows are kept.
#[test]
fn bad_records_are_named() {
    let good = crux("sample_0", VANILLA);
    let cases: Vec<(String, &str)> = vec![
        (
            crux("sample_1", VANILLA).replace("assert f('ab', 2) == 'abab'", "assert f('ab', 3) == 'abab'"),
            "crux_REN_output.jsonl:2: field `test`: `assert f('ab', 3) == 'abab'` does not agree with the row's call and output (`assert f('ab', 2) == 'abab'`)",
        ),
        (
            crux("sample_1", VANILLA).replace("\"test\":\"assert f('ab', 2) == 'abab'\"", "\"test\":5"),
            "crux_REN_output.jsonl:2: field `test`: expected a string, found a number",
        ),
        (
            record("sample_1", "lcb", VANILLA, "f", "f('ab', 2)", "'abab'"),
            "crux_REN_output.jsonl:2: field `dataset`: is `lcb`, but the file name says `crux`",
        ),
        (
            crux("sample_1", VANILLA).replace("\"function_call\":\"f('ab', 2)\",", ""),
            "crux_REN_output.jsonl:2: field `input`: missing (required unless the row has `call`)",
        ),
        (
            crux("sample_1", VANILLA).replace("\"code\":", "\"perturbation\": \"XYZ\", \"code\":"),
            "crux_REN_output.jsonl:2: field `perturbation`: `XYZ` is not a CodeCrash perturbation (known: VAN, REN, RTF, GBC, PSC_ALL, MCC, MPS, MHC)",
        ),
        (crux("sample_0", VANILLA), "crux_REN_output.jsonl:2: field `id`: duplicate id `sample_0`"),
        (
            "{\"task_id\": ".to_string(),
            "crux_REN_output.jsonl:2: not valid JSON at column 11: EOF while parsing a value",
        ),
    ];
    for (bad, message) in cases {
        let text = format!("{good}{}\n{}", bad.trim_end(), crux("sample_2", VANILLA));
        let report = load_dataset("crux_REN_output.jsonl", text.as_bytes()).report;
        let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors, [message.to_string()], "{bad}");
        assert_eq!(report.samples.len(), 2, "{bad}");
    }
}
