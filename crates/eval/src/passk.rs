//! pass@k: the chance that at least one of k answers drawn without replacement from the n answers
//! given for a problem is correct, when c of them are. Unbiased estimator:
//! `1 - C(n-c, k) / C(n, k)`, computed as the product `1 - Π_{i=n-c+1}^{n} (1 - k/i)`, which never
//! forms a large binomial coefficient and so neither overflows nor loses precision.

use serde::{Deserialize, Serialize};

/// pass@k of one problem with `n` answers of which `correct` are correct. `None` when `n < k`
/// (the figure is not available: fewer answers than draws) or when `k == 0`.
pub fn pass_at_k(n: usize, correct: usize, k: usize) -> Option<f64> {
    if k == 0 || n < k {
        return None;
    }
    let correct = correct.min(n);
    if n - correct < k {
        // Every k-subset holds a correct answer.
        return Some(1.0);
    }
    let mut all_wrong = 1.0f64;
    for i in (n - correct + 1)..=n {
        all_wrong *= 1.0 - k as f64 / i as f64;
    }
    Some(1.0 - all_wrong)
}

/// A dataset score: the mean of the per-problem figures that are available, × 100.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DatasetScore {
    /// `None` when no problem had the figure.
    pub percent: Option<f64>,
    /// Problems that had the figure (n >= k).
    pub available: usize,
    pub total: usize,
}

/// Mean × 100 over the problems whose figure is available.
pub fn dataset_score(per_problem: impl IntoIterator<Item = Option<f64>>) -> DatasetScore {
    let (mut sum, mut available, mut total) = (0.0, 0usize, 0usize);
    for figure in per_problem {
        total += 1;
        if let Some(value) = figure {
            sum += value;
            available += 1;
        }
    }
    let percent = (available > 0).then(|| sum / available as f64 * 100.0);
    DatasetScore { percent, available, total }
}

impl DatasetScore {
    /// `61.3` or `n/a`: how tables show it.
    pub fn display(&self) -> String {
        match self.percent {
            Some(p) => format!("{p:.1}"),
            None => "n/a".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values worked out by hand from 1 - C(n-c,k)/C(n,k).
    #[test]
    fn pass_at_k_table() {
        let cases: &[(usize, usize, usize, Option<f64>)] = &[
            (1, 0, 1, Some(0.0)),
            (1, 1, 1, Some(1.0)),
            (10, 3, 1, Some(0.3)), // c/n
            (10, 0, 5, Some(0.0)),
            (10, 1, 5, Some(0.5)),                // 1 - C(9,5)/C(10,5) = 1 - 126/252
            (10, 2, 5, Some(1.0 - 56.0 / 252.0)), // C(8,5) = 56
            (10, 5, 5, Some(1.0 - 1.0 / 252.0)),  // C(5,5) = 1
            (10, 6, 5, Some(1.0)),                // n - c < k
            (5, 1, 5, Some(1.0)),
            (5, 0, 5, Some(0.0)),
            (6, 1, 5, Some(1.0 - 1.0 / 6.0)),         // C(5,5)/C(6,5) = 1/6
            (20, 4, 5, Some(1.0 - 4368.0 / 15504.0)), // C(16,5)=4368, C(20,5)=15504
            (3, 3, 5, None),                          // n < k: not available, never 1.0
            (4, 0, 5, None),
            (0, 0, 1, None),
            (5, 2, 0, None),
            (3, 7, 1, Some(1.0)), // more correct than answers is clamped
        ];
        for &(n, c, k, expected) in cases {
            let got = pass_at_k(n, c, k);
            match (got, expected) {
                (Some(g), Some(e)) => assert!((g - e).abs() < 1e-12, "pass@{k}(n={n}, c={c}) = {g}, expected {e}"),
                _ => assert_eq!(got, expected, "pass@{k}(n={n}, c={c})"),
            }
        }
    }

    #[test]
    fn large_n_stays_finite_and_exact() {
        // 1 - C(999, 5)/C(1000, 5) = 5/1000.
        let got = pass_at_k(1000, 1, 5).unwrap();
        assert!((got - 0.005).abs() < 1e-12, "{got}");
        assert!(pass_at_k(100_000, 50_000, 100).unwrap() <= 1.0);
    }

    #[test]
    fn dataset_scores() {
        let cases: &[(&[Option<f64>], Option<f64>, usize, &str)] = &[
            (&[Some(1.0), Some(0.0), Some(0.5), Some(0.5)], Some(50.0), 4, "50.0"),
            (&[Some(1.0), None], Some(100.0), 1, "100.0"),
            (&[None, None], None, 0, "n/a"),
            (&[], None, 0, "n/a"),
        ];
        for (figures, percent, available, shown) in cases {
            let score = dataset_score(figures.iter().copied());
            assert_eq!(
                (score.percent, score.available, score.total, score.display().as_str()),
                (*percent, *available, figures.len(), *shown)
            );
        }
    }
}
