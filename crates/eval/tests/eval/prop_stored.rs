//! Generated evaluation files' stored verdicts and figures (`eval::stored`) and reproduction
//! results files (`eval::reproduction`), written as serde_json writes them: they read back to what
//! was put in, whatever other fields ride along. A wrong-typed entry costs only itself and is
//! named by its field; one damaged line of a results file is named by its line, and the other rows
//! still read.

use std::collections::BTreeMap;

use execbench_eval::reproduction::read_reproductions;
use execbench_eval::stored::read_stored;
use execbench_proptest_cases::cases;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Values of any JSON type, for unknown fields and for wrong-typed ones.
fn any_json() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::from),
        Just(json!([1, "a", null])),
        Just(json!({"k": {"deeper": [true]}})),
    ]
}

fn verdicts() -> impl Strategy<Value = BTreeMap<String, Vec<bool>>> {
    proptest::collection::btree_map("sample_[0-9]{1,3}", proptest::collection::vec(any::<bool>(), 0..6), 0..8)
}

fn extras() -> impl Strategy<Value = Vec<(String, Value)>> {
    proptest::collection::vec(("x_[a-z]{1,8}", any_json()), 0..3)
}

/// A reproduction row: (problem id as a number or a string, model, code, success, latency).
#[derive(Clone, Debug)]
struct Row {
    problem: Value,
    model: String,
    code: String,
    success: bool,
    extras: Vec<(String, Value)>,
}

fn row() -> impl Strategy<Value = Row> {
    (
        prop_oneof![(0..5000u32).prop_map(Value::from), "[0-9a-z_-]{0,6}[0-9a-z]".prop_map(Value::from)],
        "\\PC{0,16}",
        "(def f\\(x\\):\n    return x\n)?\\PC{0,20}",
        any::<bool>(),
        extras(),
    )
        .prop_map(|(problem, model, code, success, extras)| Row { problem, model, code, success, extras })
}

fn row_line(row: &Row) -> String {
    let mut object = Map::new();
    object.insert("problem_id".into(), row.problem.clone());
    object.insert("model_name".into(), row.model.clone().into());
    object.insert("generated_code".into(), row.code.clone().into());
    object.insert("success".into(), row.success.into());
    for (k, v) in &row.extras {
        object.insert(k.clone(), v.clone());
    }
    Value::Object(object).to_string()
}

fn problem_text(problem: &Value) -> String {
    match problem {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

proptest! {
    #![proptest_config(cases(256))]

    #[test]
    fn stored_verdicts_and_figures_read_back(
        verdicts in verdicts(),
        pass_at_1 in proptest::option::of(0.0..=100.0f64),
        pass_at_5 in proptest::option::of(0.0..=100.0f64),
        extras in extras(),
    ) {
        let mut object = Map::new();
        for (k, v) in extras {
            object.insert(k, v);
        }
        object.insert("raw_scored_generations".into(), json!(verdicts));
        object.insert("pass_at_1".into(), json!(pass_at_1));
        object.insert("pass_at_5".into(), json!(pass_at_5));
        let text = Value::Object(object).to_string();
        let object: Map<String, Value> = serde_json::from_str(&text).unwrap();
        let mut errors = Vec::new();
        let stored = read_stored("eval.json", &object, &mut errors);
        prop_assert!(errors.is_empty(), "{errors:?}");
        prop_assert_eq!(stored.verdicts, verdicts);
        // A figure is kept as a percent: read as written, or as a fraction made a percent.
        for (got, put) in [(stored.pass_at_1, pass_at_1), (stored.pass_at_5, pass_at_5)] {
            match (got, put) {
                (None, None) => {}
                (Some(got), Some(put)) => {
                    prop_assert!((got - put).abs() < 1e-9 || (got - put * 100.0).abs() < 1e-7, "{got} from {put}")
                }
                other => prop_assert!(false, "{other:?}"),
            }
        }
    }

    #[test]
    fn a_wrong_typed_stored_entry_is_named_and_costs_only_itself(
        verdicts in verdicts(),
        bad_id in "bad_[0-9]{1,3}",
        bad in any_json().prop_filter("not a list of booleans", |v| !v.is_array() || v.as_array().unwrap().iter().any(|x| !x.is_boolean())),
        bad_figure in any_json().prop_filter("not a number", |v| !v.is_number() && !v.is_null()),
    ) {
        let mut scored = serde_json::to_value(&verdicts).unwrap();
        scored.as_object_mut().unwrap().insert(bad_id.clone(), bad);
        let object = json!({"raw_scored_generations": scored, "pass_at_5": bad_figure});
        let mut errors = Vec::new();
        let stored = read_stored("eval.json", object.as_object().unwrap(), &mut errors);
        prop_assert_eq!(stored.verdicts, verdicts);
        prop_assert_eq!(stored.pass_at_5, None);
        let fields: Vec<Option<String>> = errors.iter().map(|e| e.field.clone()).collect();
        prop_assert_eq!(fields, vec![Some(format!("raw_scored_generations.{bad_id}")), Some("pass_at_5".to_string())]);
        prop_assert!(errors.iter().all(|e| e.file == "eval.json" && !e.message.is_empty()));
    }

    #[test]
    fn reproduction_rows_read_back(rows in proptest::collection::vec(row(), 1..8), crlf in any::<bool>(), bom in any::<bool>()) {
        let text = format!("{}{}\n", if bom { "\u{feff}" } else { "" },
            rows.iter().map(row_line).collect::<Vec<_>>().join(if crlf { "\r\n" } else { "\n" }));
        let read = read_reproductions("runs.jsonl", &text);
        prop_assert!(read.errors.is_empty(), "{:?}", read.errors);
        prop_assert_eq!(read.rows.len(), rows.len());
        for (i, (put, got)) in rows.iter().zip(&read.rows).enumerate() {
            prop_assert_eq!(got.line, i + 1);
            prop_assert_eq!(&got.problem_id, &problem_text(&put.problem));
            prop_assert_eq!(&got.model_name, &put.model);
            prop_assert_eq!(&got.generated_code, &put.code);
            prop_assert_eq!(got.success, put.success);
            // The unknown fields are kept for the export, the known ones taken out.
            let rest: Map<String, Value> = put.extras.iter().cloned().collect();
            prop_assert_eq!(&got.rest, &rest);
        }
    }

    #[test]
    fn a_damaged_reproduction_line_is_named(
        rows in proptest::collection::vec(row(), 1..8),
        at in any::<prop::sample::Index>(),
        damage in prop::sample::select(vec![
            (None, "{\"problem_id\": 1, \"model_name\": \"m\""),
            (None, "[1, 2]"),
            (Some("problem_id"), "{\"problem_id\": [1], \"model_name\": \"m\", \"generated_code\": \"c\", \"success\": true}"),
            (Some("problem_id"), "{\"problem_id\": \" \", \"model_name\": \"m\", \"generated_code\": \"c\", \"success\": true}"),
            (Some("model_name"), "{\"problem_id\": 1, \"generated_code\": \"c\", \"success\": true}"),
            (Some("generated_code"), "{\"problem_id\": 1, \"model_name\": \"m\", \"generated_code\": 3, \"success\": true}"),
            (Some("success"), "{\"problem_id\": 1, \"model_name\": \"m\", \"generated_code\": \"c\", \"success\": \"yes\"}"),
        ]),
    ) {
        let mut lines: Vec<String> = rows.iter().map(row_line).collect();
        let at = at.index(lines.len());
        lines[at] = damage.1.to_string();
        let read = read_reproductions("runs.jsonl", &lines.join("\n"));
        prop_assert_eq!(read.errors.len(), 1, "{:?}", read.errors);
        let error = &read.errors[0];
        prop_assert_eq!(error.line, Some(at + 1));
        prop_assert_eq!(error.field.as_deref(), damage.0);
        prop_assert!(error.to_string().starts_with(&format!("runs.jsonl:{}", at + 1)), "{error}");
        let lines_read: Vec<usize> = read.rows.iter().map(|r| r.line).collect();
        prop_assert_eq!(lines_read, (1..=rows.len()).filter(|l| *l != at + 1).collect::<Vec<_>>());
    }

    #[test]
    fn garbage_reproduction_files_never_panic_and_name_their_lines(text in "\\PC{0,200}") {
        let read = read_reproductions("runs.jsonl", &text);
        let lines = text.lines().count().max(1);
        prop_assert!(!read.errors.is_empty() || !read.rows.is_empty());
        for error in &read.errors {
            prop_assert!(error.line.is_none_or(|l| (1..=lines).contains(&l)), "{error}");
            prop_assert!(!error.message.is_empty());
        }
    }
}
