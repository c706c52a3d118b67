//! Seeded sampling of the unique kept candidates: N of them (CRUXEval took 800), optionally
//! balanced across methods. The same rows, N, seed and mode give the same rows in the same order
//! on every machine (own PRNG, no hash-map order).
//!
//! - Unbalanced: a seeded shuffle of all rows, the first N.
//! - Balanced: each method's rows shuffled, the methods put in a seeded order, then round-robin
//!   over the methods, one row each turn, until N are taken (a method that runs out is skipped).
//!
//! N at or above the number of rows takes them all. The result is then sorted by method (rows
//! without one first), then id, then position in the input, so the file does not depend on the
//! draw's order.

use std::collections::BTreeMap;

use execbench_core::rng::Rng;
use serde::{Deserialize, Serialize};

use crate::rows::Kept;

/// CRUXEval's size.
pub const DEFAULT_N: usize = 800;

/// How a benchmark is drawn from the unique kept candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleSpec {
    pub n: usize,
    pub seed: u64,
    pub balanced: bool,
}

impl Default for SampleSpec {
    fn default() -> Self {
        SampleSpec { n: DEFAULT_N, seed: 0, balanced: false }
    }
}

/// Draws `spec.n` rows (all when there are fewer) and returns them in the stable order.
pub fn sample(rows: &[Kept], spec: &SampleSpec) -> Vec<Kept> {
    let mut rng = Rng::new(spec.seed);
    let mut chosen: Vec<usize> = if spec.n >= rows.len() {
        (0..rows.len()).collect()
    } else if spec.balanced {
        let mut groups: BTreeMap<Option<&str>, Vec<usize>> = BTreeMap::new();
        for (i, row) in rows.iter().enumerate() {
            groups.entry(row.method.as_deref()).or_default().push(i);
        }
        let mut groups: Vec<Vec<usize>> = groups.into_values().collect();
        for group in &mut groups {
            rng.shuffle(group);
        }
        rng.shuffle(&mut groups);
        let mut taken = Vec::with_capacity(spec.n);
        let mut turn = 0;
        while taken.len() < spec.n {
            let mut any = false;
            for group in &groups {
                if let Some(&i) = group.get(turn) {
                    any = true;
                    taken.push(i);
                    if taken.len() == spec.n {
                        break;
                    }
                }
            }
            if !any {
                break;
            }
            turn += 1;
        }
        taken
    } else {
        let mut all: Vec<usize> = (0..rows.len()).collect();
        rng.shuffle(&mut all);
        all.truncate(spec.n);
        all
    };
    chosen.sort_by(|&a, &b| {
        (rows[a].method.as_deref(), rows[a].id.as_str(), a).cmp(&(rows[b].method.as_deref(), rows[b].id.as_str(), b))
    });
    chosen.into_iter().map(|i| rows[i].clone()).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn rows(per_method: &[(&str, usize)]) -> Vec<Kept> {
        let mut out = Vec::new();
        for (method, count) in per_method {
            for i in 0..*count {
                out.push(Kept {
                    id: format!("{method}-{i:03}"),
                    method: Some(method.to_string()),
                    code: format!("def f(x):\n    return {i}"),
                    input: "1".into(),
                    output: i.to_string(),
                });
            }
        }
        out
    }

    fn per_method(rows: &[Kept]) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for row in rows {
            *counts.entry(row.method.clone().unwrap_or_default()).or_default() += 1;
        }
        counts
    }

    #[test]
    fn splitmix_is_the_published_sequence() {
        // The first outputs for seed 1234567 of the reference algorithm (Vigna's splitmix64.c).
        let mut rng = Rng::new(1234567);
        let got: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(got, [6457827717110365317, 3203168211198807973, 9817491932198370423]);
        let mut rng = Rng::new(9);
        assert!((0..1000).all(|_| rng.below(7) < 7));
        assert_eq!(rng.below(0), 0);
    }

    #[test]
    fn sizes_and_balance() {
        let pool = rows(&[("a", 50), ("b", 5), ("c", 20), ("d", 1)]);
        // (n, balanced, per-method counts; empty when any split is fine)
        type Case<'a> = (usize, bool, &'a [(&'a str, usize)]);
        let cases: &[Case] = &[
            (0, false, &[]),
            (0, true, &[]),
            (76, false, &[("a", 50), ("b", 5), ("c", 20), ("d", 1)]),
            (1000, true, &[("a", 50), ("b", 5), ("c", 20), ("d", 1)]),
            // Round-robin: two turns take 7 (d has one row), then b runs out after five turns.
            (7, true, &[("a", 2), ("b", 2), ("c", 2), ("d", 1)]),
            (24, true, &[("a", 9), ("b", 5), ("c", 9), ("d", 1)]),
            (40, true, &[("a", 17), ("b", 5), ("c", 17), ("d", 1)]),
            (30, false, &[]),
        ];
        for (n, balanced, expected) in cases {
            let spec = SampleSpec { n: *n, seed: 7, balanced: *balanced };
            let got = sample(&pool, &spec);
            assert_eq!(got.len(), (*n).min(pool.len()), "{spec:?}");
            let ids: std::collections::BTreeSet<&str> = got.iter().map(|k| k.id.as_str()).collect();
            assert_eq!(ids.len(), got.len(), "no row twice: {spec:?}");
            if !expected.is_empty() {
                let want: BTreeMap<String, usize> = expected.iter().map(|(m, c)| (m.to_string(), *c)).collect();
                assert_eq!(per_method(&got), want, "{spec:?}");
            }
        }
    }

    #[test]
    fn the_seed_decides_and_the_order_is_stable() {
        let pool = rows(&[("b", 30), ("a", 30), ("c", 3)]);
        for balanced in [false, true] {
            let spec = SampleSpec { n: 20, seed: 42, balanced };
            let first = sample(&pool, &spec);
            assert_eq!(first, sample(&pool, &spec), "same seed, same rows");
            assert_ne!(first, sample(&pool, &SampleSpec { seed: 43, ..spec }), "another seed draws other rows");
            let keys: Vec<(Option<&str>, &str)> = first.iter().map(|k| (k.method.as_deref(), k.id.as_str())).collect();
            let mut sorted = keys.clone();
            sorted.sort();
            assert_eq!(keys, sorted, "by method, then id");
            // The input's order does not matter to which rows are drawn when all are taken.
            let mut reversed = pool.clone();
            reversed.reverse();
            let all = SampleSpec { n: pool.len(), ..spec };
            assert_eq!(sample(&reversed, &all), sample(&pool, &all));
        }
        // Rows without a method come first and are one group when balancing.
        let mut mixed = rows(&[("a", 3)]);
        mixed.push(Kept { method: None, ..mixed[0].clone() });
        mixed.last_mut().unwrap().id = "z".into();
        let got = sample(&mixed, &SampleSpec { n: 2, seed: 1, balanced: true });
        assert_eq!(got[0].id, "z");
        assert_eq!(got[1].method.as_deref(), Some("a"));
    }
}
