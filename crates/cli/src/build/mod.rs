//! `execbench build …`: building a benchmark as CRUXEval was built. `filter` judges candidates
//! (static rules, then an instrumented run), `sample` dedupes, samples and exports the kept ones
//! with their provenance. Both are thin over `execbench-build`.

mod filter;
mod sample;

use crate::args::Args;

pub const USAGE: &str = "execbench build filter|sample …\n  execbench build filter --candidates FILE.jsonl --out KEPT.jsonl --rejected REJECTED.jsonl [--time-limit SECONDS]\n  execbench build sample --in KEPT.jsonl [--n N] [--seed S] [--balanced] [--rejected REJECTED.jsonl] [--generation GEN.json] --out BENCH.jsonl [--provenance PROV.json]";

/// Dispatches `build`'s subcommands; returns the exit code, or a usage error (exit 2).
pub fn run(rest: &[String]) -> Result<i32, String> {
    match rest.split_first() {
        Some((sub, flags)) if sub == "filter" => filter::run(&Args::parse(flags, &[])?).map_err(|e| format!("{e}\nusage: {}", filter::USAGE)),
        Some((sub, flags)) if sub == "sample" => sample::run(&Args::parse(flags, sample::SWITCHES)?).map_err(|e| format!("{e}\nusage: {}", sample::USAGE)),
        // INTEGRATOR: replace this arm with `crate::build_generate::run(flags)` once generation lands.
        Some((sub, _)) if sub == "generate" => Err(format!("`build generate` is not part of this build yet\nusage: {USAGE}")),
        Some((other, _)) => Err(format!("unknown build command `{other}` (known: filter, sample)\nusage: {USAGE}")),
        None => Err(format!("a build command is required (filter, sample)\nusage: {USAGE}")),
    }
}
