//! `execbench run --batch`: the run's answers from the provider's batch service
//! (`execbench_run::batch`). A run file with batches is checked on `--resume`: ended batches are
//! collected into records (scored as live answers are), the rest are said to be waiting.
//! `--wait` polls politely until every batch is collected. The batch ids and states live in the
//! run file's state lines; the key never does.

use execbench_run::api::ApiModel;
use execbench_run::batch;
use execbench_run::closing_report::ClosingReport;
use execbench_run::manifest::RunEntry;
use execbench_run::record::SampleRecord;
use execbench_run::{Clock, EvalJob};

use crate::http::{NativeHttp, TokioClock};
use crate::python::CliPython;
use crate::store::JsonlRunStore;

pub struct BatchRun<'a> {
    pub out: &'a str,
    pub store: &'a JsonlRunStore,
    pub entry: RunEntry,
    /// The run's records so far.
    pub records: Vec<SampleRecord>,
    pub job: EvalJob,
    pub model: ApiModel,
    /// Submit the samples with no record and no batch (a new run, or `--batch` on resume).
    pub submit: bool,
    pub wait: bool,
}

fn now_ms() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64() * 1000.0).unwrap_or(0.0)
}

/// Exit code: 0 every sample recorded without errors, 1 with errors, 4 batches still waiting,
/// 3 the provider refused.
pub async fn run_batch(
    mut run: BatchRun<'_>,
    python: &CliPython,
    http: &NativeHttp,
    clock: &TokioClock,
) -> Result<i32, String> {
    let out = run.out;
    if run.submit {
        gemini_inline_threshold_from_env()?;
        let submission = batch::submit_run(run.store, http, &run.model, &run.job, &mut run.entry, now_ms())
            .await
            .map_err(|e| format!("{out}: {e}"))?;
        for (id, requests) in &submission.accepted {
            println!("submitted batch {id} ({requests} requests)");
        }
        for note in &submission.notes {
            println!("{note}");
        }
        if let Some(e) = submission.error {
            eprintln!("the provider refused the batch: {e}");
            return Ok(3);
        }
    }
    let mut unchanged = 0u32;
    loop {
        let mut stored = batch::StoredBatchRun {
            store: run.store,
            python,
            http,
            model: &run.model,
            job: &run.job,
            entry: &mut run.entry,
            records: &mut run.records,
        };
        let check = batch::check_run(&mut stored, now_ms()).await.map_err(|e| format!("{out}: {e}"))?;
        for problem in &check.problems {
            eprintln!("{problem}");
        }
        for collected in &check.collected {
            eprintln!("collected batch {collected}");
        }
        unchanged = if check.changed { 0 } else { unchanged + 1 };
        let next = batch::next_poll_in_ms(unchanged, check.retry_after_ms);
        let Some(summary) = batch::waiting_summary(&run.entry.batches) else { break };
        for b in run.entry.batches.iter().filter(|b| !b.collected) {
            println!("waiting: {}", b.describe());
        }
        println!("{summary}, next check in {} s", next / 1000);
        if !run.wait {
            println!("run file: {out} (check again with --resume)");
            return Ok(4);
        }
        clock.sleep(next).await;
    }
    let missing = run.job.samples.len().saturating_sub(run.records.len());
    report(&run);
    let errors = run.records.iter().filter(|r| r.is_error()).count();
    Ok(if errors == 0 && missing == 0 { 0 } else { 1 })
}

/// The environment variable that lowers the bytes of inline requests a Gemini batch takes before
/// it goes as an input file (tests take the file path with it, without 20 MB of requests).
pub const GEMINI_INLINE_BYTES_ENV: &str = "EXECBENCH_GEMINI_INLINE_BYTES";

fn gemini_inline_threshold_from_env() -> Result<(), String> {
    let Ok(value) = std::env::var(GEMINI_INLINE_BYTES_ENV) else { return Ok(()) };
    let bytes = value
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|&b| b > 0)
        .ok_or(format!("{GEMINI_INLINE_BYTES_ENV}: \"{value}\" is not a number of bytes above 0"))?;
    execbench_providers::batch::set_gemini_inline_max_bytes(Some(bytes));
    Ok(())
}

fn report(run: &BatchRun) {
    let mut closing = ClosingReport::default();
    for record in &run.records {
        closing.add(record);
    }
    let errors = closing.errors();
    eprintln!("{} samples recorded, {} errors (left out of pass@k)", closing.samples(), errors.len());
    for (id, message) in errors.iter().take(10) {
        eprintln!("  error: {id}: {message}");
    }
    if !errors.is_empty() {
        eprintln!("ask again for the errors with --resume --retry-errors (a new batch) or --retry-errors live");
    }
    super::print_results(&closing, &run.entry, run.job.template.task, &run.job.modes);
}
