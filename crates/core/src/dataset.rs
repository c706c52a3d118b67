//! Reading a dataset file: JSON Lines, one sample a line. Every bad row is reported with its line,
//! field and problem, and every good row is kept.
//!
//! Accepted row shapes:
//! - CRUXEval: `{"id", "code", "input", "output"}`, `input` being the argument text of `f(...)`;
//! - LiveCodeBench execution / LeetCode contests: `{"id" | "question_id", "function_name", "code",
//!   "input", "output"}`, `input` being either the argument text or the full call;
//! - CodeCrash records: `{"task_id", "dataset", "code", "function_name", "function_call",
//!   "output", "test"}`, `function_call` being the full call;
//! - any of these with an explicit `call`;
//! - LeetCode-contest reproductions' `correct_condition` (`<call> == <output>`): it must agree with
//!   the row's call and output, and gives the output (or the call) when the row lacks it.
//!
//! Other fields are kept in `Sample::meta`.

use std::collections::HashSet;
use std::fmt;

use serde_json::{Map, Value};

use crate::sample::Sample;

/// One problem found in a dataset file.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RowError {
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{}:{}: field `{}`: {}", self.file, self.line, field, self.message),
            None => write!(f, "{}:{}: {}", self.file, self.line, self.message),
        }
    }
}

/// What loading a file gave: the good samples and the problems, in line order. Serialisable: the
/// page's loader worker sends it back as JSON.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LoadReport {
    pub samples: Vec<Sample>,
    pub errors: Vec<RowError>,
    /// Non-blank lines read.
    pub rows: usize,
}

impl LoadReport {
    pub fn is_clean(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Loads JSON Lines from raw bytes, so that one line that is not UTF-8 costs only that line.
pub fn load_jsonl_bytes(file: &str, bytes: &[u8]) -> LoadReport {
    load_jsonl_with(file, bytes, sample_from_row)
}

/// Loads JSON Lines whose rows `convert` turns into samples: the line splitting, JSON parsing and
/// duplicate ids of [`load_jsonl_bytes`] for formats that read their rows differently.
pub fn load_jsonl_with(
    file: &str,
    bytes: &[u8],
    convert: impl FnMut(Map<String, Value>) -> Result<Sample, FieldError>,
) -> LoadReport {
    let mut reader = JsonlReader::new(file, convert);
    reader.feed(bytes);
    reader.finish()
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// JSON Lines read a chunk at a time, so a big file can be read from disk in slices with progress
/// shown between them: the same samples, errors and line numbers as [`load_jsonl_with`] on the
/// whole file, wherever the chunks are cut (a line, or a character, may span two).
pub struct JsonlReader<'a, F> {
    loader: RowLoader<'a>,
    convert: F,
    /// The bytes after the last line break seen: the start of a line not yet complete.
    carry: Vec<u8>,
    /// Lines taken so far.
    lines: usize,
    /// Whether a leading byte order mark has been looked for.
    started: bool,
}

impl<'a, F: FnMut(Map<String, Value>) -> Result<Sample, FieldError>> JsonlReader<'a, F> {
    pub fn new(file: &'a str, convert: F) -> Self {
        JsonlReader { loader: RowLoader::new(file), convert, carry: Vec::new(), lines: 0, started: false }
    }

    /// Reads the complete lines that `chunk` ends or holds; keeps the rest for the next chunk.
    pub fn feed(&mut self, chunk: &[u8]) {
        self.carry.extend_from_slice(chunk);
        if !self.started {
            // A mark cut by the chunk's end is only known with its third byte.
            if self.carry.len() < BOM.len() && BOM.starts_with(&self.carry) {
                return;
            }
            self.skip_bom();
        }
        let Some(last_break) = self.carry.iter().rposition(|&b| b == b'\n') else { return };
        let complete: Vec<u8> = self.carry.drain(..=last_break).collect();
        for raw in complete[..last_break].split(|&b| b == b'\n') {
            self.take(raw);
        }
    }

    /// Rows read so far, good and bad.
    pub fn rows(&self) -> usize {
        self.loader.rows()
    }

    /// Reads the last line (the text after the last line break) and gives the report.
    pub fn finish(mut self) -> LoadReport {
        if !self.started {
            self.skip_bom();
        }
        let last = std::mem::take(&mut self.carry);
        self.take(&last);
        if self.loader.report.rows == 0 {
            self.loader.error(1, None, "the file is empty: expected one JSON object per line".to_string());
        }
        self.loader.finish()
    }

    fn skip_bom(&mut self) {
        self.started = true;
        if self.carry.starts_with(BOM) {
            self.carry.drain(..BOM.len());
        }
    }

    fn take(&mut self, raw: &[u8]) {
        self.lines += 1;
        match std::str::from_utf8(raw) {
            Ok(line) => self.loader.line(self.lines, line, &mut self.convert),
            // Counted as a row read: a file whose only row is not UTF-8 is not "empty".
            Err(e) => self.loader.unreadable(
                self.lines,
                None,
                format!("not valid UTF-8 (byte {} of the line)", e.valid_up_to() + 1),
            ),
        }
    }
}

/// Loads JSON Lines from text.
pub fn load_jsonl(file: &str, text: &str) -> LoadReport {
    load_jsonl_bytes(file, text.as_bytes())
}

/// Collects a file's rows into a [`LoadReport`]: counts them, keeps good samples, refuses a
/// repeated id and names every problem. Every format's loader goes through it.
pub struct RowLoader<'a> {
    file: &'a str,
    report: LoadReport,
    seen_ids: HashSet<String>,
}

impl<'a> RowLoader<'a> {
    pub fn new(file: &'a str) -> Self {
        RowLoader { file, report: LoadReport::default(), seen_ids: HashSet::new() }
    }

    /// A problem with row `line` (1-based), or with the file when nothing better can be named.
    pub fn error(&mut self, line: usize, field: Option<&str>, message: String) {
        self.report.errors.push(RowError {
            file: self.file.to_string(),
            line,
            field: field.map(str::to_string),
            message,
        });
    }

    /// Row `line` (1-based) was read: its sample, or the field that made it unusable.
    pub fn row(&mut self, line: usize, converted: Result<Sample, FieldError>) {
        self.report.rows += 1;
        match converted {
            Ok(sample) => {
                if !self.seen_ids.insert(sample.id.clone()) {
                    return self.error(line, Some("id"), format!("duplicate id `{}`", sample.id));
                }
                self.report.samples.push(sample);
            }
            Err((field, message)) => self.error(line, Some(field), message),
        }
    }

    /// A row that could not be read at all (not JSON, not an object, not decodable).
    pub fn unreadable(&mut self, line: usize, field: Option<&str>, message: String) {
        self.report.rows += 1;
        self.error(line, field, message);
    }

    /// `count` rows from `line` on that could not be read at all (a damaged part of a binary
    /// file): counted, and named once.
    pub fn unreadable_rows(&mut self, line: usize, count: usize, field: Option<&str>, message: String) {
        self.report.rows += count;
        self.error(line, field, message);
    }

    pub fn rows(&self) -> usize {
        self.report.rows
    }

    pub fn finish(self) -> LoadReport {
        self.report
    }

    fn line(
        &mut self,
        number: usize,
        line: &str,
        convert: &mut impl FnMut(Map<String, Value>) -> Result<Sample, FieldError>,
    ) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            return;
        }
        let value: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => return self.unreadable(number, None, json_error(&e)),
        };
        let Value::Object(row) = value else {
            return self.unreadable(number, None, format!("expected a JSON object, found {}", json_type(&value)));
        };
        self.row(number, convert(row));
    }
}

/// A serde_json error as a message: serde_json says "… at line 1 column 20"; the line is the
/// caller's to name (within a JSONL line only the column means anything), so only the column is
/// kept. The one wording of a JSON error, for datasets and generations files alike.
pub fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let what = text.rsplit_once(" at line ").map_or(text.as_str(), |(what, _)| what);
    format!("not valid JSON at column {}: {what}", e.column())
}

/// The field that made a row unusable, and why.
pub type FieldError = (&'static str, String);

/// A JSON value's type in words, for messages (`expected a string, found a number`).
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn take_string(row: &mut Map<String, Value>, field: &'static str) -> Result<Option<String>, FieldError> {
    match row.remove(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err((field, format!("expected a string, found {}", json_type(&other)))),
    }
}

fn required(row: &mut Map<String, Value>, field: &'static str) -> Result<String, FieldError> {
    let what = if row.get(field).is_some_and(Value::is_null) { "null (required)" } else { "missing (required)" };
    take_string(row, field)?.ok_or((field, what.to_string()))
}

fn take_id(row: &mut Map<String, Value>) -> Result<String, FieldError> {
    for field in ["id", "question_id", "task_id"] {
        // `question_id` stays in `meta` too: it names the problem results files refer to, and
        // marks the row as LeetCode's (`crate::program::Convention`).
        let value = if field == "question_id" { row.get(field).cloned() } else { row.remove(field) };
        match value {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) if s.trim().is_empty() => return Err((field, "is empty".to_string())),
            Some(Value::String(s)) => return Ok(s),
            Some(Value::Number(n)) => return Ok(n.to_string()),
            Some(other) => return Err((field, format!("expected a string or a number, found {}", json_type(&other)))),
        }
    }
    Err(("id", "missing (required)".to_string()))
}

/// One row (a JSON object, whatever file it came from) as a sample: the rules listed at the top
/// of this file. The fields it does not use are kept in `meta`.
pub fn sample_from_row(mut row: Map<String, Value>) -> Result<Sample, FieldError> {
    let id = take_id(&mut row)?;
    let code = required(&mut row, "code")?;
    if code.trim().is_empty() {
        return Err(("code", "is empty".to_string()));
    }
    let condition = match row.get("correct_condition") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(split_condition(text)?),
        Some(other) => return Err(("correct_condition", format!("expected a string, found {}", json_type(other)))),
    };
    let output_is_null = row.get("output").is_some_and(Value::is_null);
    let output = match (take_string(&mut row, "output")?, &condition) {
        (Some(output), _) => output,
        (None, Some((_, output))) => output.clone(),
        (None, None) if output_is_null => return Err(("output", "null (required)".to_string())),
        (None, None) => return Err(("output", "missing (required)".to_string())),
    };
    if output.trim().is_empty() {
        return Err(("output", "is empty: expected a Python literal".to_string()));
    }
    // CodeCrash's records name the call `function_call`.
    let explicit_call = match take_string(&mut row, "call")? {
        Some(call) => Some(call),
        None => take_string(&mut row, "function_call")?,
    };
    let input = take_string(&mut row, "input")?;
    let explicit_call = match (&input, explicit_call, &condition) {
        (None, None, Some((call, _))) => Some(call.clone()),
        (_, call, _) => call,
    };
    let function_name = match take_string(&mut row, "function_name")? {
        Some(name) if is_identifier(&name) => name,
        Some(name) => return Err(("function_name", format!("`{name}` is not a Python identifier"))),
        None => function_under_test(&code)
            .ok_or(("code", "defines no top-level function (and the row has no `function_name`)".to_string()))?,
    };
    let (input, call) = match (input, explicit_call) {
        (_, Some(call)) if call.trim().is_empty() => return Err(("call", "is empty".to_string())),
        (input, Some(call)) => {
            let input = input.or_else(|| arguments_of(&call, &function_name).map(str::to_string)).unwrap_or_default();
            (input, call)
        }
        (Some(input), None) => match arguments_of(input.trim(), &function_name) {
            Some(args) => (args.to_string(), input.trim().to_string()),
            None => {
                let call = format!("{function_name}({input})");
                (input, call)
            }
        },
        (None, None) => return Err(("input", "missing (required unless the row has `call`)".to_string())),
    };
    if let Some((condition_call, condition_output)) = &condition {
        if squeezed(condition_call) != squeezed(&call) {
            return Err(("correct_condition", format!("calls `{condition_call}`, but the row's call is `{call}`")));
        }
        if squeezed(condition_output) != squeezed(&output) {
            return Err((
                "correct_condition",
                format!("expects `{condition_output}`, but the row's output is `{output}`"),
            ));
        }
    }
    Ok(Sample { id, code, function_name, input, call, output, meta: row })
}

/// `<call> == <output>` split at its first `==` outside brackets and strings.
fn split_condition(text: &str) -> Result<(String, String), FieldError> {
    let mut scan = crate::brackets::scan(text);
    let mut previous = None;
    while let Some((c, depth)) = scan.next() {
        if c == '=' && depth == 0 && previous == Some('=') {
            let at = scan.offset() - 2;
            let (call, output) = (text[..at].trim(), text[at + 2..].trim());
            let comparison_continues = output.starts_with('=') || call.ends_with(['<', '>', '!', '=']);
            if !call.is_empty() && !output.is_empty() && !comparison_continues {
                return Ok((call.to_string(), output.to_string()));
            }
            break;
        }
        previous = Some(c);
    }
    Err(("correct_condition", format!("`{}` is not `<call> == <output>`", short(text))))
}

fn short(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The text without whitespace outside string literals, so that `f(x = 1)` and `f(x=1)` agree.
pub fn squeezed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quote = None;
    let mut escaped = false;
    for c in text.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c.is_whitespace() => continue,
            None => {}
        }
        out.push(c);
    }
    out
}

/// When `text` is `name(args)` as a whole, the `args`.
fn arguments_of<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let rest = text.strip_prefix(name)?.trim_start().strip_prefix('(')?;
    let args = rest.strip_suffix(')')?;
    // Balanced, so that `f(1)(2)` is not taken for one call.
    crate::brackets::balanced(args).then_some(args)
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_alphabetic()) && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// `f` when the code defines it at top level (the CRUXEval convention), else the last top-level
/// function the code defines.
pub fn function_under_test(code: &str) -> Option<String> {
    let names: Vec<&str> = code
        .lines()
        .filter_map(|line| line.strip_prefix("def ").or_else(|| line.strip_prefix("async def ")))
        .filter_map(|rest| rest.split('(').next())
        .map(str::trim)
        .filter(|name| is_identifier(name))
        .collect();
    if names.contains(&"f") { Some("f".to_string()) } else { names.last().map(|n| n.to_string()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors_of(text: &str) -> Vec<String> {
        load_jsonl("d.jsonl", text).errors.iter().map(|e| e.to_string()).collect()
    }

    /// The file read `size` bytes at a time.
    fn chunked(text: &[u8], size: usize) -> LoadReport {
        let mut reader = JsonlReader::new("d.jsonl", sample_from_row);
        for chunk in text.chunks(size) {
            reader.feed(chunk);
        }
        reader.finish()
    }

    #[test]
    fn a_file_read_in_chunks_loads_as_the_whole_file_does() {
        let row = |id: &str| {
            format!(r#"{{"code": "def f(a):\n    return a", "input": "'é€'", "output": "'é€'", "id": "{id}"}}"#)
        };
        let files: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"\n\n".to_vec(),
            format!("{}\n{}\n", row("a"), row("b")).into_bytes(),
            // No final line break, a CRLF line, a blank line, a bad line, a duplicate id.
            format!("{}\r\n\n{{not json\n{}\n{}", row("a"), row("b"), row("a")).into_bytes(),
            // A byte order mark, and a line that is not UTF-8.
            [b"\xEF\xBB\xBF".as_slice(), row("a").as_bytes(), b"\n\xFF\xFE\n", row("b").as_bytes()].concat(),
            // Only part of a mark.
            b"\xEF\xBB".to_vec(),
        ];
        for file in &files {
            let whole = load_jsonl_bytes("d.jsonl", file);
            // 1 and 2 cut every mark and multi-byte character; the file's length reads it at once.
            for size in [1, 2, 3, 7, 64, file.len().max(1)] {
                assert_eq!(chunked(file, size), whole, "{:?} in chunks of {size}", String::from_utf8_lossy(file));
            }
        }
        // The cases are not all alike: samples, errors, both.
        let reports: Vec<LoadReport> = files.iter().map(|f| load_jsonl_bytes("d.jsonl", f)).collect();
        assert!(reports.iter().any(|r| r.samples.len() == 2 && r.errors.is_empty()));
        assert!(reports.iter().any(|r| r.samples.len() == 2 && r.errors.len() == 2));
    }

    #[test]
    fn cruxeval_row() {
        let r = load_jsonl(
            "d.jsonl",
            r#"{"code": "def f(a, b):\n    return a + b", "input": "1, 2", "output": "3", "id": "sample_0"}"#,
        );
        assert!(r.is_clean(), "{:?}", r.errors);
        let s = &r.samples[0];
        assert_eq!(
            (s.id.as_str(), s.function_name.as_str(), s.call.as_str(), s.input.as_str()),
            ("sample_0", "f", "f(1, 2)", "1, 2")
        );
    }

    #[test]
    fn leetcode_row_with_full_call_and_extra_fields() {
        let row = r#"{"id": 7, "function_name": "minimumCost", "code": "class Solution: pass\ndef minimumCost(s):\n    return 1", "input": "minimumCost(s='0011')", "output": "1", "difficulty": "easy"}"#;
        let r = load_jsonl("lc.jsonl", row);
        assert!(r.is_clean(), "{:?}", r.errors);
        let s = &r.samples[0];
        assert_eq!(s.id, "7");
        assert_eq!(s.call, "minimumCost(s='0011')");
        assert_eq!(s.input, "s='0011'");
        assert_eq!(s.meta.get("difficulty"), Some(&Value::String("easy".into())));
    }

    /// LeetCode-contest rows: (row, expected (id, call, output) or the one error a user sees).
    #[test]
    fn leetcode_contest_rows_and_their_correct_condition() {
        let solution = "class Solution:\\n    def countSeniors(self, details: List[str]) -> int:\\n        return 2";
        let row = |extra: &str| {
            format!(
                r#"{{"id": "sample_0", "question_id": 2727, "function_name": "countSeniors", "code": "{solution}", {extra}, "contest_id": "biweekly-contest-104"}}"#
            )
        };
        let call = "countSeniors(details = ['7868190130M7522', '5303914400F9211'])";
        // A table of cases is a tuple: (row, its sample's (call, output, name) or the error).
        #[allow(clippy::type_complexity)]
        let cases: Vec<(String, Result<(&str, &str, &str), &str>)> = vec![
            (
                row(&format!(r#""input": "{call}", "output": "2", "correct_condition": "{call} == 2""#)),
                Ok(("sample_0", call, "2")),
            ),
            // Spaces around `=` and `==` do not matter; spaces inside strings do.
            (
                row(&format!(
                    r#""input": "{call}", "output": "2", "correct_condition": "countSeniors(details=['7868190130M7522', '5303914400F9211'])==2""#
                )),
                Ok(("sample_0", call, "2")),
            ),
            // No output: the condition gives it. No input either: the condition gives the call.
            (row(&format!(r#""input": "{call}", "correct_condition": "{call} == 2""#)), Ok(("sample_0", call, "2"))),
            (row(&format!(r#""correct_condition": "{call} == 2""#)), Ok(("sample_0", call, "2"))),
            (
                row(
                    r#""input": "countSeniors(details = ['a == b'])", "output": "0", "correct_condition": "countSeniors(details = ['a == b']) == 0""#,
                ),
                Ok(("sample_0", "countSeniors(details = ['a == b'])", "0")),
            ),
            (
                row(&format!(r#""input": "{call}", "output": "2", "correct_condition": "{call} == 3""#)),
                Err("lc.jsonl:1: field `correct_condition`: expects `3`, but the row's output is `2`"),
            ),
            (
                row(&format!(
                    r#""input": "{call}", "output": "2", "correct_condition": "countSeniors(details = ['7868190130M7522 ']) == 2""#
                )),
                Err(
                    "lc.jsonl:1: field `correct_condition`: calls `countSeniors(details = ['7868190130M7522 '])`, but the row's call is `countSeniors(details = ['7868190130M7522', '5303914400F9211'])`",
                ),
            ),
            (
                row(&format!(r#""input": "{call}", "output": "2", "correct_condition": "{call} != 2""#)),
                Err(
                    "lc.jsonl:1: field `correct_condition`: `countSeniors(details = ['7868190130M7522', '5303914400F9211']) != 2` is not `<call> == <output>`",
                ),
            ),
            (
                row(r#""input": "x", "output": "2", "correct_condition": "f(1) <== 2""#),
                Err("lc.jsonl:1: field `correct_condition`: `f(1) <== 2` is not `<call> == <output>`"),
            ),
            (
                row(r#""input": "x", "output": "2", "correct_condition": 5"#),
                Err("lc.jsonl:1: field `correct_condition`: expected a string, found a number"),
            ),
            (row(r#""input": "x""#), Err("lc.jsonl:1: field `output`: missing (required)")),
        ];
        for (text, expected) in cases {
            let report = load_jsonl("lc.jsonl", &text);
            let got = match (report.samples.first(), report.errors.first()) {
                (Some(s), None) => Ok((s.id.as_str(), s.call.as_str(), s.output.as_str())),
                (None, Some(e)) => Err(e.to_string()),
                other => panic!("{text}: {other:?}"),
            };
            assert_eq!(got, expected.map_err(str::to_string), "{text}");
            if let Some(sample) = report.samples.first() {
                assert_eq!(sample.meta.get("question_id"), Some(&Value::from(2727)), "question_id stays in meta");
                assert_eq!(crate::Convention::of(sample), crate::Convention::LeetCode);
            }
        }
    }

    /// CodeCrash's record: `task_id` is the id, `function_call` the call, the rest stays in meta.
    #[test]
    fn codecrash_records_are_read() {
        let cases = [
            (
                r#"{"task_id": "sample_3", "dataset": "crux", "code": "def f(a, b):\n    return a + b", "function_name": "f", "function_call": "f(1, 2)", "output": "3", "test": "assert f(1, 2) == 3"}"#,
                ("sample_3", "f", "f(1, 2)", "1, 2", "crux"),
            ),
            (
                r#"{"task_id": "sample_9", "dataset": "lcb", "code": "def minimumCost(s: str) -> int:\n    return 2", "function_name": "minimumCost", "function_call": "minimumCost(s = '0011')", "output": "2", "test": "assert minimumCost(s = '0011') == 2"}"#,
                ("sample_9", "minimumCost", "minimumCost(s = '0011')", "s = '0011'", "lcb"),
            ),
        ];
        for (row, (id, name, call, input, dataset)) in cases {
            let r = load_jsonl("cc.jsonl", row);
            assert!(r.is_clean(), "{:?}", r.errors);
            let s = &r.samples[0];
            assert_eq!(
                (s.id.as_str(), s.function_name.as_str(), s.call.as_str(), s.input.as_str()),
                (id, name, call, input)
            );
            assert_eq!(s.meta.get("dataset").and_then(Value::as_str), Some(dataset));
            assert!(s.meta.contains_key("test") && !s.meta.contains_key("function_call"), "{:?}", s.meta);
        }
    }

    #[test]
    fn a_question_id_alone_is_the_id_and_stays_in_meta() {
        let r = load_jsonl(
            "lc.jsonl",
            r#"{"question_id": 2727, "function_name": "f", "code": "def f(x):\n    return x", "input": "f(1)", "output": "1"}"#,
        );
        assert!(r.is_clean(), "{:?}", r.errors);
        assert_eq!(
            (r.samples[0].id.as_str(), r.samples[0].meta.get("question_id")),
            ("2727", Some(&Value::from(2727)))
        );
    }

    #[test]
    fn function_name_is_found_when_absent() {
        let cases = [
            ("def helper(x):\n    return x\ndef f(y):\n    return helper(y)", Some("f")),
            ("def a():\n    pass\n\ndef solve(n):\n    return n", Some("solve")),
            ("x = 1", None),
        ];
        for (code, expected) in cases {
            assert_eq!(function_under_test(code).as_deref(), expected, "{code}");
        }
    }

    /// One broken file per kind of problem, each with the exact message a user sees.
    #[test]
    fn bad_rows_are_named_precisely_and_good_rows_kept() {
        let good = r#"{"id": "ok", "code": "def f(x):\n    return x", "input": "1", "output": "1"}"#;
        let cases: &[(&str, &str)] = &[
            ("{\"id\": \"a\", \"code\": ", "d.jsonl:2: not valid JSON at column 20: EOF while parsing a value"),
            ("[1, 2]", "d.jsonl:2: expected a JSON object, found an array"),
            (r#"{"id": "a", "input": "1", "output": "1"}"#, "d.jsonl:2: field `code`: missing (required)"),
            (
                r#"{"id": "a", "code": 5, "input": "1", "output": "1"}"#,
                "d.jsonl:2: field `code`: expected a string, found a number",
            ),
            (r#"{"id": "a", "code": null, "input": "1", "output": "1"}"#, "d.jsonl:2: field `code`: null (required)"),
            (
                r#"{"id": "a", "code": "def f(x): return x", "input": "1"}"#,
                "d.jsonl:2: field `output`: missing (required)",
            ),
            (
                r#"{"id": "a", "code": "def f(x): return x", "output": "1"}"#,
                "d.jsonl:2: field `input`: missing (required unless the row has `call`)",
            ),
            (
                r#"{"code": "def f(x): return x", "input": "1", "output": "1"}"#,
                "d.jsonl:2: field `id`: missing (required)",
            ),
            (
                r#"{"id": ["x"], "code": "def f(x): return x", "input": "1", "output": "1"}"#,
                "d.jsonl:2: field `id`: expected a string or a number, found an array",
            ),
            (
                r#"{"id": "a", "code": "x = 1", "input": "1", "output": "1"}"#,
                "d.jsonl:2: field `code`: defines no top-level function (and the row has no `function_name`)",
            ),
            (
                r#"{"id": "a", "function_name": "not valid", "code": "def f(x): return x", "input": "1", "output": "1"}"#,
                "d.jsonl:2: field `function_name`: `not valid` is not a Python identifier",
            ),
            (r#"{"id": "a", "code": "   ", "input": "1", "output": "1"}"#, "d.jsonl:2: field `code`: is empty"),
            (
                r#"{"id": "ok", "code": "def f(x): return x", "input": "1", "output": "1"}"#,
                "d.jsonl:2: field `id`: duplicate id `ok`",
            ),
        ];
        for (bad, message) in cases {
            let text = format!("{good}\n{bad}\n{}", good.replace("\"ok\"", "\"ok2\""));
            let report = load_jsonl("d.jsonl", &text);
            assert_eq!(errors_of(&text), vec![message.to_string()], "row: {bad}");
            assert_eq!(report.samples.len(), 2, "good rows kept around: {bad}");
        }
    }

    #[test]
    fn empty_and_blank_files() {
        for text in ["", "\n\n  \n"] {
            assert_eq!(
                errors_of(text),
                vec!["d.jsonl:1: the file is empty: expected one JSON object per line".to_string()]
            );
        }
    }

    #[test]
    fn invalid_utf8_costs_one_line_and_bom_crlf_are_accepted() {
        let good = r#"{"id": "1", "code": "def f(x): return x", "input": "1", "output": "1"}"#;
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice(good.as_bytes());
        bytes.extend_from_slice(b"\r\n{\"id\": \"\xff\"}\r\n");
        bytes.extend_from_slice(good.replace("\"1\", \"code\"", "\"2\", \"code\"").as_bytes());
        let r = load_jsonl_bytes("d.jsonl", &bytes);
        assert_eq!(r.samples.len(), 2);
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.errors[0].to_string(), "d.jsonl:2: not valid UTF-8 (byte 9 of the line)");
        assert_eq!(r.rows, 3);
        // Found by tests/formats/prop_rows.rs in crates/formats: a file whose one row is not UTF-8 was
        // also called empty.
        let r = load_jsonl_bytes("d.jsonl", b"\xff{}\n");
        let errors: Vec<String> = r.errors.iter().map(ToString::to_string).collect();
        assert_eq!(errors, ["d.jsonl:1: not valid UTF-8 (byte 1 of the line)"]);
    }

    #[test]
    fn a_50_megabyte_file_loads() {
        let row = |i: usize| {
            format!(
                r#"{{"id": "s{i}", "code": "def f(x):\n    return x * 2  # {}", "input": "{i}", "output": "{}"}}"#,
                "#".repeat(300),
                i * 2
            )
        };
        let mut text = String::new();
        let mut i = 0;
        while text.len() < 50 * 1024 * 1024 {
            text.push_str(&row(i));
            text.push('\n');
            i += 1;
        }
        text.push_str("{oops\n");
        let r = load_jsonl("big.jsonl", &text);
        assert_eq!(r.samples.len(), i);
        assert_eq!(r.errors.len(), 1);
        assert_eq!(r.errors[0].line, i + 1);
    }
}
