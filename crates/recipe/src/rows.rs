//! The filter's two files: kept rows (`{id, method?, code, input, output}`) and rejected rows
//! (`{id, method?, code, input, rule, detail, line?}`), written and read back with per-row errors,
//! so that `build sample` can take what `build filter` (or the page) wrote.

use execbench_core::dataset::RowError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::candidate::Candidate;
use crate::jsonl::read_rows;
use crate::rules::{Rejection, Rule};
use crate::verdict::{Judged, Verdict};

/// A candidate the filter kept, with the output its run computed: the unit that is deduplicated,
/// sampled and exported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kept {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    pub code: String,
    pub input: String,
    /// The `repr` of the value `f(input)` returned.
    pub output: String,
}

impl Kept {
    /// The kept candidate of a verdict, `None` when it was rejected.
    pub fn of(judged: &Judged) -> Option<Kept> {
        match &judged.verdict {
            Verdict::Kept { output } => {
                let c = &judged.candidate;
                Some(Kept {
                    id: c.id.clone(),
                    method: c.method.clone(),
                    code: c.code.clone(),
                    input: c.input.clone(),
                    output: output.clone(),
                })
            }
            Verdict::Rejected(_) => None,
        }
    }

    pub fn candidate(&self) -> Candidate {
        Candidate {
            id: self.id.clone(),
            method: self.method.clone(),
            code: self.code.clone(),
            input: self.input.clone(),
        }
    }

    /// Back to the filter's verdict (a kept file read back counts in the funnel like the filter's).
    pub fn judged(&self) -> Judged {
        Judged { candidate: self.candidate(), verdict: Verdict::Kept { output: self.output.clone() } }
    }
}

/// The kept candidates of `judged`, in order.
pub fn kept_of(judged: &[Judged]) -> Vec<Kept> {
    judged.iter().filter_map(Kept::of).collect()
}

/// One rejected row as written: the rule's stable id, the detail, and the 1-based line of the code
/// the rule blames when it names one.
#[derive(Serialize)]
struct RejectedRow<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<&'a str>,
    code: &'a str,
    input: &'a str,
    rule: &'static str,
    detail: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
}

/// One JSON line (no newline) for a judged candidate: a kept row or a rejected row.
pub fn judged_line(judged: &Judged) -> String {
    let c = &judged.candidate;
    // Serializing these plain structs cannot fail; an empty line would be the symptom.
    match &judged.verdict {
        Verdict::Kept { .. } => Kept::of(judged).and_then(|k| serde_json::to_string(&k).ok()).unwrap_or_default(),
        Verdict::Rejected(r) => {
            let row = RejectedRow {
                id: &c.id,
                method: c.method.as_deref(),
                code: &c.code,
                input: &c.input,
                rule: r.rule.id(),
                detail: &r.detail,
                line: r.line(&c.code),
            };
            serde_json::to_string(&row).unwrap_or_default()
        }
    }
}

/// The kept rows of `judged` as JSONL, in order.
pub fn kept_jsonl(judged: &[Judged]) -> String {
    judged.iter().filter(|j| j.verdict.is_kept()).map(|j| judged_line(j) + "\n").collect()
}

/// The rejected rows of `judged` as JSONL, in order.
pub fn rejected_jsonl(judged: &[Judged]) -> String {
    judged.iter().filter(|j| !j.verdict.is_kept()).map(|j| judged_line(j) + "\n").collect()
}

/// Reads kept rows. Every bad row is named (file:line: field: problem) and skipped.
pub fn read_kept(file: &str, text: &str) -> (Vec<Kept>, Vec<RowError>) {
    read_rows(file, text, |row| {
        let (id, method, code, input) = row.candidate_fields()?;
        let output = row.string("output")?;
        if output.trim().is_empty() {
            return Err(row.problem("output", "is empty: expected a Python literal".to_string()));
        }
        Ok(Kept { id, method, code, input, output })
    })
}

/// Reads rejected rows back as verdicts (the blamed line is not kept: a rejection read back has
/// no byte range). Every bad row is named and skipped; an unknown rule is a bad row.
pub fn read_rejected(file: &str, text: &str) -> (Vec<Judged>, Vec<RowError>) {
    read_rows(file, text, |row| {
        let (id, method, code, input) = row.candidate_fields()?;
        let rule_id = row.string("rule")?;
        let rule = Rule::from_id(&rule_id).ok_or_else(|| row.problem("rule", format!("unknown rule `{rule_id}`")))?;
        let detail = match row.object.get("detail") {
            None | Some(Value::Null) => String::new(),
            Some(_) => row.string("detail")?,
        };
        Ok(Judged {
            candidate: Candidate { id, method, code, input },
            verdict: Verdict::Rejected(Rejection::new(rule, detail)),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(id: &str, method: Option<&str>, code: &str) -> Candidate {
        Candidate { id: id.into(), method: method.map(str::to_string), code: code.into(), input: "'ab', 1".into() }
    }

    #[test]
    fn written_rows_read_back() {
        let code = "def f(s, n):\n    return s[n] / 2\n";
        let judged = vec![
            Judged {
                candidate: candidate("a", Some("str.split"), "def f(s, n):\n    return s[n:]"),
                verdict: Verdict::Kept { output: "'b'".into() },
            },
            Judged {
                candidate: candidate("b", None, code),
                verdict: Verdict::Rejected(Rejection::new(Rule::TrueDivision, "s[n] / 2").at(24, 32)),
            },
            Judged {
                candidate: candidate("c", None, "def f(s, n):\n    return s * n"),
                verdict: Verdict::Kept { output: "'ab'".into() },
            },
        ];
        let kept = kept_jsonl(&judged);
        assert_eq!(
            kept.lines().next(),
            Some(
                r#"{"id":"a","method":"str.split","code":"def f(s, n):\n    return s[n:]","input":"'ab', 1","output":"'b'"}"#
            )
        );
        let rejected = rejected_jsonl(&judged);
        assert_eq!(
            rejected,
            format!(
                "{{\"id\":\"b\",\"code\":{},\"input\":\"'ab', 1\",\"rule\":\"true_division\",\"detail\":\"s[n] / 2\",\"line\":2}}\n",
                serde_json::to_string(code).unwrap()
            )
        );
        let (rows, errors) = read_kept("k.jsonl", &kept);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(rows, kept_of(&judged));
        assert_eq!(rows[0].judged(), judged[0]);
        assert_eq!(rows.iter().map(|k| k.id.as_str()).collect::<Vec<_>>(), ["a", "c"]);
        let (back, errors) = read_rejected("r.jsonl", &rejected);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].candidate, judged[1].candidate);
        assert_eq!(back[0].verdict, Verdict::Rejected(Rejection::new(Rule::TrueDivision, "s[n] / 2")));
    }

    #[test]
    fn bad_rows_are_named() {
        let ok = r#"{"id":"a","code":"def f(x): return x","input":"1","output":"1"}"#;
        // (file text, what read_kept says, what read_rejected says) per bad line 2.
        let cases: &[(&str, &str, &str)] = &[
            (
                "[1]",
                "k:2: a row must be a JSON object, found an array",
                "k:2: a row must be a JSON object, found an array",
            ),
            (r#"{"id":"b","code":"x","input":"1"}"#, "k:2: field `output`: missing", "k:2: field `rule`: missing"),
            (
                r#"{"id":"b","code":"x","input":"1","output":"","rule":"nope"}"#,
                "k:2: field `output`: is empty: expected a Python literal",
                "k:2: field `rule`: unknown rule `nope`",
            ),
            (
                r#"{"id":"b","method":3,"code":"x","input":"1","output":"1","rule":"float"}"#,
                "k:2: field `method`: must be a string, found a number",
                "k:2: field `method`: must be a string, found a number",
            ),
            (
                r#"{"code":"x","input":"1","output":"1","rule":"float"}"#,
                "k:2: field `id`: missing",
                "k:2: field `id`: missing",
            ),
        ];
        for (bad, kept_says, rejected_says) in cases {
            let text = format!("{ok}\n{bad}\n");
            let (rows, errors) = read_kept("k", &text);
            assert_eq!(
                (rows.len(), errors.iter().map(|e| e.to_string()).collect::<Vec<_>>()),
                (1, vec![kept_says.to_string()]),
                "{bad}"
            );
            let (_, errors) = read_rejected("k", &text);
            let said: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            // Line 1 has no rule: read_rejected names it too.
            assert_eq!(said.last().map(String::as_str), Some(*rejected_says), "{bad}");
            assert_eq!(said[0], "k:1: field `rule`: missing");
        }
        let (_, errors) = read_kept("k", "{\"id\":\n");
        assert!(errors[0].to_string().starts_with("k:1: not JSON"), "{errors:?}");
    }
}
