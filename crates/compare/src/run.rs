//! A run as the comparison reads it: its manifest and the latest record of each sample, and what
//! one sample's stored result says in one scoring mode.

use std::collections::BTreeMap;

use execbench_eval::pass_at_k;
use execbench_eval::report::SampleResult;
use execbench_eval::score::{Mode, Verdict};
use execbench_runs::manifest::RunManifest;
use execbench_runs::record::SampleRecord;
use execbench_runs::runfile::{RunFile, read_run_file};

/// One run handed to the comparison. `source` names where it came from (a file name) in
/// messages; the figures never depend on it.
#[derive(Clone, Debug)]
pub struct RunInput {
    pub source: String,
    pub manifest: RunManifest,
    /// The latest record of each sample, by sample id.
    pub records: BTreeMap<String, SampleRecord>,
}

impl RunInput {
    /// A run from its manifest and records; a later record of a sample replaces an earlier one,
    /// as in a run file.
    pub fn new(
        source: impl Into<String>,
        manifest: RunManifest,
        records: impl IntoIterator<Item = SampleRecord>,
    ) -> Self {
        let records = records.into_iter().map(|r| (r.sample_id.clone(), r)).collect();
        RunInput { source: source.into(), manifest, records }
    }

    pub fn from_run_file(source: impl Into<String>, file: RunFile) -> Self {
        RunInput { source: source.into(), manifest: file.manifest, records: file.records }
    }

    /// Reads a run file's text; errors name `source`, the line and the problem.
    pub fn parse(source: &str, text: &str) -> Result<Self, String> {
        read_run_file(source, text).map(|file| RunInput::from_run_file(source, file))
    }

    pub fn has_mode(&self, mode: Mode) -> bool {
        self.manifest.modes.contains(&mode)
    }

    /// The stored result of `sample_id` in `mode`; `None` for an error record or a missing mode.
    pub fn result(&self, sample_id: &str, mode: Mode) -> Option<&SampleResult> {
        let record = self.records.get(sample_id)?;
        if record.is_error() {
            return None;
        }
        record.results.iter().find(|r| r.mode == mode)
    }

    /// Every sample that counts in `mode`, by sample id: records without an error whose result in
    /// `mode` has a pass@1 (at least one answer counted).
    pub fn outcomes(&self, mode: Mode) -> BTreeMap<&str, SampleOutcome> {
        self.records.keys().filter_map(|id| Some((id.as_str(), SampleOutcome::of(self.result(id, mode)?)?))).collect()
    }

    /// How many records are errors (left out of every figure).
    pub fn error_count(&self) -> usize {
        self.records.values().filter(|r| r.is_error()).count()
    }
}

/// What one sample contributes in one mode.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleOutcome {
    /// pass@1 of the sample (a fraction), from `n` and `correct` through `execbench_eval::passk`.
    pub pass_at_1: f64,
    /// `None` when fewer than 5 answers count.
    pub pass_at_5: Option<f64>,
    /// Whether the sample's first counted answer is right: McNemar's per-sample outcome.
    pub first_right: bool,
}

impl SampleOutcome {
    /// `None` when no answer counts (`n = 0`: a model that did not answer at all).
    pub fn of(result: &SampleResult) -> Option<SampleOutcome> {
        let pass_at_1 = pass_at_k(result.n, result.correct, 1)?;
        Some(SampleOutcome {
            pass_at_1,
            pass_at_5: pass_at_k(result.n, result.correct, 5),
            first_right: first_answer_right(result),
        })
    }
}

/// The sample's first counted answer is right: the first answer whose verdict is not `Dropped`
/// (compatible mode removes dropped answers from the list; strict mode drops none, so this is the
/// first answer given). A sample with no counted answer is not right.
pub fn first_answer_right(result: &SampleResult) -> bool {
    result
        .answers
        .iter()
        .find(|a| !matches!(a.verdict, Verdict::Dropped { .. }))
        .is_some_and(|a| a.verdict.is_correct())
}
