//! `execbench score`: re-score a generations file (CRUXEval's `{"sample_0": [...]}`, JSON Lines
//! of raw responses, or an evaluation file as CRUXEval's leaderboard and CodeCrash publish it)
//! against a dataset, printing pass@1 and pass@5 per mode (and an evaluation file's own verdicts
//! beside them) and optionally writing one result row per sample and mode. Samples are spread over
//! `--jobs` interpreters (a compatible re-scoring with many time-outs is mostly waiting for time
//! limits); what is printed and written is the same whatever the number.

use std::time::Instant;

use execbench_core::{Limits, Provenance};
use execbench_eval::generations::{Rescore, import_generations, rescore_in_parallel};
use execbench_eval::report::markdown_table;
use execbench_eval::stored::{StoredScores, compare_stored};
use execbench_eval::{Mode, ScoreOptions, Task};

use crate::args::Args;
use crate::python::Workers;

pub const USAGE: &str = "execbench score --dataset FILE(.jsonl|.parquet) --generations FILE --task output|input [--mode strict|compatible] [--time-limit SECONDS] [--jobs N] [--out FILE.jsonl]";

const KNOWN_FLAGS: &[&str] = &["dataset", "generations", "task", "mode", "time-limit", "out", "jobs"];

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

fn settings(args: &Args) -> Result<Settings<'_>, String> {
    args.reject_unknown(KNOWN_FLAGS)?;
    let dataset = args.required("dataset")?;
    let generations = args.required("generations")?;
    let task_label = args.required("task")?;
    let task = Task::from_label(task_label).ok_or(format!("unknown --task `{task_label}` (known: output, input)"))?;
    // Both modes unless one is asked for: the point of reporting both is to compare them.
    let modes = match args.optional("mode") {
        None => Mode::ALL.to_vec(),
        Some(label) => {
            vec![Mode::from_label(label).ok_or(format!("unknown --mode `{label}` (known: strict, compatible)"))?]
        }
    };
    let seconds: f64 = args.number("time-limit", 3.0)?;
    if !(seconds > 0.0 && seconds <= 3600.0) {
        return Err(format!("--time-limit must be between 0 and 3600 seconds, got {seconds}"));
    }
    let options = ScoreOptions { limits: Limits { time_ms: (seconds * 1000.0).round() as u32, max_steps: 0 } };
    Ok(Settings { dataset, generations, task, modes, options, out: args.optional("out"), jobs: args.jobs()? })
}

/// Returns the process exit code: 0 when both files were read without a problem, 1 when a row or
/// entry was bad (the good ones are still scored and reported).
pub fn run(args: &Args) -> Result<i32, String> {
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

    let workers = Workers::of_this_binary()?;
    let mut rescores: Vec<Rescore> = Vec::new();
    for mode in &settings.modes {
        let started = Instant::now();
        let rescore = rescore_in_parallel(
            || workers.engine(),
            settings.jobs,
            &dataset.samples,
            &generations,
            settings.task,
            *mode,
            &settings.options,
            |_| {},
        );
        eprintln!(
            "{} {}: {} answers scored in {:.0} ms",
            settings.task.label(),
            mode.label(),
            rescore.summary.answers,
            started.elapsed().as_secs_f64() * 1000.0
        );
        rescores.push(rescore);
    }

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
    use super::*;

    fn parsed(raw: &[&str]) -> Args {
        Args::of(raw, &[])
    }

    #[test]
    fn settings_are_checked_before_any_work() {
        let base = ["--dataset", "d.jsonl", "--generations", "g.json"];
        let cases: &[(&[&str], &str)] = &[
            (&[], "--task is required"),
            (&["--task", "both"], "unknown --task `both` (known: output, input)"),
            (&["--task", "output", "--mode", "lenient"], "unknown --mode `lenient` (known: strict, compatible)"),
            (&["--task", "output", "--time-limit", "0"], "--time-limit must be between 0 and 3600 seconds, got 0"),
            (&["--task", "output", "--k", "3"], "unknown flag --k"),
            (&["--task", "output", "--jobs", "0"], "--jobs must be between 1 and 1024, got 0"),
        ];
        for (extra, message) in cases {
            let args = parsed(&[&base[..], extra].concat());
            assert_eq!(settings(&args).err().as_deref(), Some(*message), "{extra:?}");
        }
        let args = parsed(&[&base[..], &["--task", "input"]].concat());
        let s = settings(&args).expect("valid flags");
        assert_eq!(
            (s.task, s.modes.clone(), s.options.limits.time_ms, s.out),
            (Task::Input, vec![Mode::Strict, Mode::Compatible], 3000, None)
        );
        let args = parsed(
            &[&base[..], &["--task", "output", "--mode", "compatible", "--out", "r.jsonl", "--jobs", "2"]].concat(),
        );
        let s = settings(&args).expect("valid flags");
        assert_eq!((s.modes, s.out, s.jobs), (vec![Mode::Compatible], Some("r.jsonl"), 2));
    }
}
