//! One loader for every format: told apart by content, then by name.

use execbench_formats::{Format, load_dataset, sniff_format};

#[test]
fn formats_are_told_apart() {
    let cruxeval = r#"{"id": "sample_0", "code": "def f(x):\n    return x", "input": "1", "output": "1"}"#;
    let codecrash = r#"{"task_id": "sample_0", "dataset": "crux", "code": "def f(x):\n    return x", "function_name": "f", "function_call": "f(1)", "output": "1", "test": "assert f(1) == 1"}"#;
    let page = r#"{"features": [], "rows": [], "num_rows_total": 0}"#;
    let bom_blank_line_codecrash = format!("\u{feff}\n{codecrash}");
    let multiline_page = "{\n  \"rows\": [],\n  \"num_rows_total\": 0\n}";
    let cases: &[(&str, &[u8], Format)] = &[
        ("cruxeval.jsonl", cruxeval.as_bytes(), Format::Jsonl),
        ("crux_REN_output.jsonl", cruxeval.as_bytes(), Format::CodeCrash),
        ("anything.jsonl", codecrash.as_bytes(), Format::CodeCrash),
        ("anything.jsonl", bom_blank_line_codecrash.as_bytes(), Format::CodeCrash),
        ("page.json", page.as_bytes(), Format::HfRowsPage),
        ("page.json", multiline_page.as_bytes(), Format::HfRowsPage),
        ("data.parquet", b"not really", Format::Parquet),
        ("data.bin", b"PAR1....", Format::Parquet),
        ("empty.jsonl", b"", Format::Jsonl),
    ];
    for (name, bytes, format) in cases {
        assert_eq!(sniff_format(name, bytes), *format, "{name}");
    }
}

#[test]
fn every_format_reports_through_the_same_errors() {
    let cases: &[(&str, &[u8], &str)] = &[
        ("d.jsonl", b"", "d.jsonl:1: the file is empty: expected one JSON object per line"),
        ("d.parquet", b"not really", "d.parquet:1: not a readable Parquet file: "),
        ("crux_REN_output.jsonl", b"[1]", "crux_REN_output.jsonl:1: expected a JSON object, found an array"),
    ];
    for (name, bytes, prefix) in cases {
        let report = load_dataset(name, bytes).report;
        assert_eq!(report.errors.len(), 1, "{name}: {:?}", report.errors);
        assert!(report.errors[0].to_string().starts_with(prefix), "{name}: {}", report.errors[0]);
    }
}
