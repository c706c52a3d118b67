//! Flipped samples: for two runs over the same original samples, those whose first answer is right
//! in one run and wrong in the other, with both stored results (prompt, raw responses, extracted
//! answers, verdicts) so a view can put them side by side.

use execbench_eval::report::SampleResult;
use execbench_eval::score::Mode;
use serde::Serialize;

use crate::identity::original_id;
use crate::run::{RunInput, SampleOutcome};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FlipDirection {
    /// Right in the first (usually vanilla) run, wrong in the second.
    RightToWrong,
    WrongToRight,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Flip {
    pub original_id: String,
    pub direction: FlipDirection,
    pub first: SampleResult,
    pub second: SampleResult,
}

/// Every sample both runs scored in `mode` whose first counted answer is right in one and wrong in
/// the other, in the first run's dataset order.
pub fn flipped_samples(first: &RunInput, second: &RunInput, mode: Mode) -> Vec<Flip> {
    let second_by_original: std::collections::BTreeMap<&str, &str> =
        second.records.keys().map(|id| (original_id(id), id.as_str())).collect();
    let mut flips: Vec<(usize, Flip)> = Vec::new();
    for (id, record) in &first.records {
        let Some(second_id) = second_by_original.get(original_id(id)) else { continue };
        let (Some(a), Some(b)) = (first.result(id, mode), second.result(second_id, mode)) else { continue };
        let (Some(a_outcome), Some(b_outcome)) = (SampleOutcome::of(a), SampleOutcome::of(b)) else { continue };
        if a_outcome.first_right == b_outcome.first_right {
            continue;
        }
        let direction = if a_outcome.first_right { FlipDirection::RightToWrong } else { FlipDirection::WrongToRight };
        flips.push((
            record.index,
            Flip { original_id: original_id(id).to_string(), direction, first: a.clone(), second: b.clone() },
        ));
    }
    flips.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.original_id.cmp(&b.1.original_id)));
    flips.into_iter().map(|(_, f)| f).collect()
}
