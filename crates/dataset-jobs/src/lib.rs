//! The jobs over a whole dataset that need Python but neither the run engine nor a run store:
//! [`verify`] checks a dataset's expected outputs, [`perturbation`] perturbs it and verifies every
//! result, [`build_filter`] judges generated candidates (the Build page's Filter step and
//! `execbench build filter`), [`reproduction`] checks a reproduction file against its dataset, and
//! [`model_wrong_answers`] asks a model for wrong answers (CodeCrash's misleading hints),
//! [`trace_questions`] traces every sample and makes questions about its run. Each
//! reports progress and honours Stop, with the caller's Python (`execbench-io`).

pub mod build_filter;
pub mod model_wrong_answers;
pub mod perturbation;
pub mod reproduction;
pub mod reval;
pub mod trace_questions;
pub mod verify;

#[cfg(test)]
mod overlapping;
#[cfg(test)]
mod prop_proposals;
#[cfg(test)]
mod stopped_at;
