//! Re-scoring a reproduction's results file with the real engine: each row's generated code run on
//! the dataset's call, execbench's verdict set against the recorded one.

use execbench_core::{Limits, PythonEngine, load_jsonl};
use execbench_eval::reproduction::{ProblemIndex, read_reproductions, request_for, rescore_with};
use execbench_pyengine::RustPythonEngine;

const DATASET: &str = r#"{"id": "sample_0", "question_id": 2727, "function_name": "countSeniors", "code": "class Solution:\n    def countSeniors(self, details: List[str]) -> int:\n        return sum(int(d[11:13]) > 60 for d in details)", "input": "countSeniors(details = ['7868190130M7522', '5303914400F9211', '9273338290F4010'])", "output": "2", "correct_condition": "countSeniors(details = ['7868190130M7522', '5303914400F9211', '9273338290F4010']) == 2"}
{"id": "sample_1", "question_id": 2800, "function_name": "minLength", "code": "def minLength(s: str) -> int:\n    while 'AB' in s or 'CD' in s:\n        s = s.replace('AB', '').replace('CD', '')\n    return len(s)", "input": "minLength(s = 'ABFCACDB')", "output": "2"}"#;

#[test]
fn rows_are_rescored_by_execution_and_disagreements_named() {
    let right = "class Solution:\n    def countSeniors(self, details: List[str]) -> int:\n        return len([d for d in details if int(d[11:13]) > 60])";
    let wrong = "class Solution:\n    def countSeniors(self, details: List[str]) -> int:\n        return len(details)";
    let raises = "def minLength(s):\n    return len(deque(s)) // 0";
    let loops = "def minLength(s):\n    while True:\n        pass";
    let rows: Vec<String> = [
        // (problem, model, code, stored success)
        ("2727", "model-a", right, true),
        ("2727", "model-b", wrong, true),
        ("2727", "model-b", wrong, false),
        ("\"2800\"", "model-a", raises, true),
        ("2800", "model-a", loops, false),
        ("9999", "model-a", right, true),
        ("9999", "model-b", right, false),
    ]
    .iter()
    .map(|(problem, model, code, success)| format!(r#"{{"problem_id": {problem}, "model_name": "{model}", "generated_code": {}, "success": {success}, "latency_ms": 100}}"#, serde_json::to_string(code).unwrap()))
    .chain(["{\"problem_id\": 2727, \"model_name\": \"model-a\"}".to_string()])
    .collect();
    let read = read_reproductions("results.jsonl", &rows.join("\n"));
    let errors: Vec<String> = read.errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(errors, ["results.jsonl:8: field `generated_code`: missing (required)"]);
    let dataset = load_jsonl("lc.jsonl", DATASET);
    assert!(dataset.is_clean(), "{:?}", dataset.errors);

    let mut engine = RustPythonEngine::new();
    // The first run imports the prelude's modules, slowly in a debug build.
    engine.run(&request_for(
        &read.rows[0],
        ProblemIndex::new(&dataset.samples).get("2727").unwrap(),
        Limits { time_ms: 120_000, max_steps: 0 },
    ));
    let report = rescore_with(&mut engine, &read.rows, &dataset.samples, Limits { time_ms: 1_000, max_steps: 0 });

    // (line, sample, model, stored, execbench's, reason)
    #[allow(clippy::type_complexity)]
    let verdicts: Vec<(usize, &str, &str, bool, bool, Option<&str>)> = report
        .rescored
        .iter()
        .map(|r| {
            (
                r.line,
                r.sample_id.as_str(),
                r.model_name.as_str(),
                r.stored_success,
                r.execbench_success,
                r.reason.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            (1, "sample_0", "model-a", true, true, None),
            (2, "sample_0", "model-b", true, false, Some("returned 3, expected 2")),
            (3, "sample_0", "model-b", false, false, Some("returned 3, expected 2")),
            (4, "sample_1", "model-a", true, false, Some("raised ZeroDivisionError: division by zero")),
            (5, "sample_1", "model-a", false, false, Some("timed out after 1 s")),
        ]
    );
    let disagreements: Vec<usize> = report.disagreements().map(|r| r.line).collect();
    assert_eq!(disagreements, [2, 4]);
    assert_eq!(report.unknown, [("9999".to_string(), 2)]);
    let tallies: Vec<(String, usize, usize, usize, usize)> = report
        .models()
        .into_iter()
        .map(|t| (t.model, t.rows, t.stored_successes, t.execbench_successes, t.disagreements))
        .collect();
    assert_eq!(tallies, [("model-a".to_string(), 3, 2, 1, 1), ("model-b".to_string(), 2, 1, 0, 1)]);
    // The export keeps the row's own fields.
    let exported = serde_json::to_value(&report.rescored[1]).unwrap();
    assert_eq!(exported["latency_ms"], 100);
    assert_eq!(exported["stored_success"], true);
    assert_eq!(exported["execbench_success"], false);
}
