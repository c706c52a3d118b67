//! The statistics against values computed independently here: McNemar's p from binomial
//! coefficients summed exactly in integers, the bootstrap against a plain re-implementation of its
//! definition, and its properties (deterministic, contains the estimate, narrows with n).

use execbench_compare::stats::{bootstrap_interval, mcnemar, mean, rng_for};
use execbench_core::rng::Rng;

/// C(n, k) exactly.
fn binomial(n: u32, k: u32) -> u128 {
    (0..k).fold(1u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
}

/// 2 · Σ_{i ≤ min(b,c)} C(b+c, i) / 2^(b+c), capped at 1, summed in integers.
fn exact_two_sided(b: u32, c: u32) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    let tail: u128 = (0..=b.min(c)).map(|i| binomial(n, i)).sum();
    (2.0 * tail as f64 / 2f64.powi(n as i32)).min(1.0)
}

#[test]
fn mcnemar_matches_the_binomial_summed_by_hand() {
    // (b, c, p written out where it is short)
    let cases: &[(u32, u32, Option<f64>)] = &[
        (0, 0, Some(1.0)),
        (1, 0, Some(1.0)),    // 2 · 1/2
        (2, 0, Some(0.5)),    // 2 · 1/4
        (5, 0, Some(0.0625)), // 2 · 1/32
        (6, 1, Some(0.125)),  // 2 · (1 + 7)/128
        (1, 6, Some(0.125)),
        (3, 3, Some(1.0)),
        (10, 2, Some(158.0 / 4096.0)), // 2 · (1 + 12 + 66)/4096
        (25, 5, None),
        (40, 60, None),
        (100, 0, None),
        (60, 30, None),
    ];
    for &(b, c, written) in cases {
        let got = mcnemar(b as usize, c as usize);
        assert_eq!((got.b, got.c), (b as usize, c as usize));
        let expected = exact_two_sided(b, c);
        assert!(
            (got.p_value - expected).abs() <= 1e-12 * expected.max(1e-300) + 1e-15,
            "b={b} c={c}: {} vs {expected}",
            got.p_value
        );
        if let Some(written) = written {
            assert!((got.p_value - written).abs() < 1e-12, "b={b} c={c}: {} vs {written}", got.p_value);
        }
        assert_eq!(got.p_value, mcnemar(c as usize, b as usize).p_value, "symmetric in b and c");
    }
}

#[test]
fn mcnemar_stays_finite_where_2_to_the_n_overflows() {
    // 2^1100 is beyond f64; the log-space sum still gives a tiny positive p and exactly 1 when
    // b = c.
    let p = mcnemar(800, 300).p_value;
    assert!(p > 0.0 && p < 1e-40, "{p}");
    assert_eq!(mcnemar(600, 600).p_value, 1.0);
    let close = mcnemar(560, 540).p_value;
    assert!(close > 0.5 && close < 1.0, "{close}");
}

/// The definition in `docs/compare.md`, written again.
fn reference_bootstrap(values: &[f64], resamples: usize, seed: u64) -> (f64, f64) {
    let mut rng = Rng::new(seed);
    let mut means = Vec::new();
    for _ in 0..resamples {
        let mut sum = 0.0;
        for _ in 0..values.len() {
            sum += values[rng.below(values.len())];
        }
        means.push(sum / values.len() as f64);
    }
    means.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let low_rank = (resamples * 25).div_ceil(1000).max(1);
    let high_rank = (resamples * 975).div_ceil(1000).max(1);
    (means[low_rank - 1], means[high_rank - 1])
}

fn bernoulli(count: usize, rate: f64, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..count).map(|_| if rng.unit() < rate { 1.0 } else { 0.0 }).collect()
}

#[test]
fn bootstrap_follows_its_definition() {
    // (values, resamples)
    let cases: Vec<(Vec<f64>, usize)> = vec![
        (bernoulli(50, 0.6, 1), 1000),
        (bernoulli(7, 0.3, 2), 200),
        (vec![0.0, 0.1, 0.5, 0.9, 1.0, 0.25], 1),
        (vec![0.5], 10),
        ((0..300).map(|i| (i % 11) as f64 / 10.0).collect(), 333),
    ];
    for (values, resamples) in cases {
        let got = bootstrap_interval(&values, resamples, &mut Rng::new(42)).unwrap();
        let (low, high) = reference_bootstrap(&values, resamples, 42);
        assert_eq!((got.low, got.high), (low, high), "{} values, {resamples} resamples", values.len());
    }
    assert!(bootstrap_interval(&[], 1000, &mut Rng::new(1)).is_none());
    assert!(bootstrap_interval(&[1.0], 0, &mut Rng::new(1)).is_none());
    let constant = bootstrap_interval(&[0.25; 40], 500, &mut Rng::new(3)).unwrap();
    assert_eq!((constant.low, constant.high), (0.25, 0.25));
}

#[test]
fn bootstrap_is_deterministic_contains_the_mean_and_narrows_with_n() {
    let mut widths = Vec::new();
    for count in [25, 100, 400, 1600] {
        let values = bernoulli(count, 0.5, 9);
        let point = mean(&values).unwrap();
        let a = bootstrap_interval(&values, 1000, &mut rng_for(7, &["run", "strict"])).unwrap();
        let b = bootstrap_interval(&values, 1000, &mut rng_for(7, &["run", "strict"])).unwrap();
        assert_eq!(a, b, "same seed, same interval");
        assert!(a.contains(point), "n={count}: {a:?} misses {point}");
        // Roughly ±1.96·sqrt(p(1-p)/n) for a proportion.
        let normal = 2.0 * 1.96 * (point * (1.0 - point) / count as f64).sqrt();
        assert!((a.width() - normal).abs() < 0.25 * normal, "n={count}: width {} vs about {normal}", a.width());
        widths.push(a.width());
    }
    assert!(widths.windows(2).all(|w| w[1] < w[0]), "{widths:?}");
    let values = bernoulli(100, 0.5, 9);
    let other_seed = bootstrap_interval(&values, 1000, &mut rng_for(8, &["run", "strict"])).unwrap();
    let other_run = bootstrap_interval(&values, 1000, &mut rng_for(7, &["other", "strict"])).unwrap();
    let base = bootstrap_interval(&values, 1000, &mut rng_for(7, &["run", "strict"])).unwrap();
    assert!(other_seed != base || other_run != base, "the seed and the figure's name both feed the generator");
}
