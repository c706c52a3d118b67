//! The generation loop over fakes on virtual time: a provider in OpenAI's wire format that
//! answers each prompt with the offline source's response for its request (faults scripted per
//! request), a clock whose sleeps end when the test moves time on. Nothing waits in real time.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use execbench_providers::{Endpoint, ErrorKind, HttpRequest, ProviderError};
use execbench_recipe::offline::offline_response;
use execbench_recipe::parse::parse_response;
use execbench_recipe::prompt::{GenerationRequest, PromptTemplate, default_pool, generation_requests};
use execbench_run::api::{ApiModel, ApiSettings};
use execbench_run::generation::{GenerationEvent, GenerationJob, GenerationOutcome, GenerationSource, run_generation};
use execbench_run::io::NoHttp;
use execbench_run::{CancelToken, Clock, HttpClient, HttpHead, ResponseBody, RunEnd};
use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use serde_json::{Value, json};

const LATENCY_MS: u64 = 500;
const SEED: u64 = 5;

use crate::virtual_clock;
use virtual_clock::VirtualClock;

/// Answers OpenAI-style chat requests with the offline source's text for the request whose
/// prompt it was sent; `faults` give a request id an HTTP status on every attempt.
struct FakeProvider {
    clock: VirtualClock,
    by_prompt: BTreeMap<String, GenerationRequest>,
    faults: BTreeMap<String, u16>,
    /// Requests seen per id.
    seen: Rc<RefCell<BTreeMap<String, u32>>>,
    in_flight: Rc<RefCell<(usize, usize)>>,
}

struct Body(Option<Vec<u8>>);

impl ResponseBody for Body {
    async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
        Ok(self.0.take())
    }
}

impl HttpClient for FakeProvider {
    type Body = Body;
    async fn send(&self, request: &HttpRequest) -> Result<HttpHead<Body>, ProviderError> {
        let body: Value = serde_json::from_str(&request.body).unwrap();
        let prompt = body["messages"][0]["content"].as_str().unwrap().to_string();
        let asked = self.by_prompt.get(&prompt).expect("a prompt of the job").clone();
        *self.seen.borrow_mut().entry(asked.id.clone()).or_default() += 1;
        {
            let mut f = self.in_flight.borrow_mut();
            f.0 += 1;
            f.1 = f.1.max(f.0);
        }
        self.clock.sleep(LATENCY_MS).await;
        self.in_flight.borrow_mut().0 -= 1;
        let (status, text) = match self.faults.get(&asked.id) {
            Some(&status) => (
                status,
                json!({"error": {"message": format!("scripted {status}"), "type": "server_error"}}).to_string(),
            ),
            None => {
                let text = offline_response(&asked.method, SEED, asked.id.rsplit('-').next().unwrap().parse().unwrap())
                    .unwrap();
                let usage = json!({"prompt_tokens": prompt.len() as u64 / 4, "completion_tokens": text.len() as u64 / 4, "total_tokens": 0});
                (200, json!({"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}], "usage": usage}).to_string())
            }
        };
        Ok(HttpHead {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: Body(Some(text.into_bytes())),
        })
    }
}

fn requests(methods: &[&str], per_method: usize) -> Vec<GenerationRequest> {
    let methods: Vec<String> = methods.iter().map(|m| m.to_string()).collect();
    generation_requests(&methods, per_method, SEED, &PromptTemplate::default(), &default_pool()).unwrap()
}

fn model(concurrency: usize) -> ApiModel {
    let mut settings = ApiSettings::new(Endpoint {
        provider: "openai".into(),
        base_url: "http://fake.invalid/v1".into(),
        model: "m".into(),
    });
    settings.concurrency = concurrency;
    ApiModel { settings, key: Some("sk-gen-SECRET".into()) }
}

struct Ran {
    outcome: GenerationOutcome,
    /// Request ids as their Generated events came.
    reported: Vec<String>,
    seen: BTreeMap<String, u32>,
    most_in_flight: usize,
}

fn drive(
    job: GenerationJob,
    source: GenerationSource<'static>,
    faults: &[(&str, u16)],
    cancel_at_ms: Option<u64>,
) -> Ran {
    let clock = VirtualClock::default();
    let seen: Rc<RefCell<BTreeMap<String, u32>>> = Rc::default();
    let in_flight: Rc<RefCell<(usize, usize)>> = Rc::default();
    let http = FakeProvider {
        clock: clock.clone(),
        by_prompt: job.requests.iter().map(|r| (r.prompt.clone(), r.clone())).collect(),
        faults: faults.iter().map(|(id, s)| (id.to_string(), *s)).collect(),
        seen: seen.clone(),
        in_flight: in_flight.clone(),
    };
    let mut pool = LocalPool::new();
    let spawner = pool.spawner();
    let outcome: Rc<RefCell<Option<GenerationOutcome>>> = Rc::default();
    let reported: Rc<RefCell<Vec<String>>> = Rc::default();
    let cancel = CancelToken::new();
    {
        let (clock, outcome, reported, cancel) = (clock.clone(), outcome.clone(), reported.clone(), cancel.clone());
        let mut source = source;
        spawner
            .spawn_local(async move {
                let on_event = |e: GenerationEvent<'_>| {
                    if let GenerationEvent::Generated(g) = e {
                        reported.borrow_mut().push(g.request_id.clone());
                    }
                };
                let ended = run_generation(&job, &mut source, &http, &clock, &cancel, &on_event).await;
                *outcome.borrow_mut() = Some(ended);
            })
            .unwrap();
    }
    if let Some(ms) = cancel_at_ms {
        let (clock, cancel) = (clock.clone(), cancel.clone());
        spawner
            .spawn_local(async move {
                clock.sleep(ms).await;
                cancel.cancel();
            })
            .unwrap();
    }
    for _ in 0..100_000 {
        pool.run_until_stalled();
        if let Some(outcome) = outcome.borrow_mut().take() {
            let most_in_flight = in_flight.borrow().1;
            return Ran { outcome, reported: reported.take(), seen: seen.take(), most_in_flight };
        }
        assert!(clock.advance(), "the loop hangs at {} ms", clock.now_ms());
    }
    panic!("the loop did not end");
}

#[test]
fn api_generation_table() {
    struct Case {
        name: &'static str,
        faults: &'static [(&'static str, u16)],
        done: &'static [&'static str],
        cancel_at_ms: Option<u64>,
        end: fn(&RunEnd) -> bool,
        /// Ids answered with a response, and ids reported as errors.
        answered: usize,
        errors: &'static [&'static str],
        /// Requests the provider saw for one id (when given).
        attempts_of: Option<(&'static str, u32)>,
    }
    let cases = [
        Case {
            name: "every request answered",
            faults: &[],
            done: &[],
            cancel_at_ms: None,
            end: |e| *e == RunEnd::Finished,
            answered: 6,
            errors: &[],
            attempts_of: Some(("str.split-1", 1)),
        },
        Case {
            name: "a request the server keeps failing is an error after bounded retries",
            faults: &[("list.sort-2", 500)],
            done: &[],
            cancel_at_ms: None,
            end: |e| *e == RunEnd::Finished,
            answered: 5,
            errors: &["list.sort-2"],
            attempts_of: Some(("list.sort-2", 6)),
        },
        Case {
            name: "a bad key stops the run",
            faults: &[("str.split-1", 401)],
            done: &[],
            cancel_at_ms: None,
            end: |e| matches!(e, RunEnd::ProviderStopped(err) if err.kind == ErrorKind::BadKey),
            answered: 0,
            errors: &[],
            attempts_of: Some(("str.split-1", 1)),
        },
        Case {
            name: "resume asks only for the rest",
            faults: &[],
            done: &["str.split-1", "str.split-2", "dict.get-1"],
            cancel_at_ms: None,
            end: |e| *e == RunEnd::Finished,
            answered: 3,
            errors: &[],
            attempts_of: Some(("str.split-1", 0)),
        },
        Case {
            name: "stop drops what is in flight",
            faults: &[],
            done: &[],
            cancel_at_ms: Some(LATENCY_MS + LATENCY_MS / 2),
            end: |e| *e == RunEnd::Stopped,
            answered: 2,
            errors: &[],
            attempts_of: None,
        },
    ];
    let all = requests(&["str.split", "dict.get", "list.sort"], 2);
    for case in cases {
        let job = GenerationJob {
            requests: all.clone(),
            done: case.done.iter().map(|s| s.to_string()).collect(),
            spend_cap: None,
        };
        let ran = drive(job, GenerationSource::Api(model(2)), case.faults, case.cancel_at_ms);
        let out = &ran.outcome;
        assert!((case.end)(&out.end), "{}: {:?}", case.name, out.end);
        let answered: Vec<&str> =
            out.generated.iter().filter(|g| g.result.is_ok()).map(|g| g.request_id.as_str()).collect();
        let errors: Vec<&str> =
            out.generated.iter().filter(|g| g.result.is_err()).map(|g| g.request_id.as_str()).collect();
        assert_eq!(answered.len(), case.answered, "{}: {answered:?}", case.name);
        assert_eq!(errors, case.errors, "{}", case.name);
        assert_eq!(
            ran.reported,
            out.generated.iter().map(|g| g.request_id.clone()).collect::<Vec<_>>(),
            "{}: every finished request reported",
            case.name
        );
        assert!(ran.most_in_flight <= 2, "{}: {} in flight", case.name, ran.most_in_flight);
        if let Some((id, n)) = case.attempts_of {
            assert_eq!(ran.seen.get(id).copied().unwrap_or(0), n, "{}: requests for {id}", case.name);
        }
        for id in case.done {
            assert!(!ran.reported.iter().any(|r| r == id), "{}: {id} was done", case.name);
        }
        assert_eq!(out.status.total, 6, "{}", case.name);
        assert_eq!(out.status.done, case.done.len() + out.generated.len(), "{}", case.name);
        // An answered request is the offline text parsed, with the provider's token counts.
        let mut tokens = 0;
        for g in &out.generated {
            match &g.result {
                Ok(parsed) => {
                    let k: usize = g.request_id.rsplit('-').next().unwrap().parse().unwrap();
                    assert_eq!(
                        parsed,
                        &parse_response(&g.request_id, &g.method, &offline_response(&g.method, SEED, k).unwrap()),
                        "{}",
                        case.name
                    );
                    let usage = g.usage.expect("usage of an answered request");
                    assert!(usage.completion_tokens > 0);
                    tokens += usage.prompt_tokens + usage.completion_tokens;
                    assert_eq!(g.row().response.as_deref(), Some(parsed.raw.as_str()));
                }
                Err(e) => {
                    assert_eq!(e.kind, Some(ErrorKind::ServerError), "{}", case.name);
                    let row = g.row();
                    assert!(
                        row.response.is_none() && row.error.as_deref() == Some(e.message.as_str()),
                        "{}: an error row, never a response",
                        case.name
                    );
                }
            }
        }
        assert_eq!(
            out.status.usage.prompt_tokens + out.status.usage.completion_tokens,
            tokens,
            "{}: the status counts every token",
            case.name
        );
    }
}

#[test]
fn offline_and_replayed_sources_go_through_the_same_loop() {
    let all = requests(&["str.zfill", "list.pop"], 3);
    // (name, done ids, missing id (its source gives an error), cancelled before the start)
    let cases: [(&str, &[&str], Option<&str>, bool); 4] = [
        ("the offline source answers everything", &[], None, false),
        ("a replayed file without one id: that request is an error", &[], Some("list.pop-2"), false),
        ("resumed", &["str.zfill-1", "list.pop-3"], None, false),
        ("stopped before the start", &[], None, true),
    ];
    for (name, done, missing, cancelled) in cases {
        let missing = missing.map(str::to_string);
        let gap = missing.clone();
        let source = GenerationSource::Offline(Box::new(move |r: &GenerationRequest| {
            if gap.as_deref() == Some(r.id.as_str()) {
                return Err(format!("no response for {} in the replayed file", r.id));
            }
            offline_response(&r.method, SEED, r.id.rsplit('-').next().unwrap().parse().unwrap())
        }));
        let job = GenerationJob {
            requests: all.clone(),
            done: done.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
            spend_cap: None,
        };
        let cancel = CancelToken::new();
        if cancelled {
            cancel.cancel();
        }
        let mut source = source;
        let out = futures::executor::block_on(run_generation(
            &job,
            &mut source,
            &NoHttp,
            &VirtualClock::default(),
            &cancel,
            &|_| {},
        ));
        if cancelled {
            assert_eq!((out.end, out.generated.len()), (RunEnd::Stopped, 0), "{name}");
            continue;
        }
        assert_eq!(out.end, RunEnd::Finished, "{name}");
        assert_eq!(out.generated.len(), 6 - done.len(), "{name}");
        let errors: Vec<&str> =
            out.generated.iter().filter(|g| g.result.is_err()).map(|g| g.request_id.as_str()).collect();
        assert_eq!(errors, missing.iter().map(String::as_str).collect::<Vec<_>>(), "{name}");
        assert_eq!(out.status.errors, errors.len(), "{name}");
        assert!(out.generated.iter().all(|g| g.usage.is_none()), "{name}: no tokens without a provider");
    }
}

#[test]
fn the_key_stays_out_of_rows() {
    let job = GenerationJob { requests: requests(&["str.split"], 2), done: BTreeSet::new(), spend_cap: None };
    let ran = drive(job, GenerationSource::Api(model(1)), &[("str.split-2", 503)], None);
    for g in &ran.outcome.generated {
        let line = g.row().line();
        assert!(!line.contains("SECRET"), "{line}");
        assert!(!format!("{g:?}").contains("SECRET"));
    }
}

/// The spend cap, as in an evaluation: a request starts only if what is spent, plus the worst
/// case of every request in flight and of this one, stays under the cap; the run then ends at the
/// cap, having spent no more than it. Output is free here, so the fake provider's token counts
/// (a quarter of the prompt's bytes) are the whole cost and the worst case (every byte a token)
/// is a true bound.
#[test]
fn the_spend_cap_stops_before_a_request_that_could_pass_it() {
    use execbench_run::cost::{Price, SpendCap};
    let price = Price { input: 1e-6, output: 0.0, cached_input: None, reasoning: None };
    let all = requests(&["str.split", "list.sort"], 3);
    let worst_one = |r: &GenerationRequest| r.prompt.len() as f64 * price.input;
    let actual_one = |r: &GenerationRequest| (r.prompt.len() / 4) as f64 * price.input;
    let all_worst: f64 = all.iter().map(worst_one).sum();
    let all_actual: f64 = all.iter().map(actual_one).sum();
    assert!(worst_one(&all[0]) < all_actual * 0.999, "the middle case can start");
    // (cap in dollars, the run reaches the end, asked at least, asked at most)
    let cases =
        [(worst_one(&all[0]) * 0.5, false, 0, 0), (all_actual * 0.999, false, 1, 5), (all_worst * 1.01, true, 6, 6)];
    for (limit, finishes, least, most) in cases {
        let job = GenerationJob {
            requests: all.clone(),
            done: BTreeSet::new(),
            spend_cap: Some(SpendCap { limit, price, spent_before: 0.0 }),
        };
        let ran = drive(job, GenerationSource::Api(model(1)), &[], None);
        let asked = ran.seen.values().sum::<u32>() as usize;
        assert!((least..=most).contains(&asked), "cap {limit}: {asked} asked");
        let spent: f64 = ran.outcome.generated.iter().filter_map(|g| g.usage).map(|u| price.cost(&u)).sum();
        assert!(spent <= limit, "cap {limit}: spent {spent}");
        match (finishes, &ran.outcome.end) {
            (true, RunEnd::Finished) => {}
            (false, RunEnd::SpendCap { spent: said, limit: l }) => {
                assert_eq!(*l, limit);
                assert!((said - spent).abs() < 1e-12, "the end says what was spent: {said} vs {spent}");
                // It stopped for a reason: the first request not asked could have passed the cap.
                let next = all.iter().find(|r| !ran.seen.contains_key(&r.id)).expect("a request was left");
                assert!(spent + worst_one(next) > limit, "cap {limit}: {} could still be asked", next.id);
            }
            (_, other) => panic!("cap {limit}: ended {other:?}"),
        }
    }
}
