//! `execbench build …`: building a benchmark as CRUXEval was built. `generate` asks for
//! candidates, `filter` judges them (static rules, then an instrumented run), `sample` dedupes,
//! samples and exports the kept ones with their provenance. All are thin over `execbench-recipe`.

mod filter;
pub(crate) mod generate;
mod sample;

// Made once per process: a boxed variant would save nothing worth its noise.
#[allow(clippy::large_enum_variant)]
#[derive(clap::Subcommand, Debug)]
pub enum BuildCommand {
    /// Candidate functions from a prompt per method: offline, a replayed file or a model's API
    Generate(generate::GenerateArgs),
    /// Every candidate through the filter; kept and rejected rows to two files
    Filter(filter::FilterArgs),
    /// The kept rows deduplicated, sampled with a seed, exported with their provenance
    Sample(sample::SampleArgs),
}

impl BuildCommand {
    pub fn word(&self) -> &'static str {
        match self {
            BuildCommand::Generate(_) => "generate",
            BuildCommand::Filter(_) => "filter",
            BuildCommand::Sample(_) => "sample",
        }
    }
}

/// Runs `build`'s subcommand; returns the exit code.
pub fn run(command: BuildCommand) -> Result<i32, String> {
    match command {
        BuildCommand::Generate(args) => generate::run(&args),
        BuildCommand::Filter(args) => filter::run(&args),
        BuildCommand::Sample(args) => sample::run(&args),
    }
}
