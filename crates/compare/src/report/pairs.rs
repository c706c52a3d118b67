//! The per-sample pairing as JSON Lines: one line per (pair, sample), in table order then the
//! vanilla run's dataset order, fields in declaration order.

use serde::Serialize;

use crate::table::Comparison;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairLine<'a> {
    pub mode: &'a str,
    pub model: &'a str,
    pub dataset: &'a str,
    pub task: &'a str,
    pub perturbation: String,
    pub vanilla_run: &'a str,
    pub perturbed_run: &'a str,
    pub original_id: &'a str,
    /// The first counted answer is right (McNemar's outcome), in each run.
    pub vanilla_right: bool,
    pub perturbed_right: bool,
}

pub fn pairs_jsonl(comparison: &Comparison) -> String {
    let mut out = String::new();
    for pair in &comparison.pairs {
        let (vanilla, perturbed) = (&comparison.runs[pair.vanilla], &comparison.runs[pair.perturbed]);
        let dataset =
            perturbed.column.map_or(perturbed.identity.dataset.as_str(), |c| comparison.columns[c].dataset.as_str());
        for sample in &pair.samples {
            let line = PairLine {
                mode: pair.mode.label(),
                model: &perturbed.identity.model,
                dataset,
                task: perturbed.identity.task.label(),
                perturbation: perturbed.identity.perturbation.label(),
                vanilla_run: &vanilla.run_id,
                perturbed_run: &perturbed.run_id,
                original_id: &sample.original_id,
                vanilla_right: sample.vanilla_right,
                perturbed_right: sample.perturbed_right,
            };
            // Plain strings and booleans always serialize.
            out.push_str(&serde_json::to_string(&line).unwrap_or_default());
            out.push('\n');
        }
    }
    out
}
