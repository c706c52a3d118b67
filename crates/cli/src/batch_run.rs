//! `execbench run --batch`: the run's answers from the provider's batch service
//! (`execbench_run::batch`). A run file with batches is checked on `--resume`: ended batches are
//! collected into records (scored as live answers are), the rest are said to be waiting.
//! `--wait` polls politely until every batch is collected. The batch ids and states live in the
//! run file's state lines; the key never does.

use execbench_eval::report::summarize;
use execbench_providers::Usage;
use execbench_run::api::ApiModel;
use execbench_run::batch::{self, SubmittedBatch};
use execbench_run::manifest::{RunEntry, RunState, Tally};
use execbench_run::record::SampleRecord;
use execbench_run::store::RunStore;
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

/// Sample indices some not yet collected batch still holds.
fn pending_samples(batches: &[SubmittedBatch]) -> std::collections::BTreeSet<usize> {
    batches
        .iter()
        .filter(|b| !b.collected)
        .flat_map(|b| {
            b.custom_ids.iter().filter_map(|id| execbench_providers::batch::parse_custom_id(id).map(|(s, _)| s))
        })
        .collect()
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
    let save =
        async |entry: &RunEntry| run.store.save_entry(entry).await.map_err(|e| format!("cannot write {out}: {e}"));
    if run.submit {
        let pending = pending_samples(&run.entry.batches);
        let mut job = run.job.clone();
        job.done.extend(pending.iter().filter_map(|&i| job.samples.get(i).map(|s| s.id.clone())));
        let lines = batch::plan_lines(&job, &run.model)?;
        if !lines.is_empty() {
            batch::check_cap(&job, &run.model, &lines, job.spend_cap.as_ref())?;
            let count = lines.len();
            let (accepted, error) = batch::submit(http, &run.model, lines).await;
            for b in &accepted {
                println!("submitted batch {} ({} requests)", b.id, b.custom_ids.len());
            }
            run.entry.batches.extend(accepted);
            run.entry.state = RunState::Paused;
            run.entry.note = Some(format!("submitted {count} requests in batches"));
            run.entry.updated_ms = now_ms();
            save(&run.entry).await?;
            if let Some(e) = error {
                eprintln!("the provider refused the batch: {e}");
                return Ok(3);
            }
        }
    }
    let mut unchanged = 0u32;
    loop {
        let mut retry_after = None;
        let mut changed = false;
        for i in 0..run.entry.batches.len() {
            if run.entry.batches[i].collected {
                continue;
            }
            let before = run.entry.batches[i].status.clone();
            if !before.phase.ended()
                && let Err(e) = batch::refresh(http, &run.model, &mut run.entry.batches[i]).await
            {
                eprintln!("cannot check batch {}: {e}", run.entry.batches[i].id);
                retry_after = retry_after.max(e.retry_after_ms);
                continue;
            }
            changed |= run.entry.batches[i].status != before;
            let b = run.entry.batches[i].clone();
            if b.status.phase.ended() {
                match batch::collect(&run.job, &run.model, python, http, &b).await {
                    Ok(records) => {
                        for record in records {
                            run.records.retain(|r| r.sample_id != record.sample_id);
                            run.records.push(record.clone());
                            run.entry.tally = Tally::of(&run.records);
                            run.store
                                .put_record(&run.entry, &record)
                                .await
                                .map_err(|e| format!("cannot write {out}: {e}"))?;
                        }
                        run.entry.batches[i].collected = true;
                        changed = true;
                        eprintln!("collected batch {}", b.describe());
                    }
                    Err(e) => eprintln!("cannot collect batch {} yet: {e}", b.id),
                }
            }
        }
        let waiting: Vec<&SubmittedBatch> = run.entry.batches.iter().filter(|b| !b.collected).collect();
        unchanged = if changed { 0 } else { unchanged + 1 };
        let next = batch::next_poll_in_ms(unchanged, retry_after);
        if waiting.is_empty() {
            break;
        }
        let done: u64 = waiting.iter().map(|b| b.status.succeeded + b.status.failed).sum();
        let total: u64 = waiting.iter().map(|b| b.custom_ids.len() as u64).sum();
        let summary = format!(
            "submitted: {} waiting, {done} / {total} requests done, next check in {} s",
            if waiting.len() == 1 { "1 batch".to_string() } else { format!("{} batches", waiting.len()) },
            next / 1000
        );
        for b in &waiting {
            println!("waiting: {}", b.describe());
        }
        println!("{summary}");
        run.entry.note = Some(summary);
        run.entry.updated_ms = now_ms();
        save(&run.entry).await?;
        if !run.wait {
            println!("run file: {out} (check again with --resume)");
            return Ok(4);
        }
        clock.sleep(next).await;
    }
    let missing = run.job.samples.len().saturating_sub(run.records.len());
    run.entry.state = if missing == 0 { RunState::Finished } else { RunState::Paused };
    run.entry.note = (missing > 0).then(|| format!("{missing} samples have no record: --resume --batch submits them"));
    run.entry.updated_ms = now_ms();
    save(&run.entry).await?;
    report(&run);
    let errors = run.records.iter().filter(|r| r.is_error()).count();
    Ok(if errors == 0 && missing == 0 { 0 } else { 1 })
}

fn report(run: &BatchRun) {
    let errors: Vec<&SampleRecord> = run.records.iter().filter(|r| r.is_error()).collect();
    eprintln!("{} samples recorded, {} errors (left out of pass@k)", run.records.len(), errors.len());
    for e in errors.iter().take(10) {
        eprintln!("  error: {}: {}", e.sample_id, e.error.as_ref().map(|x| x.message.as_str()).unwrap_or(""));
    }
    let usage = run.records.iter().filter_map(|r| r.usage).fold(Usage::default(), |mut t, u| {
        t.add(&u);
        t
    });
    println!(
        "tokens: {} prompt, {} completion ({} reasoning)",
        usage.prompt_tokens, usage.completion_tokens, usage.reasoning_tokens
    );
    if let Some(price) = &run.entry.manifest.price {
        println!("cost: {} (price: {})", execbench_run::cost::format_usd(price.price.cost(&usage)), price.source);
    }
    for (i, mode) in run.job.modes.iter().enumerate() {
        let rows: Vec<_> = run.records.iter().filter_map(|r| r.results.get(i).cloned()).collect();
        let s = summarize(run.job.template.task, *mode, &rows);
        println!(
            "{} {}: pass@1 {}  pass@5 {}  ({} samples, {} answers, {} correct)",
            s.task.label(),
            s.mode.label(),
            s.pass_at_1.display(),
            s.pass_at_5.display(),
            s.samples,
            s.answers,
            s.correct
        );
    }
}
