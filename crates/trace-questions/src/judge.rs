//! Judging an answer to a trace question: the evaluation's own (`execbench_eval::score::question`), so
//! a question judged here and in a run gets the same verdict.

pub use execbench_eval::score::question::{chain_depth, judge_answer, judge_response, python_equal};
