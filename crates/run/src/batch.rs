//! A run answered by a provider's batch service: one more way of getting a run's answers. The
//! run's requests (the ones a live run would send, for the samples without a record) are
//! submitted as few batches as the provider's limits allow; their ids and last known states are
//! kept in the run's entry ([`crate::manifest::RunEntry::batches`], never with a key); polling is
//! the caller's, paced by [`next_poll_in_ms`]; collecting turns each ended batch's results into
//! the same [`SampleRecord`]s, scored the same way, as live answers. Costs are at the batch
//! price ([`batch_price`]).
//!
//! One concern a file: the lines ([`plan`]), the service's HTTP calls ([`calls`]), results into
//! records ([`results`]), the batch run as a stored run ([`stored_run`]), Retry errors ([`retry`]);
//! the prices and what the run keeps of its batches sit with the manifest (`manifest::batch_run`).

pub use crate::manifest::batch_run::{
    SubmittedBatch, batch_price, batch_price_used, batch_spend_cap, live_price_of, live_price_used, price_as_batch_run,
};

mod calls;
mod plan;
mod results;
mod retry;
mod stored_run;

pub use calls::{Submitted, cancel, next_poll_in_ms, refresh, submit};
pub use plan::{PlannedLine, check_cap, plan_lines};
pub use results::{SampleOutcome, collect, outcomes, pending_samples};
pub use retry::{RetryVia, retry_errors};
pub use stored_run::{
    Check, StoredBatchRun, Submission, cancel_batches, check_run, stop_run, submit_run, waiting_summary,
};

#[cfg(test)]
mod tests {
    use execbench_providers::batch::{self as wire, BatchPhase, BatchResult, BatchStatus};
    use execbench_providers::{Completion, ErrorKind, ProviderError, Usage};

    use super::*;
    use crate::cost::Price;
    use crate::manifest::{PriceUsed, RunEntry};

    #[test]
    fn polls_back_off_and_honour_retry_after() {
        // (unchanged checks, Retry-After ms, wait ms)
        let cases = [
            (0, None, 30_000),
            (1, None, 60_000),
            (3, None, 240_000),
            (5, None, 600_000),
            (40, None, 600_000),
            (0, Some(90_000), 90_000),
            (5, Some(1_000), 600_000),
        ];
        for (checks, retry_after, wait) in cases {
            assert_eq!(next_poll_in_ms(checks, retry_after), wait, "{checks} {retry_after:?}");
        }
    }

    #[test]
    fn batch_price_is_half_of_each_part() {
        let live = Price { input: 2e-6, output: 8e-6, cached_input: Some(1e-6), reasoning: None };
        let half = batch_price(live);
        assert_eq!(half, Price { input: 1e-6, output: 4e-6, cached_input: Some(0.5e-6), reasoning: None });
        let usage = Usage { prompt_tokens: 1000, completion_tokens: 100, reasoning_tokens: 0, cached_tokens: 0 };
        assert!((half.cost(&usage) * 2.0 - live.cost(&usage)).abs() < 1e-12);
    }

    fn completion(text: &str, prompt: u64) -> Result<Completion, ProviderError> {
        Ok(Completion {
            texts: vec![text.into()],
            finish_reasons: vec![Some("stop".into())],
            usage: Usage { prompt_tokens: prompt, completion_tokens: 1, ..Usage::default() },
            model: None,
        })
    }

    /// Results in any order become each sample's answers in answer order; an errored line fails
    /// its sample with the provider's reason; a line with no result says how the batch ended.
    #[test]
    fn results_become_per_sample_outcomes() {
        let ids: Vec<String> =
            [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)].iter().map(|&(s, a)| wire::custom_id(s, a)).collect();
        let status = BatchStatus {
            id: "b".into(),
            phase: BatchPhase::Expired,
            provider_state: "expired".into(),
            total: 6,
            succeeded: 3,
            failed: 1,
            result_files: vec![],
            reason: None,
        };
        let batch = SubmittedBatch { id: "b".into(), custom_ids: ids, status, collected: false };
        let result = |id: &str, outcome| BatchResult { custom_id: id.into(), outcome };
        let results = vec![
            result("s0-a1", completion("second", 5)),
            result("s1-a0", completion("x", 5)),
            result("s0-a0", completion("first", 5)),
            result("s1-a1", Err(ProviderError::new(ErrorKind::BadRequest, Some(400), "prompt is too long"))),
            result("s2-a0", completion("only one", 5)),
            result("s9-a0", completion("not in this batch", 5)),
        ];
        let got = outcomes(&batch, results);
        assert_eq!(got.len(), 3);
        match &got[&0] {
            SampleOutcome::Answered { texts, usage, .. } => {
                assert_eq!(texts, &["first", "second"]);
                assert_eq!((usage.prompt_tokens, usage.completion_tokens), (10, 2));
            }
            other => panic!("{other:?}"),
        }
        let failed = |i: usize| match &got[&i] {
            SampleOutcome::Failed(e) => e.to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(failed(1), "bad request (400): prompt is too long");
        assert!(failed(2).contains("the batch ended (expired) before this request ran"), "{}", failed(2));
    }

    fn waiting(id: &str, state: &str, total: u64, done: u64, collected: bool) -> SubmittedBatch {
        SubmittedBatch {
            id: id.into(),
            custom_ids: (0..total).map(|i| wire::custom_id(i as usize, 0)).collect(),
            status: BatchStatus {
                id: id.into(),
                phase: BatchPhase::InProgress,
                provider_state: state.into(),
                total,
                succeeded: done,
                failed: 0,
                result_files: Vec::new(),
                reason: None,
            },
            collected,
        }
    }

    /// A continued run asks live: a batch run's plan carries its live price, never its batch price.
    #[test]
    fn a_continued_batch_run_is_priced_live() {
        let price = |input: f64, source: &str| PriceUsed {
            price: Price { input, output: input * 4.0, cached_input: None, reasoning: None },
            source: source.into(),
        };
        let entry = |price_: Option<PriceUsed>, live: Option<PriceUsed>, batches: Vec<SubmittedBatch>| {
            let mut manifest = crate::store::conformance::manifest("r", 1);
            manifest.price = price_;
            manifest.live_price = live;
            let mut entry = RunEntry::new(manifest, 0.0);
            entry.batches = batches;
            entry
        };
        // (entry, the price a continuation carries)
        let cases = [
            (entry(Some(price(1.0, "live")), None, vec![]), Some(price(1.0, "live"))),
            (entry(Some(price(0.5, "b")), Some(price(1.0, "kept live")), vec![]), Some(price(1.0, "kept live"))),
            (
                entry(Some(price(0.5, "b")), None, vec![waiting("a", "x", 1, 0, true)]),
                Some(price(1.0, "b, doubled: the live price")),
            ),
            (entry(None, None, vec![waiting("a", "x", 1, 0, true)]), None),
        ];
        for (entry, want) in cases {
            assert_eq!(live_price_used(&entry), want);
        }
    }

    /// What the Runs page and the CLI say about the batches still waiting.
    #[test]
    fn waiting_batches_are_summed_with_the_providers_word() {
        let cases: [(Vec<SubmittedBatch>, Option<&str>); 4] = [
            (vec![], None),
            (vec![waiting("a", "completed", 10, 10, true)], None),
            (
                vec![waiting("a", "in_progress", 4000, 3200, false)],
                Some("submitted: 1 batch, 3,200 / 4,000 done, provider says in_progress"),
            ),
            (
                vec![
                    waiting("a", "in_progress", 50_000, 1_234_567 % 50_000, false),
                    waiting("b", "validating", 500, 0, false),
                    waiting("c", "completed", 9, 9, true),
                ],
                Some("submitted: 2 batches, 34,567 / 50,500 done, provider says in_progress, validating"),
            ),
        ];
        for (batches, want) in cases {
            assert_eq!(waiting_summary(&batches).as_deref(), want);
        }
    }
}
