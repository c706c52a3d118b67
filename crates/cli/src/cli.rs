//! The command line's grammar: every subcommand and its flags, declared once for clap, which
//! gives the help texts, `--version`, the errors for unknown or missing flags and the shell
//! completions from the same declarations.

use std::io::Write;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use clap_complete::Shell;

#[cfg(test)]
use crate::api_args::ApiFlags;
use crate::{batch_cmd, build, compare, normalise, perturb, questions, reval, run, score, verify};

#[derive(Parser, Debug)]
#[command(
    name = "execbench",
    version,
    about = "Code-reasoning benchmarks on the command line: the web app's library crates, natively.",
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// Made once per process: a boxed variant would save nothing worth its noise.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run every sample of a dataset and report failures (and results per category)
    Verify(verify::VerifyArgs),
    /// Perturb every sample with one kind and seed, verify each result, write the rows
    Perturb(perturb::PerturbArgs),
    /// Every program normalised by ast.unparse (CodeCrash's baseline), verified and written
    Normalise(normalise::NormaliseArgs),
    /// Re-score a generations or evaluation file against a dataset
    Score(score::ScoreArgs),
    /// Evaluate a model (behind a provider's API, or offline) on a dataset
    Run(run::RunArgs),
    /// A batch run's batches: list them, or cancel the ones still running
    #[command(subcommand)]
    Batch(batch_cmd::BatchCommand),
    /// Build a benchmark as CRUXEval was built: generate, filter, sample
    #[command(subcommand)]
    Build(build::BuildCommand),
    /// Compare run files: pass@1 with intervals, drops, McNemar's test, as a Markdown report
    Compare(compare::CompareArgs),
    /// Trace every sample and write questions about its run (coverage, state, path, output)
    Questions(questions::QuestionsArgs),
    /// REval's benchmark files traced; its truths by REval's rules, and their agreement with REval's own
    Reval(reval::RevalArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions {
        #[arg(value_enum)]
        shell: Shell,
    },
}

impl Command {
    /// The subcommand's words, as typed (`build filter`): for messages and its usage line.
    pub fn words(&self) -> Vec<&'static str> {
        match self {
            Command::Verify(_) => vec!["verify"],
            Command::Perturb(_) => vec!["perturb"],
            Command::Normalise(_) => vec!["normalise"],
            Command::Score(_) => vec!["score"],
            Command::Run(_) => vec!["run"],
            Command::Batch(sub) => vec!["batch", sub.word()],
            Command::Build(sub) => vec!["build", sub.word()],
            Command::Compare(_) => vec!["compare"],
            Command::Questions(_) => vec!["questions"],
            Command::Reval(_) => vec!["reval"],
            Command::Completions { .. } => vec!["completions"],
        }
    }

    /// The provider flags, for the commands that have them.
    #[cfg(test)]
    pub fn api_flags(&self) -> Option<&ApiFlags> {
        match self {
            Command::Run(args) => Some(&args.api),
            Command::Batch(batch_cmd::BatchCommand::Cancel(args)) => Some(&args.api),
            Command::Perturb(args) => Some(&args.api),
            Command::Build(build::BuildCommand::Generate(args)) => Some(&args.api),
            _ => None,
        }
    }
}

/// The grammar with the conventions of the hand-written parser it replaced: a flag given twice
/// takes its last value, and a negative number is a (bad) value, not an unknown flag `-1`.
pub fn grammar() -> clap::Command {
    fn conventions(command: clap::Command) -> clap::Command {
        command.args_override_self(true).allow_negative_numbers(true).mut_subcommands(conventions)
    }
    conventions(Cli::command())
}

/// Parses a command line (the program's name first); help, `--version` and refusals are errors
/// that print themselves (`clap::Error::exit`).
pub fn parse_from<I, T>(argv: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let mut command = grammar();
    let matches = command.try_get_matches_from_mut(argv)?;
    Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut command))
}

/// Runs the command; returns its exit code, or an error that is the user's to fix (exit 2).
pub fn dispatch(command: Command) -> Result<i32, String> {
    match command {
        Command::Verify(args) => verify::run(&args),
        Command::Perturb(args) => perturb::run(&args),
        Command::Normalise(args) => normalise::run(&args),
        Command::Score(args) => score::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Batch(sub) => batch_cmd::run(sub),
        Command::Build(sub) => build::run(sub),
        Command::Compare(args) => compare::run(&args),
        Command::Questions(args) => questions::run(&args),
        Command::Reval(args) => reval::run(&args),
        Command::Completions { shell } => {
            // Written whole, so that a closed pipe is an error message rather than a panic.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut grammar(), "execbench", &mut script);
            std::io::stdout().write_all(&script).map_err(|e| format!("cannot write the script: {e}"))?;
            Ok(0)
        }
    }
}

/// The usage line of a subcommand, as clap writes it (`Usage: execbench run [OPTIONS] ...`).
pub fn usage(words: &[&str]) -> String {
    let mut command = grammar();
    command.build();
    usage_in(&mut command, words)
}

fn usage_in(command: &mut clap::Command, words: &[&str]) -> String {
    if let Some((word, rest)) = words.split_first()
        && let Some(sub) = command.find_subcommand_mut(word)
    {
        return usage_in(sub, rest);
    }
    command.render_usage().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grammar_is_consistent() {
        // clap's own checks: no two flags with one name, defaults that parse, and so on.
        grammar().debug_assert();
    }

    #[test]
    fn a_usage_line_names_the_subcommand_and_its_required_flags() {
        let line = usage(&["build", "filter"]);
        assert!(line.starts_with("Usage: execbench build filter"), "{line}");
        assert!(line.contains("--candidates <FILE>"), "{line}");
        assert!(usage(&["run"]).contains("--provider <P>"), "{}", usage(&["run"]));
    }
}
