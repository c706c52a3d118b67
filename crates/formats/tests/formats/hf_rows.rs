//! Pages of the Hugging Face dataset viewer's `rows` API, in the shape it answers with.

use execbench_core::Convention;
use execbench_formats::{Format, RowsPages, load_dataset, load_rows_pages, page_offsets, rows_url};
use serde_json::{Value, json};

const FEATURES: &str = r#"[
  {"feature_idx": 0, "name": "question_id", "type": {"dtype": "string", "_type": "Value"}},
  {"feature_idx": 1, "name": "contest_date", "type": {"dtype": "timestamp[ns]", "_type": "Value"}},
  {"feature_idx": 2, "name": "difficulty", "type": {"dtype": "string", "_type": "Value"}},
  {"feature_idx": 3, "name": "function_name", "type": {"dtype": "string", "_type": "Value"}},
  {"feature_idx": 4, "name": "code", "type": {"dtype": "string", "_type": "Value"}},
  {"feature_idx": 5, "name": "input", "type": {"dtype": "string", "_type": "Value"}},
  {"feature_idx": 6, "name": "output", "type": {"dtype": "string", "_type": "Value"}},
  {"feature_idx": 7, "name": "id", "type": {"dtype": "string", "_type": "Value"}},
  {"feature_idx": 8, "name": "numsteps", "type": {"dtype": "int64", "_type": "Value"}}
]"#;

fn row(idx: usize) -> Value {
    json!({
        "row_idx": idx,
        "row": {
            "question_id": format!("{}", 2700 + idx), "contest_date": "2023-08-12T00:00:00", "difficulty": "easy",
            "function_name": "double", "code": "def double(x: int) -> int:\n    return 2 * x", "input": format!("double(x = {idx})"),
            "output": format!("{}", 2 * idx), "id": format!("sample_{idx}"), "numsteps": 3
        },
        "truncated_cells": []
    })
}

fn page(rows: Vec<Value>, total: usize) -> String {
    format!(
        r#"{{"features": {FEATURES}, "rows": {}, "num_rows_total": {total}, "num_rows_per_page": 100, "partial": false}}"#,
        Value::Array(rows)
    )
}

#[test]
fn offsets_and_addresses() {
    assert_eq!(page_offsets(0), Vec::<usize>::new());
    assert_eq!(page_offsets(100), [0]);
    assert_eq!(page_offsets(479), [0, 100, 200, 300, 400]);
    assert_eq!(
        rows_url("livecodebench/execution-v2", "default", "test", 200, 500),
        "https://datasets-server.huggingface.co/rows?dataset=livecodebench/execution-v2&config=default&split=test&offset=200&length=100"
    );
    assert_eq!(
        rows_url("a b&c", "x", "y", 0, 10),
        "https://datasets-server.huggingface.co/rows?dataset=a%20b%26c&config=x&split=y&offset=0&length=10"
    );
}

#[test]
fn pages_in_any_order_make_one_dataset() {
    let first = page((0..100).map(row).collect(), 150);
    let second = page((100..150).map(row).collect(), 150);
    let mut pages = RowsPages::new("lcb test");
    assert_eq!(pages.add_page(100, &second).map(|p| (p.num_rows_total, p.rows)), Some((150, 50)));
    assert_eq!(pages.add_page(0, &first).map(|p| p.rows), Some(100));
    let report = pages.finish();
    assert!(report.is_clean(), "{:?}", report.errors);
    assert_eq!((report.rows, report.samples.len()), (150, 150));
    let s = report.samples.iter().find(|s| s.id == "sample_120").expect("sample_120");
    assert_eq!((s.call.as_str(), s.input.as_str(), s.output.as_str()), ("double(x = 120)", "x = 120", "240"));
    assert_eq!(s.meta.get("contest_date"), Some(&json!("2023-08-12T00:00:00")));
    assert_eq!(Convention::of(s), Convention::LeetCode);
}

/// Every problem with the exact message; the other rows are kept.
#[test]
fn bad_pages_and_rows_are_named() {
    let with = |idx: usize, edit: fn(&mut Value)| {
        let mut r = row(idx);
        edit(&mut r);
        r
    };
    // (pages as (offset, text), the errors, samples kept)
    type Case = (Vec<(usize, String)>, Vec<&'static str>, usize);
    let cases: Vec<Case> = vec![
        (
            vec![(0, page(vec![row(0), with(1, |r| r["row"]["code"] = Value::Null), row(2)], 3))],
            vec!["lcb:2: field `code`: null (required)"],
            2,
        ),
        (
            vec![(0, page(vec![row(0), with(1, |r| r["row"]["input"] = json!("x = 1")), row(2)], 3))],
            vec![
                "lcb:2: field `input`: `x = 1` is not a call of `double`: LiveCodeBench rows hold the whole call, `double(...)`",
            ],
            2,
        ),
        (
            vec![(0, page(vec![row(0), with(1, |r| r["truncated_cells"] = json!(["code"])), row(2)], 3))],
            vec![
                "lcb:2: field `code`: cut short by the rows API (the cell is too long): read the Parquet file instead",
            ],
            2,
        ),
        (
            vec![(0, page(vec![row(0), with(1, |r| r["row_idx"] = json!("one"))], 2))],
            vec![
                "lcb:2: field `row_idx`: the page at offset 0, entry 1: missing or not a count",
                "lcb:2: rows 2 to 2 of 2 were not on any page (fetch offsets 1 to 1)",
            ],
            1,
        ),
        (
            vec![(0, page(vec![row(0), row(1)], 2)), (1, page(vec![row(1)], 2))],
            vec!["lcb:2: field `row_idx`: row_idx 1 is on two pages (kept once)"],
            2,
        ),
        (
            vec![(0, page(vec![row(0)], 250))],
            vec!["lcb:2: rows 2 to 250 of 250 were not on any page (fetch offsets 1 to 249)"],
            1,
        ),
        (
            vec![(0, page((0..100).map(row).collect(), 200)), (100, "{\"error\": \"Not found\"}".into())],
            vec![
                "lcb:101: the page at offset 100: the API answered with an error: Not found",
                "lcb:101: rows 101 to 200 of 200 were not on any page (fetch offsets 100 to 199)",
            ],
            100,
        ),
        (
            vec![(0, "<html>".into())],
            vec![
                "lcb:1: the page at offset 0: not valid JSON: expected value at line 1 column 1",
                "lcb:1: no page of rows was read",
            ],
            0,
        ),
        (
            vec![(0, r#"{"rows": [], "num_rows_total": "many"}"#.into())],
            vec![
                "lcb:1: field `num_rows_total`: the page at offset 0: missing or not a count",
                "lcb:1: no page of rows was read",
            ],
            0,
        ),
        (vec![(0, page(vec![], 0))], vec!["lcb:1: the split has no rows"], 0),
    ];
    for (pages, expected, samples) in cases {
        let pages: Vec<(usize, &str)> = pages.iter().map(|(o, t)| (*o, t.as_str())).collect();
        let report = load_rows_pages("lcb", &pages);
        let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors, expected, "{pages:?}");
        assert_eq!(report.samples.len(), samples, "{expected:?}");
    }
}

#[test]
fn numeric_timestamps_become_the_same_text_as_parquet_gives() {
    let mut r = row(0);
    r["row"]["contest_date"] = json!(19_581i64 * 86_400 * 1_000_000_000);
    let report = load_rows_pages("lcb", &[(0, &page(vec![r], 1))]);
    assert_eq!(report.samples[0].meta.get("contest_date"), Some(&json!("2023-08-12T00:00:00")));
}

#[test]
fn a_saved_page_is_sniffed_and_read_alone() {
    let text = page((200..203).map(row).collect(), 479);
    let loaded = load_dataset("page.json", text.as_bytes());
    assert_eq!(loaded.format, Format::HfRowsPage);
    assert!(loaded.report.is_clean(), "{:?}", loaded.report.errors);
    assert_eq!(
        loaded.report.samples.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
        ["sample_200", "sample_201", "sample_202"]
    );
}

#[test]
fn a_saved_page_counts_its_own_rows_only() {
    let text = page(vec![row(5), json!({"row_idx": 6, "row": {"id": "x"}})], 479);
    let report = load_dataset("page.json", text.as_bytes()).report;
    let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors, ["page.json:7: field `function_name`: missing (required)"]);
    assert_eq!((report.rows, report.samples.len()), (2, 1));
}
