//! `execbench reval --data DREval_data.jsonl --tasks DREval_tasks.jsonl [--reference R] [--out O]`:
//! REval's benchmark, a format the user brings, traced by execbench's engine; its truths by REval's
//! rules written one row a program input (`--out`), and, given REval's own truths
//! (`scripts/reval_reference.py`), how far the two agree, task by task, with every difference.

use std::collections::BTreeMap;

use execbench_dataset_jobs::reval::reval_agreement;
use execbench_run::CancelToken;
use execbench_trace_questions::reval::{Task, read_reference, read_reval};

use crate::progress::Progress;
use crate::python::Workers;

#[derive(clap::Args, Debug)]
pub struct RevalArgs {
    /// REval's programs (data/DREval_data.jsonl of r-eval/REval)
    #[arg(long, value_name = "FILE")]
    data: String,
    /// REval's places asked about (data/DREval_tasks.jsonl)
    #[arg(long, value_name = "FILE")]
    tasks: String,
    /// REval's own truths, from scripts/reval_reference.py, to hold execbench's against
    #[arg(long, value_name = "FILE")]
    reference: Option<String>,
    /// Where execbench's truths go (JSON Lines, the reference's shape)
    #[arg(long, value_name = "FILE")]
    out: Option<String>,
    /// Where every difference goes (JSON Lines: both truths and the reason)
    #[arg(long, value_name = "FILE")]
    differences: Option<String>,
    /// How long a program may run while traced
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    time_limit: f64,
    /// Python worker processes at once [default: every core]
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
}

fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))
}

pub fn run(args: &RevalArgs) -> Result<i32, String> {
    let runs = read_reval(&args.data, &read(&args.data)?, &args.tasks, &read(&args.tasks)?).map_err(|e| e.0)?;
    let reference = match &args.reference {
        Some(path) => read_reference(path, &read(path)?).map_err(|e| e.0)?,
        None => BTreeMap::new(),
    };
    let limits = crate::args::time_limit(args.time_limit)?;
    let python = Workers::of_this_binary()?.python(crate::args::jobs(args.jobs)?);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let mut progress = Progress::new(runs.len());
    let (agreement, ours) =
        runtime.block_on(reval_agreement(&python, &runs, &reference, limits, &CancelToken::new(), &mut |_| {
            progress.tick(0)
        }));
    let ok = ours.iter().filter(|row| row.status == "ok").count();
    println!("{} program inputs traced, {ok} ran to the end", ours.len());
    if let Some(out) = &args.out {
        write_lines(out, ours.iter())?;
        println!("execbench's truths written to {out}");
    }
    if args.reference.is_none() {
        return Ok(0);
    }
    println!("task      agree / compared");
    for task in Task::ALL {
        let (agree, compared) = agreement.counts.get(&task).copied().unwrap_or_default();
        let share = if compared == 0 { 0.0 } else { 100.0 * agree as f64 / compared as f64 };
        println!("{:<9} {agree:>5} / {compared:<5} {share:.1}%", task.label());
    }
    for (why, n) in &agreement.not_compared {
        println!("not compared, {n} places: {why}");
    }
    let mut reasons: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for difference in &agreement.differences {
        *reasons.entry((difference.task.label(), difference.reason.as_str())).or_default() += 1;
    }
    for ((task, reason), n) in reasons {
        println!("{n} {task} differences: {reason}");
    }
    if let Some(path) = &args.differences {
        write_lines(path, agreement.differences.iter())?;
        println!("{} differences written to {path}", agreement.differences.len());
    }
    Ok(0)
}

fn write_lines<T: serde::Serialize>(path: &str, rows: impl Iterator<Item = T>) -> Result<(), String> {
    let mut text = String::new();
    for row in rows {
        text.push_str(&serde_json::to_string(&row).map_err(|e| format!("cannot write {path}: {e}"))?);
        text.push('\n');
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {path}: {e}"))
}
