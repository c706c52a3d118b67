//! Building a benchmark as CRUXEval was built: prompt a model with one standard-library method at
//! a time, parse its answers into candidates (a function `f` and one input), filter them hard
//! (static rules, then an instrumented run), deduplicate, sample and export with provenance.
//!
//! No I/O: callers hand in text and a Python engine; the page and the CLI are thin over this.
//!
//! After the filter: [`rows`] (the kept and rejected files, written and read back), [`dedupe`]
//! (normalised code + input), [`sample`] (seeded, optionally balanced across methods), [`funnel`]
//! (counts per stage, per method, per rule), [`export`] (CRUXEval's row shape, checked by loading
//! it back), [`provenance`] (how the benchmark was made) and [`pipeline::build_benchmark`], which
//! chains them.

pub mod candidate;
pub mod dedupe;
pub mod export;
pub mod filter;
pub mod funnel;
mod jsonl;
pub mod methods;
pub mod offline;
pub mod parse;
pub mod pipeline;
pub mod prompt;
pub mod provenance;
pub mod replay;
pub mod rows;
pub mod rules;
pub mod sample;
pub mod verdict;

pub use candidate::{Candidate, read_candidates};
pub use dedupe::{Deduped, dedupe, normalise_code, normalise_input};
pub use export::{check_export, export_jsonl};
pub use filter::{
    FILTER_VERSION, check_static, filter_one, harness_missing, judge_run, loading_harness, runtime_request,
};
pub use funnel::{Funnel, MethodCounts, RuleCount};
pub use pipeline::{Benchmark, build_benchmark};
pub use provenance::{BuildProvenance, Generation, Generator, GeneratorSource, read_generation};
pub use rows::{Kept, judged_line, kept_jsonl, kept_of, read_kept, read_rejected, rejected_jsonl};
pub use rules::{Rejection, Rule, Stage};
pub use sample::{DEFAULT_N, SampleSpec, sample};
pub use verdict::{Judged, Verdict};
