//! Which seeds the sweeps over all 800 CRUXEval samples run. The test command runs one seed a
//! sample, cycling through seeds 0..5 with the sample's position, so every seed and every sample
//! is covered in a fifth of the time; `scripts/fuzz.sh` sets `EXECBENCH_SWEEP_ALL_SEEDS=1` and
//! runs every seed on every sample (the docs' figures of docs/perturbations.md are read from that
//! full sweep).

use std::ops::Range;

/// The seeds a full sweep runs on every sample.
pub const ALL_SEEDS: u64 = 5;

/// True when every sample runs every seed (`EXECBENCH_SWEEP_ALL_SEEDS` set to anything but 0).
pub fn all_seeds() -> bool {
    std::env::var("EXECBENCH_SWEEP_ALL_SEEDS").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The seeds of the sample at `position` in the dataset.
pub fn seeds_of(position: usize) -> Range<u64> {
    seeds_in(position, all_seeds())
}

fn seeds_in(position: usize, all: bool) -> Range<u64> {
    if all {
        0..ALL_SEEDS
    } else {
        let seed = position as u64 % ALL_SEEDS;
        seed..seed + 1
    }
}

/// How many (sample, seed) runs a sweep of `samples` makes.
pub fn runs(samples: usize) -> usize {
    (0..samples).map(|i| seeds_of(i).count()).sum()
}

#[test]
fn one_seed_a_sample_still_covers_every_seed_and_sample() {
    let cases: &[(usize, bool, Range<u64>)] =
        &[(0, false, 0..1), (4, false, 4..5), (5, false, 0..1), (799, false, 4..5), (0, true, 0..5), (799, true, 0..5)];
    for (position, all, seeds) in cases {
        assert_eq!(seeds_in(*position, *all), *seeds, "position {position}, all {all}");
    }
    let covered: std::collections::BTreeSet<u64> = (0..800).flat_map(|i| seeds_in(i, false)).collect();
    assert_eq!(covered.len() as u64, ALL_SEEDS);
}
