//! CodeCrash's perturbed datasets, `{crux|lcb}_{PERT}_{input|output}.jsonl`, whose records are
//! `task_id, dataset, code, function_name, function_call, output, test`.
//!
//! The rows themselves are read by the JSON Lines loader (`task_id` is the id, `function_call` the
//! call). This module adds what the file name says, so that a run over a perturbed file pairs
//! with a vanilla run by original id. Meta keys (read by Compare; see docs/import.md):
//! - `perturbation`: the kind, `VAN` for the original programs, else `REN RTF GBC PSC_ALL MCC MPS
//!   MHC` (older files' `ALL` is `PSC_ALL`, `MDC` is `MCC`); a row's own `perturbation` (execbench's
//!   CodeCrash-layout export) wins over the file name;
//! - `task`: `input` or `output`, the prediction the file was made for;
//! - `original_id`: the id of the unperturbed sample (CodeCrash keeps the source dataset's id in
//!   `task_id`, so it is the row's id);
//! - `dataset`: `crux` or `lcb` (the row's own field, or the file name's when the row has none).
//!
//! The row's `test` (`assert {function_call} == {output}`) must agree with its call and output.

use execbench_core::dataset::squeezed;
use execbench_core::{FieldError, LoadReport, Sample, load_jsonl_with};
use serde_json::{Map, Value};

/// The kinds CodeCrash publishes, `VAN` being the original programs.
pub const PERTURBATIONS: [&str; 8] = ["VAN", "REN", "RTF", "GBC", "PSC_ALL", "MCC", "MPS", "MHC"];

/// What a CodeCrash dataset file's name says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeCrashName {
    /// `crux` or `lcb`.
    pub dataset: String,
    /// One of [`PERTURBATIONS`].
    pub perturbation: String,
    /// `input` or `output`.
    pub task: String,
}

/// Reads `{crux|lcb}_{PERT}_{input|output}.jsonl` from the end of a path; `None` when the name
/// does not follow the pattern.
pub fn parse_file_name(path: &str) -> Option<CodeCrashName> {
    let name = path.rsplit(['/', '\\']).next()?;
    let stem = name.strip_suffix(".jsonl").or_else(|| name.strip_suffix(".json"))?;
    let (dataset, rest) = stem.split_once('_')?;
    let (kind, task) = rest.rsplit_once('_')?;
    if !matches!(dataset, "crux" | "lcb") || !matches!(task, "input" | "output") {
        return None;
    }
    Some(CodeCrashName {
        dataset: dataset.to_string(),
        perturbation: canonical_kind(kind)?.to_string(),
        task: task.to_string(),
    })
}

/// A kind as CodeCrash spells it today; older names mapped, anything else `None`.
pub fn canonical_kind(kind: &str) -> Option<&'static str> {
    let upper = kind.to_ascii_uppercase().replace('-', "_");
    match upper.as_str() {
        "ALL" => Some("PSC_ALL"),
        "MDC" => Some("MCC"),
        other => PERTURBATIONS.into_iter().find(|k| *k == other),
    }
}

/// Whether a row is a CodeCrash record (its fields, whatever the file is called).
pub fn is_codecrash_row(row: &Map<String, Value>) -> bool {
    row.contains_key("task_id") && row.contains_key("function_call")
}

/// Loads a CodeCrash dataset file: the JSON Lines rules, the `test` check and the meta keys.
pub fn load_codecrash(file: &str, bytes: &[u8]) -> LoadReport {
    load_jsonl_with(file, bytes, row_converter(file))
}

/// A CodeCrash row into a sample, checked against what the file's name says.
pub(crate) fn row_converter(file: &str) -> impl FnMut(Map<String, Value>) -> Result<Sample, FieldError> + use<> {
    let name = parse_file_name(file);
    move |row| sample_from_record(row, name.as_ref())
}

fn sample_from_record(mut row: Map<String, Value>, name: Option<&CodeCrashName>) -> Result<Sample, FieldError> {
    if let (Some(name), Some(Value::String(dataset))) = (name, row.get("dataset"))
        && *dataset != name.dataset
    {
        return Err(("dataset", format!("is `{dataset}`, but the file name says `{}`", name.dataset)));
    }
    let test = match row.get("test") {
        None | Some(Value::Null) => None,
        Some(Value::String(test)) => Some(test.clone()),
        Some(other) => {
            return Err(("test", format!("expected a string, found {}", execbench_core::dataset::json_type(other))));
        }
    };
    let perturbation = match row.get("perturbation") {
        Some(Value::String(kind)) => Some(canonical_kind(kind).ok_or((
            "perturbation",
            format!("`{kind}` is not a CodeCrash perturbation (known: {})", PERTURBATIONS.join(", ")),
        ))?),
        _ => name.map(|n| n.perturbation.as_str()).and_then(canonical_kind),
    };
    if let (Some(name), false) = (name, row.contains_key("dataset")) {
        row.insert("dataset".to_string(), Value::from(name.dataset.clone()));
    }
    let mut sample = execbench_core::sample_from_row(row)?;
    if let Some(test) = test {
        let expected = format!("assert {} == {}", sample.call, sample.output);
        if squeezed(&test) != squeezed(&expected) {
            return Err(("test", format!("`{test}` does not agree with the row's call and output (`{expected}`)")));
        }
    }
    if let Some(kind) = perturbation {
        sample.meta.insert("perturbation".to_string(), Value::from(kind));
    }
    if let Some(name) = name {
        sample.meta.insert("task".to_string(), Value::from(name.task.clone()));
    }
    sample.meta.insert("original_id".to_string(), Value::from(sample.id.clone()));
    Ok(sample)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        let name = |d: &str, p: &str, t: &str| {
            Some(CodeCrashName { dataset: d.into(), perturbation: p.into(), task: t.into() })
        };
        let cases = [
            ("crux_REN_output.jsonl", name("crux", "REN", "output")),
            ("data/lcb_PSC_ALL_input.jsonl", name("lcb", "PSC_ALL", "input")),
            ("C:\\d\\crux_VAN_input.jsonl", name("crux", "VAN", "input")),
            ("crux_ALL_output.jsonl", name("crux", "PSC_ALL", "output")),
            ("crux_MDC_output.jsonl", name("crux", "MCC", "output")),
            ("crux_psc-all_output.jsonl", name("crux", "PSC_ALL", "output")),
            ("crux_XYZ_output.jsonl", None),
            ("humaneval_REN_output.jsonl", None),
            ("crux_REN_both.jsonl", None),
            ("crux_REN_output.parquet", None),
            ("cruxeval.jsonl", None),
        ];
        for (path, expected) in cases {
            assert_eq!(parse_file_name(path), expected, "{path}");
        }
    }
}
