//! Generated runs written as a run file and read back are the same run: manifest (with the
//! user's name), the latest record of each sample, the latest state line. A file cut anywhere in
//! its last line reads as the run without that record and says so.

use execbench_eval::Task;
use execbench_eval::report::{AnswerRecord, SampleResult};
use execbench_eval::score::{Mode, Verdict};
use execbench_eval::{ExtractRule, Extraction};
use execbench_proptest_cases::cases;
use execbench_run::SampleRecord;
use execbench_run::manifest::{RunEntry, RunManifest, RunState};
use execbench_run::record::SampleError;
use execbench_run::runfile::{export_run, manifest_line, read_run_file, record_line};
use proptest::prelude::*;

fn manifest(run_id: String, dataset: String, name: Option<String>, n: usize) -> RunManifest {
    RunManifest {
        dataset,
        dataset_hash: "0123".into(),
        n,
        created: 1_700_000_000,
        app_version: "0.1.0".into(),
        name,
        ..execbench_run::manifest::fixtures::manifest(&run_id, 0)
    }
}

fn answer() -> impl Strategy<Value = AnswerRecord> {
    ("\\PC{0,20}", "\\PC{0,20}", any::<bool>()).prop_map(|(response, got, correct)| AnswerRecord {
        response: Some(response.clone()),
        extraction: Extraction::Found { answer: got.clone(), rule: ExtractRule::AnswerBlock },
        verdict: if correct { Verdict::Correct } else { Verdict::WrongValue { got, expected: "1".into() } },
    })
}

fn record() -> impl Strategy<Value = SampleRecord> {
    (
        "\\PC{1,12}",
        0usize..1000,
        proptest::option::of("\\PC{0,30}"),
        proptest::collection::vec(answer(), 0..3),
        proptest::option::of(0.0..1.0f64),
        0.0..1.0e7f64,
        proptest::collection::vec(proptest::option::of("[a-z_]{1,8}"), 0..3),
    )
        .prop_map(|(sample_id, index, error, answers, pass, latency_ms, finish_reasons)| {
            let results = if error.is_some() {
                Vec::new()
            } else {
                vec![SampleResult {
                    id: sample_id.clone(),
                    task: Task::Output,
                    mode: Mode::Strict,
                    prompt: Some(format!("predict {sample_id}")),
                    n: answers.len(),
                    correct: answers.iter().filter(|a| a.verdict == Verdict::Correct).count(),
                    answers,
                    dropped: 0,
                    pass_at_1: pass,
                    pass_at_5: None,
                    model_error: None,
                    // Every third record a question's, so the kind's round trip is covered.
                    question: index.is_multiple_of(3).then_some(execbench_core::question::QuestionKind::Path),
                    program: index.is_multiple_of(3).then(|| format!("program_{index}")),
                }]
            };
            SampleRecord {
                sample_id,
                index,
                results,
                error: error.map(|message| SampleError { kind: None, message }),
                usage: None,
                live_usage: None,
                sent: Some(serde_json::json!({"model": "m", "temperature": 0.2})),
                finish_reasons,
                attempts: Vec::new(),
                latency_ms,
            }
        })
}

fn state() -> impl Strategy<Value = RunState> {
    prop_oneof![
        Just(RunState::Running),
        Just(RunState::Interrupted),
        Just(RunState::Paused),
        Just(RunState::Finished),
        Just(RunState::Failed),
    ]
}

#[derive(Debug)]
struct Run {
    entry: RunEntry,
    records: Vec<SampleRecord>,
}

fn run() -> impl Strategy<Value = Run> {
    (
        "\\PC{1,16}",
        "\\PC{1,24}",
        proptest::option::of("\\PC{0,24}|[\\n\"\\\\{}]{1,5}"),
        1usize..6,
        state(),
        proptest::option::of("\\PC{0,30}"),
        0.0..1.0e13f64,
        proptest::collection::vec(record(), 0..8),
    )
        .prop_map(|(run_id, dataset, name, n, state, note, updated_ms, records)| {
            let mut entry = RunEntry::new(manifest(run_id, dataset, name, n), updated_ms);
            entry.state = state;
            entry.note = note;
            entry.active_ms = updated_ms / 2.0;
            Run { entry, records }
        })
}

/// The latest record of each sample, by id.
fn latest(records: &[SampleRecord]) -> std::collections::BTreeMap<String, SampleRecord> {
    records.iter().map(|r| (r.sample_id.clone(), r.clone())).collect()
}

proptest! {
    #![proptest_config(cases(512))]

    #[test]
    fn a_run_written_and_read_back_is_the_same_run(run in run()) {
        let text = export_run(&run.entry, &run.records);
        let file = read_run_file("run.jsonl", &text).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&file.manifest, &run.entry.manifest);
        prop_assert_eq!(&file.records, &latest(&run.records));
        let state = file.state.expect("a state line");
        prop_assert_eq!(state.state, run.entry.state);
        prop_assert_eq!(&state.note, &run.entry.note);
        prop_assert_eq!(state.updated_ms.to_bits(), run.entry.updated_ms.to_bits());
        prop_assert!(!file.truncated_tail);
        // Written again, the same bytes.
        let mut entry = RunEntry::new(file.manifest.clone(), state.updated_ms);
        entry.state = state.state;
        entry.note = state.note.clone();
        entry.active_ms = state.active_ms;
        let again: Vec<SampleRecord> = run.records.iter().filter_map(|r| file.records.get(&r.sample_id)).cloned().collect();
        let unique: Vec<SampleRecord> = again.iter().enumerate()
            .filter(|(i, r)| again[i + 1..].iter().all(|later| later.sample_id != r.sample_id)).map(|(_, r)| r.clone()).collect();
        let again = read_run_file("again", &export_run(&entry, &unique)).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&again.records, &file.records);
    }

    #[test]
    fn a_last_line_cut_short_loses_only_that_record(run in run(), at in any::<usize>()) {
        prop_assume!(!run.records.is_empty());
        // As the command line appends them: the manifest, then a record per finished sample.
        let mut text = manifest_line(&run.entry.manifest);
        for record in &run.records {
            text.push('\n');
            text.push_str(&record_line(record));
        }
        let body = text.as_str();
        let last_start = body.rfind('\n').map_or(0, |n| n + 1);
        let last_len = body.len() - last_start;
        // Cut inside the last line (at a character boundary: the file is read as text).
        let mut cut = last_start + 1 + at % (last_len - 1);
        while !body.is_char_boundary(cut) { cut -= 1; }
        let file = read_run_file("run.jsonl", &body[..cut]).map_err(TestCaseError::fail)?;
        prop_assert!(file.truncated_tail);
        let (last, earlier) = run.records.split_last().unwrap();
        let mut expected = latest(earlier);
        // An earlier record of the same sample is what the file still holds.
        if !earlier.iter().any(|r| r.sample_id == last.sample_id) {
            expected.remove(&last.sample_id);
        }
        prop_assert_eq!(&file.records, &expected);
    }
}
