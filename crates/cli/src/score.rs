//! `execbench score`: re-score a generations file (CRUXEval's `{"sample_0": [...]}`, JSON Lines
//! of raw responses, or an evaluation file as CRUXEval's leaderboard and CodeCrash publish it)
//! against a dataset, printing pass@1 and pass@5 per mode (and an evaluation file's own verdicts
//! beside them) and optionally writing one result row per sample and mode. The file is replayed as
//! a model through the same stored-run session as the page's Re-score (kept in memory here), so
//! both give the same figures. Python runs on `--jobs` interpreters (a compatible re-scoring with
//! many time-outs is mostly waiting for time limits); what is printed and written is the same
//! whatever the number.

use std::cell::RefCell;
use std::time::Instant;

use execbench_core::Provenance;
use execbench_eval::generations::{Rescore, import_generations};
use execbench_eval::models::Replay;
use execbench_eval::prompt::{Style, default_template};
use execbench_eval::report::{markdown_table, summarize};
use execbench_eval::stored::{StoredScores, compare_stored};
use execbench_eval::{Mode, ScoreOptions, Task};
use execbench_run::manifest::RunEntry;
use execbench_run::session::{self, FileJob, NewRun, Session, SessionEvent, SessionIo, run_session};
use execbench_run::store::MemoryRunStore;
use execbench_run::{CancelToken, Event, Responder};

use crate::http::{NativeHttp, TokioClock};
use crate::progress::Progress;
use crate::python::Workers;

#[derive(clap::Args, Debug)]
pub struct ScoreArgs {
    /// The dataset the answers are for (.jsonl or .parquet)
    #[arg(long, value_name = "FILE")]
    dataset: String,
    /// CRUXEval's generations JSON, JSON Lines of responses, or an evaluation file
    #[arg(long, value_name = "FILE")]
    generations: String,
    /// What the model predicted
    #[arg(long, value_name = "output|input")]
    task: String,
    /// One scoring mode [default: both]
    #[arg(long, value_name = "strict|compatible")]
    mode: Option<String>,
    /// How long a program may run
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0)]
    time_limit: f64,
    /// Python worker processes at once [default: every core]
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Write one result row per sample and mode here (JSON Lines)
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
}

/// Everything the command needs, checked before any file is read.
#[derive(Debug)]
struct Settings<'a> {
    dataset: &'a str,
    generations: &'a str,
    task: Task,
    modes: Vec<Mode>,
    options: ScoreOptions,
    out: Option<&'a str>,
    jobs: usize,
}

fn settings(args: &ScoreArgs) -> Result<Settings<'_>, String> {
    let task_label = args.task.as_str();
    let task = Task::from_label(task_label)
        .ok_or(format!("unknown --task `{task_label}` (known: output, input, question)"))?;
    // Both modes unless one is asked for: the point of reporting both is to compare them.
    let modes = match args.mode.as_deref() {
        None => Mode::ALL.to_vec(),
        Some(label) => {
            vec![Mode::from_label(label).ok_or(format!("unknown --mode `{label}` (known: strict, compatible)"))?]
        }
    };
    let options = ScoreOptions { limits: crate::args::time_limit(args.time_limit)? };
    Ok(Settings {
        dataset: &args.dataset,
        generations: &args.generations,
        task,
        modes,
        options,
        out: args.out.as_deref(),
        jobs: crate::args::jobs(args.jobs)?,
    })
}

/// Returns the process exit code: 0 when both files were read without a problem, 1 when a row or
/// entry was bad (the good ones are still scored and reported).
pub fn run(args: &ScoreArgs) -> Result<i32, String> {
    let settings = settings(args)?;
    let dataset = crate::dataset::read_dataset(settings.dataset)?;
    let generations_bytes =
        std::fs::read(settings.generations).map_err(|e| format!("cannot read {}: {e}", settings.generations))?;
    let generations_text =
        String::from_utf8(generations_bytes).map_err(|e| format!("{}: not UTF-8 text: {e}", settings.generations))?;
    let generations = import_generations(settings.generations, &generations_text);
    for error in &generations.errors {
        eprintln!("invalid entry: {error}");
    }
    let bad_input = !dataset.errors.is_empty() || !generations.errors.is_empty();
    if generations.entries.is_empty() {
        eprintln!("nothing to score: {} has no usable entries", settings.generations);
        return Ok(1);
    }

    // The page's path: the file replayed as a model through a stored-run session (in memory
    // here), so a file gets the same figures on the command line as in the page.
    let replay = Replay::from_generations(settings.generations, &generations);
    let template = default_template(settings.task, Style::Direct);
    let FileJob { mut job, missing, unknown } =
        session::file_job(&replay, &dataset.samples, template, settings.modes.clone());
    job.options = settings.options;
    let mut responder = Responder::Offline(Box::new(replay));
    let about = NewRun {
        run_id: "score".to_string(),
        created: 0,
        model: session::model_name(&responder, Some(settings.generations)),
        api: None,
        dataset: settings.dataset.to_string(),
        simulation: None,
        price: None,
        stored: generations.stored.clone(),
        app_version: env!("CARGO_PKG_VERSION").to_string(),
        key_used: false,
    };
    let entry = RunEntry::new(session::new_manifest(&job, about), 0.0);
    let store = MemoryRunStore::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let python = Workers::of_this_binary()?.python(settings.jobs);
    let (http, clock) = (NativeHttp::new()?, TokioClock::new());
    let started = Instant::now();
    let progress = RefCell::new(Progress::bar_only(job.samples.len()));
    let on_event = |event: SessionEvent| {
        if let SessionEvent::Engine(Event::Record(_), _) = event {
            progress.borrow_mut().tick(0);
        }
    };
    let session = Session { store: &store, entry, earlier: Vec::new(), unsaved: Vec::new(), now_ms: Box::new(|| 0.0) };
    let io = SessionIo { python: &python, http: &http, clock: &clock };
    let end = runtime
        .block_on(run_session(session, job, &mut responder, io, &CancelToken::new(), &on_event))
        .map_err(|e| format!("the answers could not be kept while scoring: {}", e.error))?;
    eprintln!(
        "{} samples scored in {} mode(s) in {:.0} ms",
        end.records.len(),
        settings.modes.len(),
        started.elapsed().as_secs_f64() * 1000.0
    );
    // An answer the replay could not give (never for a sample in the file's scope) is a bug here.
    if let Some(error) = end.records.iter().find_map(|r| r.error.as_ref()) {
        return Err(format!("scoring failed: {}", error.message));
    }
    let rescores: Vec<Rescore> = settings
        .modes
        .iter()
        .enumerate()
        .map(|(i, mode)| {
            let results: Vec<_> = end.records.iter().filter_map(|r| r.results.get(i).cloned()).collect();
            let summary = summarize(settings.task, *mode, &results);
            Rescore { results, summary, missing: missing.clone(), unknown: unknown.clone() }
        })
        .collect();

    let first = &rescores[0];
    if !first.missing.is_empty() {
        eprintln!(
            "{} dataset samples have no answers in the file (left out), e.g. {}",
            first.missing.len(),
            first.missing[0]
        );
    }
    if !first.unknown.is_empty() {
        eprintln!(
            "{} ids in the file are not in the dataset (ignored), e.g. {}",
            first.unknown.len(),
            first.unknown[0]
        );
    }
    for rescore in &rescores {
        let s = &rescore.summary;
        println!(
            "{} {}: pass@1 {}  pass@5 {}  ({} samples, {} answers, {} correct, {} dropped, {} extraction failed)",
            s.task.label(),
            s.mode.label(),
            s.pass_at_1.display(),
            figure_with_coverage(&s.pass_at_5),
            s.samples,
            s.answers,
            s.correct,
            s.dropped,
            s.extraction_failed
        );
    }
    if let Some(stored) = &generations.stored {
        print_stored(stored, &rescores);
    }
    let summaries: Vec<_> = rescores.iter().map(|r| r.summary.clone()).collect();
    println!("\n{}", markdown_table(&summaries));

    if let Some(out) = settings.out {
        let rows: Vec<_> = rescores.iter().flat_map(|r| r.results.iter().cloned()).collect();
        // Every row says what made it: the file re-scored, the task and the dataset.
        let provenance = Provenance {
            model: Some(format!("re-scored {}", settings.generations)),
            task: Some(settings.task.label().to_string()),
            ..Provenance::of_dataset(
                env!("CARGO_PKG_VERSION"),
                &crate::perturb::dataset_name(settings.dataset),
                &dataset.samples,
            )
        };
        std::fs::write(out, provenance.jsonl(&rows)).map_err(|e| format!("cannot write {out}: {e}"))?;
        eprintln!("{} result rows written to {out}", rows.len());
    }
    Ok(if bad_input { 1 } else { 0 })
}

/// How many disagreements are listed one by one (all are counted).
const DISAGREEMENTS_LISTED: usize = 20;

/// An evaluation file's own verdicts next to execbench's: its figures as published, the same
/// figures from its verdicts over the samples scored here, and every answer judged differently.
fn print_stored(stored: &StoredScores, rescores: &[Rescore]) {
    let published = |figure: Option<f64>| figure.map_or("-".to_string(), |p| format!("{p:.1}"));
    println!("stored in the file: pass@1 {}  pass@5 {}", published(stored.pass_at_1), published(stored.pass_at_5));
    for rescore in rescores {
        let comparison = compare_stored(stored, rescore);
        let s = &rescore.summary;
        println!(
            "{} {}: stored pass@1 {} vs execbench {}  pass@5 {} vs {}  ({} answers judged differently{})",
            s.task.label(),
            s.mode.label(),
            comparison.pass_at_1.display(),
            s.pass_at_1.display(),
            comparison.pass_at_5.display(),
            s.pass_at_5.display(),
            comparison.disagreements.len(),
            match comparison.without_verdicts.len() {
                0 => String::new(),
                n => format!("; {n} samples without stored verdicts"),
            }
        );
        for d in comparison.disagreements.iter().take(DISAGREEMENTS_LISTED) {
            let stored_word = if d.stored { "correct" } else { "wrong" };
            println!("  {} answer {}: stored {stored_word}, execbench {}", d.id, d.answer + 1, d.execbench);
        }
        if comparison.disagreements.len() > DISAGREEMENTS_LISTED {
            println!("  … and {} more", comparison.disagreements.len() - DISAGREEMENTS_LISTED);
        }
    }
}

/// pass@5 is only defined for samples with at least 5 answers: say how many had them.
fn figure_with_coverage(score: &execbench_eval::DatasetScore) -> String {
    if score.available < score.total {
        format!("{} ({} of {} samples have 5 answers)", score.display(), score.available, score.total)
    } else {
        score.display()
    }
}

#[cfg(test)]
mod tests {
    use clap::error::ErrorKind;

    use super::*;
    use crate::cli::Command;

    fn parsed(raw: &[&str]) -> Result<ScoreArgs, clap::Error> {
        match crate::cli::parse_from([&["execbench", "score"][..], raw].concat())?.command {
            Command::Score(args) => Ok(args),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn settings_are_checked_before_any_work() {
        let base = ["--dataset", "d.jsonl", "--generations", "g.json"];
        // What clap refuses, naming the flag at fault.
        let refused: &[(&[&str], ErrorKind, &str)] = &[
            (&[], ErrorKind::MissingRequiredArgument, "--task"),
            (&["--task", "output", "--k", "3"], ErrorKind::UnknownArgument, "--k"),
            (&["--task", "output", "--jobs", "many"], ErrorKind::ValueValidation, "--jobs"),
        ];
        for (extra, kind, flag) in refused {
            let err = parsed(&[&base[..], extra].concat()).expect_err("refused");
            assert_eq!(err.kind(), *kind, "{extra:?}: {err}");
            assert!(err.to_string().contains(flag), "{extra:?}: {err}");
        }
        let cases: &[(&[&str], &str)] = &[
            (&["--task", "both"], "unknown --task `both` (known: output, input, question)"),
            (&["--task", "output", "--mode", "lenient"], "unknown --mode `lenient` (known: strict, compatible)"),
            (&["--task", "output", "--time-limit", "0"], "--time-limit must be between 0 and 3600 seconds, got 0"),
            (&["--task", "output", "--jobs", "0"], "--jobs must be between 1 and 1024, got 0"),
        ];
        for (extra, message) in cases {
            let args = parsed(&[&base[..], extra].concat()).expect("flags parse");
            assert_eq!(settings(&args).err().as_deref(), Some(*message), "{extra:?}");
        }
        let args = parsed(&[&base[..], &["--task", "input"]].concat()).expect("flags parse");
        let s = settings(&args).expect("valid flags");
        assert_eq!(
            (s.task, s.modes.clone(), s.options.limits.time_ms, s.out),
            (Task::Input, vec![Mode::Strict, Mode::Compatible], 3000, None)
        );
        let args = parsed(
            &[&base[..], &["--task", "output", "--mode", "compatible", "--out", "r.jsonl", "--jobs", "2"]].concat(),
        )
        .expect("flags parse");
        let s = settings(&args).expect("valid flags");
        assert_eq!((s.modes, s.out, s.jobs), (vec![Mode::Compatible], Some("r.jsonl"), 2));
    }
}
