//! How many cases each property test runs, in one place (every `prop_*.rs` file uses it).
//!
//! A test file names the count CI runs; `EXECBENCH_FUZZ_SCALE` multiplies it on demand
//! (`scripts/fuzz.sh` runs every property file at scale). A failing case is kept beside the test's
//! source file (`<file>.proptest-regressions`, committed, replayed first on every later run): the
//! default would put it in a `proptest-regressions/` folder beside `tests/<crate>/main.rs`.

use proptest::test_runner::{Config, FileFailurePersistence};

/// The scale `EXECBENCH_FUZZ_SCALE` asks for (1 when unset or not a number).
pub fn scale() -> u32 {
    std::env::var("EXECBENCH_FUZZ_SCALE").ok().and_then(|s| s.trim().parse().ok()).filter(|&s| s > 0).unwrap_or(1)
}

/// The configuration of a property: `ci` cases in CI, times [`scale`].
pub fn cases(ci: u32) -> Config {
    Config {
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..Config::with_cases(ci.saturating_mul(scale()))
    }
}
