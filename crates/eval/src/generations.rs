//! Re-scoring what others published. Two file shapes are read:
//! - a CRUXEval generations file: one JSON object `{"sample_0": ["answer", ...], ...}` whose
//!   answers are already extracted (the value for output prediction, the call for input);
//! - JSON Lines of raw responses: `{"id": "sample_0", "responses": ["...", ...]}` per line, which
//!   go through [`crate::extract`] first.
//!
//! Every problem is named with the file, the line and the field; good entries are kept.

use std::collections::{HashMap, HashSet};
use std::fmt;

use execbench_core::{PythonEngine, Sample};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::extract::{Extraction, extract};
use crate::models::{FileScope, Replay};
use crate::report::{SampleResult, Summary, summarize};
use crate::score::{Mode, ScoreOptions, score_answers};
use crate::task::Task;

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

/// One problem found in a generations file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    pub file: String,
    /// 1-based; `None` when the problem concerns the whole file.
    pub line: Option<usize>,
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// What reading a generations file gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Generations {
    pub kind: GenerationsKind,
    pub entries: Vec<GenerationEntry>,
    pub errors: Vec<ImportError>,
}

impl Generations {
    /// The answers of a sample as extractions, extracting raw responses for `task`.
    pub fn extractions(&self, entry: &GenerationEntry, task: Task) -> Vec<Extraction> {
        match self.kind {
            GenerationsKind::Extracted => entry.answers.iter().map(Extraction::verbatim).collect(),
            GenerationsKind::Responses => entry.answers.iter().map(|r| extract(r, task)).collect(),
        }
    }
}

/// Reads either shape, telling them apart by content: a single JSON object without a
/// `responses` field is the CRUXEval shape.
pub fn import_generations(file: &str, text: &str) -> Generations {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) if !map.contains_key("responses") => return import_extracted(file, text, map),
        Ok(_) => {}
        Err(e) => {
            // Not one JSON value: JSON Lines, unless it is a broken multi-line object.
            let first = text.trim_start().lines().next().unwrap_or("");
            if first.trim_start().starts_with('{') && serde_json::from_str::<Value>(first).is_err() && text.trim().contains('\n') {
                return Generations { kind: GenerationsKind::Extracted, entries: Vec::new(), errors: vec![json_error(file, &e)] };
            }
        }
    }
    import_responses(file, text)
}

fn json_error(file: &str, e: &serde_json::Error) -> ImportError {
    let text = e.to_string();
    let what = text.rsplit_once(" at line ").map_or(text.as_str(), |(what, _)| what);
    ImportError { file: file.into(), line: Some(e.line()), field: None, message: format!("not valid JSON at column {}: {what}", e.column()) }
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

fn import_extracted(file: &str, text: &str, map: serde_json::Map<String, Value>) -> Generations {
    let mut generations = Generations { kind: GenerationsKind::Extracted, entries: Vec::new(), errors: Vec::new() };
    for (id, value) in map {
        let line = line_of_key(text, &id);
        let error = |field: String, message: String| ImportError { file: file.into(), line, field: Some(field), message };
        let Value::Array(items) = value else {
            generations.errors.push(error(id.clone(), format!("expected a list of answers, found {}", json_type(&value))));
            continue;
        };
        match strings(items) {
            Ok(answers) => generations.entries.push(GenerationEntry { id, answers }),
            Err((index, found)) => generations.errors.push(error(format!("{id}[{index}]"), format!("expected an answer string, found {found}"))),
        }
    }
    if generations.entries.is_empty() && generations.errors.is_empty() {
        generations.errors.push(ImportError { file: file.into(), line: None, field: None, message: "no samples in the file".into() });
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
    let mut generations = Generations { kind: GenerationsKind::Responses, entries: Vec::new(), errors: Vec::new() };
    let mut seen = HashSet::new();
    let mut rows = 0;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        rows += 1;
        let error = |field: Option<&str>, message: String| ImportError { file: file.into(), line: Some(number), field: field.map(str::to_string), message };
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
        let id = match row.remove("id").or_else(|| row.remove("sample_id")) {
            Some(Value::String(s)) if !s.trim().is_empty() => s,
            Some(Value::Number(n)) => n.to_string(),
            None | Some(Value::Null) => {
                generations.errors.push(error(Some("id"), "missing (required)".into()));
                continue;
            }
            Some(other) => {
                generations.errors.push(error(Some("id"), format!("expected a string or a number, found {}", json_type(&other))));
                continue;
            }
        };
        let answers = match row.remove("responses") {
            Some(Value::Array(items)) => match strings(items) {
                Ok(answers) => answers,
                Err((i, found)) => {
                    generations.errors.push(error(Some(&format!("responses[{i}]")), format!("expected a response string, found {found}")));
                    continue;
                }
            },
            None => {
                generations.errors.push(error(Some("responses"), "missing (required): a list of response strings".into()));
                continue;
            }
            Some(other) => {
                generations.errors.push(error(Some("responses"), format!("expected a list of response strings, found {}", json_type(&other))));
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
        generations.errors.push(ImportError { file: file.into(), line: None, field: None, message: "the file is empty".into() });
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

/// Scores every sample of `dataset` that has answers in `generations`.
pub fn rescore(engine: &mut dyn PythonEngine, dataset: &[Sample], generations: &Generations, task: Task, mode: Mode, options: &ScoreOptions) -> Rescore {
    let by_id: HashMap<&str, &GenerationEntry> = generations.entries.iter().map(|e| (e.id.as_str(), e)).collect();
    // The same scope as a replayed file's, so both give the same figures.
    let FileScope { samples, missing, unknown, .. } = Replay::from_generations("", generations).scope(dataset);
    let mut results = Vec::new();
    for sample in &samples {
        let Some(entry) = by_id.get(sample.id.as_str()) else { continue };
        let extractions = generations.extractions(entry, task);
        let score = score_answers(engine, sample, task, mode, &extractions, options);
        let responses = match generations.kind {
            GenerationsKind::Responses => entry.answers.clone(),
            GenerationsKind::Extracted => Vec::new(),
        };
        results.push(SampleResult::new(&sample.id, task, mode, None, responses, extractions, score));
    }
    let summary = summarize(task, mode, &results);
    Rescore { results, summary, missing, unknown }
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
        assert_eq!(g.entries, vec![GenerationEntry { id: "sample_0".into(), answers: vec!["[1]".into(), "[2]".into()] }, GenerationEntry { id: "sample_1".into(), answers: vec!["'a'".into()] }]);
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
            ("{\n  \"sample_0\": [\"1\"],\n  \"sample_1\": \"2\"\n}", "g:3: field `sample_1`: expected a list of answers, found a string"),
            ("{\n  \"sample_0\": [\"1\", 2]\n}", "g:2: field `sample_0[1]`: expected an answer string, found a number"),
            ("{}", "g: no samples in the file"),
            ("{\n  \"sample_0\": [\"1\",\n", "g:3: not valid JSON at column 0: EOF while parsing a value"),
            ("{\"id\": \"a\", \"responses\": [\"x\"]}\n{\"id\": \"b\"}", "g:2: field `responses`: missing (required): a list of response strings"),
            ("{\"id\": \"a\", \"responses\": \"x\"}", "g:1: field `responses`: expected a list of response strings, found a string"),
            ("{\"id\": \"a\", \"responses\": [\"x\", null]}", "g:1: field `responses[1]`: expected a response string, found null"),
            ("{\"responses\": [\"x\"]}", "g:1: field `id`: missing (required)"),
            ("{\"id\": \"a\", \"responses\": []}\n{\"id\": \"a\", \"responses\": []}", "g:2: field `id`: duplicate id `a`"),
            ("{\"id\": \"a\", \"responses\": []}\n[1]", "g:2: expected a JSON object, found a list"),
            ("{\"id\": \"a\", \"responses\": []}\n{\"id\": ", "g:2: not valid JSON at column 7: EOF while parsing a value"),
            ("", "g: the file is empty"),
        ];
        for (text, message) in cases {
            assert_eq!(errors("g", text), vec![message.to_string()], "{text}");
        }
    }

    #[test]
    fn rescoring_scores_known_samples_and_lists_the_rest() {
        let sample = |id: &str, output: &str| Sample {
            id: id.into(),
            code: "def f(x):\n    return x".into(),
            function_name: "f".into(),
            input: "1".into(),
            call: "f(1)".into(),
            output: output.into(),
            meta: Default::default(),
        };
        let dataset = vec![sample("a", "1"), sample("b", "[2]"), sample("c", "3")];
        let g = import_generations("g.json", r#"{"a": ["1", "1.0", "True", "f(1)", "1"], "b": ["[2]"], "zz": ["1"]}"#);
        let r = rescore(&mut FakeEngine::new(), &dataset, &g, Task::Output, Mode::Strict, &ScoreOptions::default());
        assert_eq!((r.missing.clone(), r.unknown.clone()), (vec!["c".to_string()], vec!["zz".to_string()]));
        assert_eq!(r.results.iter().map(|x| (x.id.as_str(), x.n, x.correct)).collect::<Vec<_>>(), vec![("a", 5, 2), ("b", 1, 1)]);
        assert_eq!(r.summary.pass_at_1.display(), "70.0");
        assert_eq!((r.summary.pass_at_5.available, r.summary.pass_at_5.total), (1, 2));
    }
}
