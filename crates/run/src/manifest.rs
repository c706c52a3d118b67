//! A stored run's data model: what the run is ([`RunManifest`]: dataset, model, template, n,
//! price; never a key), where it stands ([`RunState`]) and what a list shows of it ([`RunEntry`]
//! with its running [`Tally`]). The run file ([`crate::runfile`]) and every store
//! ([`crate::store`]) keep these; the session ([`crate::session`]) decides their changes.

use execbench_eval::prompt::Template;
use execbench_eval::score::Mode;
use execbench_providers::Usage;
use serde::{Deserialize, Serialize};

use crate::api::ApiSettings;
use crate::record::SampleRecord;

pub use execbench_core::provenance::{Provenance, dataset_hash, fnv1a_hex};

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
    pub simulation: Option<crate::simulate::Simulation>,
    /// The price the run's costs are computed with, and where it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<PriceUsed>,
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

    /// What the run's tokens cost, when its price is known.
    pub fn cost(&self, usage: &execbench_providers::Usage) -> Option<f64> {
        self.price.as_ref().map(|p| p.price.cost(usage))
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
}

impl Contribution {
    pub fn of(record: &SampleRecord) -> Contribution {
        Contribution {
            error: record.is_error(),
            pass_at_1: record.results.iter().map(|r| r.pass_at_1).collect(),
            usage: record.usage.unwrap_or_default(),
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
    /// The requests of every session of the run (start, resumes, retries, extends). Runs stored
    /// before it was counted read as zero.
    #[serde(default, skip_serializing_if = "RequestCounts::is_zero")]
    pub requests: RequestCounts,
    /// The batches its answers were submitted in ([`crate::batch`]): ids and last known states.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub batches: Vec<crate::batch::SubmittedBatch>,
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
            batches: Vec::new(),
        }
    }

    pub fn id(&self) -> &str {
        &self.manifest.run_id
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
            let mut manifest = crate::store::conformance::manifest("r", 1);
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

    #[test]
    fn entries_stored_before_requests_were_counted_still_read() {
        let mut entry = RunEntry::new(crate::store::conformance::manifest("r", 1), 0.0);
        let mut json = serde_json::to_value(&entry).unwrap();
        assert!(json.get("requests").is_none(), "no counts, no field");
        json.as_object_mut().unwrap().remove("requests");
        assert_eq!(serde_json::from_value::<RunEntry>(json).unwrap(), entry);
        entry.requests.sent = 3;
        let back: RunEntry = serde_json::from_str(&serde_json::to_string(&entry).unwrap()).unwrap();
        assert_eq!(back.requests.sent, 3);
    }
}
