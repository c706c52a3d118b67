//! REval's format, read and run: programs written here in its shape (REval's own files have no
//! licence and are never committed), their truths by REval's rules from real traces, one table per
//! half; the messages for broken files; the agreement's counting.

use execbench_core::{Limits, PythonEngine, RunResult};
use execbench_pyengine::RustPythonEngine;
use execbench_trace_questions::reval::{
    Agreement, Half, NotFromTrace, PlaceTruth, RevalRun, Task, our_row, read_reference, read_reval, truths,
};

use execbench_core::trace::TraceLimits;

/// A function with a helper: REval's state rule reads the value at the next line that ran, which
/// for a line that calls `double` is `double`'s first line.
const HUMANEVAL: &str = "from typing import List\n\ndef double(v):\n    return v * 2\n\ndef f(xs: List[int]) -> int:\n    total = 0\n    for x in xs:\n        total += double(x)\n    pair = (total, len(xs))\n    return double(total) // 2\n";

/// A class; its tests build objects in setUp (not traced, as in REval) and in the test.
const CLASS: &str = "class Counter:\n    def __init__(self, start):\n        self.count = start\n\n    def add(self, n):\n        total = self.count + n\n        self.count = total\n        return total\n";
const CLASS_TESTS: &str = "import unittest\n\nclass CounterTestAdd(unittest.TestCase):\n    def setUp(self):\n        self.counter = Counter(1)\n\n    def test_add(self):\n        self.assertEqual(self.counter.add(2), 3)\n        self.assertAlmostEqual(self.counter.add(3), 6.001, delta=0.01)\n\nclass CounterTestOther(unittest.TestCase):\n    def test_other(self):\n        c = Counter(5)\n        with self.assertRaises(TypeError):\n            c.add('x')\n        self.assertIn(5, [c.count])\n\nif __name__ == '__main__':\n    unittest.main()\n";

/// REval's data file: 85 HumanEval rows (the first ours, the rest filler), then the class at
/// index 85, where REval's ClassEval half starts.
fn data_file() -> String {
    let mut rows = vec![serde_json::json!({
        "task_id": "DREval/0", "entry_point": "f", "code": HUMANEVAL,
        "inputs": ["([1, 2],)", "([],)"], "outputs": ["6", "0"], "test": null
    })];
    for i in 1..85 {
        rows.push(serde_json::json!({"task_id": format!("DREval/{i}"), "entry_point": "g", "code": "def g():\n    return 1\n", "inputs": ["()"], "outputs": ["1"], "test": null}));
    }
    rows.push(serde_json::json!({
        "task_id": "DREval/85", "entry_point": "Counter", "code": CLASS,
        "inputs": ["c = Counter(1)", "c = Counter(5)"], "outputs": [], "test": CLASS_TESTS
    }));
    rows.iter().map(|r| format!("{r}\n")).collect()
}

/// (program index, input, line, expression) as REval's tasks file writes them.
fn tasks_file(places: &[(usize, usize, u32, &str)]) -> String {
    let mut out = String::new();
    for idx in [0, 85] {
        let mut pairs: Vec<serde_json::Value> = Vec::new();
        for input in 0..2 {
            let task: Vec<serde_json::Value> = places
                .iter()
                .filter(|p| p.0 == idx && p.1 == input)
                .map(|p| serde_json::json!({"lineno": p.2, "var": p.3}))
                .collect();
            if !task.is_empty() {
                pairs.push(serde_json::json!({"input_idx": input, "task": task, "output_pred": ""}));
            }
        }
        out.push_str(&format!(
            "{}\n",
            serde_json::json!({"task_id": format!("DREval/{idx}"), "idx": idx, "tasks": pairs})
        ));
    }
    out
}

fn traced(engine: &mut RustPythonEngine, run: &RevalRun) -> RunResult {
    let request = run.request().with_limits(Limits { time_ms: 10_000, max_steps: 0 }).traced(TraceLimits::default());
    engine.run(&request)
}

/// (program, input, line, expression, covered, next lines, values as `repr: type` or "Nil", or
/// "attribute" for a state a `repr` trace cannot give)
#[allow(clippy::type_complexity)]
const CASES: &[(usize, usize, u32, &str, bool, &[i64], &str)] = &[
    // f([1, 2]) runs 7 8 9 4 8 9 4 8 10 11 4, and REval counts f's return at line 11 as a state
    // of its own (no locals): 7 8 9 4 8 9 4 8 10 11 4 11.
    (0, 0, 7, "total", true, &[8], "0: int"),
    (0, 0, 8, "x", true, &[9, 10], "1: int, 2: int, 2: int"),
    // The next line after 9 is double's first: REval reads `total` there, and finds none.
    (0, 0, 9, "total", true, &[4], "Nil"),
    (0, 0, 4, "v", true, &[8, 11], "Nil"),
    (0, 0, 10, "pair", true, &[11], "(6, 2): tuple"),
    (0, 0, 10, "(total, x)", true, &[11], "(6, 2): tuple"),
    (0, 0, 7, "xs[1]", true, &[8], "2: int"),
    // Read at double's first line (its arguments: `v`) and at the return's state (none).
    (0, 0, 11, "total", true, &[-1, 4], "Nil"),
    (0, 0, 11, "v", true, &[-1, 4], "6: int"),
    // f([]) never enters the loop.
    (0, 1, 9, "total", false, &[-1], "Nil"),
    (0, 1, 8, "x", true, &[10], "Nil"),
    // The test's two calls of add: 6 7 8 6 7 8; setUp's Counter(1) is not traced.
    (85, 0, 3, "start", false, &[-1], "Nil"),
    (85, 0, 6, "total", true, &[7], "3: int, 6: int"),
    // After the first add's return, the next line is the second add's first: no `total` there.
    (85, 0, 8, "total", true, &[-1, 6], "6: int"),
    (85, 0, 7, "self.count", true, &[8], "attribute"),
    // Counter(5) in the test, then add('x') raises at line 6.
    (85, 1, 3, "start", true, &[6], "Nil"),
    // The last line, and its call's first: REval reads the locals before it ran, the arguments.
    (85, 1, 6, "n", true, &[-1], "'x': str"),
];

fn shown(truth: &PlaceTruth, reproducible: &Result<(), NotFromTrace>) -> String {
    match (reproducible, &truth.values) {
        (Err(NotFromTrace::Attribute), _) => "attribute".to_owned(),
        (Err(NotFromTrace::Expression), _) => "expression".to_owned(),
        (Ok(()), None) => "Nil".to_owned(),
        (Ok(()), Some(values)) => {
            values.iter().map(|v| format!("{}: {}", v.repr, v.type_name)).collect::<Vec<_>>().join(", ")
        }
    }
}

#[test]
fn each_half_gives_revals_truths_from_the_trace() {
    let places: Vec<(usize, usize, u32, &str)> = CASES.iter().map(|c| (c.0, c.1, c.2, c.3)).collect();
    let runs = read_reval("data.jsonl", &data_file(), "tasks.jsonl", &tasks_file(&places)).expect("a REval pair");
    assert_eq!(runs.len(), 4);
    assert_eq!(
        runs.iter().map(|r| r.half).collect::<Vec<_>>(),
        [Half::HumanEval, Half::HumanEval, Half::ClassEval, Half::ClassEval]
    );
    let mut engine = RustPythonEngine::new();
    let mut wrong = Vec::new();
    for run in &runs {
        let result = traced(&mut engine, run);
        let trace = result.trace.as_ref().unwrap_or_else(|| panic!("{}: no trace", run.label()));
        assert!(
            matches!(result.outcome, execbench_core::Outcome::Value { matches: Some(true) | None, .. }),
            "{}: {:?}",
            run.label(),
            result.outcome
        );
        let idx: usize = run.task_id.trim_start_matches("DREval/").parse().unwrap();
        let cases = CASES.iter().filter(|c| c.0 == idx && c.1 == run.input_idx);
        for (case, (truth, reproducible)) in cases.zip(truths(run, trace)) {
            let got = (truth.coverage, truth.next_lines.as_slice(), shown(&truth, &reproducible));
            if got != (case.4, case.5, case.6.to_owned()) {
                wrong.push(format!(
                    "{} line {} `{}`: got {got:?}, expected {:?}",
                    run.label(),
                    case.2,
                    case.3,
                    (case.4, case.5, case.6)
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{} of {} places wrong:\n{}", wrong.len(), CASES.len(), wrong.join("\n"));
}

#[test]
fn a_failing_class_test_or_a_wrong_output_is_not_a_pass() {
    let tests = CLASS_TESTS.replace("6.001, delta=0.01", "7, delta=0.01");
    let data = data_file()
        .replace(&serde_json::to_string(CLASS_TESTS).unwrap(), &serde_json::to_string(&tests).unwrap())
        .replacen("\"outputs\":[\"6\",\"0\"]", "\"outputs\":[\"7\",\"0\"]", 1);
    let runs = read_reval("data.jsonl", &data, "tasks.jsonl", &tasks_file(&[(0, 0, 7, "total"), (85, 0, 6, "total")]))
        .unwrap();
    let mut engine = RustPythonEngine::new();
    let mut agreement = Agreement::default();
    for run in &runs {
        let result = traced(&mut engine, run);
        let mut theirs = our_row(run, &result.outcome, result.trace.as_ref());
        // REval's row for the same run, as if its tracer had run it to the end.
        theirs.status = "ok".to_owned();
        theirs.trace = run.reval_states(result.trace.as_ref().unwrap()).iter().map(|s| i64::from(s.line)).collect();
        if theirs.asks.is_empty() {
            theirs.asks = truths(run, result.trace.as_ref().unwrap()).into_iter().map(|t| t.0).collect();
        }
        agreement.add(run, &result.outcome, result.trace.as_ref(), Some(&theirs));
    }
    // f([1, 2]) is 6, not the file's 7: a difference. The class test fails its assertion: the
    // run raised, so nothing of it is compared.
    assert_eq!(agreement.counts.get(&Task::Output), Some(&(0, 1)), "{agreement:#?}");
    assert_eq!(agreement.differences.len(), 1, "{:#?}", agreement.differences);
    assert!(agreement.not_compared.keys().any(|why| why.contains("AssertionError")), "{:?}", agreement.not_compared);
}

#[test]
fn the_agreement_counts_each_task_and_names_each_difference() {
    let places = [(0, 0, 9, "total"), (0, 0, 8, "x"), (85, 0, 7, "self.count")];
    let runs = read_reval("data.jsonl", &data_file(), "tasks.jsonl", &tasks_file(&places)).unwrap();
    let mut engine = RustPythonEngine::new();
    let mut agreement = Agreement::default();
    let mut reference = String::new();
    for run in &runs {
        let result = traced(&mut engine, run);
        let mut row = our_row(run, &result.outcome, result.trace.as_ref());
        assert_eq!(row.status, "ok", "{}", run.label());
        if run.task_id == "DREval/0" {
            // As if REval had found `total` in double's frame, and seen line 8 followed by 11.
            row.asks[0].values = Some(vec![serde_json::from_str(r#"{"repr": "1", "type": "int"}"#).unwrap()]);
            row.asks[1].next_lines = vec![9, 10, 11];
        }
        reference.push_str(&format!("{}\n", serde_json::to_string(&row).unwrap()));
    }
    let reference = read_reference("ref.jsonl", &reference).unwrap();
    for run in &runs {
        let result = traced(&mut engine, run);
        agreement.add(
            run,
            &result.outcome,
            result.trace.as_ref(),
            reference.get(&(run.task_id.clone(), run.input_idx)),
        );
    }
    assert_eq!(agreement.counts[&Task::Coverage], (3, 3));
    assert_eq!(agreement.counts[&Task::Path], (2, 3));
    assert_eq!(agreement.counts[&Task::State], (1, 2));
    assert_eq!(agreement.counts[&Task::Output], (2, 2));
    assert_eq!(agreement.not_compared.values().sum::<usize>(), 1, "{:?}", agreement.not_compared);
    let state = agreement.differences.iter().find(|d| d.task == Task::State).expect("the state difference");
    assert_eq!((state.ours.as_str(), state.theirs.as_str()), ("Nil", "[1 (int)]"));
    assert_eq!(state.reason, "one side found the name, the other not");
    let path = agreement.differences.iter().find(|d| d.task == Task::Path).expect("the path difference");
    assert_eq!((path.ours.as_str(), path.theirs.as_str()), ("[9, 10]", "[9, 10, 11]"));
}

#[test]
fn a_broken_reval_file_is_named_by_file_line_and_field() {
    let data = data_file();
    let good_tasks = tasks_file(&[(0, 0, 7, "total")]);
    let cases: &[(&str, String, &str)] = &[
        (
            "data",
            data.replacen("\"task_id\":\"DREval/3\"", "\"task\":3", 1),
            "data.jsonl, line 4: not a REval program row: missing field `task_id`",
        ),
        (
            "tasks",
            good_tasks.replace("\"lineno\":7", "\"lineno\":0"),
            "tasks.jsonl, line 1: field `lineno`: 0 is not a line of the program's 11",
        ),
        (
            "tasks",
            good_tasks.replace("\"lineno\":7", "\"lineno\":40"),
            "tasks.jsonl, line 1: field `lineno`: 40 is not a line of the program's 11",
        ),
        (
            "tasks",
            good_tasks.replacen("\"idx\":0", "\"idx\":200", 1),
            "tasks.jsonl, line 1: field `idx`: 200 is past the data file's 86 programs",
        ),
        (
            "tasks",
            good_tasks.replacen("\"task_id\":\"DREval/0\"", "\"task_id\":\"DREval/9\"", 1),
            "tasks.jsonl, line 1: field `task_id`: DREval/9 where data.jsonl's program 0 (line 1) is DREval/0",
        ),
        (
            "tasks",
            good_tasks.replacen("\"input_idx\":0", "\"input_idx\":5", 1),
            "tasks.jsonl, line 1: field `input_idx`: 5 where the program has 2 inputs",
        ),
        (
            "tasks",
            format!("{good_tasks}{{\"idx\": 1}}\n"),
            "tasks.jsonl, line 3: not a REval task row: missing field `task_id`",
        ),
    ];
    for (file, broken, expected) in cases {
        let (data, tasks) =
            if *file == "data" { (broken.as_str(), good_tasks.as_str()) } else { (data.as_str(), broken.as_str()) };
        match read_reval("data.jsonl", data, "tasks.jsonl", tasks) {
            Err(error) => assert!(error.0.starts_with(expected), "{}\nexpected: {expected}", error.0),
            Ok(_) => panic!("read: {expected}"),
        }
    }
}
