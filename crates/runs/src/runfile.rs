//! A run as a file: a manifest line, then one record per finished sample, appended as each
//! finishes (JSON Lines). The command line writes it and resumes from it; the page can import it.
//! A later record of a sample replaces an earlier one (an error retried on resume).
//!
//! The manifest says what the run is, so a resume can refuse one whose dataset content, task,
//! template or model differ. It holds no key: only `ApiSettings` (endpoint without key, params).

use std::collections::BTreeMap;

use execbench_core::Sample;
use serde::{Deserialize, Serialize};

use crate::record::SampleRecord;

use crate::manifest::{FORMAT, RequestCounts, RunEntry, RunManifest, RunState};

#[derive(Serialize, Deserialize)]
struct ManifestLine {
    manifest: RunManifest,
}

pub fn manifest_line(manifest: &RunManifest) -> String {
    serde_json::to_string(&ManifestLine { manifest: manifest.clone() }).unwrap_or_default()
}

pub fn record_line(record: &SampleRecord) -> String {
    serde_json::to_string(record).unwrap_or_default()
}

/// A line that says where the run stands (appended when its state changes; the latest counts).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StateLine {
    pub state: RunState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub updated_ms: f64,
    pub active_ms: f64,
    /// The run's name as the user set it (`RunManifest::name`): the latest state line's counts, so
    /// a rename appends a line instead of rewriting the manifest line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The run's requests over every session (absent in files from before they were counted).
    #[serde(default, skip_serializing_if = "RequestCounts::is_zero")]
    pub requests: RequestCounts,
    /// A batch run's batches (ids and states, never a key); the latest state line's count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub batches: Vec<crate::manifest::batch_run::SubmittedBatch>,
}

impl StateLine {
    /// Where `entry` stands, its name and request counts included.
    pub fn of(entry: &RunEntry) -> StateLine {
        StateLine {
            state: entry.state,
            note: entry.note.clone(),
            updated_ms: entry.updated_ms,
            active_ms: entry.active_ms,
            requests: entry.requests,
            name: entry.manifest.name.clone(),
            batches: entry.batches.clone(),
        }
    }
}

#[derive(Serialize, Deserialize)]
struct StateLineWrapper {
    state: StateLine,
}

pub fn state_line(state: &StateLine) -> String {
    serde_json::to_string(&StateLineWrapper { state: state.clone() }).unwrap_or_default()
}

/// A run file read back: the manifest and the latest record of each sample.
#[derive(Debug)]
pub struct RunFile {
    pub manifest: RunManifest,
    pub records: BTreeMap<String, SampleRecord>,
    /// The latest state line, if any was written.
    pub state: Option<StateLine>,
    /// A last line cut short (the process was killed while writing it): ignored, and said.
    pub truncated_tail: bool,
    /// The endpoint's base URL as the file wrote it differed from its cleaned form (credentials,
    /// secret query parameters or a fragment dropped, the URL standard's own spelling): the
    /// manifest holds the cleaned one, the one requests go to, and this says so in words.
    pub address_cleaned: Option<String>,
}

impl RunFile {
    /// The scored rows of every mode, samples in dataset order (errors have none), as a results
    /// export holds them: what the page replays when it imports a run file.
    pub fn result_rows(&self) -> Vec<execbench_eval::report::SampleResult> {
        let mut records: Vec<&SampleRecord> = self.records.values().collect();
        records.sort_by_key(|r| r.index);
        records.iter().flat_map(|r| r.results.iter().cloned()).collect()
    }

    /// Whether `text` looks like a run file (its first line is a manifest), without parsing it all.
    pub fn sniff(text: &str) -> bool {
        let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        serde_json::from_str::<serde_json::Value>(first)
            .is_ok_and(|v| v.get("manifest").and_then(|m| m.get("format")).and_then(|f| f.as_str()) == Some(FORMAT))
    }

    /// The samples that need no new request: those with a record that is not an error.
    pub fn finished_ids(&self) -> std::collections::BTreeSet<String> {
        self.records.values().filter(|r| !r.is_error()).map(|r| r.sample_id.clone()).collect()
    }
}

/// Reads a run file; errors name the file, line and problem.
pub fn read_run_file(name: &str, text: &str) -> Result<RunFile, String> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).peekable();
    let Some((_, first)) = lines.next() else { return Err(format!("{name}: empty file, no manifest line")) };
    let mut manifest = serde_json::from_str::<ManifestLine>(first)
        .map_err(|e| format!("{name}:1: not an execbench run manifest ({e})"))?
        .manifest;
    if manifest.format != FORMAT {
        return Err(format!("{name}:1: format is `{}`, expected `{FORMAT}`", manifest.format));
    }
    let mut records = BTreeMap::new();
    let mut state = None;
    let mut truncated_tail = false;
    while let Some((index, line)) = lines.next() {
        if line.starts_with("{\"state\":")
            && let Ok(wrapper) = serde_json::from_str::<StateLineWrapper>(line)
        {
            state = Some(wrapper.state);
            continue;
        }
        match serde_json::from_str::<SampleRecord>(line) {
            Ok(record) => {
                records.insert(record.sample_id.clone(), record);
            }
            // Only the very last line may be cut short by a kill mid-write.
            Err(e) if e.is_eof() && lines.peek().is_none() => truncated_tail = true,
            Err(e) => return Err(format!("{name}:{}: not a sample record ({e})", index + 1)),
        }
    }
    // A rename is a state line: the latest one names the run (one without a name: the default).
    if let Some(state) = &state {
        manifest.name = state.name.clone();
    }
    let address_cleaned = clean_address(&mut manifest);
    Ok(RunFile { manifest, records, state, truncated_tail, address_cleaned })
}

/// Puts the manifest's base URL in the form it is stored and sent in
/// ([`execbench_providers::redact_base_url`]), so a run read from a file is in memory what it is
/// once stored: a file cannot show one address and send to another. Says what changed, if anything.
fn clean_address(manifest: &mut RunManifest) -> Option<String> {
    let endpoint = &mut manifest.api.as_mut()?.endpoint;
    let cleaned = execbench_providers::redact_base_url(&endpoint.base_url);
    if cleaned == endpoint.base_url {
        return None;
    }
    endpoint.base_url = cleaned.clone();
    Some(format!("its address was written otherwise than a URL is read; the requests would go to {cleaned}"))
}

/// A stored run as a file: its manifest, its state, then its records (the command line's run file
/// and the page's export are the same; both import anywhere).
pub fn export_run(entry: &RunEntry, records: &[SampleRecord]) -> String {
    let state = StateLine::of(entry);
    let mut out = manifest_line(&entry.manifest);
    out.push('\n');
    for record in records {
        out.push_str(&record_line(record));
        out.push('\n');
    }
    out.push_str(&state_line(&state));
    out.push('\n');
    out
}

/// Whether the run's results have a CodeCrash layout: CodeCrash scores output and input
/// prediction; a run of questions about programs' runs has none.
pub fn has_codecrash_layout(manifest: &RunManifest) -> bool {
    execbench_eval::Task::PREDICTION.contains(&manifest.task)
}

/// The run in CodeCrash's result layout: one row per sample with the dataset fields, the prompt,
/// the raw responses and the extracted solutions (`null` where none was found). Samples are
/// matched to records by id; a record whose sample is not in `samples` is left out and counted.
pub fn export_codecrash(manifest: &RunManifest, samples: &[Sample], records: &[SampleRecord]) -> (String, usize) {
    let provenance = manifest.row_provenance();
    let by_id: BTreeMap<&str, &Sample> = samples.iter().map(|s| (s.id.as_str(), s)).collect();
    let mut out = String::new();
    let mut left_out = 0;
    for record in records {
        let (Some(sample), Some(result)) = (by_id.get(record.sample_id.as_str()), record.results.first()) else {
            left_out += 1;
            continue;
        };
        let responses: Vec<Option<&str>> = result.answers.iter().map(|a| a.response.as_deref()).collect();
        let solutions: Vec<Option<&str>> = result
            .answers
            .iter()
            .map(|a| match &a.extraction {
                execbench_eval::Extraction::Found { answer, .. } => Some(answer.as_str()),
                execbench_eval::Extraction::Failed { .. } => None,
            })
            .collect();
        let row = serde_json::json!({
            "task_id": sample.id,
            "dataset": "crux",
            "code": sample.code,
            "function_name": sample.function_name,
            "function_call": sample.call,
            "output": sample.output,
            "test": format!("assert {} == {}", sample.call, sample.output),
            "input_prompt": result.prompt,
            "responses": responses,
            "solutions": solutions,
        });
        out.push_str(&provenance.line(&row));
        out.push('\n');
    }
    (out, left_out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{dataset_hash, fnv1a_hex};
    use execbench_eval::Task;
    use execbench_eval::prompt::{Style, default_template};
    use execbench_eval::score::Mode;

    fn sample(id: &str, output: &str) -> Sample {
        Sample::new(id, "def f(x):\n    return x", "f", "1", output)
    }

    #[test]
    fn only_prediction_runs_have_a_codecrash_layout() {
        let cases = [(Task::Output, true), (Task::Input, true), (Task::Question, false)];
        for (task, want) in cases {
            assert_eq!(has_codecrash_layout(&RunManifest { task, ..manifest() }), want, "{task:?}");
        }
        assert_eq!(cases.len(), Task::ALL.len(), "every task in the table");
    }

    fn manifest() -> RunManifest {
        RunManifest {
            format: FORMAT.into(),
            run_id: "r1".into(),
            model: "oracle".into(),
            api: None,
            key_used: false,
            dataset: "d.jsonl".into(),
            dataset_hash: dataset_hash(&[sample("a", "1")]),
            samples: 1,
            task: Task::Output,
            template: default_template(Task::Output, Style::Direct),
            n: 1,
            modes: vec![Mode::Strict],
            created: 0,
            app_version: "0.1.0".into(),
            provenance: None,
            simulation: None,
            price: None,
            live_price: None,
            spend_cap: None,
            stored: None,
            name: None,
        }
    }

    fn record(id: &str, error: bool) -> SampleRecord {
        SampleRecord {
            sample_id: id.into(),
            index: 0,
            results: Vec::new(),
            error: error.then(|| crate::record::SampleError { kind: None, message: "x".into() }),
            usage: None,
            live_usage: None,
            sent: None,
            finish_reasons: Vec::new(),
            attempts: Vec::new(),
            latency_ms: 1.0,
        }
    }

    #[test]
    fn hashes_see_content_not_formatting() {
        assert_eq!(dataset_hash(&[sample("a", "1")]), dataset_hash(&[sample("a", "1")]));
        assert_ne!(dataset_hash(&[sample("a", "1")]), dataset_hash(&[sample("a", "2")]));
        // Field boundaries count: ("ab","c") is not ("a","bc").
        assert_ne!(fnv1a_hex(&["ab", "c"]), fnv1a_hex(&["a", "bc"]));
    }

    #[test]
    fn a_file_reads_back_with_the_latest_record_per_sample() {
        let paused = StateLine {
            state: RunState::Paused,
            note: Some("spend cap".into()),
            updated_ms: 1.0,
            active_ms: 2.0,
            requests: RequestCounts::default(),
            name: None,
            batches: Vec::new(),
        };
        let counts = RequestCounts { sent: 9, retries: 1, rate_limit_waits: 2, failed: 3 };
        let finished = StateLine {
            state: RunState::Finished,
            note: None,
            updated_ms: 3.0,
            active_ms: 4.0,
            requests: counts,
            name: None,
            batches: Vec::new(),
        };
        let text = [
            manifest_line(&manifest()),
            record_line(&record("a", true)),
            state_line(&paused),
            record_line(&record("b", false)),
            record_line(&record("a", false)),
            state_line(&finished),
        ]
        .join("\n");
        let file = read_run_file("run.jsonl", &text).unwrap();
        assert_eq!(file.records.len(), 2);
        assert_eq!(file.state, Some(finished), "the latest state line");
        assert!(!file.records["a"].is_error());
        assert_eq!(file.finished_ids().into_iter().collect::<Vec<_>>(), vec!["a".to_string(), "b".to_string()]);
        assert!(!file.truncated_tail);
        assert!(RunFile::sniff(&text));
        assert!(!RunFile::sniff("{\"id\": \"sample_0\", \"responses\": []}"));
    }

    #[test]
    fn a_cut_last_line_is_ignored_but_a_bad_middle_line_is_an_error() {
        let good = record_line(&record("b", false));
        let text = format!("{}\n{good}\n{}", manifest_line(&manifest()), &good[..good.len() / 2]);
        let file = read_run_file("run.jsonl", &text).unwrap();
        assert!(file.truncated_tail && file.records.len() == 1);
        let text = format!("{}\n{{\"nope\": 1}}\n{good}", manifest_line(&manifest()));
        let err = read_run_file("run.jsonl", &text).unwrap_err();
        assert!(err.starts_with("run.jsonl:2: not a sample record"), "{err}");
        assert!(read_run_file("run.jsonl", "").unwrap_err().contains("no manifest"));
        assert!(
            read_run_file("run.jsonl", "{\"a\":1}")
                .unwrap_err()
                .starts_with("run.jsonl:1: not an execbench run manifest")
        );
    }

    #[test]
    fn the_latest_state_line_names_the_run() {
        let mut entry = RunEntry::new(manifest(), 5.0);
        entry.state = RunState::Finished;
        let mut text = export_run(&entry, &[record("a", false)]);
        assert_eq!(read_run_file("r", &text).unwrap().manifest.name, None, "never renamed");
        let cases = [(Some("baseline"), Some("baseline")), (None, None), (Some("again"), Some("again"))];
        for (name, read_back) in cases {
            entry.manifest.name = name.map(String::from);
            text.push_str(&state_line(&StateLine::of(&entry)));
            text.push('\n');
            assert_eq!(read_run_file("r", &text).unwrap().manifest.name.as_deref(), read_back);
        }
        // An export of a renamed run carries the name both in its manifest and its state line.
        let back = read_run_file("r", &export_run(&entry, &[])).unwrap();
        assert_eq!(back.manifest.name.as_deref(), Some("again"));
    }

    /// A run file's base URL is read in the form it is stored and sent in, so the run in memory
    /// is the run stored: the address a confirmation shows after a reload is the one it showed
    /// before. (as written, as read, said)
    #[test]
    fn a_files_address_is_read_as_it_is_stored_and_sent() {
        let cases = [
            ("https://api.openai.com/v1", "https://api.openai.com/v1", false),
            ("https://evil.example\\@api.openai.com/v1", "https://evil.example/@api.openai.com/v1", true),
            ("https://u:p@api.openai.com/v1?key=k#f", "https://api.openai.com/v1", true),
            ("HTTP://0x7f.1:9/v1", "http://127.0.0.1:9/v1", true),
        ];
        for (written, read, said) in cases {
            let mut m = manifest();
            m.api = Some(crate::settings::ApiSettings::new(execbench_providers::Endpoint {
                provider: "openai".into(),
                base_url: written.into(),
                model: "gpt-4o".into(),
            }));
            // Written as a file from elsewhere would be: the base URL as the attacker typed it.
            let mut line: serde_json::Value = serde_json::from_str(&manifest_line(&m)).unwrap();
            line["manifest"]["api"]["endpoint"]["base_url"] = serde_json::json!(written);
            let back = read_run_file("run.jsonl", &line.to_string()).unwrap();
            let endpoint = &back.manifest.api.as_ref().unwrap().endpoint;
            assert_eq!(endpoint.base_url, read, "{written}");
            assert_eq!(back.address_cleaned.is_some(), said, "{written}");
            let stored: RunManifest = serde_json::from_str(&serde_json::to_string(&back.manifest).unwrap()).unwrap();
            assert_eq!(stored, back.manifest, "{written}: in memory as stored");
        }
    }

    #[test]
    fn an_export_reads_back_as_the_same_run() {
        let mut entry = RunEntry::new(manifest(), 5.0);
        entry.state = RunState::Paused;
        entry.note = Some("spend cap".into());
        entry.requests = RequestCounts { sent: 77, retries: 4, rate_limit_waits: 2, failed: 6 };
        let records = vec![record("a", false), record("b", true)];
        let text = export_run(&entry, &records);
        let back = read_run_file("run.jsonl", &text).unwrap();
        assert_eq!(back.manifest, entry.manifest);
        assert_eq!(back.records.values().cloned().collect::<Vec<_>>(), records);
        let state = back.state.unwrap();
        assert_eq!((state.state, state.note.as_deref(), state.updated_ms), (RunState::Paused, Some("spend cap"), 5.0));
        assert_eq!(state.requests, entry.requests, "the run's requests travel with it");
    }

    #[test]
    fn a_state_line_from_before_requests_were_counted_reads_as_none() {
        let old = r#"{"state":{"state":"finished","updated_ms":3.0,"active_ms":4.0}}"#;
        let text = format!("{}\n{old}", manifest_line(&manifest()));
        let state = read_run_file("old.jsonl", &text).unwrap().state.unwrap();
        assert_eq!((state.state, state.requests), (RunState::Finished, RequestCounts::default()));
    }

    #[test]
    fn the_codecrash_layout_has_its_seven_fields_and_the_answers() {
        use execbench_eval::report::{AnswerRecord, SampleResult};
        use execbench_eval::{ExtractFailure, Extraction, Verdict};
        let mut found = record("a", false);
        found.results = vec![SampleResult {
            id: "a".into(),
            task: Task::Output,
            mode: Mode::Strict,
            prompt: Some("PROMPT".into()),
            answers: vec![
                AnswerRecord {
                    response: Some("[ANSWER]1[/ANSWER]".into()),
                    extraction: Extraction::verbatim("1"),
                    verdict: Verdict::Correct,
                },
                AnswerRecord {
                    response: Some("no idea".into()),
                    extraction: Extraction::Failed { failure: ExtractFailure::EmptyResponse, detail: String::new() },
                    verdict: Verdict::ExtractionFailed { detail: String::new() },
                },
            ],
            n: 2,
            correct: 1,
            dropped: 0,
            pass_at_1: Some(0.5),
            pass_at_5: None,
            model_error: None,
            question: None,
            program: None,
        }];
        let (text, left_out) = export_codecrash(&manifest(), &[sample("a", "1")], &[found, record("zzz", false)]);
        assert_eq!(left_out, 1, "a record of a sample the dataset lacks");
        let row: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        for field in [
            "task_id",
            "dataset",
            "code",
            "function_name",
            "function_call",
            "output",
            "test",
            "input_prompt",
            "responses",
            "solutions",
        ] {
            assert!(row.get(field).is_some(), "{field}");
        }
        assert_eq!(row["test"], "assert f(1) == 1");
        assert_eq!(row["solutions"], serde_json::json!(["1", null]));
        assert_eq!(row["responses"][1], "no idea");
        assert_eq!(
            (row["provenance"]["run_id"].as_str(), row["provenance"]["template_id"].as_str()),
            (Some("r1"), Some("output-direct"))
        );
    }

    #[test]
    fn resume_conflicts_name_every_difference() {
        let a = manifest();
        assert!(a.resume_conflicts(&a).is_empty());
        let mut b = manifest();
        b.dataset_hash = "0".into();
        b.task = Task::Input;
        b.n = 5;
        let conflicts = a.resume_conflicts(&b);
        assert_eq!(conflicts.len(), 3, "{conflicts:?}");
        assert!(conflicts[0].starts_with("the dataset's content differs"));
    }
}
