//! What Resume, Retry errors, Extend and a batch run's actions on the Runs page plan before
//! anything is sent: the spend cap typed, the run's settings reviewed into the next step (go on,
//! refuse, or show the address first), whether the cost is shown first, and the continuation and
//! its estimate. Plain values in, tested natively; the page reads the signals and spawns.

use execbench_core::Sample;
use execbench_providers::{KeyScope, KeyUse, TrustedEndpoints};
use execbench_run::api::ApiSettings;
use execbench_run::batch::{self, RetryVia};
use execbench_run::continuation_cost::{ContinuationEstimate, estimate_continuation};
use execbench_run::file_review::{FormLimits, review_continuation};
use execbench_run::manifest::{PriceUsed, RunEntry};
use execbench_run::record::SampleRecord;
use execbench_run::session::{self, Continuation};

use crate::jobs::batch::BatchAction;
use crate::jobs::evaluate::Continue;

/// What a Runs action does once the key rules are met: carry the run on with live requests, or
/// ask a batch run's provider where its batches are (collecting what ended).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Carry(Continue),
    /// Check now, or Stop (cancel the batches at the provider).
    Batches(BatchAction),
    /// Retry errors as a new batch of the run.
    RetryAsBatch,
}

impl Action {
    /// Whether it asks the model for answers (Check now and Stop only ask the provider where the
    /// batches are).
    pub fn asks_answers(self) -> bool {
        !matches!(self, Action::Batches(_))
    }
}

/// The spend cap typed for the run resumed: none when empty (the run's own stays).
pub fn typed_cap(text: &str) -> Result<Option<f64>, String> {
    match text.trim() {
        "" => Ok(None),
        t => match t.parse::<f64>().ok().filter(|c| *c > 0.0 && c.is_finite()) {
            Some(c) => Ok(Some(c)),
            None => Err(format!("spend cap: `{t}` is not an amount in dollars")),
        },
    }
}

/// What carrying a run on does once its settings are reviewed.
#[derive(Clone, Debug, PartialEq)]
pub enum NextStep {
    /// Go on, with the key for `scope` (typed here, else the one remembered for it); `None`: the
    /// run sends no key (an offline model).
    GoOn { scope: Option<KeyScope> },
    /// Its address can take no key: said, nothing sent.
    Refused(String),
    /// Its address and settings are shown first; nothing is sent until the user says yes.
    /// `trusted`: an address typed or confirmed here before (shown because the run was imported).
    Confirm { scope: KeyScope, origin: String, trusted: bool },
}

/// A run reviewed before it goes on.
#[derive(Clone, Debug)]
pub struct Reviewed {
    /// The run with its settings clamped to the form's limits and the spend cap decided.
    pub entry: RunEntry,
    /// What the review says about its endpoint and settings, one line each.
    pub lines: Vec<String>,
    pub next: NextStep,
}

/// Reviews `entry` before Resume, Retry errors or Extend: settings clamped to the form's limits,
/// `cap` put in, the price this device knows (`known_price`) in place of the file's, and the key
/// decided with the `trusted` addresses. An imported run's address and settings are shown before
/// its first request here, even at an address already trusted: the file chose them, not the user.
pub fn reviewed(
    entry: RunEntry,
    cap: Option<f64>,
    trusted: &TrustedEndpoints,
    known_price: Option<PriceUsed>,
) -> Reviewed {
    let review = review_continuation(&entry.manifest, &FormLimits::default(), cap, trusted, known_price);
    let mut entry = entry;
    let lines = review.lines();
    entry.manifest = review.manifest;
    let unreviewed = entry.imported && !entry.reviewed;
    let next = match review.key {
        None => NextStep::GoOn { scope: None },
        Some(KeyUse::Refused(why)) => NextStep::Refused(format!("{}: {why}", entry.id())),
        Some(KeyUse::Allowed(scope)) if unreviewed => {
            NextStep::Confirm { origin: scope.origin.clone(), scope, trusted: true }
        }
        Some(KeyUse::Allowed(scope)) => NextStep::GoOn { scope: Some(scope) },
        Some(KeyUse::Confirm { scope, address }) => {
            NextStep::Confirm { scope, origin: address.origin(), trusted: false }
        }
    };
    Reviewed { entry, lines, next }
}

/// [`reviewed`] with the addresses trusted in this browser and the price it knows for the model.
pub fn review(entry: RunEntry, cap: Option<f64>) -> Reviewed {
    let known_price = crate::state::api_form::known_price_of(&entry.manifest);
    reviewed(entry, cap, &crate::browser::key_scopes::trusted(), known_price)
}

/// The API settings of a run whose cost is shown before it goes on: a run with a price above
/// zero that someone bills. Runs nobody bills (the simulated model, whose price is only for
/// show; local servers; the in-browser model) and runs without a price go on at once.
pub fn estimate_first(entry: &RunEntry) -> Option<ApiSettings> {
    let billed = entry.manifest.simulation.is_none();
    let priced = billed && entry.live_price().is_some_and(|p| p.input > 0.0 || p.output > 0.0);
    entry.manifest.api.clone().filter(|_| priced)
}

/// How `what` carries `entry` on over `dataset` with its `records`: a continuation, or the
/// errors of a batch run as a new batch. `cap`: the spend cap typed, for the whole run.
pub fn continuation_for(
    entry: &RunEntry,
    records: Vec<SampleRecord>,
    dataset: &[Sample],
    what: Action,
    cap: Option<f64>,
) -> Result<Continuation, String> {
    match what {
        Action::Carry(continue_as) => session::continuation(entry, records, dataset, continue_as, cap),
        Action::Batches(_) | Action::RetryAsBatch => batch::retry_errors(entry, records, dataset, RetryVia::Batch, cap),
    }
}

/// What carrying `entry` on with `what` asks and may cost, at the price the provider bills it
/// (a new batch at the batch price), with `api` its settings ([`estimate_first`]).
pub fn continuation_estimate(
    entry: &RunEntry,
    records: Vec<SampleRecord>,
    dataset: &[Sample],
    what: Action,
    cap: Option<f64>,
    api: &ApiSettings,
) -> Result<ContinuationEstimate, String> {
    let plan = continuation_for(entry, records.clone(), dataset, what, cap)?;
    let as_batch = what == Action::RetryAsBatch;
    let (supports_n, max_tokens) = (api.endpoint.supports_n(), api.params.max_tokens as u64);
    Ok(estimate_continuation(&plan.entry, &plan.job, &records, as_batch, supports_n, max_tokens))
}

#[cfg(test)]
mod tests {
    use execbench_providers::Endpoint;
    use execbench_run::cost::Price;
    use execbench_run::manifest::dataset_hash;
    use execbench_run::manifest::fixtures::{manifest, record};

    use super::*;

    fn samples(count: usize) -> Vec<Sample> {
        (0..count)
            .map(|i| Sample::new(&format!("s{i}"), "def f(x):\n    return x", "f", &i.to_string(), &i.to_string()))
            .collect()
    }

    /// A stored run of `data` with a model API at `base_url`, at `input` dollars per million
    /// prompt tokens (none: no price).
    fn api_run(data: &[Sample], provider: &str, base_url: &str, input: Option<f64>) -> RunEntry {
        let mut m = manifest("run-1", 1);
        m.samples = data.len();
        m.dataset_hash = dataset_hash(data);
        m.api = Some(ApiSettings::new(Endpoint {
            provider: provider.into(),
            base_url: base_url.into(),
            model: "m".into(),
        }));
        m.price = input.map(|i| PriceUsed { price: Price::per_million(i, i), source: "test".into() });
        RunEntry::new(m, 0.0)
    }

    #[test]
    fn a_typed_cap_is_dollars_above_zero_or_none() {
        let cases: [(&str, Result<Option<f64>, &str>); 7] = [
            ("", Ok(None)),
            ("  ", Ok(None)),
            (" 2.5 ", Ok(Some(2.5))),
            ("0", Err("spend cap: `0` is not an amount in dollars")),
            ("-1", Err("spend cap: `-1` is not an amount in dollars")),
            (" five ", Err("spend cap: `five` is not an amount in dollars")),
            ("inf", Err("spend cap: `inf` is not an amount in dollars")),
        ];
        for (text, want) in cases {
            assert_eq!(typed_cap(text), want.map_err(str::to_string), "{text:?}");
        }
    }

    /// What each review leads to: on at once, refused, or the address shown first.
    #[test]
    fn a_review_decides_the_next_step() {
        let data = samples(2);
        let openai = api_run(&data, "openai", "https://api.openai.com/v1", Some(1.0));
        let scope = openai.key_scope().unwrap();
        let mut trusted = TrustedEndpoints::default();
        trusted.trust(scope.clone());
        let imported = |reviewed: bool| RunEntry { imported: true, reviewed, ..openai.clone() };
        let offline = RunEntry::new(manifest("run-1", 1), 0.0);
        let ftp = api_run(&data, "openai-compatible", "ftp://host/v1", None);
        let confirm = |trusted: bool| NextStep::Confirm {
            scope: scope.clone(),
            origin: "https://api.openai.com:443".into(),
            trusted,
        };
        // (the run, the addresses trusted, the next step)
        let none = TrustedEndpoints::default();
        let cases: Vec<(RunEntry, &TrustedEndpoints, NextStep)> = vec![
            (offline, &none, NextStep::GoOn { scope: None }),
            (openai.clone(), &trusted, NextStep::GoOn { scope: Some(scope.clone()) }),
            (openai.clone(), &none, confirm(false)),
            (imported(false), &trusted, confirm(true)),
            (imported(true), &trusted, NextStep::GoOn { scope: Some(scope.clone()) }),
        ];
        for (i, (entry, trusted, next)) in cases.into_iter().enumerate() {
            assert_eq!(reviewed(entry, None, trusted, None).next, next, "case {i}");
        }
        let NextStep::Refused(why) = reviewed(ftp, None, &none, None).next else { panic!("an ftp address is refused") };
        assert!(why.starts_with("run-1: base URL: "), "{why}");
        // The cap typed goes in the run, and the review says so.
        let capped = reviewed(openai, Some(3.0), &trusted, None);
        assert_eq!(capped.entry.manifest.spend_cap, Some(3.0));
        assert!(!capped.lines.is_empty());
    }

    #[test]
    fn only_a_billed_run_with_a_price_shows_its_cost_first() {
        let data = samples(2);
        let priced = api_run(&data, "openai", "https://api.openai.com/v1", Some(1.0));
        let simulated = RunEntry {
            manifest: execbench_run::manifest::RunManifest {
                simulation: Some(Default::default()),
                ..priced.manifest.clone()
            },
            ..priced.clone()
        };
        // (the run, its cost shown first)
        let cases = [
            (priced.clone(), true),
            (api_run(&data, "openai", "https://api.openai.com/v1", Some(0.0)), false),
            (api_run(&data, "openai", "https://api.openai.com/v1", None), false),
            (simulated, false),
            (RunEntry::new(manifest("run-1", 1), 0.0), false),
        ];
        for (i, (entry, first)) in cases.into_iter().enumerate() {
            assert_eq!(estimate_first(&entry).is_some(), first, "case {i}");
        }
    }

    /// What each action asks of a run of 3 samples whose s0 is scored and s1 an error.
    #[test]
    fn each_action_estimates_what_it_asks() {
        let data = samples(3);
        let entry = api_run(&data, "openai", "https://api.openai.com/v1", Some(1.0));
        let api = entry.manifest.api.clone().unwrap();
        let mut scored = record("s0", 0, Some(1.0), false);
        scored.results[0].answers = vec![execbench_eval::report::AnswerRecord {
            response: Some("0".into()),
            extraction: execbench_eval::Extraction::verbatim("0"),
            verdict: execbench_eval::Verdict::Correct,
        }];
        let records = vec![scored, record("s1", 1, None, true)];
        // (action, answers asked, as a batch)
        let cases = [
            (Action::Carry(Continue::Resume), 1, false),
            (Action::Carry(Continue::RetryErrors), 2, false),
            // n from 1 to 3: s0 lacks 2, the error and the sample with no record all 3.
            (Action::Carry(Continue::Extend { extra: 2 }), 2 + 3 + 3, false),
            (Action::RetryAsBatch, 2, true),
        ];
        for (what, answers, as_batch) in cases {
            let estimate = continuation_estimate(&entry, records.clone(), &data, what, None, &api).unwrap();
            assert_eq!((estimate.answers, estimate.as_batch), (answers, as_batch), "{what:?}");
        }
        let other = samples(4)[1..].to_vec();
        let refused = continuation_estimate(&entry, records, &other, Action::Carry(Continue::Resume), None, &api);
        assert!(refused.unwrap_err().contains("cannot go on with the dataset loaded now"));
        assert!(!Action::Batches(BatchAction::Check).asks_answers() && Action::RetryAsBatch.asks_answers());
    }
}
