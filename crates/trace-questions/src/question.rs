//! A question about one run of a program: the data types live in `execbench_core::question`, so
//! the evaluation (`execbench_eval`) can prompt for and judge a question dataset's samples.

pub use execbench_core::question::{Question, QuestionKind, Source, Truth};
