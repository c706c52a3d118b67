//! Re-scoring what others published. Two file shapes are read:
//! - a CRUXEval generations file: one JSON object `{"sample_0": ["answer", ...], ...}` whose
//!   answers are already extracted (the value for output prediction, the call for input);
//! - JSON Lines of raw responses: `{"id": "sample_0", "responses": ["...", ...]}` per line, which
//!   go through [`crate::extract`] first;
//! - an evaluation file as CRUXEval's leaderboard and CodeCrash publish it: `{"raw_generations":
//!   {"sample_0": [...]}, "raw_scored_generations": {"sample_0": [true, ...]}, "pass_at_1": ...}`,
//!   whose answers are read like the first shape and whose verdicts are kept apart
//!   ([`crate::stored`]);
//! - CodeCrash's results (`results/{model}/{dataset}_{task}_{kind}_{mode}.jsonl`): the second
//!   shape with the id in `task_id`;
//! - LiveCodeBench's results, one JSON list: `Scenario.codeexecution_*.json` rows (`id`,
//!   `pred_list` of extracted answers) and `_eval_all.json` rows, which add the stored verdicts
//!   `graded_list` and a per-row `pass@1` fraction.
//!
//! Every problem is named with the file, the line and the field; good entries are kept.

use std::collections::{HashMap, HashSet};

use execbench_core::{PythonEngine, Sample};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::extract::{Extraction, extract};
use crate::report::{SampleResult, Summary, summarize};
use crate::score::{Mode, ScoreOptions, score_answers};
use crate::stored::{StoredScores, read_stored};
use crate::task::Task;

/// Kept apart so that [`crate::stored`], which this module reads with, can name it too.
pub use crate::import_error::ImportError;

/// Whether the answers still need extracting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GenerationsKind {
    /// CRUXEval's JSON: answers already extracted.
    Extracted,
    /// JSON Lines of raw model responses.
    Responses,
}

/// The answers given for one sample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerationEntry {
    pub id: String,
    pub answers: Vec<String>,
}

/// What reading a generations file gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Generations {
    pub kind: GenerationsKind,
    pub entries: Vec<GenerationEntry>,
    pub errors: Vec<ImportError>,
    /// The verdicts and figures an evaluation file carries; `None` for plain answer files.
    pub stored: Option<StoredScores>,
}

impl Generations {
    /// The answers of a sample as extractions, extracting raw responses for `task`.
    pub fn extractions(&self, entry: &GenerationEntry, task: Task) -> Vec<Extraction> {
        match self.kind {
            GenerationsKind::Extracted => entry.answers.iter().map(Extraction::verbatim).collect(),
            GenerationsKind::Responses => entry.answers.iter().map(|r| extract(r, task)).collect(),
        }
    }

    /// The samples of `dataset` this file covers.
    pub fn scope(&self, dataset: &[Sample]) -> FileScope {
        FileScope::of(dataset, self.entries.iter().map(|e| (e.id.as_str(), e.answers.len())))
    }
}

/// The part of a dataset that a file of answers covers. A file scores the samples it contains,
/// with the answers it has: a sample it lacks is listed in `missing`, never scored as wrong, and
/// `n` is the most answers the file gives one sample (never padded). Re-scoring a file and
/// replaying it as a model (`crate::models::Replay`) both start here, so they give the same
/// figures.
#[derive(Clone, Debug, PartialEq)]
pub struct FileScope {
    /// The dataset's samples the file has answers for, in dataset order.
    pub samples: Vec<Sample>,
    pub n: usize,
    /// Dataset samples the file has no answers for.
    pub missing: Vec<String>,
    /// Ids in the file that the dataset does not have.
    pub unknown: Vec<String>,
}

impl FileScope {
    /// The samples of `dataset` covered by a file that gives, per sample id, this many answers
    /// (an id given twice counts its last).
    pub fn of<'a>(dataset: &[Sample], answers_per_id: impl IntoIterator<Item = (&'a str, usize)>) -> Self {
        let answers: HashMap<&str, usize> = answers_per_id.into_iter().collect();
        let (samples, missing): (Vec<&Sample>, Vec<&Sample>) =
            dataset.iter().partition(|s| answers.contains_key(s.id.as_str()));
        let n = samples.iter().filter_map(|s| answers.get(s.id.as_str())).copied().max().unwrap_or(1).max(1);
        let known: HashSet<&str> = dataset.iter().map(|s| s.id.as_str()).collect();
        let mut unknown: Vec<String> =
            answers.keys().filter(|id| !known.contains(*id)).map(|id| id.to_string()).collect();
        unknown.sort();
        FileScope {
            samples: samples.into_iter().cloned().collect(),
            n,
            missing: missing.into_iter().map(|s| s.id.clone()).collect(),
            unknown,
        }
    }
}

/// Reads either shape, telling them apart by content: a single JSON object without a
/// `responses` field is the CRUXEval shape.
pub fn import_generations(file: &str, text: &str) -> Generations {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) if map.contains_key("raw_generations") => return import_evaluation(file, text, map),
        Ok(Value::Object(map)) if !map.contains_key("responses") => return import_extracted(file, text, map, ""),
        Ok(Value::Array(rows)) => return import_lcb_results(file, rows),
        Ok(_) => {}
        Err(e) => {
            // Not one JSON value: JSON Lines, unless it is a broken multi-line object.
            let first = text.trim_start().lines().next().unwrap_or("");
            if first.trim_start().starts_with('{')
                && serde_json::from_str::<Value>(first).is_err()
                && text.trim().contains('\n')
            {
                return Generations {
                    kind: GenerationsKind::Extracted,
                    entries: Vec::new(),
                    errors: vec![json_error(file, &e)],
                    stored: None,
                };
            }
        }
    }
    import_responses(file, text)
}

fn json_error(file: &str, e: &serde_json::Error) -> ImportError {
    ImportError {
        file: file.into(),
        line: Some(e.line()),
        field: None,
        message: execbench_core::dataset::json_error(e),
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The line where `"key":` first appears (serde_json does not keep positions of object keys).
fn line_of_key(text: &str, key: &str) -> Option<usize> {
    let quoted = serde_json::to_string(key).ok()?;
    let mut from = 0;
    while let Some(at) = text[from..].find(&quoted) {
        let end = from + at + quoted.len();
        if text[end..].trim_start().starts_with(':') {
            return Some(text[..end].matches('\n').count() + 1);
        }
        from = end;
    }
    None
}

/// An evaluation file: its `raw_generations` read as answers, its verdicts and figures kept.
fn import_evaluation(file: &str, text: &str, mut map: serde_json::Map<String, Value>) -> Generations {
    let mut generations = match map.remove("raw_generations") {
        Some(Value::Object(answers)) => import_extracted(file, text, answers, "raw_generations."),
        other => {
            let found = other.as_ref().map_or("null", json_type);
            let error = ImportError {
                file: file.into(),
                line: line_of_key(text, "raw_generations"),
                field: Some("raw_generations".into()),
                message: format!("expected an object of answer lists, found {found}"),
            };
            Generations { kind: GenerationsKind::Extracted, entries: Vec::new(), errors: vec![error], stored: None }
        }
    };
    let mut errors = Vec::new();
    let stored = read_stored(file, &map, &mut errors);
    for error in &mut errors {
        error.line = error.field.as_deref().and_then(|f| line_of_key(text, f.split('.').next().unwrap_or(f)));
    }
    generations.errors.extend(errors);
    generations.stored = Some(stored);
    generations
}

/// LiveCodeBench's results list: each row's `pred_list` (answers already extracted), and when
/// present its `graded_list` and `pass@1` as the file's stored verdicts and figure.
fn import_lcb_results(file: &str, rows: Vec<Value>) -> Generations {
    let mut generations =
        Generations { kind: GenerationsKind::Extracted, entries: Vec::new(), errors: Vec::new(), stored: None };
    let mut stored = StoredScores::default();
    let mut row_figures = Vec::new();
    let mut seen = HashSet::new();
    for (index, row) in rows.into_iter().enumerate() {
        let error = |field: &str, message: String| ImportError {
            file: file.into(),
            line: None,
            field: Some(format!("[{index}].{field}")),
            message,
        };
        let Value::Object(mut row) = row else {
            generations.errors.push(ImportError {
                file: file.into(),
                line: None,
                field: Some(format!("[{index}]")),
                message: format!("expected an object, found {}", json_type(&row)),
            });
            continue;
        };
        let id = match row.remove("id") {
            Some(Value::String(s)) if !s.trim().is_empty() => s,
            Some(Value::Number(n)) => n.to_string(),
            _ => {
                generations.errors.push(error("id", "missing (required)".into()));
                continue;
            }
        };
        let answers = match row.remove("pred_list") {
            Some(Value::Array(items)) => match strings(items) {
                Ok(answers) => answers,
                Err((i, found)) => {
                    generations
                        .errors
                        .push(error(&format!("pred_list[{i}]"), format!("expected an answer string, found {found}")));
                    continue;
                }
            },
            _ => {
                generations.errors.push(error("pred_list", "missing (required): a list of extracted answers".into()));
                continue;
            }
        };
        if !seen.insert(id.clone()) {
            generations.errors.push(error("id", format!("duplicate id `{id}`")));
            continue;
        }
        match row.get("graded_list") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => match items.iter().map(Value::as_bool).collect::<Option<Vec<bool>>>() {
                Some(verdicts) => {
                    stored.verdicts.insert(id.clone(), verdicts);
                }
                None => generations.errors.push(error("graded_list", "expected a list of true/false".into())),
            },
            Some(_) => generations.errors.push(error("graded_list", "expected a list of true/false".into())),
        }
        if let Some(figure) = row.get("pass@1").and_then(Value::as_f64) {
            row_figures.push(figure);
        }
        generations.entries.push(GenerationEntry { id, answers });
    }
    if !stored.verdicts.is_empty() || !row_figures.is_empty() {
        // LiveCodeBench reports the mean of the rows' fractions, as a percentage.
        stored.pass_at_1 =
            (!row_figures.is_empty()).then(|| row_figures.iter().sum::<f64>() / row_figures.len() as f64 * 100.0);
        generations.stored = Some(stored);
    }
    if generations.entries.is_empty() && generations.errors.is_empty() {
        generations.errors.push(ImportError {
            file: file.into(),
            line: None,
            field: None,
            message: "no samples in the file".into(),
        });
    }
    generations
}

/// `{"sample_0": ["answer", ...]}`; `prefix` goes before ids in field names (an evaluation
/// file's answers are under `raw_generations`).
fn import_extracted(file: &str, text: &str, map: serde_json::Map<String, Value>, prefix: &str) -> Generations {
    let mut generations =
        Generations { kind: GenerationsKind::Extracted, entries: Vec::new(), errors: Vec::new(), stored: None };
    for (id, value) in map {
        // Looked up only for an error: a scan of the text per sample is quadratic on big files.
        let error = |field: String, message: String| ImportError {
            file: file.into(),
            line: line_of_key(text, &id),
            field: Some(format!("{prefix}{field}")),
            message,
        };
        let Value::Array(items) = value else {
            generations
                .errors
                .push(error(id.clone(), format!("expected a list of answers, found {}", json_type(&value))));
            continue;
        };
        match strings(items) {
            Ok(answers) => generations.entries.push(GenerationEntry { id, answers }),
            Err((index, found)) => generations
                .errors
                .push(error(format!("{id}[{index}]"), format!("expected an answer string, found {found}"))),
        }
    }
    if generations.entries.is_empty() && generations.errors.is_empty() {
        generations.errors.push(ImportError {
            file: file.into(),
            line: None,
            field: None,
            message: "no samples in the file".into(),
        });
    }
    generations
}

fn strings(items: Vec<Value>) -> Result<Vec<String>, (usize, &'static str)> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) => Ok(s),
            other => Err((i, json_type(&other))),
        })
        .collect()
}

fn import_responses(file: &str, text: &str) -> Generations {
    let mut generations =
        Generations { kind: GenerationsKind::Responses, entries: Vec::new(), errors: Vec::new(), stored: None };
    let mut seen = HashSet::new();
    let mut rows = 0;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        rows += 1;
        let error = |field: Option<&str>, message: String| ImportError {
            file: file.into(),
            line: Some(number),
            field: field.map(str::to_string),
            message,
        };
        let row: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                let mut err = json_error(file, &e);
                err.line = Some(number);
                generations.errors.push(err);
                continue;
            }
        };
        let Value::Object(mut row) = row else {
            generations.errors.push(error(None, format!("expected a JSON object, found {}", json_type(&row))));
            continue;
        };
        // CodeCrash's results rows name the sample `task_id`.
        let id = match row.remove("id").or_else(|| row.remove("sample_id")).or_else(|| row.remove("task_id")) {
            Some(Value::String(s)) if !s.trim().is_empty() => s,
            Some(Value::Number(n)) => n.to_string(),
            None | Some(Value::Null) => {
                generations.errors.push(error(Some("id"), "missing (required)".into()));
                continue;
            }
            Some(other) => {
                generations
                    .errors
                    .push(error(Some("id"), format!("expected a string or a number, found {}", json_type(&other))));
                continue;
            }
        };
        let answers = match row.remove("responses") {
            Some(Value::Array(items)) => match strings(items) {
                Ok(answers) => answers,
                Err((i, found)) => {
                    generations.errors.push(error(
                        Some(&format!("responses[{i}]")),
                        format!("expected a response string, found {found}"),
                    ));
                    continue;
                }
            },
            None => {
                generations
                    .errors
                    .push(error(Some("responses"), "missing (required): a list of response strings".into()));
                continue;
            }
            Some(other) => {
                generations.errors.push(error(
                    Some("responses"),
                    format!("expected a list of response strings, found {}", json_type(&other)),
                ));
                continue;
            }
        };
        if !seen.insert(id.clone()) {
            generations.errors.push(error(Some("id"), format!("duplicate id `{id}`")));
            continue;
        }
        generations.entries.push(GenerationEntry { id, answers });
    }
    if rows == 0 {
        generations.errors.push(ImportError {
            file: file.into(),
            line: None,
            field: None,
            message: "the file is empty".into(),
        });
    }
    generations
}

/// Re-scoring one task in one mode.
#[derive(Clone, Debug, PartialEq)]
pub struct Rescore {
    /// In dataset order.
    pub results: Vec<SampleResult>,
    pub summary: Summary,
    /// Dataset samples the file has no answers for (left out of the figures).
    pub missing: Vec<String>,
    /// Ids in the file that the dataset does not have.
    pub unknown: Vec<String>,
}

/// Its rows, for [`crate::stored::compare_stored`].
impl AsRef<[SampleResult]> for Rescore {
    fn as_ref(&self) -> &[SampleResult] {
        &self.results
    }
}

/// Scores every sample of `dataset` that has answers in `generations`.
pub fn rescore(
    engine: &mut dyn PythonEngine,
    dataset: &[Sample],
    generations: &Generations,
    task: Task,
    mode: Mode,
    options: &ScoreOptions,
) -> Rescore {
    let scope = RescoreScope::of(dataset, generations);
    let results = scope
        .pairs
        .iter()
        .map(|(sample, entry)| score_entry(engine, generations, sample, entry, task, mode, options))
        .collect();
    scope.finish(results, task, mode)
}

/// The samples a re-scoring covers, each with its entry, in dataset order.
struct RescoreScope<'a> {
    pairs: Vec<(&'a Sample, &'a GenerationEntry)>,
    missing: Vec<String>,
    unknown: Vec<String>,
}

impl<'a> RescoreScope<'a> {
    fn of(dataset: &'a [Sample], generations: &'a Generations) -> Self {
        let by_id: HashMap<&str, &GenerationEntry> = generations.entries.iter().map(|e| (e.id.as_str(), e)).collect();
        // The same scope as a replayed file's, so both give the same figures.
        let FileScope { missing, unknown, .. } = generations.scope(dataset);
        let pairs =
            dataset.iter().filter_map(|sample| by_id.get(sample.id.as_str()).map(|entry| (sample, *entry))).collect();
        RescoreScope { pairs, missing, unknown }
    }

    fn finish(self, results: Vec<SampleResult>, task: Task, mode: Mode) -> Rescore {
        let summary = summarize(task, mode, &results);
        Rescore { results, summary, missing: self.missing, unknown: self.unknown }
    }
}

fn score_entry(
    engine: &mut dyn PythonEngine,
    generations: &Generations,
    sample: &Sample,
    entry: &GenerationEntry,
    task: Task,
    mode: Mode,
    options: &ScoreOptions,
) -> SampleResult {
    let extractions = generations.extractions(entry, task);
    let score = score_answers(engine, sample, task, mode, &extractions, options);
    let responses = match generations.kind {
        GenerationsKind::Responses => entry.answers.clone(),
        GenerationsKind::Extracted => Vec::new(),
    };
    SampleResult::new(&sample.id, task, mode, None, responses, extractions, score).of_sample(sample)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_engine::FakeEngine;

    fn errors(file: &str, text: &str) -> Vec<String> {
        import_generations(file, text).errors.iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn cruxeval_json_is_read() {
        let g = import_generations("g.json", r#"{"sample_0": ["[1]", "[2]"], "sample_1": ["'a'"]}"#);
        assert_eq!(g.kind, GenerationsKind::Extracted);
        assert!(g.errors.is_empty(), "{:?}", g.errors);
        assert_eq!(
            g.entries,
            vec![
                GenerationEntry { id: "sample_0".into(), answers: vec!["[1]".into(), "[2]".into()] },
                GenerationEntry { id: "sample_1".into(), answers: vec!["'a'".into()] }
            ]
        );
    }

    #[test]
    fn responses_jsonl_is_read() {
        let text = "{\"id\": \"sample_0\", \"responses\": [\"[ANSWER]assert f(1) == 2[/ANSWER]\"]}\n\n{\"id\": 7, \"responses\": []}\n";
        let g = import_generations("r.jsonl", text);
        assert_eq!(g.kind, GenerationsKind::Responses);
        assert!(g.errors.is_empty(), "{:?}", g.errors);
        assert_eq!(g.entries.len(), 2);
        assert_eq!(g.entries[1].id, "7");
        let extracted = g.extractions(&g.entries[0], Task::Output);
        assert_eq!(extracted[0].answer(), Some("2"));
    }

    /// One broken file per kind of problem, with the exact message a user sees.
    #[test]
    fn problems_are_named_by_file_line_and_field() {
        let cases: &[(&str, &str)] = &[
            (
                "{\n  \"sample_0\": [\"1\"],\n  \"sample_1\": \"2\"\n}",
                "g:3: field `sample_1`: expected a list of answers, found a string",
            ),
            ("{\n  \"sample_0\": [\"1\", 2]\n}", "g:2: field `sample_0[1]`: expected an answer string, found a number"),
            ("{}", "g: no samples in the file"),
            ("{\n  \"sample_0\": [\"1\",\n", "g:3: not valid JSON at column 0: EOF while parsing a value"),
            (
                "{\"id\": \"a\", \"responses\": [\"x\"]}\n{\"id\": \"b\"}",
                "g:2: field `responses`: missing (required): a list of response strings",
            ),
            (
                "{\"id\": \"a\", \"responses\": \"x\"}",
                "g:1: field `responses`: expected a list of response strings, found a string",
            ),
            (
                "{\"id\": \"a\", \"responses\": [\"x\", null]}",
                "g:1: field `responses[1]`: expected a response string, found null",
            ),
            ("{\"responses\": [\"x\"]}", "g:1: field `id`: missing (required)"),
            (
                "{\"id\": \"a\", \"responses\": []}\n{\"id\": \"a\", \"responses\": []}",
                "g:2: field `id`: duplicate id `a`",
            ),
            ("{\"id\": \"a\", \"responses\": []}\n[1]", "g:2: expected a JSON object, found a list"),
            (
                "{\"id\": \"a\", \"responses\": []}\n{\"id\": ",
                "g:2: not valid JSON at column 7: EOF while parsing a value",
            ),
            ("", "g: the file is empty"),
        ];
        for (text, message) in cases {
            assert_eq!(errors("g", text), vec![message.to_string()], "{text}");
        }
    }

    /// CRUXEval's leaderboard file (percent) and CodeCrash's (fraction, no pass@5): the answers
    /// are read as the plain shape's, the verdicts and figures kept apart.
    #[test]
    fn evaluation_files_are_read_with_their_verdicts() {
        let cruxeval = r#"{"raw_generations": {"sample_0": ["1", "2"], "sample_1": ["'a'", "'b'"]}, "raw_scored_generations": {"sample_0": [true, false], "sample_1": [false, false]}, "pass_at_1": 25.0, "pass_at_5": 50.0}"#;
        let codecrash = r#"{"pass_at_1": 0.25, "raw_generations": {"sample_0": ["1", "2"], "sample_1": ["'a'", "'b'"]}, "raw_scored_generations": {"sample_0": [true, false], "sample_1": [false, false]}}"#;
        for (text, pass_at_5) in [(cruxeval, Some(50.0)), (codecrash, None)] {
            let g = import_generations("e.json", text);
            assert!(g.errors.is_empty(), "{:?}", g.errors);
            assert_eq!((g.kind, g.entries.len()), (GenerationsKind::Extracted, 2));
            assert_eq!(
                g.entries[1],
                GenerationEntry { id: "sample_1".into(), answers: vec!["'a'".into(), "'b'".into()] }
            );
            let stored = g.stored.expect("stored scores");
            assert_eq!((stored.pass_at_1, stored.pass_at_5), (Some(25.0), pass_at_5));
            assert_eq!(stored.verdicts.get("sample_0"), Some(&vec![true, false]));
        }
        assert_eq!(import_generations("g.json", r#"{"sample_0": ["1"]}"#).stored, None);
    }

    #[test]
    fn evaluation_file_problems_are_named() {
        let cases: &[(&str, &str)] = &[
            (
                "{\n\"raw_generations\": [1]\n}",
                "e:2: field `raw_generations`: expected an object of answer lists, found a list",
            ),
            (
                "{\"raw_generations\": {\n\"sample_0\": \"1\"}}",
                "e:2: field `raw_generations.sample_0`: expected a list of answers, found a string",
            ),
            (
                "{\"raw_generations\": {\"sample_0\": [\"1\"]},\n\"raw_scored_generations\": {\"sample_0\": [1]}}",
                "e:2: field `raw_scored_generations.sample_0`: expected a list of true/false",
            ),
            (
                "{\"raw_generations\": {\"sample_0\": [\"1\"]},\n\"pass_at_1\": \"high\"}",
                "e:2: field `pass_at_1`: expected a number",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(errors("e", text), vec![message.to_string()], "{text}");
        }
    }

    #[test]
    fn stored_verdicts_are_compared_answer_by_answer() {
        let sample = |id: &str, output: &str| Sample::new(id, "def f(x):\n    return x", "f", "1", output);
        let dataset = vec![sample("a", "1"), sample("b", "2"), sample("c", "3")];
        // a: stored agrees; b: the file called a wrong answer right; c: no verdicts in the file.
        let text = r#"{"raw_generations": {"a": ["1", "0"], "b": ["5"], "c": ["3"]}, "raw_scored_generations": {"a": [true, false], "b": [true]}, "pass_at_1": 0.75}"#;
        let g = import_generations("e.json", text);
        let r = rescore(&mut FakeEngine::new(), &dataset, &g, Task::Output, Mode::Strict, &ScoreOptions::default());
        let comparison = crate::stored::compare_stored(g.stored.as_ref().expect("stored"), &r);
        assert_eq!(
            comparison.disagreements,
            vec![crate::stored::Disagreement {
                id: "b".into(),
                answer: 0,
                stored: true,
                execbench: "wrong_value".into(),
                reason: "wrong value: got 5, expected 2".into()
            }]
        );
        assert_eq!(comparison.without_verdicts, vec!["c".to_string()]);
        // Stored over a and b: (1/2 + 1) / 2; execbench over a, b, c: (1/2 + 0 + 1) / 3.
        assert_eq!(comparison.pass_at_1.display(), "75.0");
        assert_eq!(r.summary.pass_at_1.display(), "50.0");
    }

    /// LiveCodeBench's results list and CodeCrash's results lines, as each project writes them.
    #[test]
    fn results_files_of_other_projects_are_read() {
        let lcb_eval_all = r#"[
  {"question_id": "2727", "id": "sample_0", "function_name": "f", "code": "...", "input": "f(1)", "output": "1", "output_list": ["raw"], "pred_list": ["1", "2"], "graded_list": [true, false], "pass@1": 0.5},
  {"question_id": "2727", "id": "sample_1", "function_name": "f", "code": "...", "input": "f(2)", "output": "2", "output_list": ["raw"], "pred_list": ["2"], "graded_list": [true], "pass@1": 1.0}
]"#;
        let g = import_generations("Scenario.codeexecution_10_0.2_eval_all.json", lcb_eval_all);
        assert!(g.errors.is_empty(), "{:?}", g.errors);
        assert_eq!((g.kind, g.entries.len()), (GenerationsKind::Extracted, 2));
        assert_eq!(g.entries[0].answers, vec!["1".to_string(), "2".to_string()]);
        let stored = g.stored.expect("stored verdicts");
        assert_eq!((stored.pass_at_1, stored.verdicts.get("sample_1")), (Some(75.0), Some(&vec![true])));

        let lcb_plain = r#"[{"id": "sample_0", "pred_list": ["1"]}]"#;
        let g = import_generations("Scenario.codeexecution_10_0.2.json", lcb_plain);
        assert_eq!((g.entries.len(), g.stored.is_some(), g.errors.len()), (1, false, 0));

        let codecrash = "{\"task_id\": \"sample_4\", \"dataset\": \"crux\", \"responses\": [\"[ANSWER]assert f(1) == 2[/ANSWER]\"], \"solutions\": [\"2\"]}\n";
        let g = import_generations("crux_output_MCC_cot.jsonl", codecrash);
        assert!(g.errors.is_empty(), "{:?}", g.errors);
        assert_eq!((g.kind, g.entries[0].id.as_str()), (GenerationsKind::Responses, "sample_4"));
    }

    #[test]
    fn lcb_results_problems_are_named() {
        let cases: &[(&str, &str)] = &[
            (r#"[{"pred_list": ["1"]}]"#, "r: field `[0].id`: missing (required)"),
            (
                r#"[{"id": "a", "pred_list": ["1"]}, {"id": "b"}]"#,
                "r: field `[1].pred_list`: missing (required): a list of extracted answers",
            ),
            (
                r#"[{"id": "a", "pred_list": [1]}]"#,
                "r: field `[0].pred_list[0]`: expected an answer string, found a number",
            ),
            (
                r#"[{"id": "a", "pred_list": ["1"], "graded_list": ["yes"]}]"#,
                "r: field `[0].graded_list`: expected a list of true/false",
            ),
            (
                r#"[{"id": "a", "pred_list": ["1"]}, {"id": "a", "pred_list": ["1"]}]"#,
                "r: field `[1].id`: duplicate id `a`",
            ),
            (r#"[3]"#, "r: field `[0]`: expected an object, found a number"),
            ("[]", "r: no samples in the file"),
        ];
        for (text, message) in cases {
            assert_eq!(errors("r", text), vec![message.to_string()], "{text}");
        }
    }

    #[test]
    fn rescoring_scores_known_samples_and_lists_the_rest() {
        let sample = |id: &str, output: &str| Sample::new(id, "def f(x):\n    return x", "f", "1", output);
        let dataset = vec![sample("a", "1"), sample("b", "[2]"), sample("c", "3")];
        let g = import_generations("g.json", r#"{"a": ["1", "1.0", "True", "f(1)", "1"], "b": ["[2]"], "zz": ["1"]}"#);
        let r = rescore(&mut FakeEngine::new(), &dataset, &g, Task::Output, Mode::Strict, &ScoreOptions::default());
        assert_eq!((r.missing.clone(), r.unknown.clone()), (vec!["c".to_string()], vec!["zz".to_string()]));
        assert_eq!(
            r.results.iter().map(|x| (x.id.as_str(), x.n, x.correct)).collect::<Vec<_>>(),
            vec![("a", 5, 2), ("b", 1, 1)]
        );
        assert_eq!(r.summary.pass_at_1.display(), "70.0");
        assert_eq!((r.summary.pass_at_5.available, r.summary.pass_at_5.total), (1, 2));
    }
}
