//! Generation for building a benchmark: every request of a job (a prompt per method, see
//! `execbench_recipe::prompt`) answered by a model, parsed into candidates, reported as it
//! finishes. The same pieces as an evaluation run: requests through [`crate::api::ask`] (wire
//! formats, time-outs, bounded retries, rate-limit waits), the shared [`Gate`], [`CancelToken`]
//! and the live [`RunStatus`] with its token counts; costs are `Price::cost` of the usage.
//!
//! A provider failure is an error of that request (never a candidate, and a row the caller
//! writes with `error`, so a resumed run asks again); bad key, no credits, quota and unknown
//! model stop the run at once. Resume: the caller hands in the ids already answered, and they
//! are not asked again. The caller persists each finished response from [`GenerationEvent`].

use std::cell::RefCell;

use execbench_providers::{Message, ProviderError, Usage};
use execbench_recipe::parse::{ParsedResponse, parse_response};
use execbench_recipe::prompt::GenerationRequest;
use execbench_recipe::replay::GenerationRow;

use crate::api::{ApiModel, RequestContext, ask};
use crate::backoff::Jitter;
use crate::cancel::CancelToken;
use crate::engine::RunEnd;
use crate::gate::Gate;
use crate::io::{Clock, HttpClient};
use crate::record::{AttemptRecord, SampleError};
use crate::schedule::{Schedule, StatusMoment};
use crate::status::{Live, RunStatus};
pub use execbench_runs::generation_store::GenerationJob;

/// A request's response text without a model, or why there is none (an error of that request).
pub type Answerer<'a> = Box<dyn FnMut(&GenerationRequest) -> Result<String, String> + 'a>;

/// What writes the responses.
// One value per run: the size difference costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
pub enum GenerationSource<'a> {
    /// Answers without a model: the offline candidate source or a replayed file.
    Offline(Answerer<'a>),
    /// A provider's API.
    Api(ApiModel),
}

/// One finished request: its response parsed, or the error that left it without one.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    pub request_id: String,
    pub method: String,
    pub result: Result<ParsedResponse, SampleError>,
    /// The request's tokens (`None` without a provider).
    pub usage: Option<Usage>,
    pub attempts: Vec<AttemptRecord>,
    pub latency_ms: f64,
}

impl Generated {
    /// The JSONL row for the generations file (response or error, and the tokens).
    pub fn row(&self) -> GenerationRow {
        let mut row = match &self.result {
            Ok(parsed) => GenerationRow::answered(&self.request_id, &self.method, &parsed.raw),
            Err(e) => GenerationRow::failed(&self.request_id, &self.method, &e.message),
        };
        row.prompt_tokens = self.usage.map(|u| u.prompt_tokens);
        row.completion_tokens = self.usage.map(|u| u.completion_tokens);
        row
    }
}

/// What the loop reports while it runs.
pub enum GenerationEvent<'a> {
    Status(&'a RunStatus),
    /// A request finished (answered or failed).
    Generated(&'a Generated),
}

#[derive(Debug)]
pub struct GenerationOutcome {
    pub end: RunEnd,
    /// This session's finished requests, in the order they finished.
    pub generated: Vec<Generated>,
    pub status: RunStatus,
    /// The most requests that were in flight at once.
    pub most_concurrent: usize,
}

/// Runs `job` with `source`. Cancel `cancel` to stop: requests in flight are dropped (and so
/// aborted) and get no row.
pub async fn run_generation<H: HttpClient, C: Clock>(
    job: &GenerationJob,
    source: &mut GenerationSource<'_>,
    http: &H,
    clock: &C,
    cancel: &CancelToken,
    on_event: &dyn Fn(GenerationEvent),
) -> GenerationOutcome {
    let already = job.requests.iter().filter(|r| job.done.contains(&r.id)).count();
    let live = Live::new(job.requests.len(), already);
    let started = clock.now_ms();
    let todo: Vec<&GenerationRequest> = job.requests.iter().filter(|r| !job.done.contains(&r.id)).collect();
    let concurrency = match source {
        GenerationSource::Api(model) => model.settings.concurrency.max(1),
        GenerationSource::Offline(_) => 1,
    };
    let gate = Gate::new(concurrency, if let GenerationSource::Api(m) = source { m.settings.delay_ms } else { 0 });
    let status = |stopping: bool| {
        if stopping {
            live.set_stopping();
        }
        let now = clock.now_ms();
        live.snapshot(now, now - started, gate.limit(now), gate.lowered(now))
    };
    on_event(GenerationEvent::Status(&status(false)));
    let generated = RefCell::new(Vec::new());
    let finish = |done: Generated| {
        live.sample_done(done.result.is_err());
        on_event(GenerationEvent::Generated(&done));
        generated.borrow_mut().push(done);
        on_event(GenerationEvent::Status(&status(false)));
    };

    let end = match source {
        GenerationSource::Offline(answer) => {
            let mut end = RunEnd::Finished;
            for request in todo {
                if cancel.is_cancelled() {
                    end = RunEnd::Stopped;
                    break;
                }
                let result = answer(request)
                    .map(|text| parse_response(&request.id, &request.method, &text))
                    .map_err(|message| SampleError { kind: None, message });
                finish(Generated {
                    request_id: request.id.clone(),
                    method: request.method.clone(),
                    result,
                    usage: None,
                    attempts: Vec::new(),
                    latency_ms: 0.0,
                });
                // Lets a Stop pressed meanwhile (and the page's other work) get a turn.
                futures::future::ready(()).await;
            }
            end
        }
        GenerationSource::Api(model) => {
            let jitter = RefCell::new(Jitter::new(started.to_bits() ^ job.requests.len() as u64));
            let ctx = RequestContext { http, clock, gate: &gate, live: &live, jitter: &jitter };
            let model: &ApiModel = model;
            let schedule = Schedule { clock, cancel, live: &live, concurrency, spend_cap: job.spend_cap.as_ref() };
            schedule
                .run(
                    todo,
                    // Each request asked once, one answer of up to `max_tokens`.
                    |request, cap| {
                        cap.price.worst_case(request.prompt.len() as u64, 1, 1, model.settings.params.max_tokens as u64)
                    },
                    |request| ask_one(&ctx, model, request),
                    async |done| {
                        finish(done);
                        Ok(())
                    },
                    |moment| on_event(GenerationEvent::Status(&status(moment == StatusMoment::Stopping))),
                )
                .await
        }
    };
    let final_status = status(false);
    on_event(GenerationEvent::Status(&final_status));
    GenerationOutcome {
        end,
        generated: generated.into_inner(),
        status: final_status,
        most_concurrent: gate.most_in_use(),
    }
}

/// One request through the provider. `Some(error)`: the run must stop (the request is then not
/// reported: it was never really tried).
async fn ask_one<H: HttpClient, C: Clock>(
    ctx: &RequestContext<'_, H, C>,
    model: &ApiModel,
    request: &GenerationRequest,
) -> (Generated, Option<ProviderError>) {
    let started = ctx.clock.now_ms();
    let messages = [Message { role: "user".into(), content: request.prompt.clone() }];
    let asked = ask(ctx, model, &messages, 1, &|_, _| {}).await;
    let latency_ms = ctx.clock.now_ms() - started;
    let base = |result, usage, attempts| Generated {
        request_id: request.id.clone(),
        method: request.method.clone(),
        result,
        usage,
        attempts,
        latency_ms,
    };
    match asked {
        Ok(answered) => {
            let text = answered.texts.into_iter().next().unwrap_or_default();
            (
                base(Ok(parse_response(&request.id, &request.method, &text)), Some(answered.usage), answered.attempts),
                None,
            )
        }
        Err(failure) => {
            let error = SampleError { kind: Some(failure.error.kind), message: failure.error.to_string() };
            let stop = failure.stop_run.then_some(failure.error);
            (base(Err(error), None, failure.attempts), stop)
        }
    }
}

/// The provenance's description of a generation's model: the source, and for an API its
/// provider, model and sampling parameters as sent (never the key: `ApiSettings` has none).
pub fn generator_for(
    source: execbench_recipe::GeneratorSource,
    api: Option<&crate::api::ApiSettings>,
    seed: u64,
) -> execbench_recipe::Generator {
    execbench_recipe::Generator {
        source,
        provider: api.map(|s| s.endpoint.provider.clone()),
        model: api.map(|s| s.endpoint.model.clone()),
        temperature: api.and_then(|s| s.params.temperature),
        top_p: api.and_then(|s| s.params.top_p),
        n: None,
        max_tokens: api.map(|s| s.params.max_tokens),
        seed: Some(seed),
    }
}
