//! A perturbed run against its vanilla run, sample by sample: the drop of pass@1 over the samples
//! both scored, and McNemar's test on the first answers.

use execbench_eval::score::Mode;
use serde::Serialize;

use crate::identity::original_id;
use crate::run::RunInput;
use crate::stats::{McNemar, mcnemar, mean};

/// One original sample scored in both runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PairedSample {
    pub original_id: String,
    pub vanilla_right: bool,
    pub perturbed_right: bool,
    pub vanilla_pass_at_1: f64,
    pub perturbed_pass_at_1: f64,
}

/// Percentages and percentage points, over the paired samples only.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Drop {
    pub paired: usize,
    pub vanilla_pass_at_1: f64,
    pub perturbed_pass_at_1: f64,
    /// Vanilla minus perturbed, in points: positive when the perturbation hurts.
    pub absolute: f64,
    /// `absolute` as a percentage of the vanilla figure; `None` when that is 0.
    pub relative: Option<f64>,
    /// b: right in the vanilla run only; c: right in the perturbed run only.
    pub mcnemar: McNemar,
}

/// The samples of `original_ids` that both runs scored in `mode`, in the vanilla run's dataset
/// order.
pub fn paired_samples(
    vanilla: &RunInput,
    perturbed: &RunInput,
    original_ids: &[String],
    mode: Mode,
) -> Vec<PairedSample> {
    let vanilla_outcomes = vanilla.outcomes(mode);
    let perturbed_by_original: std::collections::BTreeMap<&str, _> =
        perturbed.outcomes(mode).into_iter().map(|(id, o)| (original_id(id), o)).collect();
    let mut samples: Vec<(usize, PairedSample)> = original_ids
        .iter()
        .filter_map(|id| {
            let (v, p) = (vanilla_outcomes.get(id.as_str())?, perturbed_by_original.get(id.as_str())?);
            let position = vanilla.records.get(id).map_or(usize::MAX, |r| r.index);
            Some((
                position,
                PairedSample {
                    original_id: id.clone(),
                    vanilla_right: v.first_right,
                    perturbed_right: p.first_right,
                    vanilla_pass_at_1: v.pass_at_1,
                    perturbed_pass_at_1: p.pass_at_1,
                },
            ))
        })
        .collect();
    samples.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.original_id.cmp(&b.1.original_id)));
    samples.into_iter().map(|(_, s)| s).collect()
}

/// The drop over `samples`; `None` when there are none.
pub fn drop_of(samples: &[PairedSample]) -> Option<Drop> {
    let vanilla = mean(&samples.iter().map(|s| s.vanilla_pass_at_1).collect::<Vec<_>>())? * 100.0;
    let perturbed = mean(&samples.iter().map(|s| s.perturbed_pass_at_1).collect::<Vec<_>>())? * 100.0;
    let b = samples.iter().filter(|s| s.vanilla_right && !s.perturbed_right).count();
    let c = samples.iter().filter(|s| !s.vanilla_right && s.perturbed_right).count();
    let absolute = vanilla - perturbed;
    Some(Drop {
        paired: samples.len(),
        vanilla_pass_at_1: vanilla,
        perturbed_pass_at_1: perturbed,
        absolute,
        relative: (vanilla > 0.0).then(|| absolute / vanilla * 100.0),
        mcnemar: mcnemar(b, c),
    })
}
