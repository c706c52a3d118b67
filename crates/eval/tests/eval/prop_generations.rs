//! Generated generations files of every shape the importer reads: the answers of every good entry
//! come back exactly, in the file's order; in JSON Lines (raw responses, CodeCrash's results) a
//! damaged line costs that line only and is named with its number.

use execbench_eval::generations::{GenerationsKind, import_generations};
use execbench_proptest_cases::cases;
use proptest::prelude::*;
use serde_json::{Value, json};

fn answers() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec("\\PC{0,24}|\\[ANSWER\\][^\\n]{0,10}\\n?", 1..4)
}

/// A line damaged: cut, not an object, or with answers that are not texts.
fn damage() -> impl Strategy<Value = u8> {
    0u8..4
}

fn damaged_line(line: &str, how: u8, at: usize) -> String {
    match how {
        0 => {
            let mut cut = 1 + at % (line.len() - 1);
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            line[..cut].to_string()
        }
        1 => "[1, 2]".into(),
        2 => line.replacen("[", "[7, ", 1),
        _ => "{\"neither\": true}".into(),
    }
}

proptest! {
    #![proptest_config(cases(512))]

    #[test]
    fn responses_lines_keep_their_good_entries(
        rows in proptest::collection::vec((answers(), proptest::option::weighted(0.3, (damage(), any::<usize>()))), 1..20),
        codecrash in any::<bool>(),
    ) {
        let key = if codecrash { "task_id" } else { "id" };
        let mut text = String::new();
        let (mut good, mut bad) = (Vec::new(), Vec::new());
        for (i, (answers, damage)) in rows.iter().enumerate() {
            let line = json!({key: format!("sample_{i}"), "responses": answers}).to_string();
            match damage {
                None => {
                    good.push((format!("sample_{i}"), answers.clone()));
                    text.push_str(&line);
                }
                Some((how, at)) => {
                    bad.push(i + 1);
                    text.push_str(&damaged_line(&line, *how, *at));
                }
            }
            text.push('\n');
        }
        let imported = import_generations("gens.jsonl", &text);
        // A file whose first line is damaged may not be recognised as responses at all.
        prop_assume!(imported.kind == GenerationsKind::Responses);
        let entries: Vec<(String, Vec<String>)> = imported.entries.iter().map(|e| (e.id.clone(), e.answers.clone())).collect();
        prop_assert_eq!(entries, good, "errors: {:?}", imported.errors);
        let lines: Vec<Option<usize>> = imported.errors.iter().map(|e| e.line).collect();
        prop_assert_eq!(lines, bad.into_iter().map(Some).collect::<Vec<_>>(), "errors: {:?}", imported.errors);
    }

    #[test]
    fn an_extracted_generations_object_reads_back(rows in proptest::collection::vec(answers(), 1..20), leaderboard in any::<bool>()) {
        let object: serde_json::Map<String, Value> =
            rows.iter().enumerate().map(|(i, a)| (format!("sample_{i}"), json!(a))).collect();
        let text = if leaderboard {
            let scored: serde_json::Map<String, Value> =
                rows.iter().enumerate().map(|(i, a)| (format!("sample_{i}"), json!(vec![true; a.len()]))).collect();
            json!({"raw_generations": object, "raw_scored_generations": scored, "pass_at_1": 100.0}).to_string()
        } else {
            Value::Object(object).to_string()
        };
        let imported = import_generations("gens.json", &text);
        prop_assert!(imported.errors.is_empty(), "{:?}", imported.errors);
        prop_assert_eq!(imported.kind, GenerationsKind::Extracted);
        let mut entries: Vec<(String, Vec<String>)> = imported.entries.iter().map(|e| (e.id.clone(), e.answers.clone())).collect();
        entries.sort();
        let mut expected: Vec<(String, Vec<String>)> = rows.iter().enumerate().map(|(i, a)| (format!("sample_{i}"), a.clone())).collect();
        expected.sort();
        prop_assert_eq!(entries, expected);
    }

    #[test]
    fn livecodebench_rows_keep_their_good_entries(rows in proptest::collection::vec((answers(), any::<bool>()), 1..20)) {
        let list: Vec<Value> = rows.iter().enumerate().map(|(i, (a, ok))| {
            if *ok { json!({"id": i, "pred_list": a}) } else { json!({"id": i, "pred_list": "not a list"}) }
        }).collect();
        let imported = import_generations("Scenario.codeexecution_output.json", &Value::Array(list).to_string());
        let ids: Vec<String> = imported.entries.iter().map(|e| e.id.clone()).collect();
        let good: Vec<String> = rows.iter().enumerate().filter(|(_, (_, ok))| *ok).map(|(i, _)| i.to_string()).collect();
        prop_assert_eq!(ids, good, "errors: {:?}", imported.errors);
        prop_assert_eq!(imported.errors.len(), rows.iter().filter(|(_, ok)| !ok).count(), "{:?}", imported.errors);
        for e in &imported.errors {
            prop_assert!(e.to_string().starts_with("Scenario.codeexecution_output.json"), "{}", e);
        }
    }
}
