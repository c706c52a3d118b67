//! The prompt of a question: the built-in question template (`question-direct`) rendered for the
//! question's sample, so an exported question's `prompt` is the very text a run sends.

use execbench_eval::Task;
use execbench_eval::prompt::{Style, default_template};
pub use execbench_eval::question::{numbered, ordinal};

use crate::question::Question;

/// The whole prompt for `question`.
pub fn prompt(question: &Question) -> String {
    default_template(Task::Question, Style::Direct).render(&question.to_sample()).text()
}
