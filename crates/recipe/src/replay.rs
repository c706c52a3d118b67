//! Generations as JSONL: one row per answered (or failed) request, `{id, method, response}` or
//! `{id, method, error}`, with the tokens it took when a provider said. The generation loop's
//! output is this file, a resumed run skips the ids it finds answered, and a file of them can be
//! replayed as a source (no model asked). Later rows of an id win (a retried request is appended).

use std::collections::{BTreeMap, BTreeSet};

use execbench_core::dataset::{RowError, json_type};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::jsonl::read_rows;
use crate::methods::is_known;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GenerationRow {
    pub id: String,
    pub method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// Why the request got no response (a provider failure): it is asked again on resume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_tokens: Option<u64>,
}

impl GenerationRow {
    pub fn answered(id: &str, method: &str, response: &str) -> Self {
        GenerationRow {
            id: id.into(),
            method: method.into(),
            response: Some(response.into()),
            error: None,
            prompt_tokens: None,
            completion_tokens: None,
        }
    }

    pub fn failed(id: &str, method: &str, error: &str) -> Self {
        GenerationRow {
            id: id.into(),
            method: method.into(),
            response: None,
            error: Some(error.into()),
            prompt_tokens: None,
            completion_tokens: None,
        }
    }

    /// One JSONL line (with its line end).
    pub fn line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default() + "\n"
    }
}

/// Reads generation rows. Every bad row is named (file:line: field: problem) and skipped.
pub fn read_generations(file: &str, text: &str) -> (Vec<GenerationRow>, Vec<RowError>) {
    read_rows(file, text, |row| {
        let count = |name: &str| match row.object.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .map(Some)
                .ok_or_else(|| row.problem(name, format!("must be a whole number, found {}", json_type(v)))),
        };
        let id = row.string("id")?;
        let method = row.string("method")?;
        if !is_known(&method) {
            return Err(row.problem(
                "method",
                format!("`{method}` is not one of the recipe's methods (type.name, e.g. str.split)"),
            ));
        }
        let response = row.optional_string("response")?;
        let error = row.optional_string("error")?;
        if response.is_none() && error.is_none() {
            return Err(row.problem("response", "missing (a row needs a response or an error)".to_string()));
        }
        Ok(GenerationRow {
            id,
            method,
            response,
            error,
            prompt_tokens: count("prompt_tokens")?,
            completion_tokens: count("completion_tokens")?,
        })
    })
}

/// The last row of every id.
pub fn latest_by_id(rows: &[GenerationRow]) -> BTreeMap<String, GenerationRow> {
    rows.iter().map(|r| (r.id.clone(), r.clone())).collect()
}

/// Ids whose last row holds a response: a resumed run does not ask them again.
pub fn answered_ids(rows: &[GenerationRow]) -> BTreeSet<String> {
    latest_by_id(rows).into_values().filter(|r| r.response.is_some()).map(|r| r.id).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_read_and_bad_rows_named() {
        // (line, expected error or None)
        let cases: Vec<(&str, Option<&str>)> = vec![
            (r#"{"id":"str.split-1","method":"str.split","response":"def f(x): ..."}"#, None),
            (r#"{"id":"str.split-2","method":"str.split","error":"rate limited","prompt_tokens":null}"#, None),
            (r#"{"id":"a","method":"list.sort","response":"x","prompt_tokens":12,"completion_tokens":30}"#, None),
            ("{bad", Some("g.jsonl:1: not JSON")),
            ("3", Some("g.jsonl:1: a row must be a JSON object, found a number")),
            (r#"{"method":"str.split","response":"x"}"#, Some("g.jsonl:1: field `id`: missing")),
            (
                r#"{"id":"a","method":"str.splt","response":"x"}"#,
                Some("g.jsonl:1: field `method`: `str.splt` is not one of the recipe's methods"),
            ),
            (
                r#"{"id":"a","method":"str.split","response":5}"#,
                Some("g.jsonl:1: field `response`: must be a string, found a number"),
            ),
            (
                r#"{"id":"a","method":"str.split"}"#,
                Some("g.jsonl:1: field `response`: missing (a row needs a response or an error)"),
            ),
            (
                r#"{"id":"a","method":"str.split","response":"x","completion_tokens":-1}"#,
                Some("g.jsonl:1: field `completion_tokens`: must be a whole number"),
            ),
        ];
        for (line, want) in cases {
            let (rows, errors) = read_generations("g.jsonl", line);
            match want {
                None => {
                    assert!(errors.is_empty() && rows.len() == 1, "{line}: {errors:?}");
                    assert_eq!(read_generations("g.jsonl", &rows[0].line()).0, rows, "{line}: the row round-trips");
                }
                Some(start) => {
                    assert!(rows.is_empty(), "{line}");
                    assert!(errors.len() == 1 && errors[0].to_string().starts_with(start), "{line}: {errors:?}");
                }
            }
        }
    }

    #[test]
    fn the_last_row_of_an_id_decides_whether_it_is_answered() {
        let text = [
            GenerationRow::failed("a", "str.split", "timeout"),
            GenerationRow::answered("b", "str.split", "x"),
            GenerationRow::answered("c", "str.split", "x"),
            GenerationRow::answered("a", "str.split", "y"),
            GenerationRow::failed("c", "str.split", "500"),
        ]
        .iter()
        .map(GenerationRow::line)
        .collect::<String>();
        let (rows, errors) = read_generations("g.jsonl", &text);
        assert!(errors.is_empty());
        assert_eq!(answered_ids(&rows).into_iter().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(latest_by_id(&rows)["a"].response.as_deref(), Some("y"));
    }
}
