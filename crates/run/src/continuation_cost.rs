//! What carrying a stored run on will ask and may cost, said before anything is asked: Resume,
//! Retry errors (live or as a new batch) and Extend on the Runs page, and `execbench run
//! --resume`. The answers counted are the ones the planned job lacks (each sample not done, for
//! the answers it does not have yet). The run's own answered records are its pilot: output tokens
//! per answer and the real / estimated prompt ratio come from them, else every answer is counted
//! at the token limit. The price is the one the provider bills: live answers at the run's live
//! price (a batch run's too), a new batch at the batch price, with what that saves against live.

use std::collections::BTreeMap;

use execbench_core::Sample;

use crate::cost::estimate::{Estimate, PilotFigures, estimate_answers, estimate_tokens, format_tokens, output_words};
use crate::cost::format_usd;
use crate::engine::EvalJob;
use crate::manifest::RunEntry;
use crate::record::SampleRecord;

/// The answers a continuation asks, and their estimate at the price that applies.
#[derive(Clone, Debug, PartialEq)]
pub struct ContinuationEstimate {
    /// Samples asked.
    pub samples: usize,
    /// Answers asked, over all those samples.
    pub answers: usize,
    /// Requests that takes: one a sample where the provider takes `n`, else one an answer.
    pub requests: usize,
    /// Tokens and dollars at the price that applies.
    pub estimate: Estimate,
    /// Asked through the provider's batch service, at its price.
    pub as_batch: bool,
    /// For a batch: the same answers at the live price, to show the saving.
    pub live: Option<Estimate>,
    /// What the run's records have cost so far (a run with a price).
    pub spent: Option<f64>,
    /// The run's spend cap, in dollars for the whole run.
    pub cap: Option<f64>,
}

impl ContinuationEstimate {
    /// Whether every answer at its token limit could take the run past its spend cap (a live
    /// session then pauses at the cap; a batch that could is not submitted).
    pub fn could_pass_cap(&self) -> bool {
        match (self.cap, self.estimate.max_usd) {
            (Some(cap), Some(max)) => self.spent.unwrap_or(0.0) + max > cap,
            _ => false,
        }
    }
}

/// Estimates what `job` (a continuation of `entry`, planned by `session::continuation` or
/// `batch::retry_errors`) will ask, with `records` the run's records so far. `as_batch`: submitted
/// as a new batch; `supports_n`: the provider answers n in one request; `max_tokens`: the run's
/// token limit.
pub fn estimate_continuation(
    entry: &RunEntry,
    job: &EvalJob,
    records: &[SampleRecord],
    as_batch: bool,
    supports_n: bool,
    max_tokens: u64,
) -> ContinuationEstimate {
    let prompt_tokens = |sample: &Sample| estimate_tokens(&job.template.render(sample).text());
    let (mut samples, mut answers, mut requests, mut estimated) = (0, 0, 0, 0u64);
    for sample in job.samples.iter().filter(|s| !job.done.contains(&s.id)) {
        let has = job.prior.get(&sample.id).map_or(0, |p| p.responses.len());
        let lacks = job.n.saturating_sub(has);
        if lacks == 0 {
            continue;
        }
        let asks = if supports_n { 1 } else { lacks };
        (samples, answers, requests) = (samples + 1, answers + lacks, requests + asks);
        estimated += prompt_tokens(sample) * asks as u64;
    }
    // The run's answered records as a pilot: what their prompts were estimated at, against what
    // the provider counted.
    let by_id: BTreeMap<&str, &Sample> = job.samples.iter().map(|s| (s.id.as_str(), s)).collect();
    let answered: Vec<SampleRecord> = records.iter().filter(|r| !r.is_error() && r.usage.is_some()).cloned().collect();
    let answered_prompts: u64 = answered
        .iter()
        .filter_map(|r| {
            let sample = by_id.get(r.sample_id.as_str())?;
            let answers = r.results.first().map_or(1, |s| s.answers.len().max(1));
            Some(prompt_tokens(sample) * if supports_n { 1 } else { answers as u64 })
        })
        .sum();
    let pilot = PilotFigures::from_records(&answered, answered_prompts);
    let pilot = (pilot.answers > 0).then_some(&pilot);
    let at = |price| estimate_answers(samples, job.n, answers as u64, estimated, max_tokens, price, pilot);
    let (estimate, live) = if as_batch {
        (at(entry.manifest.price.as_ref().map(|p| p.price)), Some(at(entry.live_price())))
    } else {
        (at(entry.live_price()), None)
    };
    ContinuationEstimate {
        samples,
        answers,
        requests,
        estimate,
        as_batch,
        live,
        spent: entry.cost(),
        cap: job.spend_cap.map(|c| c.limit).or(entry.manifest.spend_cap),
    }
}

/// One line for a person: "asks 37 answers of 12 samples in 12 requests: about $0.04 (at most
/// $0.10) at the live price; the run has cost $0.12 of its $1.00 cap".
pub fn describe_continuation(e: &ContinuationEstimate) -> String {
    if e.answers == 0 {
        return "nothing to ask: every sample has its answers".to_string();
    }
    let s = |k: usize| if k == 1 { "" } else { "s" };
    let mut line = format!(
        "asks {} answer{} of {} sample{} in {} request{}: ",
        e.answers,
        s(e.answers),
        e.samples,
        s(e.samples),
        e.requests,
        s(e.requests)
    );
    let est = &e.estimate;
    let tokens = format!("{} prompt + {} output tokens", format_tokens(est.prompt_tokens), output_words(est));
    let at = if e.as_batch { "at the batch price" } else { "at the live price" };
    match (est.expected_usd, est.max_usd) {
        (Some(_), Some(0.0)) => line.push_str(&format!("free (about {tokens})")),
        (Some(expected), Some(max)) if est.output_tokens_expected < est.output_tokens_max => {
            line.push_str(&format!("about {} (at most {}) {at}", format_usd(expected), format_usd(max)))
        }
        (_, Some(max)) => line.push_str(&format!("at most {} {at} (every answer at the token limit)", format_usd(max))),
        _ => line.push_str(&format!("about {tokens} (no price known for this model)")),
    }
    if let (Some(live), Some(batch)) = (e.live.as_ref().and_then(|l| l.expected_usd), est.expected_usd)
        && live > batch
    {
        line.push_str(&format!(", {} less than live", format_usd(live - batch)));
    }
    if let Some(cap) = e.cap {
        line.push_str(&format!(
            "; the run has cost {} of its {} cap",
            format_usd(e.spent.unwrap_or(0.0)),
            format_usd(cap)
        ));
        if e.could_pass_cap() {
            line.push_str(if e.as_batch {
                " (with every answer at the token limit it could pass it: the batch would not be submitted)"
            } else {
                " (with every answer at the token limit it could pass it: the run pauses there)"
            });
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use execbench_eval::report::AnswerRecord;
    use execbench_eval::{Extraction, Verdict};

    use super::*;
    use crate::batch::RetryVia;
    use crate::cost::Price;
    use crate::manifest::{PriceUsed, dataset_hash};
    use crate::session::{Continue, continuation};
    use crate::store::conformance::{manifest, record};

    /// Four samples with the same prompt (only their ids differ), so that prompt figures do not
    /// depend on the prompt's length: `a` answered twice (100 prompt, 10 output tokens in all),
    /// `b` an error, `c` and `d` never asked.
    fn run(batch: bool) -> (RunEntry, Vec<SampleRecord>, Vec<Sample>) {
        let sample = |id: &str| Sample::new(id, "def f(x):\n    return x * 2", "f", "3", "6");
        let samples: Vec<Sample> = ["a", "b", "c", "d"].into_iter().map(sample).collect();
        let mut m = manifest("r", 0);
        (m.samples, m.n, m.dataset_hash) = (4, 2, dataset_hash(&samples));
        let live = PriceUsed {
            price: Price { input: 1e-6, output: 2e-6, cached_input: None, reasoning: None },
            source: "t".into(),
        };
        m.price = Some(live.clone());
        if batch {
            crate::batch::price_as_batch_run(&mut m);
        }
        m.spend_cap = Some(1.0);
        let mut answered = record("a", 0, Some(1.0), false);
        let answer = AnswerRecord {
            response: Some("6".into()),
            extraction: Extraction::verbatim("6"),
            verdict: Verdict::Correct,
        };
        answered.results[0].answers = vec![answer; 2];
        let records = vec![answered, record("b", 1, None, true)];
        let mut entry = RunEntry::new(m, 0.0);
        entry.tally = crate::manifest::Tally::of(&records);
        (entry, records, samples)
    }

    #[test]
    #[allow(clippy::type_complexity)] // a table of cases, one tuple a row
    fn a_continuation_counts_the_answers_it_lacks_at_the_price_that_applies() {
        // (case, batch run, what (None: errors as a new batch), provider takes n) →
        // (samples, answers, requests, prompt tokens, output tokens expected, price factor)
        // Prompt tokens: the answered record's 100 real tokens for its estimated prompts make the
        // ratio, so each request's prompt counts 50 without n (two requests made them) and 100
        // with it. Output: 10 tokens over 2 answers, 5 an answer. Price factor: 1 live, 0.5 batch.
        let cases: Vec<(&str, bool, Option<Continue>, bool, (usize, usize, usize, u64, u64, f64))> = vec![
            ("resume: c and d, 2 answers each", false, Some(Continue::Resume), false, (2, 4, 4, 200, 20, 1.0)),
            ("resume with n: one request a sample", false, Some(Continue::Resume), true, (2, 4, 2, 200, 20, 1.0)),
            ("retry errors: b too", false, Some(Continue::RetryErrors), false, (3, 6, 6, 300, 30, 1.0)),
            (
                "extend by 3: a lacks 3, the others 5",
                false,
                Some(Continue::Extend { extra: 3 }),
                false,
                (4, 18, 18, 900, 90, 1.0),
            ),
            (
                "a batch run extended: asked live, at the live price",
                true,
                Some(Continue::Extend { extra: 3 }),
                false,
                (4, 18, 18, 900, 90, 1.0),
            ),
            ("a batch run's errors as a new batch: the batch price", true, None, false, (3, 6, 6, 300, 30, 0.5)),
        ];
        for (case, batch, what, takes_n, want) in cases {
            let as_batch = what.is_none();
            let (entry, records, samples) = run(batch);
            let plan = match what {
                Some(what) => continuation(&entry, records.clone(), &samples, what, None),
                None => crate::batch::retry_errors(&entry, records.clone(), &samples, RetryVia::Batch, None),
            }
            .unwrap_or_else(|e| panic!("{case}: {e}"));
            let e = estimate_continuation(&plan.entry, &plan.job, &records, as_batch, takes_n, 100);
            let got = (e.samples, e.answers, e.requests, e.estimate.prompt_tokens, e.estimate.output_tokens_expected);
            let (samples_, answers, requests, prompt, output, factor) = want;
            assert_eq!(got, (samples_, answers, requests, prompt, output), "{case}");
            assert_eq!(e.estimate.output_tokens_max, answers as u64 * 100, "{case}: every answer at the limit");
            let live_usd = prompt as f64 * 1e-6 + output as f64 * 2e-6;
            let usd = e.estimate.expected_usd.unwrap();
            assert!((usd - live_usd * factor).abs() < 1e-12, "{case}: {usd} vs {}", live_usd * factor);
            assert_eq!(e.live.is_some(), as_batch, "{case}: the live figure only beside a batch");
            // Spent so far: both records' tokens (the error's attempt was billed too), 200 prompt
            // and 20 output, at the run's price (a batch run's batch price).
            let spent = if batch { 120e-6 } else { 240e-6 };
            assert!((e.spent.unwrap() - spent).abs() < 1e-12, "{case}: {:?}", e.spent);
            assert_eq!(e.cap, Some(1.0), "{case}");
        }
    }

    #[test]
    fn the_line_says_what_is_asked_what_it_may_cost_and_the_cap() {
        let (entry, records, samples) = run(true);
        let plan = crate::batch::retry_errors(&entry, records.clone(), &samples, RetryVia::Batch, None).unwrap();
        let mut e = estimate_continuation(&plan.entry, &plan.job, &records, true, false, 100);
        assert_eq!(
            describe_continuation(&e),
            "asks 6 answers of 3 samples in 6 requests: about $0.0002 (at most $0.0007) at the batch price, \
             $0.0002 less than live; the run has cost $0.0001 of its $1.00 cap"
        );
        e.cap = Some(0.0005);
        assert!(e.could_pass_cap());
        assert!(describe_continuation(&e).ends_with("it could pass it: the batch would not be submitted)"));
        e.answers = 0;
        assert_eq!(describe_continuation(&e), "nothing to ask: every sample has its answers");
    }
}
