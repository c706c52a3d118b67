//! A whole evaluation run: every sample of the job asked, scored and handed to the store as it
//! finishes, with progress, Stop, and a run that stops at once when the provider says nothing will
//! work (bad key, no credits, exhausted quota, blocked by the browser, unknown model).
//!
//! API models run many samples at once (the [`Gate`] bounds the requests in flight); offline
//! models run one sample at a time, since their only work is Python, which runs one program at a
//! time anyway.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};

use execbench_core::Sample;
use execbench_eval::models::{Model, ModelRequest, ModelStep, Reply};
use execbench_eval::prompt::Template;
use execbench_eval::score::{Mode, ScoreOptions};
use execbench_providers::{Message, ProviderError, Usage};
use futures::stream::StreamExt;
use futures::{FutureExt, select_biased};

use crate::api::{ApiModel, RequestContext, ask};
use crate::backoff::Jitter;
use crate::cancel::CancelToken;
use crate::cost::SpendCap;
use crate::gate::Gate;
use crate::io::{Clock, HttpClient, Python, ResultStore};
use crate::record::{SampleError, SampleRecord};
use crate::schedule::{Schedule, StatusMoment};
use crate::scoring::{Answers, score_sample};
use crate::status::{Live, RunStatus};

/// How a run ends; the scheduler of API work decides most ends, so it is defined there.
pub use crate::schedule::RunEnd;

/// Steps an offline model may take for one sample before it is declared stuck.
const MAX_MODEL_STEPS: usize = 64;

/// What answers: an offline model (oracle, baselines, replay) or a provider's API.
// One value per run: the size difference costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum Responder {
    Offline(Box<dyn Model>),
    Api(ApiModel),
}

impl Responder {
    pub fn name(&self) -> String {
        match self {
            Responder::Offline(model) => model.name(),
            Responder::Api(model) => model.name(),
        }
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct EvalJob {
    /// The samples in dataset order; a record's `index` is its position here.
    pub samples: Vec<Sample>,
    pub template: Template,
    /// Responses per sample.
    pub n: usize,
    pub modes: Vec<Mode>,
    pub options: ScoreOptions,
    /// Samples that already have a record (a resumed run): not asked again.
    pub done: BTreeSet<String>,
    /// Answers a sample already has (a run extended to a larger n): only `n` minus their number
    /// are asked for, and the record holds all of them, with the sample's total usage.
    pub prior: BTreeMap<String, PriorAnswers>,
    /// Pause before a request that could take the run's spending past the cap.
    pub spend_cap: Option<SpendCap>,
    /// The run is a batch run asking live (Resume, Retry errors live, Extend): each record keeps
    /// the tokens asked live apart (`SampleRecord::live_usage`), as they cost the live price.
    pub batch_run: bool,
    /// Whether the outcome keeps the records it stored (the page shows them) or only reports
    /// each as [`Event::Record`] (a long command-line run: its memory stays flat).
    pub keep: KeepRecords,
}

/// What a run's outcome and its session's end keep of the records stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeepRecords {
    /// Every record, whole.
    #[default]
    Whole,
    /// None: the caller takes each from [`Event::Record`] as it is stored.
    Nothing,
}

/// A sample's answers from an earlier session of the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PriorAnswers {
    pub responses: Vec<String>,
    pub usage: Usage,
    /// Of `usage`, what a batch run asked live.
    pub live_usage: Usage,
}

impl PriorAnswers {
    /// The raw responses and usage of a scored record (none for an error or extracted answers).
    pub fn of(record: &SampleRecord) -> Option<PriorAnswers> {
        let responses: Option<Vec<String>> =
            record.results.first()?.answers.iter().map(|a| a.response.clone()).collect();
        Some(PriorAnswers {
            responses: responses?,
            usage: record.usage.unwrap_or_default(),
            live_usage: record.live_usage.unwrap_or_default(),
        })
    }
}

impl EvalJob {
    /// Every sample to ask, none done, no cap.
    pub fn new(samples: Vec<Sample>, template: Template, n: usize, modes: Vec<Mode>) -> EvalJob {
        EvalJob {
            samples,
            template,
            n,
            modes,
            options: ScoreOptions::default(),
            done: BTreeSet::new(),
            prior: BTreeMap::new(),
            spend_cap: None,
            batch_run: false,
            keep: KeepRecords::Whole,
        }
    }

    /// Samples that will be asked (no record yet), and answers asked of each.
    fn to_ask(&self, sample: &Sample) -> usize {
        self.n.saturating_sub(self.prior.get(&sample.id).map_or(0, |p| p.responses.len()))
    }
}

/// The caller's I/O.
pub struct Io<'a, P, H, C, S> {
    pub python: &'a P,
    pub http: &'a H,
    pub clock: &'a C,
    pub store: &'a S,
}

/// What the engine reports while it runs.
pub enum Event<'a> {
    Status(&'a RunStatus),
    /// Streamed text of one response; `None` when the response starts over (a retry).
    Delta {
        sample_id: &'a str,
        choice: u32,
        text: Option<&'a str>,
    },
    /// A sample finished and was stored.
    Record(&'a SampleRecord),
}

#[derive(Debug)]
pub struct RunOutcome {
    pub end: RunEnd,
    /// Records of this run's samples, in the order they finished.
    pub records: Vec<SampleRecord>,
    /// A finished sample's record the store refused (the run then stopped): not in `records`.
    pub unsaved: Vec<SampleRecord>,
    pub status: RunStatus,
    /// The most requests that were in flight at once.
    pub most_concurrent: usize,
    pub python_runs: usize,
}

/// Runs `job` with `responder`. Cancel `cancel` to stop: requests in flight are dropped (and so
/// aborted), and their samples get no record.
pub async fn run_evaluation<P: Python, H: HttpClient, C: Clock, S: ResultStore>(
    job: &EvalJob,
    responder: &mut Responder,
    io: Io<'_, P, H, C, S>,
    cancel: &CancelToken,
    on_event: &dyn Fn(Event),
) -> RunOutcome {
    let already = job.samples.iter().filter(|s| job.done.contains(&s.id)).count();
    let live = Live::new(job.samples.len(), already);
    let started = io.clock.now_ms();
    let python_runs = Cell::new(0usize);
    let records = RefCell::new(Vec::new());
    let todo: Vec<(usize, &Sample)> =
        job.samples.iter().enumerate().filter(|(_, s)| !job.done.contains(&s.id)).collect();
    let concurrency = match responder {
        Responder::Api(model) => model.settings.concurrency.max(1),
        Responder::Offline(_) => 1,
    };
    let gate = Gate::new(concurrency, if let Responder::Api(m) = responder { m.settings.delay_ms } else { 0 });
    let status = |stopping: bool| {
        if stopping {
            live.set_stopping();
        }
        let now = io.clock.now_ms();
        live.snapshot(now, now - started, gate.limit(now), gate.lowered(now))
    };
    on_event(Event::Status(&status(false)));

    // Stores a finished record; an error from the store ends the run, and the record is handed
    // back unsaved (its answers were paid for: the caller keeps it and writes it later).
    let unsaved = RefCell::new(Vec::new());
    let finish = async |record: SampleRecord| -> Result<(), String> {
        if let Err(e) = io.store.put(&record).await {
            unsaved.borrow_mut().push(record);
            return Err(e);
        }
        live.sample_done(record.is_error());
        on_event(Event::Record(&record));
        if job.keep == KeepRecords::Whole {
            records.borrow_mut().push(record);
        }
        on_event(Event::Status(&status(false)));
        Ok(())
    };

    let end = match responder {
        Responder::Offline(model) => {
            // Samples overlap as far as the Python takes runs at once (a pool of workers or
            // threads); their records are finished in dataset order, as one at a time would.
            // With a pool, samples well past the oldest unfinished one are under way too: one
            // answer waiting out its time limit then holds one worker, not the whole run.
            let model = RefCell::new(model.as_mut());
            let width = io.python.runs_at_once().max(1);
            let window = if width == 1 { 1 } else { width * OFFLINE_LOOKAHEAD };
            let mut records = futures::stream::iter(todo)
                .map(|(index, sample)| offline_sample(job, &model, io.python, index, sample, &python_runs))
                .buffered(window);
            let mut end = RunEnd::Finished;
            loop {
                let next = select_biased! {
                    _ = cancel.cancelled().fuse() => { end = RunEnd::Stopped; break }
                    next = records.next().fuse() => next,
                };
                let Some(record) = next else { break };
                if let Err(e) = finish(record).await {
                    end = RunEnd::StoreFailed(e);
                    break;
                }
            }
            end
        }
        Responder::Api(model) => {
            let jitter = RefCell::new(Jitter::new(started.to_bits() ^ job.samples.len() as u64));
            let ctx = RequestContext { http: io.http, clock: io.clock, gate: &gate, live: &live, jitter: &jitter };
            // The template's stop sequences are every prompt's: set them once for the run.
            let mut with_stop;
            let model: &ApiModel = if model.settings.params.stop.is_empty() && !job.template.stop.is_empty() {
                with_stop = model.clone();
                with_stop.settings.params.stop = job.template.stop.clone();
                &with_stop
            } else {
                model
            };
            let schedule =
                Schedule { clock: io.clock, cancel, live: &live, concurrency, spend_cap: job.spend_cap.as_ref() };
            schedule
                .run(
                    todo,
                    |&(_, sample), cap| worst_case_cost(job, model, sample, cap),
                    |(index, sample)| api_sample(job, model, &ctx, io.python, index, sample, &python_runs, on_event),
                    finish,
                    |moment| on_event(Event::Status(&status(moment == StatusMoment::Stopping))),
                )
                .await
        }
    };
    let final_status = status(false);
    on_event(Event::Status(&final_status));
    RunOutcome {
        end,
        records: records.into_inner(),
        unsaved: unsaved.into_inner(),
        status: final_status,
        most_concurrent: gate.most_in_use(),
        python_runs: python_runs.get(),
    }
}

fn messages(prompt: &execbench_eval::prompt::Prompt) -> Vec<Message> {
    prompt.messages.iter().map(|m| Message { role: m.role.clone(), content: m.content.clone() }).collect()
}

/// One sample with an API model. `Some(error)` alongside the record: the run must stop (the
/// record is then not kept: the sample was never really tried).
#[allow(clippy::too_many_arguments)]
async fn api_sample<P: Python, H: HttpClient, C: Clock>(
    job: &EvalJob,
    model: &ApiModel,
    ctx: &RequestContext<'_, H, C>,
    python: &P,
    index: usize,
    sample: &Sample,
    python_runs: &Cell<usize>,
    on_event: &dyn Fn(Event),
) -> (SampleRecord, Option<ProviderError>) {
    let task = job.template.task;
    let prompt = job.template.render(sample);
    let started = ctx.clock.now_ms();
    let on_delta = |choice: u32, text: Option<&str>| on_event(Event::Delta { sample_id: &sample.id, choice, text });
    let mut record = SampleRecord::new(&sample.id, index);
    let prior = job.prior.get(&sample.id).cloned().unwrap_or_default();
    let to_ask = job.to_ask(sample) as u32;
    let asked = if to_ask == 0 {
        // Nothing new to ask (an extended run's sample that already has n answers): re-scored.
        Ok(crate::api::Answered {
            texts: Vec::new(),
            finish_reasons: Vec::new(),
            usage: Usage::default(),
            sent: serde_json::Value::Null,
            attempts: Vec::new(),
        })
    } else {
        ask(ctx, model, &messages(&prompt), to_ask, &on_delta).await
    };
    match asked {
        Ok(answered) => {
            record.latency_ms = ctx.clock.now_ms() - started;
            let mut responses = prior.responses;
            responses.extend(answered.texts);
            let answers = Answers { prompt: Some(prompt.text()), responses: &responses, extracted: false };
            record.results = score_sample(python, sample, task, &job.modes, answers, &job.options, &mut || {
                python_runs.set(python_runs.get() + 1)
            })
            .await;
            let mut usage = prior.usage;
            usage.add(&answered.usage);
            record.usage = Some(usage);
            if job.batch_run {
                let mut live = prior.live_usage;
                live.add(&answered.usage);
                record.live_usage = Some(live);
            }
            record.sent = (!answered.sent.is_null()).then_some(answered.sent);
            record.finish_reasons = answered.finish_reasons;
            record.attempts = answered.attempts;
            (record, None)
        }
        Err(failure) => {
            record.latency_ms = ctx.clock.now_ms() - started;
            record.error = Some(SampleError { kind: Some(failure.error.kind), message: failure.error.to_string() });
            record.sent = failure.sent;
            record.attempts = failure.attempts;
            let stop = failure.stop_run.then_some(failure.error);
            (record, stop)
        }
    }
}

/// The most one sample can cost: its prompt (bytes, an upper bound of its tokens) sent once per
/// request, and every answer at the token limit.
fn worst_case_cost(job: &EvalJob, model: &ApiModel, sample: &Sample, cap: &SpendCap) -> f64 {
    let answers = job.to_ask(sample) as u64;
    let requests = if model.settings.endpoint.supports_n() { 1 } else { answers };
    let prompt_bytes: usize = job.template.render(sample).messages.iter().map(|m| m.content.len()).sum();
    cap.price.worst_case(prompt_bytes as u64, requests, answers, model.settings.params.max_tokens as u64)
}

/// One sample with an offline model: its Python steps go to the engine, then its answers are scored.
/// The model is borrowed only between awaits, so samples in flight together can share it.
/// With a pool of Python workers, how many samples per run the pool takes at once may be under
/// way ahead of the oldest unfinished one (an offline model's samples are quick, so a time-out
/// of a few seconds on one worker is covered by the others' next hundred samples).
const OFFLINE_LOOKAHEAD: usize = 16;

async fn offline_sample<P: Python, M: Model + ?Sized>(
    job: &EvalJob,
    model: &RefCell<&mut M>,
    python: &P,
    index: usize,
    sample: &Sample,
    python_runs: &Cell<usize>,
) -> SampleRecord {
    let task = job.template.task;
    let prompt = job.template.render(sample);
    let prior = job.prior.get(&sample.id).map_or(&[][..], |p| &p.responses[..]);
    let request = ModelRequest { sample, task, prompt: &prompt, n: job.to_ask(sample) };
    let name = model.borrow().name();
    let mut step = model.borrow_mut().start(&request);
    let mut responses = Err(format!("{name} did not finish within {MAX_MODEL_STEPS} steps"));
    for _ in 0..MAX_MODEL_STEPS {
        step = match step {
            ModelStep::Done(r) => {
                responses = r;
                break;
            }
            ModelStep::Run(run) => {
                let result = python.run(run).await;
                python_runs.set(python_runs.get() + 1);
                model.borrow_mut().resume(&request, Reply::Run(result))
            }
        };
    }
    let extracted = model.borrow().gives_extracted_answers(&sample.id);
    let mut record = SampleRecord::new(&sample.id, index);
    match responses {
        Ok(texts) => {
            let texts: Vec<String> = prior.iter().cloned().chain(texts).collect();
            let answers = Answers { prompt: Some(prompt.text()), responses: &texts, extracted };
            record.results = score_sample(python, sample, task, &job.modes, answers, &job.options, &mut || {
                python_runs.set(python_runs.get() + 1)
            })
            .await;
        }
        Err(message) => record.error = Some(SampleError { kind: None, message }),
    }
    record
}
