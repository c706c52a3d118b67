//! One reader for the crate's JSONL files (candidates, kept and rejected rows, generations, the
//! example pool): blank lines skipped, every bad line named (file:line: field: problem) and
//! skipped, the others read by the caller's function.

use execbench_core::dataset::{RowError, json_type};
use serde_json::{Map, Value};

pub(crate) struct Row<'a> {
    file: &'a str,
    line: usize,
    pub(crate) object: &'a Map<String, Value>,
}

impl Row<'_> {
    pub(crate) fn problem(&self, field: &str, message: String) -> RowError {
        RowError {
            file: self.file.to_string(),
            line: self.line,
            field: (!field.is_empty()).then(|| field.to_string()),
            message,
        }
    }

    pub(crate) fn string(&self, name: &str) -> Result<String, RowError> {
        match self.object.get(name) {
            Some(Value::String(s)) => Ok(s.clone()),
            Some(Value::Number(n)) if name == "id" => Ok(n.to_string()),
            Some(other) => Err(self.problem(name, format!("must be a string, found {}", json_type(other)))),
            None => Err(self.problem(name, "missing".to_string())),
        }
    }

    /// A string field that may be missing or null.
    pub(crate) fn optional_string(&self, name: &str) -> Result<Option<String>, RowError> {
        match self.object.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(_) => self.string(name).map(Some),
        }
    }

    pub(crate) fn candidate_fields(&self) -> Result<(String, Option<String>, String, String), RowError> {
        let id = self.string("id")?;
        let method = self.optional_string("method")?;
        Ok((id, method, self.string("code")?, self.string("input")?))
    }
}

pub(crate) fn read_rows<T>(
    file: &str,
    text: &str,
    mut read: impl FnMut(&Row) -> Result<T, RowError>,
) -> (Vec<T>, Vec<RowError>) {
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_str(raw) {
            Ok(v) => v,
            Err(e) => {
                errors.push(RowError { file: file.to_string(), line, field: None, message: format!("not JSON: {e}") });
                continue;
            }
        };
        let Some(object) = value.as_object() else {
            errors.push(RowError {
                file: file.to_string(),
                line,
                field: None,
                message: format!("a row must be a JSON object, found {}", json_type(&value)),
            });
            continue;
        };
        match read(&Row { file, line, object }) {
            Ok(row) => rows.push(row),
            Err(e) => errors.push(e),
        }
    }
    (rows, errors)
}
