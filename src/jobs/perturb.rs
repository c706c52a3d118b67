//! The Perturb job: `execbench_dataset_jobs::perturbation::perturb_and_verify` (perturbing on the page's
//! thread in slices, verifying in the worker), its counts published. With a model for MHC, its
//! wrong answers are asked first (`execbench_dataset_jobs::model_wrong_answers`), the proposals kept in this
//! browser so the same samples are not asked again.

use std::cell::RefCell;
use std::collections::BTreeMap;

use execbench_core::{Limits, Provenance, Sample};
use execbench_dataset_jobs::model_wrong_answers::{
    AskedClaims, ProposalCache, ProposalJob, STOPPED as ASK_STOPPED, ask_wrong_answers,
};
use execbench_dataset_jobs::perturbation::{KindCounts, Normalised, PerturbPlan, PerturbTally, perturb_and_verify};
use execbench_perturb::{ExportRow, Failure, Kind, Options};
use execbench_run::api::{ApiModel, RequestContext};
use execbench_run::backoff::Jitter;
use execbench_run::gate::Gate;
use execbench_run::status::Live;
use leptos::prelude::*;

use super::{FINISHED, JobProgress, STOPPED};
use crate::browser::clock::BrowserClock;
use crate::browser::page_http::PageHttp;
use crate::browser::python::{PERTURB_JOB, PythonWorker};
use crate::browser::storage;

/// Where a model's MHC proposals are kept (JSON Lines of `ModelProposal`, never a key).
const PROPOSALS_KEY: &str = "execbench.mhc-proposals";

/// What the model was asked for MHC, for the summary.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelClaims {
    /// `model (provider)`.
    pub model: String,
    pub asked: AskedClaims,
    /// Why the proposals could not be kept in this browser, if they could not.
    pub not_kept: Option<String>,
}

#[derive(Clone, Copy)]
pub struct PerturbRun {
    pub job: JobProgress,
    pub counts: RwSignal<BTreeMap<Kind, KindCounts>>,
    pub failures: RwSignal<Vec<Failure>>,
    /// Verified rows of the last run, in (kind, seed, sample) order like the command line's; set
    /// when it ends.
    pub rows: StoredValue<Vec<ExportRow>>,
    pub row_count: RwSignal<usize>,
    /// `RTF` or `REN+RTF`: the chosen kinds, for the download's name.
    pub kinds_label: StoredValue<String>,
    /// The original dataset's provenance, for every exported row.
    pub provenance: StoredValue<Provenance>,
    /// The codecrash profile's normalising step, as it goes.
    pub normalised: RwSignal<Option<Normalised>>,
    /// The codecrash profile: the normalised samples (CodeCrash's baseline), set when it ends.
    pub baseline: StoredValue<Vec<Sample>>,
    pub baseline_count: RwSignal<usize>,
    /// MHC's wrong answers from a model, once asked; `None` for the offline source.
    pub model_claims: RwSignal<Option<ModelClaims>>,
    /// Asking the model failed (a bad key, Stop): nothing was perturbed.
    pub error: RwSignal<Option<String>>,
    python: StoredValue<PythonWorker, LocalStorage>,
}

impl PerturbRun {
    /// The job runs in `worker` as `PERTURB_JOB`.
    pub fn new(worker: &PythonWorker) -> Self {
        PerturbRun {
            job: JobProgress::new(),
            counts: RwSignal::new(BTreeMap::new()),
            failures: RwSignal::new(Vec::new()),
            rows: StoredValue::new(Vec::new()),
            row_count: RwSignal::new(0),
            kinds_label: StoredValue::new(String::new()),
            provenance: StoredValue::new(Provenance::default()),
            normalised: RwSignal::new(None),
            baseline: StoredValue::new(Vec::new()),
            baseline_count: RwSignal::new(0),
            model_claims: RwSignal::new(None),
            error: RwSignal::new(None),
            python: StoredValue::new_local(worker.for_job(PERTURB_JOB)),
        }
    }

    /// `dataset`: the export's `dataset` column. `options.seed` is replaced by each of `seeds`.
    /// `model`: MHC's wrong answers are asked of it first (only when MHC is among `kinds`).
    pub fn start(
        self,
        samples: Vec<Sample>,
        dataset: String,
        kinds: Vec<Kind>,
        seeds: Vec<u64>,
        options: Options,
        model: Option<ApiModel>,
    ) {
        let python = self.python.get_value();
        let label = kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join("+");
        let total = samples.len() * kinds.iter().map(|k| k.seeds_that_matter(&seeds).len()).sum::<usize>();
        let model = model.filter(|_| kinds.contains(&Kind::Mhc));
        self.kinds_label.set_value(label.clone());
        self.provenance.set_value(Provenance::of_dataset(env!("CARGO_PKG_VERSION"), &dataset, &samples));
        self.rows.set_value(Vec::new());
        self.row_count.set(0);
        self.failures.set(Vec::new());
        self.model_claims.set(None);
        self.error.set(None);
        self.normalised.set(None);
        self.baseline.set_value(Vec::new());
        self.baseline_count.set(0);
        // Every chosen kind has its row in the summary from the start.
        self.counts.set(kinds.iter().map(|&k| (k, KindCounts::default())).collect());
        leptos::task::spawn_local(async move {
            let claims = match model {
                Some(model) => match self.ask_model(&model, &samples, options, &python).await {
                    Some(asked) => Some(asked.claims_table(&samples)),
                    None => return,
                },
                None => None,
            };
            let cancel = self.job.begin(format!("Perturbing with {label}"), total, &python);
            let job = PerturbPlan {
                samples: &samples,
                dataset: &dataset,
                kinds: &kinds,
                seeds: &seeds,
                options,
                limits: Limits::default(),
                claims: claims.as_ref(),
            };
            let outcome = perturb_and_verify(&python, &BrowserClock, &job, &cancel, &mut |tally| {
                if self.job.publish(tally.done) {
                    self.show(tally);
                }
            })
            .await;
            self.show(&outcome.tally);
            self.rows.set_value(outcome.tally.rows);
            self.baseline_count.set(outcome.baseline.len());
            self.baseline.set_value(outcome.baseline);
            self.job.finish(outcome.tally.done, if outcome.stopped { STOPPED } else { FINISHED });
        });
    }

    pub fn stop(self) {
        self.job.stop();
    }

    /// Asks `model` for a wrong answer per sample (proposals kept in this browser are not asked
    /// again), with progress and Stop. `None` when it failed or was stopped: the job has ended.
    async fn ask_model(
        self,
        model: &ApiModel,
        samples: &[Sample],
        options: Options,
        python: &PythonWorker,
    ) -> Option<AskedClaims> {
        let cancel = self.job.begin(format!("Asking {} for MHC's wrong answers", model.name()), samples.len(), python);
        let (kept, mut not_kept) = match storage::get(PROPOSALS_KEY)
            .map(|text| ProposalCache::parse("the proposals kept in this browser", &text))
        {
            None => (ProposalCache::default(), None),
            Some(Ok(cache)) => (cache, None),
            // Never written over: the user may still want what is there.
            Some(Err(e)) => (ProposalCache::default(), Some(e)),
        };
        let mut cache = kept.clone();
        let (gate, live, jitter) = (
            Gate::new(model.settings.concurrency, model.settings.delay_ms),
            Live::new(samples.len(), 0),
            RefCell::new(Jitter::new(0)),
        );
        let http = PageHttp::for_provider(&model.settings.endpoint.provider, RwSignal::new(None));
        let context = RequestContext { http: &http, clock: &BrowserClock, gate: &gate, live: &live, jitter: &jitter };
        let job = ProposalJob { samples, prediction: options.prediction, cache: &kept };
        let asked = ask_wrong_answers(&context, model, Some(python), job, &cancel, &mut |done, proposal| {
            cache.insert(proposal.clone());
            self.job.publish(done);
        })
        .await;
        if not_kept.is_none() && cache != kept {
            // Kept even when the model stopped answering: what was paid for is not asked again.
            not_kept = storage::set(PROPOSALS_KEY, &cache.to_jsonl()).err();
        }
        match asked {
            Ok(asked) => {
                self.model_claims.set(Some(ModelClaims { model: model.name(), asked: asked.clone(), not_kept }));
                Some(asked)
            }
            Err(e) => {
                let stopped = e == ASK_STOPPED;
                if !stopped {
                    self.error.set(Some(e));
                }
                self.job.finish(0, if stopped { STOPPED } else { "failed" });
                None
            }
        }
    }

    /// Redraws the summary; the failure list only when it grew.
    fn show(self, tally: &PerturbTally) {
        self.counts.set(tally.counts.clone());
        if self.failures.with_untracked(Vec::len) != tally.failures.len() {
            self.failures.set(tally.failures.clone());
        }
        self.row_count.set(tally.rows.len());
        if self.normalised.with_untracked(|n| n.as_ref() != tally.normalised.as_ref()) {
            self.normalised.set(tally.normalised.clone());
        }
    }
}
