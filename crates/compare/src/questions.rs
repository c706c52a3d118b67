//! A question run's pass@1 split by the kind of question (output, coverage, state, path): the
//! "predicts the output, cannot follow the run" gap REval reports (Chen et al., 2024), per model.
//! The kind of each sample is the one its stored result names (`SampleResult::question`), so
//! the dataset is not needed.

use std::collections::BTreeMap;

use execbench_core::question::QuestionKind;
use execbench_eval::score::Mode;
use serde::Serialize;

use crate::CompareOptions;
use crate::run::RunInput;
use crate::stats::{Interval, bootstrap_interval, mean, rng_for};

/// Percentages over the kind's scored questions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KindScore {
    pub kind: QuestionKind,
    pub samples: usize,
    pub pass_at_1: Option<f64>,
    pub interval: Option<Interval>,
}

/// One run's per-kind pass@1 in one mode.
#[derive(Clone, Debug, PartialEq)]
pub struct RunQuestions {
    pub mode: Mode,
    pub run: usize,
    pub model: usize,
    pub column: usize,
    pub scores: Vec<KindScore>,
}

/// Output first (the figure the others are held against), then the run's kinds in REval's
/// order; kinds the run has no scored question of are left out.
pub const CHART_ORDER: [QuestionKind; 4] =
    [QuestionKind::Output, QuestionKind::Coverage, QuestionKind::State, QuestionKind::Path];

/// `run`'s scored questions in `mode`, by kind, in [`CHART_ORDER`].
pub fn question_scores(run: &RunInput, mode: Mode, options: &CompareOptions) -> Vec<KindScore> {
    let mut by_kind: BTreeMap<QuestionKind, Vec<f64>> = BTreeMap::new();
    for (id, outcome) in run.outcomes(mode) {
        if let Some(kind) = run.result(id, mode).and_then(|r| r.question) {
            by_kind.entry(kind).or_default().push(outcome.pass_at_1);
        }
    }
    CHART_ORDER
        .into_iter()
        .filter_map(|kind| {
            let values = by_kind.get(&kind)?;
            let mut rng = rng_for(options.seed, &[&run.manifest.run_id, mode.label(), kind.label()]);
            Some(KindScore {
                kind,
                samples: values.len(),
                pass_at_1: mean(values).map(|m| m * 100.0),
                interval: bootstrap_interval(values, options.bootstrap, &mut rng).map(|i| i.scaled(100.0)),
            })
        })
        .collect()
}
