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

/// One run's per-kind pass@1 in one mode, and its consistency chains.
#[derive(Clone, Debug, PartialEq)]
pub struct RunQuestions {
    pub mode: Mode,
    pub run: usize,
    pub model: usize,
    pub column: usize,
    pub scores: Vec<KindScore>,
    pub chains: Option<ChainScore>,
}

/// The consistency chain (REval's "incremental consistency", measured execbench's way): each
/// program's questions in the order coverage, state, path, output, over the programs that have a
/// question of every kind the run asks. A question counts as right when every answer to it is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChainScore {
    /// Programs with a whole chain of questions.
    pub programs: usize,
    /// Links in each chain: the kinds the run asks.
    pub links: usize,
    /// Programs whose every question was answered right, as a percentage.
    pub whole: f64,
    /// Kinds answered right before the first wrong one, on average (`chain_depth`).
    pub mean_depth: f64,
}

/// `run`'s chains in `mode`; `None` when no program has a whole chain (or no result names its
/// program: runs stored before programs were kept).
pub fn chain_score(run: &RunInput, mode: Mode) -> Option<ChainScore> {
    let mut by_program: BTreeMap<&str, BTreeMap<QuestionKind, bool>> = BTreeMap::new();
    for (id, outcome) in run.outcomes(mode) {
        let Some(result) = run.result(id, mode) else { continue };
        if let (Some(kind), Some(program)) = (result.question, result.program.as_deref()) {
            let right = outcome.pass_at_1 >= 1.0;
            let kept = by_program.entry(program).or_default().entry(kind).or_insert(true);
            *kept &= right;
        }
    }
    let kinds: Vec<QuestionKind> =
        QuestionKind::ALL.into_iter().filter(|k| by_program.values().any(|asked| asked.contains_key(k))).collect();
    let depths: Vec<usize> = by_program
        .values()
        .filter(|asked| kinds.iter().all(|k| asked.contains_key(k)))
        .map(|asked| execbench_eval::score::question::chain_depth(&kinds.iter().map(|k| asked[k]).collect::<Vec<_>>()))
        .collect();
    if depths.is_empty() || kinds.is_empty() {
        return None;
    }
    let programs = depths.len();
    Some(ChainScore {
        programs,
        links: kinds.len(),
        whole: 100.0 * depths.iter().filter(|d| **d == kinds.len()).count() as f64 / programs as f64,
        mean_depth: depths.iter().sum::<usize>() as f64 / programs as f64,
    })
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
