//! The shared data model of execbench: what a sample is, how a dataset file is read (keeping the
//! good rows and naming every bad one precisely), and the interface every Python engine offers.
//!
//! No I/O and no engine here: callers hand in text and an engine.

pub mod brackets;
pub mod calendar;
pub mod dataset;
pub mod engine;
pub mod markdown;
pub mod panic_message;
pub mod parallel;
pub mod program;
pub mod provenance;
pub mod question;
pub mod rng;
pub mod sample;
pub mod search;
pub mod trace;
pub mod verify;

pub use dataset::{
    FieldError, JsonlReader, LoadReport, RowError, RowLoader, load_jsonl, load_jsonl_bytes, load_jsonl_with,
    sample_from_row,
};
pub use engine::{Limits, Outcome, PythonEngine, RunRequest, RunResult};
pub use markdown::markdown_text;
pub use panic_message::panic_message;
pub use program::{Convention, LEETCODE_PRELUDE};
pub use provenance::Provenance;
pub use question::{Question, QuestionKind};
pub use sample::Sample;
