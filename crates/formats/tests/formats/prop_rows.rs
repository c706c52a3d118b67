//! Generated dataset files with some rows damaged: every good row is still loaded, in order, and
//! every damaged row is named once, with its line; read in any slicing (the page's
//! `DatasetStream`) the file loads as it does whole. For JSON Lines in CRUXEval's, LeetCode's and
//! CodeCrash's shapes, and for rows-API pages.

use execbench_formats::{DatasetStream, load_dataset};
use proptest::prelude::*;

use execbench_proptest_cases::cases;
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug)]
enum Shape {
    CruxEval,
    LeetCode,
    CodeCrash,
}

impl Shape {
    fn file(self) -> &'static str {
        match self {
            Shape::CodeCrash => "crux_REN_output.jsonl",
            _ => "data.jsonl",
        }
    }

    /// A good row `i`, carrying `note` (any text) as an extra field.
    fn row(self, i: usize, n: i64, note: &str) -> Value {
        match self {
            Shape::CruxEval => json!({"id": format!("sample_{i}"), "code": format!("def f(x):\n    return x + {n}"),
                                      "input": "1", "output": (1 + n).to_string(), "note": note}),
            Shape::LeetCode => json!({"id": format!("sample_{i}"), "question_id": 2700 + i, "function_name": "double",
                                      "code": "class Solution:\n    def double(self, x: int) -> int:\n        return 2 * x",
                                      "input": format!("double(x = {n})"), "output": (2 * n).to_string(), "note": note}),
            Shape::CodeCrash => {
                json!({"task_id": format!("sample_{i}"), "dataset": "crux", "code": "def f(x):\n    return x",
                                       "function_name": "f", "function_call": format!("f({n})"), "output": n.to_string(),
                                       "test": format!("assert f({n}) == {n}"), "note": note})
            }
        }
    }
}

/// How a row is damaged.
#[derive(Clone, Debug)]
enum Damage {
    /// Cut after this many bytes (at least one: an empty line is no row).
    Truncated(usize),
    /// A byte that is not UTF-8 put in.
    NotUtf8(usize),
    /// Valid JSON that is not an object.
    NotAnObject(String),
    /// A field every shape needs, removed.
    Missing,
    /// A field of the wrong type.
    WrongType,
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        any::<usize>().prop_map(Damage::Truncated),
        any::<usize>().prop_map(Damage::NotUtf8),
        prop_oneof![
            Just("[1, 2]".to_string()),
            Just("\"text\"".to_string()),
            Just("null".to_string()),
            Just("3".to_string())
        ]
        .prop_map(Damage::NotAnObject),
        Just(Damage::Missing),
        Just(Damage::WrongType),
    ]
}

fn damaged(shape: Shape, mut row: Value, damage: &Damage) -> Vec<u8> {
    let text = row.to_string().into_bytes();
    match damage {
        Damage::Truncated(at) => text[..1 + at % (text.len() - 1)].to_vec(),
        Damage::NotUtf8(at) => {
            let mut bytes = text;
            bytes.insert(at % bytes.len(), 0xff);
            bytes
        }
        Damage::NotAnObject(json) => json.clone().into_bytes(),
        Damage::Missing => {
            row.as_object_mut().unwrap().remove("code");
            row.to_string().into_bytes()
        }
        Damage::WrongType => {
            let key = if matches!(shape, Shape::CodeCrash) { "function_call" } else { "input" };
            row[key] = json!(["not", "text"]);
            row.to_string().into_bytes()
        }
    }
}

/// A file: its bytes, the ids of its good rows in order, and the lines of its damaged ones.
#[derive(Debug)]
struct File {
    shape: Shape,
    bytes: Vec<u8>,
    good_ids: Vec<String>,
    bad_lines: Vec<usize>,
}

fn file() -> impl Strategy<Value = File> {
    let shape = prop_oneof![Just(Shape::CruxEval), Just(Shape::LeetCode), Just(Shape::CodeCrash)];
    let row = (any::<i32>(), "\\PC{0,16}", proptest::option::weighted(0.3, damage()), 0usize..3);
    (shape, proptest::collection::vec(row, 1..25), any::<bool>()).prop_map(|(shape, rows, crlf)| {
        let end: &[u8] = if crlf { b"\r\n" } else { b"\n" };
        let mut file = File { shape, bytes: Vec::new(), good_ids: Vec::new(), bad_lines: Vec::new() };
        let mut line = 0;
        for (i, (n, note, damage, blanks)) in rows.into_iter().enumerate() {
            // Blank lines are skipped but counted.
            for _ in 0..blanks {
                file.bytes.extend_from_slice(end);
                line += 1;
            }
            line += 1;
            let row = shape.row(i, i64::from(n), &note);
            match damage {
                None => {
                    file.good_ids.push(format!("sample_{i}"));
                    file.bytes.extend(row.to_string().into_bytes());
                }
                Some(damage) => {
                    file.bad_lines.push(line);
                    file.bytes.extend(damaged(shape, row, &damage));
                }
            }
            file.bytes.extend_from_slice(end);
        }
        file
    })
}

fn slices(len: usize, offsets: Vec<usize>) -> Vec<usize> {
    let mut cuts: Vec<usize> = offsets.into_iter().map(|o| o % (len + 1)).collect();
    cuts.push(len);
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

proptest! {
    #![proptest_config(cases(512))]

    #[test]
    fn good_rows_survive_damaged_ones(file in file()) {
        let name = file.shape.file();
        let loaded = load_dataset(name, &file.bytes);
        let ids: Vec<&str> = loaded.report.samples.iter().map(|s| s.id.as_str()).collect();
        prop_assert_eq!(ids, file.good_ids.iter().map(String::as_str).collect::<Vec<_>>(),
            "errors: {:?}", loaded.report.errors);
        let lines: Vec<usize> = loaded.report.errors.iter().map(|e| e.line).collect();
        prop_assert_eq!(lines, file.bad_lines.clone(), "errors: {:?}", loaded.report.errors);
        for error in &loaded.report.errors {
            prop_assert_eq!(&error.file, name);
            prop_assert!(!error.message.is_empty());
        }
    }

    #[test]
    fn any_slicing_loads_as_the_whole_file(file in file(), offsets in proptest::collection::vec(any::<usize>(), 0..12)) {
        let name = file.shape.file();
        let whole = load_dataset(name, &file.bytes);
        let mut stream = DatasetStream::new(name);
        let mut start = 0;
        for end in slices(file.bytes.len(), offsets) {
            stream.feed(&file.bytes[start..end]);
            start = end;
        }
        prop_assert_eq!(stream.finish(), whole);
    }

    #[test]
    fn any_bytes_give_rows_or_named_errors(bytes in proptest::collection::vec(any::<u8>(), 0..400), name in "[a-z_]{1,8}\\.(jsonl|json)") {
        let loaded = load_dataset(&name, &bytes);
        prop_assert!(!loaded.report.samples.is_empty() || !loaded.report.errors.is_empty());
        for error in &loaded.report.errors {
            prop_assert_eq!(&error.file, &name);
            prop_assert!(error.line >= 1);
        }
    }
}

/// A rows-API page (LiveCodeBench's shape) with some rows damaged.
fn page_row(idx: usize, n: i64, damage: Option<u8>) -> Value {
    let mut row = json!({"row_idx": idx, "truncated_cells": [], "row": {
        "question_id": format!("{}", 2700 + idx), "contest_date": "2023-08-12T00:00:00", "difficulty": "easy",
        "function_name": "double", "code": "def double(x: int) -> int:\n    return 2 * x",
        "input": format!("double(x = {n})"), "output": (2 * n).to_string(), "id": format!("sample_{idx}"), "numsteps": 3}});
    match damage {
        None => {}
        Some(0) => row["row"]["code"] = Value::Null,
        Some(1) => row["row"]["input"] = json!("x = 1"),
        Some(2) => row["truncated_cells"] = json!(["code"]),
        Some(_) => row["row"]["output"] = json!({"not": "text"}),
    }
    row
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn a_rows_page_keeps_its_good_rows(rows in proptest::collection::vec((any::<i32>(), proptest::option::weighted(0.3, 0u8..4)), 1..40)) {
        let values: Vec<Value> = rows.iter().enumerate().map(|(i, (n, d))| page_row(i, i64::from(*n), *d)).collect();
        // The columns tell a LiveCodeBench page (whose `input` is the whole call) from others.
        let features: Vec<Value> = ["question_id", "contest_date", "difficulty", "function_name", "code", "input", "output", "id", "numsteps"]
            .iter().enumerate().map(|(i, name)| json!({"feature_idx": i, "name": name, "type": {"dtype": "string", "_type": "Value"}})).collect();
        let text = json!({"features": features, "rows": values, "num_rows_total": rows.len(), "num_rows_per_page": 100, "partial": false}).to_string();
        let loaded = load_dataset("page.json", text.as_bytes());
        let good: Vec<String> = rows.iter().enumerate().filter(|(_, (_, d))| d.is_none()).map(|(i, _)| format!("sample_{i}")).collect();
        let ids: Vec<&str> = loaded.report.samples.iter().map(|s| s.id.as_str()).collect();
        prop_assert_eq!(ids, good.iter().map(String::as_str).collect::<Vec<_>>(), "errors: {:?}", loaded.report.errors);
        let bad: Vec<usize> = rows.iter().enumerate().filter(|(_, (_, d))| d.is_some()).map(|(i, _)| i + 1).collect();
        let lines: Vec<usize> = loaded.report.errors.iter().map(|e| e.line).collect();
        prop_assert_eq!(lines, bad, "errors: {:?}", loaded.report.errors);
    }
}
