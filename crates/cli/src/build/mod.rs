//! `execbench build …`: building a benchmark as CRUXEval was built. `filter` judges candidates
//! (static rules, then an instrumented run), `sample` dedupes, samples and exports the kept ones
//! with their provenance. Both are thin over `execbench-build`.

mod filter;
pub(crate) mod generate;
mod sample;

use crate::args::Args;

pub const USAGE: &str = "execbench build generate|filter|sample …\n  execbench build generate --methods LIST|all --per-method N --seed S [--source offline|replay FILE|api] --out GENERATIONS.jsonl --candidates CANDIDATES.jsonl\n  execbench build filter --candidates FILE.jsonl --out KEPT.jsonl --rejected REJECTED.jsonl [--time-limit SECONDS]\n  execbench build sample --in KEPT.jsonl [--n N] [--seed S] [--balanced] [--rejected REJECTED.jsonl] [--generation GEN.json] --out BENCH.jsonl [--provenance PROV.json]";

/// Dispatches `build`'s subcommands; returns the exit code, or a usage error (exit 2).
pub fn run(rest: &[String]) -> Result<i32, String> {
    match rest.split_first() {
        Some((sub, flags)) if sub == "filter" => {
            filter::run(&Args::parse(flags, &[])?).map_err(|e| format!("{e}\nusage: {}", filter::USAGE))
        }
        Some((sub, flags)) if sub == "sample" => {
            sample::run(&Args::parse(flags, sample::SWITCHES)?).map_err(|e| format!("{e}\nusage: {}", sample::USAGE))
        }
        Some((sub, flags)) if sub == "generate" => {
            generate::run(&Args::parse(&generate::normalize(flags), generate::SWITCHES)?)
                .map_err(|e| format!("{e}\nusage: {}", generate::USAGE))
        }
        Some((other, _)) => {
            Err(format!("unknown build command `{other}` (known: generate, filter, sample)\nusage: {USAGE}"))
        }
        None => Err(format!("a build command is required (generate, filter, sample)\nusage: {USAGE}")),
    }
}
