//! The evaluation logic of execbench, with no browser and no I/O: callers hand in text and a
//! [`PythonEngine`](execbench_core::PythonEngine).
//!
//! The path from a model to a number: [`prompt`] renders a template for a sample, a
//! [`models::Model`] answers, [`extract`] pulls the answer out of the response, [`score`] judges
//! it (strict, or CRUXEval-compatible), [`passk`] turns verdicts into pass@k, [`report`] writes
//! rows and a summary. [`evaluate`] runs the whole loop; [`generations`] re-scores files others
//! published. [`template_library`] holds the built-in templates and the user's own.

// Test case tables are tuples, on purpose.
#![cfg_attr(test, allow(clippy::type_complexity))]

pub mod evaluate;
pub mod extract;
pub mod generations;
mod import_error;
pub mod models;
pub mod passk;
pub mod prompt;
pub mod question;
pub mod report;
pub mod reproduction;
pub mod score;
pub mod stored;
mod task;
pub mod template_library;

#[cfg(test)]
pub(crate) mod fake_engine;

/// The literal parser lives in its own crate (`execbench-literal`); these paths stay as they were.
pub use execbench_literal as literal;
pub use extract::{ExtractFailure, ExtractRule, Extraction, extract};
pub use literal::{PyValue, parse_literal};
pub use passk::{DatasetScore, dataset_score, pass_at_k};
pub use score::{Mode, SampleScore, ScoreOptions, Verdict, score_answers};
pub use task::Task;
