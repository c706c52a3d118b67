//! Retry errors of a batch run: its errored, expired and cancelled lines are error records, and
//! they are asked again either as a new batch of the same run (the default: half price) or live.
//! Samples a batch not yet collected still holds are never asked again: they are paid for.

use execbench_core::Sample;

use super::pending_samples;
use crate::manifest::RunEntry;
use crate::record::SampleRecord;
use crate::session::{self, Continuation, Continue};

/// How Retry errors asks again for a batch run's errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetryVia {
    /// Submitted as a new batch of the same run (`submit_run`).
    Batch,
    /// Asked live, as any run's Retry errors (`run_session`).
    Live,
}

impl RetryVia {
    pub const LABELS: &'static str = "batch, live";

    pub fn from_label(label: &str) -> Option<RetryVia> {
        match label {
            "batch" => Some(RetryVia::Batch),
            "live" => Some(RetryVia::Live),
            _ => None,
        }
    }
}

/// The Retry errors plan of a batch run: the samples whose record is an error and those with no
/// record, except the samples of batches still waiting. Live is refused while a batch waits (its
/// ending would be stored over the waiting state); either is refused when nothing is left to ask.
pub fn retry_errors(
    entry: &RunEntry,
    records: Vec<SampleRecord>,
    dataset: &[Sample],
    via: RetryVia,
    cap: Option<f64>,
) -> Result<Continuation, String> {
    let pending = pending_samples(&entry.batches);
    if via == RetryVia::Live && !pending.is_empty() {
        return Err(format!(
            "{}: {} samples are still in batches not yet collected: check the batches first (or retry as a new batch)",
            entry.id(),
            pending.len()
        ));
    }
    let mut plan = session::continuation(entry, records, dataset, Continue::RetryErrors, cap)?;
    let waiting: Vec<String> = pending.iter().filter_map(|&i| plan.job.samples.get(i).map(|s| s.id.clone())).collect();
    plan.job.done.extend(waiting);
    if plan.job.samples.iter().all(|s| plan.job.done.contains(&s.id)) {
        return Err(format!("{}: no errors and no samples without a record: nothing to retry", entry.id()));
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use execbench_providers::batch::{self as wire, BatchPhase, BatchStatus};

    use super::*;
    use crate::batch::SubmittedBatch;
    use crate::manifest::dataset_hash;
    use crate::session::endings::samples_of;
    use crate::store::conformance::{manifest, record};

    fn batch(samples: &[usize], collected: bool) -> SubmittedBatch {
        SubmittedBatch {
            id: "b".into(),
            custom_ids: samples.iter().map(|&s| wire::custom_id(s, 0)).collect(),
            status: BatchStatus {
                id: "b".into(),
                phase: if collected { BatchPhase::Expired } else { BatchPhase::InProgress },
                provider_state: "x".into(),
                total: samples.len() as u64,
                succeeded: 0,
                failed: 0,
                result_files: Vec::new(),
                reason: None,
            },
            collected,
        }
    }

    /// Which samples each choice asks again for, and when it is refused.
    #[test]
    fn retry_errors_asks_for_errors_and_never_for_waiting_samples() {
        // (records: (sample, is error), batches, via, the samples asked or the refusal's words)
        type Case =
            (&'static [(usize, bool)], Vec<SubmittedBatch>, RetryVia, Result<&'static [&'static str], &'static str>);
        let cases: Vec<Case> = vec![
            (
                &[(0, false), (1, true), (2, true), (3, false)],
                vec![batch(&[0, 1, 2, 3], true)],
                RetryVia::Batch,
                Ok(&["s1", "s2"]),
            ),
            (
                &[(0, false), (1, true), (2, true), (3, false)],
                vec![batch(&[0, 1, 2, 3], true)],
                RetryVia::Live,
                Ok(&["s1", "s2"]),
            ),
            // A sample with no record is asked too.
            (
                &[(0, false), (1, true), (2, false)],
                vec![batch(&[0, 1, 2, 3], true)],
                RetryVia::Batch,
                Ok(&["s1", "s3"]),
            ),
            // Samples in a batch still waiting are paid for: left out of a new batch...
            (&[(0, true), (1, false)], vec![batch(&[0, 1], true), batch(&[2, 3], false)], RetryVia::Batch, Ok(&["s0"])),
            // ...and live waits until every batch is collected.
            (
                &[(0, true), (1, false)],
                vec![batch(&[0, 1], true), batch(&[2, 3], false)],
                RetryVia::Live,
                Err("still in batches not yet collected"),
            ),
            (
                &[(0, false), (1, false), (2, false), (3, false)],
                vec![batch(&[0, 1, 2, 3], true)],
                RetryVia::Batch,
                Err("nothing to retry"),
            ),
            (
                &[(0, false), (1, false)],
                vec![batch(&[0, 1], true), batch(&[2, 3], false)],
                RetryVia::Batch,
                Err("nothing to retry"),
            ),
        ];
        let data = samples_of(4);
        for (i, (records, batches, via, want)) in cases.into_iter().enumerate() {
            let mut m = manifest("run-1", 1);
            m.samples = data.len();
            m.dataset_hash = dataset_hash(&data);
            let mut entry = RunEntry::new(m, 0.0);
            entry.batches = batches;
            let records = records.iter().map(|&(s, error)| record(&format!("s{s}"), s, Some(1.0), error)).collect();
            match (retry_errors(&entry, records, &data, via, None), want) {
                (Ok(plan), Ok(asked)) => {
                    let got: Vec<&str> = plan
                        .job
                        .samples
                        .iter()
                        .filter(|s| !plan.job.done.contains(&s.id))
                        .map(|s| s.id.as_str())
                        .collect();
                    assert_eq!(got, asked, "case {i}");
                }
                (Err(e), Err(words)) => assert!(e.contains(words), "case {i}: {e}"),
                (got, want) => panic!("case {i}: got {:?}, want {want:?}", got.map(|p| p.job.done)),
            }
        }
    }

    /// A live retry of a batch run, as a session runs it: the answers asked live keep their
    /// tokens apart, so the run costs its batch tokens at the batch price and the retried ones
    /// at the live price; and the spend cap of the live session is at the live price (a cap with
    /// room for a request at the batch price, not the live one, pauses it before anything is
    /// sent). Expected figures come from the records' tokens and the two prices.
    #[test]
    fn a_live_retry_of_a_batch_run_is_costed_and_capped_at_the_live_price() {
        use execbench_eval::Task;
        use execbench_eval::prompt::{Style, default_template};
        use execbench_eval::score::Mode;
        use execbench_providers::{Endpoint, Usage};
        use futures::executor::block_on;

        use crate::api::{ApiModel, ApiSettings};
        use crate::cancel::CancelToken;
        use crate::cost::Price;
        use crate::engine::{EvalJob, Responder, RunEnd};
        use crate::io::BlockingPython;
        use crate::manifest::PriceUsed;
        use crate::session::endings::{AssertEngine, StepClock};
        use crate::session::{NewRun, Session, SessionIo, new_manifest, run_session};
        use crate::simulate::{SimulatedHttp, Simulation};
        use crate::store::{MemoryRunStore, RunStore};

        #[derive(Clone, Copy, Debug, PartialEq)]
        enum Cap {
            None,
            /// Room for the first retried request at the batch price, not at the live price.
            FitsOnlyAtBatchPrice,
            Roomy,
        }
        let live_price = Price::per_million(3.0, 15.0);
        let batch_price = super::super::batch_price(live_price);
        let data = samples_of(4);
        let template = default_template(Task::Output, Style::Direct);
        let job = EvalJob::new(data.clone(), template.clone(), 1, vec![Mode::Strict]);
        let settings = ApiSettings::new(Endpoint {
            provider: "openai-compatible".into(),
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "m".into(),
        });
        // The prompt of s2, the first sample asked again, as the engine bounds its cost.
        let prompt_bytes: usize = template.render(&data[2]).messages.iter().map(|m| m.content.len()).sum();
        let worst_live = live_price.worst_case(prompt_bytes as u64, 1, 1, settings.params.max_tokens as u64);
        // (cap, how the session ends)
        let cases = [(Cap::None, "finished"), (Cap::Roomy, "finished"), (Cap::FitsOnlyAtBatchPrice, "spend cap")];
        for (cap, ends) in cases {
            let about = NewRun {
                run_id: "batch-run".into(),
                created: 1,
                model: "m (openai-compatible)".into(),
                api: Some(settings.clone()),
                key_used: true,
                dataset: "d.jsonl".into(),
                simulation: None,
                price: Some(PriceUsed { price: live_price, source: "test".into() }),
                stored: None,
                app_version: "test".into(),
            };
            let mut entry = RunEntry::new(new_manifest(&job, about), 0.0);
            crate::batch::price_as_batch_run(&mut entry.manifest);
            entry.batches = vec![batch(&[0, 1, 2, 3], true)];
            // s0 and s1 answered by the batch; s2 and s3 its error records.
            let mut records: Vec<SampleRecord> =
                (0..4).map(|i| record(&format!("s{i}"), i, Some(1.0), i >= 2)).collect();
            records[0].usage = Some(Usage { prompt_tokens: 1200, completion_tokens: 90, ..Usage::default() });
            records[1].usage = Some(Usage { prompt_tokens: 800, completion_tokens: 40, ..Usage::default() });
            records[2].usage = None;
            records[3].usage = None;
            entry.tally = crate::manifest::Tally::of(&records);
            let batch_tokens = entry.tally.usage;
            let spent = batch_price.cost(&batch_tokens);
            assert!((entry.cost().unwrap() - spent).abs() < 1e-12, "{cap:?}: before, all at the batch price");
            let limit = match cap {
                Cap::None => None,
                Cap::FitsOnlyAtBatchPrice => Some(spent + worst_live * 0.75),
                Cap::Roomy => Some(spent + worst_live * 10.0),
            };
            let store = MemoryRunStore::new();
            block_on(async {
                for r in &records {
                    store.put_record(&entry, r).await.unwrap();
                }
                store.save_entry(&entry).await.unwrap();
            });
            let plan = retry_errors(&entry, records, &data, RetryVia::Live, limit).unwrap();
            if let Some(cap) = &plan.job.spend_cap {
                assert_eq!(cap.price, live_price, "{cap:?}: the live session's cap is at the live price");
                assert!((cap.spent_before - spent).abs() < 1e-12, "{cap:?}: what the batch cost");
            }
            let mut responder = Responder::Api(ApiModel { settings: settings.clone(), key: Some("k".into()) });
            let simulation = Simulation { latency_ms: 0, wrong_every: None, reasoning_tokens: 0 };
            let http = SimulatedHttp::new(StepClock::default(), simulation, &plan.job.samples, &plan.job.template);
            let (python, clock) = (BlockingPython::new(AssertEngine), StepClock::default());
            let session = Session {
                store: &store,
                entry: plan.entry,
                earlier: plan.earlier,
                unsaved: Vec::new(),
                now_ms: Box::new(|| 5_000.0),
            };
            let io = SessionIo { python: &python, http: &http, clock: &clock };
            let end = block_on(run_session(session, plan.job, &mut responder, io, &CancelToken::new(), &|_| {}))
                .unwrap_or_else(|e| panic!("{cap:?}: not started: {}", e.error));
            let stored = block_on(store.entry("batch-run")).unwrap().unwrap();
            let got = block_on(store.records("batch-run")).unwrap();
            match ends {
                "spend cap" => {
                    assert!(matches!(end.outcome.end, RunEnd::SpendCap { .. }), "{cap:?}: {:?}", end.outcome.end);
                    assert_eq!(end.outcome.status.requests_sent, 0, "{cap:?}: nothing sent");
                    assert!((stored.cost().unwrap() - spent).abs() < 1e-12, "{cap:?}: nothing more spent");
                }
                _ => {
                    assert_eq!(end.outcome.end, RunEnd::Finished, "{cap:?}");
                    let retried: Vec<&SampleRecord> = got.iter().filter(|r| r.index >= 2).collect();
                    assert_eq!(retried.len(), 2, "{cap:?}");
                    let mut live_tokens = Usage::default();
                    for r in &retried {
                        assert!(r.error.is_none(), "{cap:?}: {:?}", r.error);
                        assert!(r.usage.is_some_and(|u| u.prompt_tokens > 0), "{cap:?}: {r:?}");
                        assert_eq!(r.live_usage, r.usage, "{cap:?}: {} was asked live", r.sample_id);
                        live_tokens.add(&r.usage.unwrap());
                    }
                    let batch_kept: Vec<&SampleRecord> = got.iter().filter(|r| r.index < 2).collect();
                    assert!(batch_kept.iter().all(|r| r.live_usage.is_none()), "{cap:?}: the batch's own");
                    assert_eq!(stored.tally.live_usage, live_tokens, "{cap:?}: the tally's live share");
                    let want = batch_price.cost(&batch_tokens) + live_price.cost(&live_tokens);
                    let cost = stored.cost().unwrap();
                    assert!((cost - want).abs() < 1e-12, "{cap:?}: cost {cost}, want {want}");
                    let all_batch = batch_price.cost(&stored.tally.usage);
                    assert!(cost > all_batch, "{cap:?}: more than at the batch price alone ({cost} vs {all_batch})");
                }
            }
        }
    }
}
