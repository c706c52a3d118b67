//! A candidate: one function and one input, the unit the filter judges. A generated response with
//! five test inputs becomes five candidates sharing their code.

use execbench_core::dataset::RowError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One function and one call's arguments, not yet judged. The output is never given: the filter
/// computes it by running the code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    pub id: String,
    /// The standard-library method it was generated for (`str.split`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    pub code: String,
    /// The call's arguments as Python source, as CRUXEval writes them: `'abc', 3`.
    pub input: String,
}

/// Reads candidate rows (`{id, code, input}`, `method` optional) from JSONL. Every bad row is
/// named (file:line: field: problem) and skipped; the others are kept.
pub fn read_candidates(file: &str, text: &str) -> (Vec<Candidate>, Vec<RowError>) {
    let mut candidates = Vec::new();
    let mut errors = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let problem = |field: &str, message: String| RowError { file: file.to_string(), line, field: (!field.is_empty()).then(|| field.to_string()), message };
        let value: Value = match serde_json::from_str(raw) {
            Ok(v) => v,
            Err(e) => {
                errors.push(problem("", format!("not JSON: {e}")));
                continue;
            }
        };
        let Some(object) = value.as_object() else {
            errors.push(problem("", format!("a row must be a JSON object, found {}", execbench_core::dataset::json_type(&value))));
            continue;
        };
        let text_field = |name: &str| -> Result<String, RowError> {
            match object.get(name) {
                Some(Value::String(s)) => Ok(s.clone()),
                Some(Value::Number(n)) if name == "id" => Ok(n.to_string()),
                Some(other) => Err(problem(name, format!("must be a string, found {}", execbench_core::dataset::json_type(other)))),
                None => Err(problem(name, "missing".to_string())),
            }
        };
        let row = (|| {
            let id = text_field("id")?;
            let code = text_field("code")?;
            let input = text_field("input")?;
            let method = match object.get("method") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(other) => return Err(problem("method", format!("must be a string, found {}", execbench_core::dataset::json_type(other)))),
            };
            Ok(Candidate { id, method, code, input })
        })();
        match row {
            Ok(c) => candidates.push(c),
            Err(e) => errors.push(e),
        }
    }
    (candidates, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_read_and_bad_rows_named() {
        let text = "{\"id\":\"a\",\"code\":\"def f(x):\\n    return x\",\"input\":\"1\",\"method\":\"str.split\"}\n\n[1]\n{\"id\":\"b\",\"code\":3,\"input\":\"1\"}\n{\"id\":7,\"code\":\"def f(x): return x\",\"input\":\"2\"}\nnope\n";
        let (rows, errors) = read_candidates("c.jsonl", text);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].method.as_deref(), Some("str.split"));
        assert_eq!(rows[1].id, "7");
        let named: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(named.len(), 3);
        assert!(named[0].starts_with("c.jsonl:3: a row must be a JSON object"), "{named:?}");
        assert_eq!(named[1], "c.jsonl:4: field `code`: must be a string, found a number");
        assert!(named[2].starts_with("c.jsonl:6: not JSON"), "{named:?}");
    }
}
