//! The benchmark file in CRUXEval's row shape: `{"id": "sample_0", "code", "input", "output"}`,
//! ids renumbered `sample_0..` in the sampled order, plus `candidate_id` (the candidate's own id)
//! and `method` (when known), which the dataset loader keeps as extra fields.

use execbench_core::dataset::load_jsonl;
use execbench_core::provenance::dataset_hash;
use serde::Serialize;

use crate::rows::Kept;

#[derive(Serialize)]
struct BenchRow<'a> {
    id: String,
    code: &'a str,
    input: &'a str,
    output: &'a str,
    candidate_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<&'a str>,
}

/// The rows as JSON Lines, one per row, each ended by a newline.
pub fn export_jsonl(rows: &[Kept]) -> String {
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        let line = BenchRow {
            id: format!("sample_{i}"),
            code: &row.code,
            input: &row.input,
            output: &row.output,
            candidate_id: &row.id,
            method: row.method.as_deref(),
        };
        // Serializing a plain struct of strings cannot fail; an empty line would be the symptom.
        out.push_str(&serde_json::to_string(&line).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// Loads an exported file as execbench loads any dataset and returns its content hash
/// (`execbench_core::dataset_hash`), or every problem the loader found, each naming the row's
/// export id and its candidate.
pub fn check_export(jsonl: &str, rows: &[Kept]) -> Result<String, Vec<String>> {
    let report = load_jsonl("benchmark", jsonl);
    if report.errors.is_empty() {
        return Ok(dataset_hash(&report.samples));
    }
    Err(report
        .errors
        .iter()
        .map(|e| {
            let what = match &e.field {
                Some(field) => format!("field `{field}`: {}", e.message),
                None => e.message.clone(),
            };
            match rows.get(e.line.wrapping_sub(1)) {
                Some(row) => format!("exported row sample_{} (candidate `{}`): {what}", e.line - 1, row.id),
                None => format!("the exported file: {what}"),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(id: &str, method: Option<&str>, code: &str, input: &str, output: &str) -> Kept {
        Kept {
            id: id.into(),
            method: method.map(str::to_string),
            code: code.into(),
            input: input.into(),
            output: output.into(),
        }
    }

    #[test]
    fn the_export_loads_back_as_the_same_rows() {
        let rows = vec![
            kept("c-17", Some("str.split"), "def f(s):\n    return s.split(',')", "'a,b'", "['a', 'b']"),
            kept("c-3", None, "def f(a, b):\n    return a + b", "[1], [2]", "[1, 2]"),
            kept("c-9", Some("dict.get"), "def f(d, k):\n    return d.get(k, \"none\")", "{'x': 1}, 'y'", "'none'"),
        ];
        let text = export_jsonl(&rows);
        assert_eq!(
            text.lines().next(),
            Some(
                r#"{"id":"sample_0","code":"def f(s):\n    return s.split(',')","input":"'a,b'","output":"['a', 'b']","candidate_id":"c-17","method":"str.split"}"#
            )
        );
        let report = load_jsonl("bench.jsonl", &text);
        assert!(report.errors.is_empty(), "{:?}", report.errors);
        assert_eq!(report.samples.len(), rows.len());
        for (i, (sample, row)) in report.samples.iter().zip(&rows).enumerate() {
            assert_eq!(sample.id, format!("sample_{i}"));
            assert_eq!(
                (sample.code.as_str(), sample.input.as_str(), sample.output.as_str()),
                (row.code.as_str(), row.input.as_str(), row.output.as_str())
            );
            assert_eq!(sample.call, format!("f({})", row.input));
            assert_eq!(sample.function_name, "f");
            assert_eq!(sample.meta.get("candidate_id").and_then(|v| v.as_str()), Some(row.id.as_str()));
            assert_eq!(sample.meta.get("method").and_then(|v| v.as_str()), row.method.as_deref());
        }
        assert_eq!(check_export(&text, &rows), Ok(dataset_hash(&report.samples)));
        // The hash follows the content.
        let mut changed = rows.clone();
        changed[1].output = "[2, 1]".into();
        assert_ne!(check_export(&export_jsonl(&changed), &changed), check_export(&text, &rows));
    }

    #[test]
    fn rows_the_loader_refuses_are_named() {
        let rows =
            vec![kept("good", None, "def f(x):\n    return x", "1", "1"), kept("nodef", None, "x = 1", "1", "1")];
        let errors = check_export(&export_jsonl(&rows), &rows).unwrap_err();
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0]
                .starts_with("exported row sample_1 (candidate `nodef`): field `code`: defines no top-level function"),
            "{errors:?}"
        );
        assert_eq!(
            check_export("", &[]).unwrap_err()[0],
            "the exported file: the file is empty: expected one JSON object per line"
        );
    }
}
