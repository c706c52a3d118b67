//! A candidate: one function and one input, the unit the filter judges. A generated response with
//! five test inputs becomes five candidates sharing their code.

use execbench_core::dataset::RowError;
use serde::{Deserialize, Serialize};

use crate::jsonl::read_rows;

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
    read_rows(file, text, |row| {
        let (id, method, code, input) = row.candidate_fields()?;
        Ok(Candidate { id, method, code, input })
    })
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
