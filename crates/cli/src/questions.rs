//! `execbench questions --dataset F --kinds coverage,state,path --seed S --out Q.jsonl`: trace
//! every sample and write questions about its run (does a line run, what a variable holds after
//! a line, which line runs next, what the call returns), one JSON line each with its prompt, its
//! truth and where it came from. The library's `questions_for_dataset`, the page's Questions job,
//! with this binary's worker processes as its Python.

use std::collections::BTreeMap;

use execbench_dataset_jobs::trace_questions::questions_for_dataset;
use execbench_run::CancelToken;
use execbench_trace_questions::{MakeOptions, QuestionKind, questions_jsonl};

use crate::progress::Progress;
use crate::python::Workers;

#[derive(clap::Args, Debug)]
pub struct QuestionsArgs {
    /// The dataset (.jsonl or .parquet)
    #[arg(long, value_name = "FILE")]
    dataset: String,
    /// The kinds of question, comma-separated: coverage, state, path, output
    #[arg(long, value_name = "KINDS", default_value = "coverage,state,path,output")]
    kinds: String,
    /// The seed that picks each question's line, variable and run
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Questions of each kind per sample, at most
    #[arg(long, value_name = "N", default_value_t = 1)]
    per_kind: usize,
    /// How long a program may run while traced
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    time_limit: f64,
    /// Python worker processes at once [default: every core]
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Where the questions go (JSON Lines)
    #[arg(long, value_name = "FILE")]
    out: String,
}

pub fn run(args: &QuestionsArgs) -> Result<i32, String> {
    let kinds = QuestionKind::parse_list(&args.kinds).map_err(|e| format!("--kinds: {e}"))?;
    if !(1..=100).contains(&args.per_kind) {
        return Err(format!("--per-kind must be between 1 and 100, got {}", args.per_kind));
    }
    let limits = crate::args::time_limit(args.time_limit)?;
    let jobs = crate::args::jobs(args.jobs)?;
    let report = crate::dataset::read_dataset(&args.dataset)?;
    let dataset =
        std::path::Path::new(&args.dataset).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let options = MakeOptions { kinds, seed: args.seed, per_kind: args.per_kind, dataset };
    let python = Workers::of_this_binary()?.python(jobs);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let mut progress = Progress::new(report.samples.len());
    let mut without = 0;
    let outcome = runtime.block_on(questions_for_dataset(
        &python,
        &report.samples,
        &options,
        limits,
        &CancelToken::new(),
        &mut |_, questions| {
            without += usize::from(questions.is_empty());
            progress.tick(without);
        },
    ));
    std::fs::write(&args.out, questions_jsonl(&outcome.questions))
        .map_err(|e| format!("cannot write {}: {e}", args.out))?;
    for (id, why) in &outcome.skipped {
        println!("skipped {id}: {why}");
    }
    let mut by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    for question in &outcome.questions {
        *by_kind.entry(question.kind.label()).or_default() += 1;
    }
    let counts: Vec<String> = by_kind.iter().map(|(kind, n)| format!("{n} {kind}")).collect();
    println!(
        "{} samples traced ({:.0} ms in Python), {} skipped; {} questions written to {}: {}",
        outcome.traced,
        outcome.elapsed_ms,
        outcome.skipped.len(),
        outcome.questions.len(),
        args.out,
        if counts.is_empty() { "none".to_owned() } else { counts.join(", ") }
    );
    let mut missing: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (_, kind, why) in &outcome.missing {
        *missing.entry((kind, why.as_str())).or_default() += 1;
    }
    for ((kind, why), n) in missing {
        println!("no {kind} question for {n} samples: {why}");
    }
    Ok(if report.errors.is_empty() && !outcome.questions.is_empty() { 0 } else { 1 })
}
