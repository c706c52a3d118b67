//! Comparing runs (the Compare page and `execbench compare`): pass@1 and pass@5 per run and scoring mode with a
//! seeded bootstrap interval, perturbed runs paired with the vanilla run of the same model by
//! original sample id, the drop and McNemar's exact test, flipped samples, per-category pass@1,
//! the table, its reports (Markdown section, CSV, JSONL of the pairing) and SVG charts.
//!
//! No I/O: callers hand in run files' text or their parsed contents and get values and text back.
//! Every output is byte-deterministic (one PRNG, `execbench_core::rng`; ordered maps only).
//! Definitions are in `docs/compare.md`.

pub mod category;
pub mod charts;
pub mod diff;
pub mod flips;
pub mod identity;
pub mod pair;
pub mod questions;
pub mod reading;
pub mod report;
pub mod run;
pub mod score;
pub mod stats;
pub mod synthetic;
pub mod table;

pub use category::{CategoryScore, category_scores};
pub use diff::{Change, DiffLine, line_diff};
pub use flips::{Flip, FlipDirection, flipped_samples};
pub use identity::{Perturbation, RunIdentity, identify, pair_with_vanilla};
pub use pair::{Drop, PairedSample};
pub use reading::ReadRuns;
pub use run::RunInput;
pub use score::RunScore;
pub use stats::{Interval, McNemar, bootstrap_interval, mcnemar};
pub use table::{Cell, Column, Comparison, ModeTable, Pair, compare};

/// How figures are computed.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareOptions {
    /// Mixed with each figure's run id (and mode, category) to seed its bootstrap.
    pub seed: u64,
    /// Bootstrap resamples per interval; 0 gives no intervals.
    pub bootstrap: usize,
    /// Original sample id → category, read by the caller from the dataset; empty for none.
    pub categories: std::collections::BTreeMap<String, String>,
}

pub const DEFAULT_BOOTSTRAP: usize = 1000;

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions { seed: 0, bootstrap: DEFAULT_BOOTSTRAP, categories: Default::default() }
    }
}
