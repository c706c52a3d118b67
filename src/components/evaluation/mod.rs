//! Components of the Evaluate page (src/pages/evaluate.rs): the prompt template panel, the results
//! summary and bar chart, the per-sample table, and the exports. The results components show
//! `crate::jobs::results::RunResults`, which the evaluation job produces.

pub mod exports;
pub mod local_model;
pub mod model_settings;
pub mod sample_table;
pub mod stored_verdicts;
pub mod summary;
pub mod template_editor;
