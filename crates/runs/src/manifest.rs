//! A stored run's data model: what the run is ([`RunManifest`]: dataset, model, template, n,
//! price; never a key), where it stands ([`RunState`]) and what a list shows of it ([`RunEntry`]
//! with its running [`Tally`]). The run file ([`crate::runfile`]) and every store
//! ([`crate::store`]) keep these; the session (`execbench_run::session`) decides their changes.

use execbench_eval::prompt::Template;
use execbench_eval::score::Mode;
use execbench_providers::Usage;
use serde::{Deserialize, Serialize};

use crate::record::SampleRecord;
use crate::settings::ApiSettings;

pub use execbench_core::provenance::{Provenance, dataset_hash, fnv1a_hex};

pub mod batch_run;
pub mod fixtures;

/// Always a manifest's `format`: tells a run file from other JSON Lines.
pub const FORMAT: &str = "execbench-run";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunManifest {
    /// Always [`FORMAT`]: tells a run file from other JSON Lines.
    pub format: String,
    pub run_id: String,
    /// The model's name as shown (`gpt-4o-mini (openai)`, `oracle`).
    pub model: String,
    /// For API models: provider, base URL, model and the generation settings (no key).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<ApiSettings>,
    /// The run was made with an API key (never the key itself): going on without one would only
    /// be refused, so a front end asks for it before any request.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub key_used: bool,
    pub dataset: String,
    /// [`dataset_hash`] of the samples the run covers.
    pub dataset_hash: String,
    pub samples: usize,
    pub task: execbench_eval::Task,
    pub template: Template,
    pub n: usize,
    pub modes: Vec<Mode>,
    /// Seconds since 1970.
    pub created: u64,
    pub app_version: String,
    /// Where a perturbed dataset came from (kind, seed, options), when it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<serde_json::Value>,
    /// The simulated model's behaviour, for a simulated run (so Resume behaves the same).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulation: Option<crate::settings::Simulation>,
    /// The price the run's costs are computed with, and where it came from: a batch run's is the
    /// batch price ([`batch_run::batch_price_used`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<PriceUsed>,
    /// A batch run's live price, for the answers it asks live (Resume, Retry errors live, Extend:
    /// the provider bills those at the live price). `None` for a live run, and for a batch run
    /// stored before it was kept ([`RunEntry::live_price`] derives it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_price: Option<PriceUsed>,
    /// The spend cap, dollars for the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spend_cap: Option<f64>,
    /// A re-scored evaluation file's own verdicts and figures (CRUXEval's leaderboard JSON,
    /// CodeCrash's `_eval.json`, LiveCodeBench's `_eval_all.json`), shown next to execbench's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored: Option<execbench_eval::stored::StoredScores>,
    /// The name the user gave the run; `None`: the default ([`crate::naming::default_name`]).
    /// Checked by [`crate::naming::clean_name`], so it never holds a key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A price and its source (`LiteLLM 2026-11-20: gpt-4o-mini`, `override`, `local server`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PriceUsed {
    pub price: crate::cost::Price,
    pub source: String,
}

impl RunManifest {
    /// What every exported row of this run carries: run, model, provider, template and its hash,
    /// task, n, dataset and its hash, the perturbation and the app version. Never a key (the
    /// manifest has none).
    pub fn row_provenance(&self) -> Provenance {
        Provenance {
            app_version: self.app_version.clone(),
            dataset: self.dataset.clone(),
            dataset_hash: self.dataset_hash.clone(),
            run_id: Some(self.run_id.clone()),
            model: Some(self.model.clone()),
            provider: self.api.as_ref().map(|a| format!("{} ({})", a.endpoint.provider, a.endpoint.model)),
            template_id: Some(self.template.id.clone()),
            template_hash: Some(template_hash(&self.template)),
            task: Some(self.task.label().to_string()),
            n: Some(self.n),
            perturbation: self.provenance.clone(),
        }
    }
}

impl RunManifest {
    /// Why `self` (a file's manifest) cannot be resumed as `wanted`, naming every difference.
    pub fn resume_conflicts(&self, wanted: &RunManifest) -> Vec<String> {
        let mut out = Vec::new();
        if self.dataset_hash != wanted.dataset_hash {
            out.push(format!("the dataset's content differs (the run has {} samples of {} with hash {}, now {} samples of {} with hash {})", self.samples, self.dataset, self.dataset_hash, wanted.samples, wanted.dataset, wanted.dataset_hash));
        }
        if self.task != wanted.task {
            out.push(format!("the task differs (the run: {}, now: {})", self.task.label(), wanted.task.label()));
        }
        if template_hash(&self.template) != template_hash(&wanted.template) {
            out.push(format!("the template differs (the run: {}, now: {})", self.template.id, wanted.template.id));
        }
        if self.model != wanted.model
            || self.api.as_ref().map(|a| (&a.endpoint.provider, &a.endpoint.model))
                != wanted.api.as_ref().map(|a| (&a.endpoint.provider, &a.endpoint.model))
        {
            out.push(format!("the model differs (the run: {}, now: {})", self.model, wanted.model));
        }
        if self.n != wanted.n {
            out.push(format!("n differs (the run: {}, now: {})", self.n, wanted.n));
        }
        if self.modes != wanted.modes {
            out.push("the scoring modes differ".to_string());
        }
        out
    }
}

pub fn template_hash(template: &Template) -> String {
    let stop = template.stop.join("\u{1}");
    fnv1a_hex(&[template.system.as_deref().unwrap_or(""), &template.user, &stop, template.task.label()])
}

/// Where a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// A job is running it now.
    Running,
    /// It was running when the tab closed or the process died: Resume asks for what is missing.
    Interrupted,
    /// It stopped on purpose and can go on: Stop, the spend cap, a storage error.
    Paused,
    /// Every sample has a record (some may be errors: Retry errors asks for those again).
    Finished,
    /// The provider refused in a way no retry fixes (bad key, no credits, unknown model).
    Failed,
}

impl RunState {
    pub fn label(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Interrupted => "interrupted",
            RunState::Paused => "paused",
            RunState::Finished => "finished",
            RunState::Failed => "failed",
        }
    }

    /// Whether Resume makes sense: some samples have no record yet.
    pub fn resumable(self) -> bool {
        matches!(self, RunState::Interrupted | RunState::Paused | RunState::Failed)
    }
}

/// What one sample adds to its run's tally.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Contribution {
    pub error: bool,
    /// pass@1 per mode (the job's order); `None` where it is not available.
    pub pass_at_1: Vec<Option<f64>>,
    pub usage: Usage,
    /// Of `usage`, what a batch run asked live ([`SampleRecord::live_usage`]).
    pub live_usage: Usage,
}

impl Contribution {
    pub fn of(record: &SampleRecord) -> Contribution {
        Contribution {
            error: record.is_error(),
            pass_at_1: record.results.iter().map(|r| r.pass_at_1).collect(),
            usage: record.usage.unwrap_or_default(),
            live_usage: record.live_usage.unwrap_or_default(),
        }
    }
}

/// Running totals of a run: enough for a list of runs, kept in the entry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Samples with a scored record.
    pub scored: usize,
    /// Samples whose record is an error (left out of pass@k).
    pub errors: usize,
    /// Per mode: the sum of pass@1 over the samples where it is available, and their count.
    pub pass1_sum: Vec<f64>,
    pub pass1_count: Vec<usize>,
    /// Every token the run's requests used: the sum of its records' usage (a record's usage is
    /// its sample's total, earlier attempts and an extended run's first answers included).
    pub usage: Usage,
    /// Of `usage`, the tokens a batch run asked live (its records' `live_usage`): costed at the
    /// live price, the rest of a batch run's at the batch price. Zero for a live run, and in
    /// entries stored before it was kept (then every token was the batch's).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub live_usage: Usage,
}

fn is_zero(usage: &Usage) -> bool {
    *usage == Usage::default()
}

impl Tally {
    /// Samples with any record.
    pub fn recorded(&self) -> usize {
        self.scored + self.errors
    }

    /// Mean pass@1 of mode `i`, in percent, over the samples where it is available.
    pub fn pass_at_1(&self, mode: usize) -> Option<f64> {
        let count = *self.pass1_count.get(mode)?;
        (count > 0).then(|| self.pass1_sum[mode] * 100.0 / count as f64)
    }

    /// `new` replaces `old` (the same sample's earlier record, if any).
    pub fn replace(&mut self, old: Option<&Contribution>, new: &Contribution) {
        if let Some(old) = old {
            self.usage = subtract(self.usage, &old.usage);
            self.live_usage = subtract(self.live_usage, &old.live_usage);
            if old.error {
                self.errors -= 1;
            } else {
                self.scored -= 1;
            }
            for (i, p) in old.pass_at_1.iter().enumerate() {
                if let Some(p) = p {
                    self.pass1_sum[i] -= p;
                    self.pass1_count[i] -= 1;
                }
            }
        }
        if new.error {
            self.errors += 1;
        } else {
            self.scored += 1;
        }
        if self.pass1_sum.len() < new.pass_at_1.len() {
            self.pass1_sum.resize(new.pass_at_1.len(), 0.0);
            self.pass1_count.resize(new.pass_at_1.len(), 0);
        }
        for (i, p) in new.pass_at_1.iter().enumerate() {
            if let Some(p) = p {
                self.pass1_sum[i] += p;
                self.pass1_count[i] += 1;
            }
        }
        self.usage.add(&new.usage);
        self.live_usage.add(&new.live_usage);
    }

    /// The tally of a set of records (latest per sample), as a run file or an import has them.
    pub fn of<'a>(records: impl IntoIterator<Item = &'a SampleRecord>) -> Tally {
        let mut tally = Tally::default();
        for r in records {
            tally.replace(None, &Contribution::of(r));
        }
        tally
    }
}

fn subtract(total: Usage, part: &Usage) -> Usage {
    Usage {
        prompt_tokens: total.prompt_tokens.saturating_sub(part.prompt_tokens),
        completion_tokens: total.completion_tokens.saturating_sub(part.completion_tokens),
        reasoning_tokens: total.reasoning_tokens.saturating_sub(part.reasoning_tokens),
        cached_tokens: total.cached_tokens.saturating_sub(part.cached_tokens),
    }
}

/// A run as a list shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunEntry {
    pub manifest: RunManifest,
    pub state: RunState,
    /// Why it is paused, failed or interrupted, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Last change, ms since 1970.
    pub updated_ms: f64,
    /// Time spent running, summed over sessions, ms.
    pub active_ms: f64,
    pub tally: Tally,
    /// The run came into this store from a run file (Import), not from a run made here.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub imported: bool,
    /// An imported run's endpoint and settings were shown here and the user said yes: until then
    /// every continuation shows them first, even at an address already trusted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reviewed: bool,
    /// The requests of every session of the run (start, resumes, retries, extends). Runs stored
    /// before it was counted read as zero.
    #[serde(default, skip_serializing_if = "RequestCounts::is_zero")]
    pub requests: RequestCounts,
    /// The batches its answers were submitted in (`execbench_run::batch`): ids and last known states.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub batches: Vec<batch_run::SubmittedBatch>,
}

/// Requests a run made, summed over its sessions: what reports say it took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestCounts {
    /// Every request sent (retries included).
    pub sent: u64,
    /// Requests sent again after a fault (not a rate limit).
    pub retries: u64,
    /// Waits after a rate limit before sending again.
    pub rate_limit_waits: u64,
    /// Requests that ended in an error (retried or not).
    pub failed: u64,
}

impl RequestCounts {
    pub fn is_zero(&self) -> bool {
        *self == RequestCounts::default()
    }

    /// Both summed: one session's counts added to the run's.
    pub fn plus(self, other: RequestCounts) -> RequestCounts {
        RequestCounts {
            sent: self.sent + other.sent,
            retries: self.retries + other.retries,
            rate_limit_waits: self.rate_limit_waits + other.rate_limit_waits,
            failed: self.failed + other.failed,
        }
    }

    /// "77 requests (3 retries, 1 rate-limit wait, 4 failed)": the same words in every report.
    pub fn describe(&self) -> String {
        let mut text = counted(self.sent, "request", "requests");
        let extras: Vec<String> = [
            (self.retries, "retry", "retries"),
            (self.rate_limit_waits, "rate-limit wait", "rate-limit waits"),
            (self.failed, "failed", "failed"),
        ]
        .into_iter()
        .filter(|(count, _, _)| *count > 0)
        .map(|(count, one, many)| counted(count, one, many))
        .collect();
        if !extras.is_empty() {
            text.push_str(&format!(" ({})", extras.join(", ")));
        }
        text
    }
}

/// `1 error`, `2 errors`, `0 errors`: a count with its noun in the right number.
pub fn counted(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

impl RunEntry {
    pub fn new(manifest: RunManifest, now_ms: f64) -> RunEntry {
        RunEntry {
            manifest,
            state: RunState::Running,
            note: None,
            updated_ms: now_ms,
            active_ms: 0.0,
            tally: Tally::default(),
            requests: RequestCounts::default(),
            imported: false,
            reviewed: false,
            batches: Vec::new(),
        }
    }

    /// The provider and origin the run's requests go to: what a key given for it is bound to
    /// (`None`: a run without a model API, or an address no key may go to).
    pub fn key_scope(&self) -> Option<execbench_providers::KeyScope> {
        let endpoint = &self.manifest.api.as_ref()?.endpoint;
        execbench_providers::KeyScope::of(&endpoint.provider, &endpoint.base_url).ok()
    }

    pub fn id(&self) -> &str {
        &self.manifest.run_id
    }

    /// Whether the run's answers are (or were to be) a batch service's: it has batches, or its
    /// manifest keeps a live price beside its batch price.
    pub fn is_batch_run(&self) -> bool {
        !self.batches.is_empty() || self.manifest.live_price.is_some()
    }

    /// The price of the answers the run asks live: a live run's own price; a batch run's
    /// `live_price`, or for one stored before that was kept, its batch price doubled (the inverse
    /// of [`batch_run::batch_price`], which made it).
    pub fn live_price(&self) -> Option<crate::cost::Price> {
        match (&self.manifest.live_price, self.is_batch_run()) {
            (Some(live), _) => Some(live.price),
            (None, false) => self.manifest.price.as_ref().map(|p| p.price),
            (None, true) => self.manifest.price.as_ref().map(|p| batch_run::live_price_of(p.price)),
        }
    }

    /// What `usage` costs when `live` of it was asked live: a batch run's live share at the live
    /// price, the rest at the run's price (a live run's is all live: one price). `None` without
    /// a price.
    pub fn cost_of(&self, usage: &Usage, live: &Usage) -> Option<f64> {
        let price = self.manifest.price.as_ref()?.price;
        if !self.is_batch_run() || is_zero(live) {
            return Some(price.cost(usage));
        }
        let live_price = self.live_price()?;
        Some(price.cost(&subtract(*usage, live)) + live_price.cost(live))
    }

    /// What the run's tokens cost so far ([`RunEntry::cost_of`] its tally).
    pub fn cost(&self) -> Option<f64> {
        self.cost_of(&self.tally.usage, &self.tally.live_usage)
    }

    /// Where the run's price came from, with a batch run's live price when `live` tokens were
    /// asked live: what a cost's tooltip or report line names.
    pub fn price_source(&self, live: &Usage) -> Option<String> {
        let price = self.manifest.price.as_ref()?;
        if !self.is_batch_run() || is_zero(live) {
            return Some(price.source.clone());
        }
        let live = self.manifest.live_price.as_ref().map_or_else(|| "twice that".to_string(), |l| l.source.clone());
        Some(format!("{}; answers asked live at {live}", price.source))
    }

    /// Samples with no record yet.
    pub fn missing(&self) -> usize {
        self.manifest.samples.saturating_sub(self.tally.recorded())
    }

    /// "60 samples" when each has a record, else "53 of 60 samples": what a list says of a run.
    pub fn samples_label(&self) -> String {
        let (recorded, planned) = (self.tally.recorded() as u64, self.manifest.samples as u64);
        if recorded >= planned {
            counted(planned, "sample", "samples")
        } else {
            format!("{recorded} of {}", counted(planned, "sample", "samples"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a batch run's polling key is bound to: the run's provider and origin, as the key check
    /// reads them; a run of the same id that names another address (or another provider) is another
    /// scope, so a key armed for the first is not used for it. (provider, base URL, scope origin)
    #[test]
    fn a_runs_key_scope_is_its_provider_at_its_origin() {
        let cases = [
            ("openai", "https://api.openai.com/v1", Some("https://api.openai.com:443")),
            ("openai", "https://api.openai.com:443/v1/other", Some("https://api.openai.com:443")),
            ("openai", "https://evil.example\\@api.openai.com/v1", Some("https://evil.example:443")),
            ("openai", "not an address", None),
        ];
        let first = fixtures::manifest("run-1", 0);
        for (provider, base_url, origin) in cases {
            let endpoint = execbench_providers::Endpoint {
                provider: provider.into(),
                base_url: base_url.into(),
                model: "m".into(),
            };
            let entry = RunEntry::new(
                RunManifest { api: Some(crate::settings::ApiSettings::new(endpoint)), ..first.clone() },
                0.0,
            );
            assert_eq!(entry.key_scope().map(|s| s.origin), origin.map(str::to_string), "{base_url}");
        }
        assert_eq!(RunEntry::new(first, 0.0).key_scope(), None, "no model API, no scope");
        let scope = |provider: &str| {
            let endpoint = execbench_providers::Endpoint {
                provider: provider.into(),
                base_url: "https://api.openai.com/v1".into(),
                model: "m".into(),
            };
            let m = RunManifest {
                api: Some(crate::settings::ApiSettings::new(endpoint)),
                ..fixtures::manifest("run-1", 0)
            };
            RunEntry::new(m, 0.0).key_scope()
        };
        assert_ne!(scope("openai"), scope("openai-compatible"), "another provider at the same origin");
    }

    #[test]
    fn counts_read_in_the_right_number() {
        // (count, shown)
        for (count, shown) in [(0, "0 errors"), (1, "1 error"), (2, "2 errors"), (53, "53 errors")] {
            assert_eq!(counted(count, "error", "errors"), shown);
        }
    }

    #[test]
    fn requests_are_described_the_same_everywhere() {
        let counts =
            |sent, retries, rate_limit_waits, failed| RequestCounts { sent, retries, rate_limit_waits, failed };
        // (counts, shown)
        let cases = [
            (counts(0, 0, 0, 0), "0 requests"),
            (counts(1, 0, 0, 0), "1 request"),
            (counts(77, 0, 0, 0), "77 requests"),
            (counts(77, 1, 0, 1), "77 requests (1 retry, 1 failed)"),
            (counts(80, 2, 1, 3), "80 requests (2 retries, 1 rate-limit wait, 3 failed)"),
            (counts(9, 0, 2, 2), "9 requests (2 rate-limit waits, 2 failed)"),
        ];
        for (counts, shown) in cases {
            assert_eq!(counts.describe(), shown, "{counts:?}");
        }
        assert_eq!(counts(35, 1, 0, 1).plus(counts(42, 2, 3, 5)), counts(77, 3, 3, 6), "sessions add up");
    }

    #[test]
    fn a_list_says_how_many_samples_have_a_record() {
        let entry = |samples: usize, scored: usize, errors: usize| {
            let mut manifest = fixtures::manifest("r", 1);
            manifest.samples = samples;
            let mut entry = RunEntry::new(manifest, 0.0);
            entry.tally.scored = scored;
            entry.tally.errors = errors;
            entry
        };
        // (samples, scored, errors, shown)
        let cases = [
            (60, 60, 0, "60 samples"),
            (60, 50, 10, "60 samples"),
            (60, 50, 3, "53 of 60 samples"),
            (60, 0, 0, "0 of 60 samples"),
            (1, 1, 0, "1 sample"),
        ];
        for (samples, scored, errors, shown) in cases {
            assert_eq!(entry(samples, scored, errors).samples_label(), shown, "{samples} {scored} {errors}");
        }
    }

    fn usage(prompt_tokens: u64, completion_tokens: u64) -> Usage {
        Usage { prompt_tokens, completion_tokens, ..Usage::default() }
    }

    /// A record answered by a batch (`live` None) or asked live (`live` Some: its share).
    fn answered(id: &str, index: usize, total: Usage, live: Option<Usage>) -> SampleRecord {
        let mut record = fixtures::record(id, index, Some(1.0), false);
        record.usage = Some(total);
        record.live_usage = live;
        record
    }

    /// What a run costs when some of its answers came from a batch and some were asked live:
    /// batch tokens at the batch price, live ones at the live price. The expected figure is
    /// worked out from the records' tokens and the two prices, not written down.
    #[test]
    fn a_batch_runs_answers_asked_live_cost_the_live_price() {
        let live_price = crate::cost::Price::per_million(2.0, 8.0);
        let batch_price = batch_run::batch_price(live_price);
        let priced = |price| PriceUsed { price, source: "test".into() };
        // How the run is kept: a live run; a batch run with its live price kept; a batch run
        // stored before the live price was kept (derived: the batch price doubled).
        #[derive(Clone, Copy, Debug)]
        enum Kept {
            Live,
            Batch,
            OldBatch,
        }
        // (how it is kept, records: (total, live share))
        type Case = (Kept, Vec<(Usage, Option<Usage>)>);
        let cases: Vec<Case> = vec![
            (Kept::Live, vec![(usage(1000, 100), None), (usage(3000, 50), None)]),
            (Kept::Batch, vec![(usage(1000, 100), None), (usage(3000, 50), None)]),
            // Retry errors live: some records the batch's, some asked live.
            (
                Kept::Batch,
                vec![(usage(1000, 100), None), (usage(3000, 50), Some(usage(3000, 50))), (usage(700, 70), None)],
            ),
            (Kept::OldBatch, vec![(usage(1000, 100), None), (usage(3000, 50), Some(usage(3000, 50)))]),
            // Extend: a record's first answers from the batch, the added ones live.
            (Kept::Batch, vec![(usage(2000, 200), Some(usage(1000, 120))), (usage(500, 5), None)]),
        ];
        for (i, (kept, records)) in cases.into_iter().enumerate() {
            let mut manifest = fixtures::manifest("r", 1);
            manifest.price = Some(priced(live_price));
            let mut entry = RunEntry::new(manifest, 0.0);
            if !matches!(kept, Kept::Live) {
                batch_run::price_as_batch_run(&mut entry.manifest);
            }
            if matches!(kept, Kept::OldBatch) {
                entry.manifest.live_price = None;
                let id = "b".to_string();
                let status = execbench_providers::batch::BatchStatus {
                    id: id.clone(),
                    phase: execbench_providers::batch::BatchPhase::Completed,
                    provider_state: "completed".into(),
                    total: 0,
                    succeeded: 0,
                    failed: 0,
                    result_files: Vec::new(),
                    reason: None,
                };
                entry.batches.push(batch_run::SubmittedBatch { id, custom_ids: Vec::new(), status, collected: true });
            }
            let records: Vec<SampleRecord> = records
                .iter()
                .enumerate()
                .map(|(j, (total, live))| answered(&format!("s{j}"), j, *total, *live))
                .collect();
            entry.tally = Tally::of(&records);
            let (mut batch_tokens, mut live_tokens) = (Usage::default(), Usage::default());
            for r in &records {
                let live = r.live_usage.unwrap_or_default();
                live_tokens.add(&live);
                batch_tokens.add(&subtract(r.usage.unwrap(), &live));
            }
            let want = match kept {
                Kept::Live => live_price.cost(&batch_tokens) + live_price.cost(&live_tokens),
                Kept::Batch | Kept::OldBatch => batch_price.cost(&batch_tokens) + live_price.cost(&live_tokens),
            };
            let got = entry.cost().unwrap();
            assert!((got - want).abs() < 1e-12, "case {i} ({kept:?}): cost {got}, want {want}");
            assert_eq!(entry.live_price(), Some(live_price), "case {i} ({kept:?}): the live price");
            // The tally follows a record replaced: the live record retried by a batch again.
            let mut again = entry.tally.clone();
            let old = records.iter().find(|r| r.live_usage.is_some()).map(Contribution::of);
            if let Some(old) = old {
                let mut batch_again = answered("x", 0, old.usage, None);
                batch_again.sample_id = "replaced".into();
                again.replace(Some(&old), &Contribution::of(&batch_again));
                assert_eq!(again.usage, entry.tally.usage, "case {i}: the same tokens");
                assert_eq!(
                    again.live_usage,
                    subtract(entry.tally.live_usage, &old.live_usage),
                    "case {i}: none live now"
                );
            }
        }
    }

    /// Entries and records stored before the live share was kept read as before: a batch run's
    /// tokens all at its (batch) price, a live run's at its price.
    #[test]
    fn entries_stored_before_the_live_share_was_kept_cost_as_before() {
        let price = crate::cost::Price::per_million(2.0, 8.0);
        let record = answered("s0", 0, usage(1000, 100), None);
        let json = serde_json::to_value(&record).unwrap();
        assert!(json.get("live_usage").is_none(), "no live share, no field");
        for batch in [false, true] {
            let mut manifest = fixtures::manifest("r", 1);
            manifest.price = Some(PriceUsed { price, source: "test".into() });
            let mut entry = RunEntry::new(manifest, 0.0);
            if batch {
                batch_run::price_as_batch_run(&mut entry.manifest);
            }
            entry.tally = Tally::of([&record]);
            let mut json = serde_json::to_value(&entry).unwrap();
            assert!(json["tally"].get("live_usage").is_none(), "batch {batch}: no live share, no field");
            // As an older version stored it: no live price in the manifest.
            json["manifest"].as_object_mut().unwrap().remove("live_price");
            let old: RunEntry = serde_json::from_value(json).unwrap();
            let run_price = entry.manifest.price.as_ref().unwrap().price;
            assert_eq!(old.cost(), Some(run_price.cost(&usage(1000, 100))), "batch {batch}");
        }
    }

    #[test]
    fn entries_stored_before_requests_were_counted_still_read() {
        let mut entry = RunEntry::new(fixtures::manifest("r", 1), 0.0);
        let mut json = serde_json::to_value(&entry).unwrap();
        assert!(json.get("requests").is_none(), "no counts, no field");
        json.as_object_mut().unwrap().remove("requests");
        assert_eq!(serde_json::from_value::<RunEntry>(json).unwrap(), entry);
        entry.requests.sent = 3;
        let back: RunEntry = serde_json::from_str(&serde_json::to_string(&entry).unwrap()).unwrap();
        assert_eq!(back.requests.sent, 3);
    }
}
