//! The Build job: candidates generated (`execbench_run::generation::run_generation`, with the
//! offline source, a replayed file or a model API) or read from a file, then judged by the filter
//! in the worker (`execbench_dataset_jobs::build_filter::filter_candidates`); the verdicts published as they
//! come, so the page's funnel grows live. Sampling and export are `execbench_recipe::build_benchmark`.

use std::sync::Arc;

use execbench_dataset_jobs::build_filter::filter_candidates;
use execbench_providers::Usage;
use execbench_recipe::offline::offline_response;
use execbench_recipe::prompt::{FewShot, GenerationRequest, PromptTemplate, generation_requests, request_index};
use execbench_recipe::replay::{GenerationRow, latest_by_id};
use execbench_recipe::{
    Benchmark, Candidate, Generation, Generator, GeneratorSource, Judged, SampleSpec, build_benchmark,
};
use execbench_run::api::ApiModel;
use execbench_run::generation::{GenerationEvent, GenerationJob, GenerationSource, generator_for, run_generation};
use execbench_run::generation_store::{GenerationEntry, GenerationState, GenerationStore, resume_plan};
use execbench_run::manifest::PriceUsed;
use execbench_run::{CancelToken, RunEnd};
use leptos::prelude::*;

use super::generations::KeptGenerations;
use super::{FINISHED, JobProgress, STOPPED};
use crate::browser::clock::BrowserClock;
use crate::browser::page_http::PageHttp;
use crate::browser::python::{BUILD_JOB, PythonWorker};

/// Where the candidates come from.
#[derive(Clone)]
pub enum BuildSource {
    /// The offline candidate source (no model), under a seed.
    Offline,
    /// A file of generations recorded earlier (`{id, method, response}` rows).
    Replay { file: String, rows: Vec<GenerationRow> },
    /// A model API; the key stays in memory. The price, when known, makes the cost; the cap
    /// (dollars, needs the price) stops it before a request that could pass it.
    Model(Box<ApiModel>, Option<PriceUsed>, Option<f64>),
}

/// What to generate: methods, requests per method, the seed, the prompt and its example pool.
#[derive(Clone)]
pub struct GenerationPlan {
    pub methods: Vec<String>,
    pub per_method: usize,
    pub seed: u64,
    pub template: PromptTemplate,
    pub pool: Vec<FewShot>,
}

/// Where a generation starts: the requests (those already answered marked done), the kept
/// responses parsed again and their rows, the provenance so far, and the entry that keeps it
/// (`None`: not kept, as for the offline source and a replayed file).
struct Start {
    job: GenerationJob,
    answered: Vec<execbench_recipe::parse::ParsedResponse>,
    rows: Vec<GenerationRow>,
    generation: Generation,
    keep: Option<GenerationEntry>,
}

#[derive(Clone, Copy)]
pub struct BuildJob {
    pub progress: JobProgress,
    /// Responses received and those that gave no candidate (generation only).
    pub responses: RwSignal<Option<usize>>,
    pub unparseable: RwSignal<usize>,
    /// Candidates read so far (generated or from a file).
    pub candidates: RwSignal<usize>,
    /// Every verdict so far, in judging order.
    pub judged: RwSignal<Arc<Vec<Judged>>>,
    /// The problem that stopped the job or a step, in words.
    pub error: RwSignal<Option<String>>,
    /// The last benchmark sampled from the verdicts.
    pub benchmark: RwSignal<Option<Arc<Benchmark>>>,
    /// Tokens so far (a model API only) and what they cost at the known price.
    pub usage: RwSignal<Option<(Usage, Option<f64>)>>,
    /// How the candidates were generated, for the provenance (`None`: a candidates file).
    pub generation: StoredValue<Option<Generation>>,
    /// The generation's rows (responses and errors), for its download.
    pub generation_rows: StoredValue<Vec<GenerationRow>>,
    /// Model generations kept for a reload.
    pub kept: KeptGenerations,
    python: StoredValue<PythonWorker, LocalStorage>,
}

impl BuildJob {
    pub fn new(worker: &PythonWorker) -> Self {
        BuildJob {
            progress: JobProgress::new(),
            responses: RwSignal::new(None),
            unparseable: RwSignal::new(0),
            candidates: RwSignal::new(0),
            judged: RwSignal::new(Arc::new(Vec::new())),
            error: RwSignal::new(None),
            benchmark: RwSignal::new(None),
            usage: RwSignal::new(None),
            generation: StoredValue::new(None),
            generation_rows: StoredValue::new(Vec::new()),
            kept: KeptGenerations::start(),
            python: StoredValue::new_local(worker.for_job(BUILD_JOB)),
        }
    }

    fn reset(self) {
        self.responses.set(None);
        self.unparseable.set(0);
        self.candidates.set(0);
        self.judged.set(Arc::new(Vec::new()));
        self.error.set(None);
        self.benchmark.set(None);
        self.usage.set(None);
        self.generation.set_value(None);
        self.generation_rows.set_value(Vec::new());
    }

    /// Generates candidates with `source`, then filters them. A model's generation is kept
    /// (entry and a row per request) so that a reload can resume it.
    pub fn generate(self, source: BuildSource, plan: GenerationPlan) {
        let requests = match generation_requests(&plan.methods, plan.per_method, plan.seed, &plan.template, &plan.pool)
        {
            Ok(r) => r,
            Err(e) => {
                self.error.set(Some(e));
                return;
            }
        };
        self.reset();
        let keep = match &source {
            BuildSource::Model(model, price, cap) => GenerationEntry::new(
                crate::browser::clock::now_ms(),
                model.settings.clone(),
                price.clone(),
                plan.methods.clone(),
                plan.per_method,
                plan.seed,
                plan.template.clone(),
                plan.pool.clone(),
            )
            .ok()
            .map(|e| GenerationEntry { spend_cap: *cap, ..e }),
            _ => None,
        };
        let generation = Generation {
            generator: generator_of(&source, &plan),
            methods: plan.methods.clone(),
            prompt_template: plan.template.text.clone(),
            few_shot_pool_hash: execbench_recipe::prompt::pool_hash(&plan.pool),
            responses: 0,
            unparseable: 0,
        };
        let spend_cap = keep.as_ref().and_then(GenerationEntry::cap);
        let job = GenerationJob { requests, spend_cap, ..Default::default() };
        self.launch(source, plan.seed, Start { job, answered: Vec::new(), rows: Vec::new(), generation, keep });
    }

    /// Goes on with a kept generation: its prompts are made again from its plan, the requests
    /// without a response are asked (with `key`, the key of its provider), the kept responses
    /// give their candidates back, and then everything is filtered. `cap`: a new spend cap for
    /// the whole generation (dollars), replacing the kept one.
    pub fn resume(self, id: String, key: Option<String>, cap: Option<f64>) {
        if self.progress.running.get_untracked() {
            return;
        }
        leptos::task::spawn_local(async move {
            let store = self.kept.store().await;
            let found = async {
                let entry = store
                    .generations()
                    .await
                    .map_err(|e| e.to_string())?
                    .into_iter()
                    .find(|e| e.id == id)
                    .ok_or_else(|| format!("generation `{id}` is no longer kept in this browser"))?;
                let rows = store.generation_rows(&id).await.map_err(|e| e.to_string())?;
                let entry = GenerationEntry { spend_cap: cap.or(entry.spend_cap), ..entry };
                if entry.spend_cap.is_some() && entry.price.is_none() {
                    return Err(format!("{}: a spend cap needs a price, and this generation has none", entry.id));
                }
                let plan = resume_plan(&entry, &rows)?;
                Ok::<_, String>((entry, plan))
            };
            let (entry, plan) = match found.await {
                Ok(found) => found,
                Err(e) => {
                    self.error.set(Some(e));
                    return;
                }
            };
            let needs_key = entry.api.endpoint.preset().is_some_and(|p| p.key_required);
            if needs_key && key.as_deref().is_none_or(str::is_empty) && plan.job.done.len() < plan.job.requests.len() {
                self.error.set(Some(format!("{} needs the API key of {} at {}: choose that provider above and enter its key (it is not kept unless you ask)", entry.id, entry.api.endpoint.provider, entry.api.endpoint.base_url)));
                return;
            }
            self.reset();
            let generation = Generation {
                generator: generator_for(GeneratorSource::Model, Some(&entry.api), entry.seed),
                methods: entry.methods.clone(),
                prompt_template: entry.template.text.clone(),
                few_shot_pool_hash: execbench_recipe::prompt::pool_hash(&entry.pool),
                responses: 0,
                unparseable: 0,
            };
            let model = ApiModel { settings: entry.api.clone(), key };
            let source = BuildSource::Model(Box::new(model), entry.price.clone(), entry.spend_cap);
            let seed = entry.seed;
            let keep = Some(GenerationEntry { state: GenerationState::Running, note: None, ..entry });
            self.launch(
                source,
                seed,
                Start { job: plan.job, answered: plan.answered, rows: plan.rows, generation, keep },
            );
        });
    }

    /// Forgets a kept generation.
    pub fn discard(self, id: String) {
        self.kept.discard(&id);
    }

    fn launch(self, source: BuildSource, seed: u64, start: Start) {
        let Start { job, answered, rows, generation, keep } = start;
        let python = self.python.get_value();
        let cancel =
            self.progress.begin(format!("Generating {} responses", job.requests.len()), job.requests.len(), &python);
        // Responses kept from before a reload count as they did then.
        let mut candidates = Vec::<Candidate>::new();
        let (mut responses, mut unparseable) = (0, 0);
        for parsed in &answered {
            responses += 1;
            if parsed.candidates.is_empty() {
                unparseable += 1;
            }
            candidates.extend(parsed.candidates.iter().cloned());
        }
        let finished_ids: std::collections::BTreeSet<String> = rows.iter().map(|r| r.id.clone()).collect();
        let prior_usage = keep.as_ref().map(|k| k.usage).unwrap_or_default();
        self.responses.set(Some(responses));
        self.unparseable.set(unparseable);
        self.candidates.set(candidates.len());
        self.progress.done.set(job.done.len());
        self.generation_rows.set_value(rows);
        // `Some` for a model API: its tokens are shown, priced when the price is known.
        let price: Option<Option<PriceUsed>> = match &source {
            BuildSource::Model(_, price, _) => Some(price.clone()),
            _ => None,
        };
        if let Some(entry) = &keep {
            self.kept.save(entry.clone());
        }
        let provider = match &source {
            BuildSource::Model(model, ..) => model.settings.endpoint.provider.clone(),
            _ => String::new(),
        };
        let http = PageHttp::for_provider(&provider, RwSignal::new(None));
        leptos::task::spawn_local(async move {
            let mut generation_source = match source {
                BuildSource::Offline => GenerationSource::Offline(Box::new(move |r: &GenerationRequest| {
                    offline_response(&r.method, seed, request_index(&r.id))
                })),
                BuildSource::Replay { file, rows } => {
                    let latest = latest_by_id(&rows);
                    GenerationSource::Offline(Box::new(move |r: &GenerationRequest| match latest.get(&r.id) {
                        Some(GenerationRow { response: Some(text), .. }) => Ok(text.clone()),
                        Some(GenerationRow { error: Some(e), .. }) => {
                            Err(format!("{file} holds an error for {}: {e}", r.id))
                        }
                        _ => Err(format!("{file} has no response for {}", r.id)),
                    }))
                }
                BuildSource::Model(model, _, _) => GenerationSource::Api(*model),
            };
            let found = std::cell::RefCell::new(candidates);
            let counts = std::cell::Cell::new((responses, unparseable));
            let finished = std::cell::RefCell::new(finished_ids);
            let keep = std::cell::RefCell::new(keep);
            let on_event = |event: GenerationEvent| {
                if let GenerationEvent::Status(status) = &event
                    && let Some(price) = &price
                {
                    let mut usage = prior_usage;
                    usage.add(&status.usage);
                    let cost = price.as_ref().map(|p| p.price.cost(&usage));
                    self.usage.set(Some((usage, cost)));
                }
                if let GenerationEvent::Generated(done) = event {
                    let row = done.row();
                    self.generation_rows.update_value(|rows| rows.push(row.clone()));
                    if let Some(entry) = keep.borrow_mut().as_mut() {
                        self.generation_rows.with_value(|rows| entry.count(rows));
                        self.kept.put_row(entry.clone(), row);
                    }
                    finished.borrow_mut().insert(done.request_id.clone());
                    let (mut responses, mut unparseable) = counts.get();
                    if let Ok(parsed) = &done.result {
                        responses += 1;
                        if parsed.candidates.is_empty() {
                            unparseable += 1;
                        }
                        found.borrow_mut().extend(parsed.candidates.iter().cloned());
                    }
                    counts.set((responses, unparseable));
                    if self.progress.publish(finished.borrow().len()) {
                        self.responses.set(Some(responses));
                        self.unparseable.set(unparseable);
                        self.candidates.set(found.borrow().len());
                    }
                }
            };
            let outcome = run_generation(&job, &mut generation_source, &http, &BrowserClock, &cancel, &on_event).await;
            let (responses, unparseable) = counts.get();
            self.responses.set(Some(responses));
            self.unparseable.set(unparseable);
            let candidates = found.into_inner();
            self.candidates.set(candidates.len());
            self.generation.set_value(Some(Generation { responses, unparseable, ..generation }));
            let failed = outcome.generated.iter().filter(|g| g.result.is_err()).count();
            if failed > 0 {
                let first = outcome
                    .generated
                    .iter()
                    .find_map(|g| g.result.as_ref().err())
                    .map(|e| e.message.clone())
                    .unwrap_or_default();
                self.error.set(Some(format!("{failed} of {} requests failed (first: {first}); their rows are in the generations download, and Resume asks them again", outcome.generated.len())));
            }
            match &outcome.end {
                RunEnd::ProviderStopped(e) => self.error.set(Some(format!("The provider stopped the generation: {e}"))),
                RunEnd::SpendCap { .. } => self
                    .error
                    .set(Some(format!("The generation {}; its responses so far are kept", outcome.end.describe()))),
                _ => {}
            }
            if let Some(mut entry) = keep.into_inner() {
                (entry.state, entry.note) = match &outcome.end {
                    RunEnd::ProviderStopped(e) => (GenerationState::ProviderStopped, Some(e.to_string())),
                    RunEnd::SpendCap { .. } => (GenerationState::Stopped, Some(outcome.end.describe())),
                    _ if cancel.is_cancelled() => (GenerationState::Stopped, None),
                    _ => (GenerationState::Finished, None),
                };
                self.kept.save(entry);
            }
            if cancel.is_cancelled() || matches!(outcome.end, RunEnd::SpendCap { .. }) {
                self.progress.finish(finished.borrow().len(), STOPPED);
                return;
            }
            self.filter(candidates, cancel).await;
        });
    }

    /// Filters candidates read from a file (no generation).
    pub fn filter_file(self, candidates: Vec<Candidate>) {
        self.reset();
        let python = self.python.get_value();
        let cancel = self.progress.begin(String::new(), candidates.len(), &python);
        self.candidates.set(candidates.len());
        leptos::task::spawn_local(async move { self.filter(candidates, cancel).await });
    }

    async fn filter(self, candidates: Vec<Candidate>, cancel: CancelToken) {
        let python = self.python.get_value();
        self.progress.label.set(Some(format!("Filtering {} candidates", candidates.len())));
        self.progress.total.set(candidates.len());
        self.progress.done.set(0);
        let mut seen = Vec::with_capacity(candidates.len());
        let mut on_judged = |_: &execbench_dataset_jobs::build_filter::FilterTally, judged: &Judged| {
            seen.push(judged.clone());
            if self.progress.publish(seen.len()) {
                self.judged.set(Arc::new(seen.clone()));
            }
        };
        let outcome = filter_candidates(&python, &candidates, &cancel, &mut on_judged).await;
        let done = outcome.judged.len();
        self.judged.set(Arc::new(outcome.judged));
        self.progress.finish(done, if outcome.stopped { STOPPED } else { FINISHED });
    }

    /// Samples the kept candidates and exports them; the result (or why not) is published.
    pub fn sample(self, spec: SampleSpec) {
        let judged = self.judged.get_untracked();
        match build_benchmark(env!("CARGO_PKG_VERSION"), &judged, self.generation.get_value(), spec) {
            Ok(benchmark) => {
                self.error.set(None);
                self.benchmark.set(Some(Arc::new(benchmark)));
            }
            Err(problems) => self.error.set(Some(problems.join("; "))),
        }
    }

    pub fn stop(self) {
        self.progress.stop();
    }
}

fn generator_of(source: &BuildSource, plan: &GenerationPlan) -> Generator {
    match source {
        BuildSource::Offline => generator_for(GeneratorSource::Offline, None, plan.seed),
        BuildSource::Replay { .. } => generator_for(GeneratorSource::Replay, None, plan.seed),
        BuildSource::Model(model, _, _) => generator_for(GeneratorSource::Model, Some(&model.settings), plan.seed),
    }
}
