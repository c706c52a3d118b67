//! What a published evaluation file says about its own answers, and how that compares with
//! execbench's re-scoring. Files read: CRUXEval's leaderboard JSON (`raw_generations`,
//! `raw_scored_generations`, `pass_at_1` and `pass_at_5` in percent) and CodeCrash's `_eval.json`
//! (the same keys, `pass_at_1` as a fraction, no pass@5). The stored verdicts are shown next to
//! execbench's, never trusted in its place: CodeCrash scores a missing answer as `None`, which
//! passes when the output is `None`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::import_error::ImportError;
use crate::passk::{DatasetScore, dataset_score, pass_at_k};
use crate::report::SampleResult;
use crate::score::Verdict;

/// The verdicts and figures a file carries. Kept with a re-scored run (its manifest's `stored`),
/// so the comparison is shown again whenever the run is opened.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StoredScores {
    /// Per sample id, the stored verdict of each answer, in answer order.
    pub verdicts: BTreeMap<String, Vec<bool>>,
    /// The file's own figures, as percentages (a fraction is converted, see [`as_percent`]).
    pub pass_at_1: Option<f64>,
    pub pass_at_5: Option<f64>,
}

/// Reads `raw_scored_generations`, `pass_at_1` and `pass_at_5` from an evaluation file's top-level
/// object; problems are pushed to `errors` and cost only their entry.
pub fn read_stored(file: &str, object: &Map<String, Value>, errors: &mut Vec<ImportError>) -> StoredScores {
    let error =
        |field: String, message: String| ImportError { file: file.into(), line: None, field: Some(field), message };
    let mut stored = StoredScores::default();
    match object.get("raw_scored_generations") {
        None | Some(Value::Null) => {}
        Some(Value::Object(scored)) => {
            for (id, list) in scored {
                let verdicts = match list {
                    Value::Array(items) => items.iter().map(Value::as_bool).collect::<Option<Vec<bool>>>(),
                    _ => None,
                };
                match verdicts {
                    Some(verdicts) => {
                        stored.verdicts.insert(id.clone(), verdicts);
                    }
                    None => errors
                        .push(error(format!("raw_scored_generations.{id}"), "expected a list of true/false".into())),
                }
            }
        }
        Some(_) => {
            errors.push(error("raw_scored_generations".into(), "expected an object of lists of true/false".into()))
        }
    }
    let from_verdicts = |k: usize| {
        let score =
            dataset_score(stored.verdicts.values().map(|v| pass_at_k(v.len(), v.iter().filter(|b| **b).count(), k)));
        score.percent
    };
    for (key, k) in [("pass_at_1", 1), ("pass_at_5", 5)] {
        let figure = match object.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => n.as_f64().map(|value| as_percent(value, from_verdicts(k))),
            Some(_) => {
                errors.push(error(key.into(), "expected a number".into()));
                None
            }
        };
        if k == 1 {
            stored.pass_at_1 = figure;
        } else {
            stored.pass_at_5 = figure;
        }
    }
    stored
}

/// A stored figure as a percentage. CRUXEval writes percents, CodeCrash fractions: the verdicts'
/// own pass@k tells which when the file has them; without them a value of at most 1 is a fraction.
pub fn as_percent(value: f64, from_verdicts: Option<f64>) -> f64 {
    match from_verdicts {
        Some(percent) if (value * 100.0 - percent).abs() < (value - percent).abs() => value * 100.0,
        Some(_) => value,
        None if value <= 1.0 => value * 100.0,
        None => value,
    }
}

/// One answer that the file and execbench judged differently.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    pub id: String,
    /// 0-based, in the file's answer order.
    pub answer: usize,
    pub stored: bool,
    /// execbench's verdict label (`correct`, `wrong_value`, ...).
    pub execbench: String,
    /// execbench's verdict in full: why it judged the answer so (`wrong value: got 3, expected 4`).
    pub reason: String,
}

/// The file's verdicts over the samples execbench re-scored, beside execbench's.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredComparison {
    /// From the stored verdicts of the re-scored samples (so both figures cover the same ones).
    pub pass_at_1: DatasetScore,
    pub pass_at_5: DatasetScore,
    /// Re-scored samples the file has no verdicts for.
    pub without_verdicts: Vec<String>,
    pub disagreements: Vec<Disagreement>,
}

/// Compares the stored verdicts with one re-scoring (a `generations::Rescore`, which this module
/// does not name: generations reads files with it); dropped answers (compatible mode) are left
/// out of the disagreements, as they are out of execbench's figures.
pub fn compare_stored(stored: &StoredScores, rescore: impl AsRef<[SampleResult]>) -> StoredComparison {
    compare_stored_results(stored, rescore.as_ref())
}

/// [`compare_stored`] over scored results of one mode (a stored run's records, in the page).
pub fn compare_stored_results(stored: &StoredScores, results: &[SampleResult]) -> StoredComparison {
    let mut without_verdicts = Vec::new();
    let mut disagreements = Vec::new();
    let mut per_sample = Vec::new();
    for result in results {
        let Some(verdicts) = stored.verdicts.get(&result.id) else {
            without_verdicts.push(result.id.clone());
            continue;
        };
        per_sample.push(verdicts);
        for (answer, (record, stored_verdict)) in result.answers.iter().zip(verdicts).enumerate() {
            let dropped = matches!(record.verdict, Verdict::Dropped { .. });
            if !dropped && record.verdict.is_correct() != *stored_verdict {
                disagreements.push(Disagreement {
                    id: result.id.clone(),
                    answer,
                    stored: *stored_verdict,
                    execbench: record.verdict.label().to_string(),
                    reason: record.verdict.to_string(),
                });
            }
        }
    }
    let figure =
        |k: usize| dataset_score(per_sample.iter().map(|v| pass_at_k(v.len(), v.iter().filter(|b| **b).count(), k)));
    StoredComparison { pass_at_1: figure(1), pass_at_5: figure(5), without_verdicts, disagreements }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_in_percent_whatever_the_file_wrote() {
        // (stored value, pass@1 of the file's verdicts, percent)
        let cases = [
            (45.5, Some(45.5), 45.5),
            (0.455, Some(45.5), 45.5),
            (0.5, Some(0.5), 0.5),
            (0.25, None, 25.0),
            (80.0, None, 80.0),
            (1.0, None, 100.0),
        ];
        for (value, from_verdicts, percent) in cases {
            assert_eq!(as_percent(value, from_verdicts), percent, "{value} {from_verdicts:?}");
        }
    }
}
