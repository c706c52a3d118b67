//! Building a benchmark as CRUXEval was built: prompt a model with one standard-library method at
//! a time, parse its answers into candidates (a function `f` and one input), filter them hard
//! (static rules, then an instrumented run), deduplicate, sample and export with provenance.
//!
//! No I/O: callers hand in text and a Python engine; the page and the CLI are thin over this.

pub mod candidate;
pub mod filter;
pub mod methods;
pub mod offline;
pub mod parse;
pub mod prompt;
pub mod replay;
pub mod rules;
pub mod verdict;

pub use candidate::{Candidate, read_candidates};
pub use filter::{FILTER_VERSION, check_static, filter_one, judge_run, runtime_request};
pub use rules::{Rejection, Rule, Stage};
pub use verdict::{Judged, Verdict};
