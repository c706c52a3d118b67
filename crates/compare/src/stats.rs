//! The two statistics a comparison needs beyond pass@k: a percentile bootstrap interval for a
//! mean, and McNemar's exact test on paired yes/no outcomes. Both are plain functions over
//! numbers, seeded through `execbench_core::rng` so every run gives the same bytes.

use execbench_core::rng::Rng;
use serde::{Deserialize, Serialize};

/// A confidence interval, in the same unit as the values it was computed from.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

impl Interval {
    pub fn scaled(self, factor: f64) -> Interval {
        Interval { low: self.low * factor, high: self.high * factor }
    }

    pub fn contains(&self, value: f64) -> bool {
        self.low <= value && value <= self.high
    }

    pub fn width(&self) -> f64 {
        self.high - self.low
    }
}

/// The arithmetic mean; `None` for no values.
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// 95% percentile bootstrap interval of the mean of `values`: `resamples` times, draw
/// `values.len()` values with replacement (`rng.below`) and take their mean; sort the means and
/// return the ⌈0.025·B⌉-th and ⌈0.975·B⌉-th smallest (1-based ranks). `None` when there are no
/// values or no resamples.
pub fn bootstrap_interval(values: &[f64], resamples: usize, rng: &mut Rng) -> Option<Interval> {
    if values.is_empty() || resamples == 0 {
        return None;
    }
    let count = values.len();
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| {
            let mut sum = 0.0;
            for _ in 0..count {
                sum += values[rng.below(count)];
            }
            sum / count as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    // Integer ranks: 0.025 * 1000 in floating point is not exactly 25.
    let rank = |per_mille: usize| (resamples * per_mille).div_ceil(1000).clamp(1, resamples) - 1;
    Some(Interval { low: means[rank(25)], high: means[rank(975)] })
}

/// McNemar's test on paired outcomes: `b` pairs right only in the first condition, `c` right only
/// in the second. The p-value is exact and two-sided: under the null hypothesis each discordant
/// pair falls either way with probability ½, so `p = min(1, 2 · P(X ≤ min(b, c)))` with
/// `X ~ Binomial(b + c, ½)`; with no discordant pair `p = 1`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct McNemar {
    pub b: usize,
    pub c: usize,
    pub p_value: f64,
}

pub fn mcnemar(b: usize, c: usize) -> McNemar {
    McNemar { b, c, p_value: mcnemar_exact_p(b, c) }
}

fn mcnemar_exact_p(b: usize, c: usize) -> f64 {
    let n = b + c;
    let k = b.min(c);
    if n == 0 {
        return 1.0;
    }
    // The binomial terms in logarithms (C(n, i) / 2^n underflows for large n), summed relative to
    // the largest one, which is the last: the tail stops at k <= n / 2 where terms still grow.
    let mut log_terms = Vec::with_capacity(k + 1);
    let mut log_term = -(n as f64) * std::f64::consts::LN_2;
    log_terms.push(log_term);
    for i in 0..k {
        log_term += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
        log_terms.push(log_term);
    }
    let largest = log_terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let tail = largest.exp() * log_terms.iter().map(|t| (t - largest).exp()).sum::<f64>();
    (2.0 * tail).min(1.0)
}

/// A generator for one figure: the user's seed mixed with what the figure is of (run id, mode,
/// category), so a run's interval does not change when other runs are added, removed or reordered.
pub fn rng_for(seed: u64, parts: &[&str]) -> Rng {
    let mut bytes = Vec::new();
    for part in parts {
        bytes.extend_from_slice(part.as_bytes());
        bytes.push(0);
    }
    Rng::new(seed ^ execbench_core::rng::fnv1a(&bytes))
}
