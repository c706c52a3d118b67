//! The seed of a perturbation: one generator per (sample, kind, seed), over execbench-core's PRNG.

pub use execbench_core::rng::{Rng, fnv1a};

/// The seed of the one generator used for (sample id, kind, seed). Fields are separated by a
/// 0xFF byte, which never occurs in UTF-8, so `("ab", "c")` and `("a", "bc")` differ.
pub fn derive_seed(sample_id: &str, kind_name: &str, seed: u64) -> u64 {
    let mut bytes = Vec::with_capacity(sample_id.len() + kind_name.len() + 10);
    bytes.extend_from_slice(sample_id.as_bytes());
    bytes.push(0xFF);
    bytes.extend_from_slice(kind_name.as_bytes());
    bytes.push(0xFF);
    bytes.extend_from_slice(&seed.to_le_bytes());
    fnv1a(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_separate_fields() {
        let cases =
            [(("ab", "c", 0), ("a", "bc", 0)), (("s", "REN", 0), ("s", "REN", 1)), (("s", "REN", 0), ("s", "RTF", 0))];
        for (a, b) in cases {
            assert_ne!(derive_seed(a.0, a.1, a.2), derive_seed(b.0, b.1, b.2), "{a:?} vs {b:?}");
        }
    }
}
