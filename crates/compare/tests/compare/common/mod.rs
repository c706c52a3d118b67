//! Small runs written by hand for the tests: a model, a dataset name, a perturbation recorded in
//! the manifest (or not), and each sample's answers as right (`true`) or wrong.

#![allow(dead_code)]

use execbench_compare::RunInput;
use execbench_eval::Task;
use execbench_eval::extract::Extraction;
use execbench_eval::prompt::{Style, default_template};
use execbench_eval::report::SampleResult;
use execbench_eval::score::{Mode, SampleScore, Verdict};
use execbench_runs::manifest::RunManifest;
use execbench_runs::record::{SampleError, SampleRecord};

pub fn manifest(
    run_id: &str,
    model: &str,
    dataset: &str,
    kind: Option<&str>,
    task: Task,
    modes: &[Mode],
) -> RunManifest {
    RunManifest {
        model: model.to_string(),
        dataset: dataset.to_string(),
        dataset_hash: "0".to_string(),
        samples: 0,
        task,
        template: default_template(task, Style::Direct),
        modes: modes.to_vec(),
        provenance: kind.map(|k| serde_json::json!({ "kind": k, "seed": 0 })),
        ..execbench_runs::manifest::fixtures::manifest(run_id, 0)
    }
}

pub fn wrong() -> Verdict {
    Verdict::WrongValue { got: "0".into(), expected: "1".into() }
}

pub fn verdicts(answers: &[bool]) -> Vec<Verdict> {
    answers.iter().map(|&right| if right { Verdict::Correct } else { wrong() }).collect()
}

pub fn result(id: &str, mode: Mode, verdicts: Vec<Verdict>) -> SampleResult {
    let responses = verdicts.iter().enumerate().map(|(i, v)| format!("response {i} to {id}: {}", v.label())).collect();
    let extractions = verdicts.iter().map(|v| Extraction::verbatim(if v.is_correct() { "1" } else { "0" })).collect();
    SampleResult::new(
        id,
        Task::Output,
        mode,
        Some(format!("prompt of {id}")),
        responses,
        extractions,
        SampleScore::from_verdicts(mode, verdicts),
    )
}

pub fn record(id: &str, index: usize, results: Vec<SampleResult>) -> SampleRecord {
    SampleRecord {
        sample_id: id.to_string(),
        index,
        results,
        error: None,
        usage: None,
        live_usage: None,
        sent: None,
        finish_reasons: Vec::new(),
        attempts: Vec::new(),
        latency_ms: 0.0,
    }
}

pub fn error_record(id: &str, index: usize) -> SampleRecord {
    SampleRecord {
        error: Some(SampleError { kind: None, message: "the provider failed".into() }),
        ..record(id, index, Vec::new())
    }
}

/// A strict-mode output run: `samples` are (id, answers).
pub fn run(run_id: &str, model: &str, dataset: &str, kind: Option<&str>, samples: &[(&str, &[bool])]) -> RunInput {
    let records = samples
        .iter()
        .enumerate()
        .map(|(i, (id, answers))| record(id, i, vec![result(id, Mode::Strict, verdicts(answers))]));
    RunInput::new(
        format!("{run_id}.jsonl"),
        manifest(run_id, model, dataset, kind, Task::Output, &[Mode::Strict]),
        records,
    )
}

/// `count` samples `sample_0..`, the first answer right where `right(i)`; one answer each.
pub fn run_of(
    run_id: &str,
    model: &str,
    dataset: &str,
    kind: Option<&str>,
    count: usize,
    right: impl Fn(usize) -> bool,
) -> RunInput {
    let ids: Vec<String> = (0..count).map(|i| format!("sample_{i}")).collect();
    let answers: Vec<[bool; 1]> = (0..count).map(|i| [right(i)]).collect();
    let samples: Vec<(&str, &[bool])> = ids.iter().zip(&answers).map(|(id, a)| (id.as_str(), &a[..])).collect();
    run(run_id, model, dataset, kind, &samples)
}
