//! Shared by the run engine's integration tests that need a sample but not its content.

use execbench_core::Sample;

/// `f(1) == 1`, the identity: a sample any answer path can score.
pub fn identity_sample(id: &str) -> Sample {
    Sample::new(id, "def f(x):\n    return x", "f", "1", "1")
}
