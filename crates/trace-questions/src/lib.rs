//! Questions about a program's run, made from its trace: does line N run, what does variable v
//! hold right after line N's k-th run, which line runs after it, what does the call return
//! (REval's kinds: Chen et al., "Reasoning Runtime Behavior of a Program with LLM", 2024). A
//! model that predicts outputs by pattern can be asked whether it followed the run.
//!
//! No I/O and no engine: the trace comes from whoever ran the program (`RunRequest::trace`).

pub mod export;
pub mod judge;
pub mod lines;
pub mod make;
pub mod prompt;
pub mod question;
pub mod reval;

pub use export::questions_jsonl;
pub use judge::{chain_depth, judge_answer, judge_response};
pub use make::{Made, MakeOptions, Unusable, make_questions, truth_at};
pub use prompt::prompt;
pub use question::{Question, QuestionKind, Source, Truth};
