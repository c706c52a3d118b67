//! One run's figures in one mode: pass@1 with its bootstrap interval, and pass@5 where answers
//! suffice.

use execbench_eval::dataset_score;
use execbench_eval::score::Mode;
use serde::Serialize;

use crate::CompareOptions;
use crate::run::RunInput;
use crate::stats::{Interval, bootstrap_interval, rng_for};

/// Percentages (0-100). Error records and samples with no counted answer are left out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunScore {
    /// Records in the run, errors included.
    pub samples: usize,
    pub errors: usize,
    /// Samples with a pass@1: the mean is taken over these.
    pub scored: usize,
    pub pass_at_1: Option<f64>,
    /// 95% bootstrap interval of pass@1 over the scored samples.
    pub interval: Option<Interval>,
    /// Over the samples with at least 5 counted answers; `None` when none has.
    pub pass_at_5: Option<f64>,
    pub pass_at_5_samples: usize,
}

pub fn score_run(run: &RunInput, mode: Mode, options: &CompareOptions) -> RunScore {
    let outcomes = run.outcomes(mode);
    let per_sample: Vec<f64> = outcomes.values().map(|o| o.pass_at_1).collect();
    let pass_at_1 = dataset_score(per_sample.iter().map(|&p| Some(p)));
    let pass_at_5 = dataset_score(outcomes.values().map(|o| o.pass_at_5));
    let mut rng = rng_for(options.seed, &[&run.manifest.run_id, mode.label()]);
    RunScore {
        samples: run.records.len(),
        errors: run.error_count(),
        scored: per_sample.len(),
        pass_at_1: pass_at_1.percent,
        interval: bootstrap_interval(&per_sample, options.bootstrap, &mut rng).map(|i| i.scaled(100.0)),
        pass_at_5: pass_at_5.percent,
        pass_at_5_samples: pass_at_5.available,
    }
}
