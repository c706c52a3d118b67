//! Shared by the run engine's integration tests that need a sample but not its content.

use execbench_core::Sample;

/// `f(1) == 1`, the identity: a sample any answer path can score.
pub fn identity_sample(id: &str) -> Sample {
    Sample {
        id: id.into(),
        code: "def f(x):\n    return x".into(),
        function_name: "f".into(),
        input: "1".into(),
        call: "f(1)".into(),
        output: "1".into(),
        meta: Default::default(),
    }
}
