//! MHC's wrong answers asked of a model, for the command line and the page alike. Each sample's
//! model is asked for a wrong but believable answer; the proposal is checked by execution at once
//! (it must be wrong, and an output claim a literal), and a proposal that is not is shown to the
//! model when it is asked again, up to [`ASKS_PER_SAMPLE`] times. A sample left without a usable
//! proposal goes to the offline source, and the result says so. Every sample's result is a
//! [`ModelProposal`] carrying its provenance, kept in a [`ProposalCache`]: perturbing the same
//! samples again with the same model asks nothing.

use std::collections::BTreeMap;

use execbench_core::provenance::fnv1a_hex;
use execbench_core::{Limits, Sample};
use execbench_perturb::model_prompt::{
    Rejected, claim_check, claim_check_request, claim_from_reply, wrong_answer_prompt,
};
use execbench_perturb::{FileWrongAnswers, Prediction};
use execbench_providers::{Message, redact_base_url};
use futures::{FutureExt, StreamExt};
use serde::{Deserialize, Serialize};

use execbench_ask::api::{ApiModel, RequestContext, ask};
use execbench_io::cancel::CancelToken;
use execbench_io::{Clock, HttpClient, Python};

/// How many times one sample's model is asked before the offline source takes over.
pub const ASKS_PER_SAMPLE: usize = 3;

/// Changes whenever the prompt's text or the checks change, so older proposals are not reused.
pub const PROMPT_VERSION: u32 = 1;

/// The error of a run that Stop ended.
pub const STOPPED: &str = "stopped by the user";

/// The most time a claim's check may take, in milliseconds (as in verification).
const CHECK_TIME_MS: u32 = 1_000;

/// One sample's proposals from one model, with what they were asked under.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelProposal {
    pub sample_id: String,
    pub prediction: Prediction,
    /// [`sample_hash`]: the proposal belongs to this program, call and output only.
    pub sample_hash: String,
    pub provider: String,
    /// Kept [`redact_base_url`]ed: made so, compared so in the cache and written so, whatever a
    /// caller or an older cache file put here.
    #[serde(serialize_with = "execbench_providers::serialize_redacted_base_url")]
    pub base_url: String,
    pub model: String,
    pub prompt_version: u32,
    pub app_version: String,
    /// The claim execution showed wrong, in the hint's form (output: the value; input: the
    /// argument text). `None`: none of the proposals could be used; the offline source is.
    pub claim: Option<String>,
    /// The proposals ruled out, in the order they were made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<RejectedProposal>,
    /// Requests that failed (the run engine's own retries exhausted), by their message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

/// A proposal that could not be the hint, and why (what the model is shown when asked again).
pub type RejectedProposal = Rejected;

impl ModelProposal {
    /// Why this sample fell back on the offline source, in a line; `None` when it did not.
    pub fn fell_back_because(&self) -> Option<String> {
        if self.claim.is_some() {
            return None;
        }
        Some(match (&self.error, self.rejected.last()) {
            (Some(error), _) => format!("the request failed: {error}"),
            (None, Some(last)) => {
                format!("{} proposals, none usable (last: {}: {})", self.rejected.len(), last.claim, last.why)
            }
            (None, None) => "no proposal".to_string(),
        })
    }
}

/// What identifies a sample's program for the cache: its code, call and output (not its id, which
/// a re-exported file may change, nor its formatting elsewhere).
pub fn sample_hash(sample: &Sample) -> String {
    fnv1a_hex(&[&sample.code, &sample.call, &sample.output])
}

/// Proposals already made, by sample, task and model. Its text form is JSON Lines, one
/// [`ModelProposal`] a line, so it can be kept beside an export and read back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProposalCache {
    entries: BTreeMap<CacheKey, ModelProposal>,
}

/// (sample hash, input prediction, provider, base URL redacted, model, prompt version).
type CacheKey = (String, bool, String, String, String, u32);

fn key_of(proposal: &ModelProposal) -> CacheKey {
    (
        proposal.sample_hash.clone(),
        proposal.prediction == Prediction::Input,
        proposal.provider.clone(),
        redact_base_url(&proposal.base_url),
        proposal.model.clone(),
        proposal.prompt_version,
    )
}

impl ProposalCache {
    /// Reads JSON Lines written by [`ProposalCache::to_jsonl`]; `name` names the source in errors.
    pub fn parse(name: &str, text: &str) -> Result<ProposalCache, String> {
        let mut cache = ProposalCache::default();
        for (number, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let proposal: ModelProposal =
                serde_json::from_str(line).map_err(|e| format!("{name}:{}: not a stored proposal: {e}", number + 1))?;
            cache.insert(proposal);
        }
        Ok(cache)
    }

    pub fn to_jsonl(&self) -> String {
        self.entries.values().map(|p| serde_json::to_string(p).unwrap_or_default() + "\n").collect()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// A later proposal for the same sample, task and model replaces the earlier one.
    pub fn insert(&mut self, proposal: ModelProposal) {
        self.entries.insert(key_of(&proposal), proposal);
    }

    /// The stored proposal for `sample` from `model`, made with this prompt version.
    pub fn get(&self, sample: &Sample, prediction: Prediction, model: &ApiModel) -> Option<&ModelProposal> {
        let endpoint = &model.settings.endpoint;
        self.entries.get(&(
            sample_hash(sample),
            prediction == Prediction::Input,
            endpoint.provider.clone(),
            redact_base_url(&endpoint.base_url),
            endpoint.model.clone(),
            PROMPT_VERSION,
        ))
    }
}

/// All samples' proposals, in sample order, and what asking cost.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AskedClaims {
    pub proposals: Vec<ModelProposal>,
    /// Samples whose proposal came from the cache (nothing asked).
    pub from_cache: usize,
    /// Requests sent.
    pub requests: usize,
    /// Tokens of the requests sent (cached proposals cost nothing now).
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
}

impl AskedClaims {
    /// The usable claims as a claims table for perturbing: a sample without one gets offline
    /// proposals only. Input claims are written as calls, which the table reads back as arguments.
    pub fn claims_table(&self, samples: &[Sample]) -> FileWrongAnswers {
        let names: BTreeMap<&str, &str> = samples.iter().map(|s| (s.id.as_str(), s.function_name.as_str())).collect();
        FileWrongAnswers::from_claims(self.proposals.iter().filter_map(|p| {
            let claim = p.claim.clone()?;
            let claim = match p.prediction {
                Prediction::Input => format!("{}({claim})", names.get(p.sample_id.as_str()).copied().unwrap_or("f")),
                Prediction::Output => claim,
            };
            Some((p.sample_id.clone(), p.prediction, claim))
        }))
    }

    /// Samples that fell back on the offline source, with why.
    pub fn fell_back(&self) -> Vec<(String, String)> {
        self.proposals.iter().filter_map(|p| Some((p.sample_id.clone(), p.fell_back_because()?))).collect()
    }

    /// Tokens in and out of the requests sent.
    pub fn tokens(&self) -> (u64, u64) {
        (self.prompt_tokens, self.completion_tokens)
    }
}

/// The samples to ask about, for which task, and what was asked before.
#[derive(Clone, Copy, Debug)]
pub struct ProposalJob<'a> {
    pub samples: &'a [Sample],
    pub prediction: Prediction,
    pub cache: &'a ProposalCache,
}

/// Asks `model` for a wrong answer for each sample, [`ModelProposal`]s in sample order. Up to the
/// model's concurrency, samples are asked at once (the run engine's gate paces the requests). With
/// `python`, each proposal is checked by execution and a rejected one is shown to the model when it
/// is asked again; without (verification turned off), the first readable proposal is taken.
/// Proposals found in `cache` are not asked again. Returns `Err` when the model cannot be asked at
/// all (a bad key, no credits, an unknown model), or when `cancel` stops it.
pub async fn ask_wrong_answers<H: HttpClient, C: Clock, P: Python>(
    context: &RequestContext<'_, H, C>,
    model: &ApiModel,
    python: Option<&P>,
    job: ProposalJob<'_>,
    cancel: &CancelToken,
    on_each: &mut dyn FnMut(usize, &ModelProposal),
) -> Result<AskedClaims, String> {
    let ProposalJob { samples, prediction, cache } = job;
    let mut asked = AskedClaims::default();
    let concurrency = model.settings.concurrency.max(1);
    let mut results = futures::stream::iter(samples.iter().map(|sample| async move {
        match cache.get(sample, prediction, model) {
            Some(stored) => Ok((stored.clone(), 0, true)),
            None => ask_one(context, model, python, sample, prediction).await.map(|(p, requests)| (p, requests, false)),
        }
    }))
    .buffered(concurrency);
    loop {
        let next = futures::select_biased! {
            _ = cancel.cancelled().fuse() => return Err(STOPPED.to_string()),
            next = results.next() => next,
        };
        let Some(result) = next else { break };
        let (mut proposal, requests, cached) = result?;
        // The cache matches programs, not ids: name the sample as this dataset does.
        proposal.sample_id = samples[asked.proposals.len()].id.clone();
        asked.requests += requests;
        asked.from_cache += usize::from(cached);
        if !cached {
            asked.prompt_tokens += proposal.prompt_tokens;
            asked.completion_tokens += proposal.completion_tokens;
        }
        on_each(asked.proposals.len() + 1, &proposal);
        asked.proposals.push(proposal);
    }
    Ok(asked)
}

/// One sample: ask, check, ask again with the rejected proposals listed. Returns the proposal and
/// the number of requests sent.
async fn ask_one<H: HttpClient, C: Clock, P: Python>(
    context: &RequestContext<'_, H, C>,
    model: &ApiModel,
    python: Option<&P>,
    sample: &Sample,
    prediction: Prediction,
) -> Result<(ModelProposal, usize), String> {
    let endpoint = &model.settings.endpoint;
    let mut proposal = ModelProposal {
        sample_id: sample.id.clone(),
        prediction,
        sample_hash: sample_hash(sample),
        provider: endpoint.provider.clone(),
        base_url: redact_base_url(&endpoint.base_url),
        model: endpoint.model.clone(),
        prompt_version: PROMPT_VERSION,
        app_version: env!("CARGO_PKG_VERSION").to_string(),
        claim: None,
        rejected: Vec::new(),
        error: None,
        prompt_tokens: 0,
        completion_tokens: 0,
    };
    let mut requests = 0;
    while requests < ASKS_PER_SAMPLE {
        let prompt = wrong_answer_prompt(
            &sample.code,
            &sample.function_name,
            &sample.call,
            &sample.output,
            prediction,
            &proposal.rejected,
        );
        requests += 1;
        let answered = match ask(context, model, &[Message::user(prompt)], 1, &|_, _| {}).await {
            Ok(answered) => answered,
            Err(failure) if failure.stop_run => {
                return Err(format!("the model cannot be asked: {}", failure.error.message));
            }
            Err(failure) => {
                // The engine has retried already: this sample goes offline, the others go on.
                proposal.error = Some(failure.error.message);
                break;
            }
        };
        proposal.prompt_tokens += answered.usage.prompt_tokens;
        proposal.completion_tokens += answered.usage.completion_tokens;
        let reply = answered.texts.first().map_or("", String::as_str);
        let Some(claim) = claim_from_reply(reply, &sample.function_name, prediction) else {
            let first_line = reply.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("(an empty reply)");
            proposal.rejected.push(RejectedProposal {
                claim: first_line.chars().take(120).collect(),
                why: "no answer in the asked form".to_string(),
            });
            continue;
        };
        let shown_claim = match prediction {
            Prediction::Input => format!("{}({claim})", sample.function_name),
            Prediction::Output => claim.clone(),
        };
        let verdict = match python {
            Some(python) => {
                let limits = Limits { time_ms: CHECK_TIME_MS, ..Limits::default() };
                let run = python.run(claim_check_request(sample, prediction, &claim, limits)).await;
                claim_check(prediction, &claim, &run.outcome)
            }
            None => Ok(()),
        };
        match verdict {
            Ok(()) => {
                proposal.claim = Some(claim);
                break;
            }
            Err(why) => proposal.rejected.push(RejectedProposal { claim: shown_claim, why }),
        }
    }
    Ok((proposal, requests))
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::future::Future;

    use execbench_core::{Outcome, PythonEngine, RunRequest, RunResult};
    use execbench_providers::{Endpoint, HttpRequest, ProviderError};
    use futures::executor::block_on;
    use serde_json::{Value, json};

    use super::*;
    use execbench_ask::api::ApiSettings;
    use execbench_ask::backoff::Jitter;
    use execbench_ask::gate::Gate;
    use execbench_ask::status::Live;
    use execbench_io::{BlockingPython, HttpHead, ResponseBody};

    /// Replies by sample (found by its code in the prompt) and by how often it was asked; the
    /// last scripted reply repeats. Keeps every prompt.
    struct ScriptedModel {
        replies: Vec<(&'static str, Vec<&'static str>)>,
        status: u16,
        prompts: RefCell<Vec<String>>,
        asked: RefCell<BTreeMap<&'static str, usize>>,
    }

    struct Body(Option<Vec<u8>>);

    impl ResponseBody for Body {
        async fn chunk(&mut self) -> Result<Option<Vec<u8>>, ProviderError> {
            Ok(self.0.take())
        }
    }

    impl HttpClient for ScriptedModel {
        type Body = Body;
        async fn send(&self, request: &HttpRequest) -> Result<HttpHead<Body>, ProviderError> {
            let body: Value = serde_json::from_str(&request.body).unwrap();
            let prompt = body["messages"][0]["content"].as_str().unwrap().to_string();
            self.prompts.borrow_mut().push(prompt.clone());
            let (code, replies) =
                self.replies.iter().find(|(code, _)| prompt.contains(code)).expect("a prompt about a scripted sample");
            let n = *self.asked.borrow_mut().entry(code).and_modify(|n| *n += 1).or_insert(1);
            let text = replies[(n - 1).min(replies.len() - 1)];
            let body = if self.status == 200 {
                json!({"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 10, "completion_tokens": 3}})
            } else {
                json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})
            };
            Ok(HttpHead {
                status: self.status,
                headers: vec![("content-type".into(), "application/json".into())],
                body: Body(Some(body.to_string().into_bytes())),
            })
        }
    }

    struct Immediate;

    impl Clock for Immediate {
        fn now_ms(&self) -> f64 {
            0.0
        }
        fn sleep(&self, _: u64) -> impl Future<Output = ()> {
            std::future::ready(())
        }
    }

    /// A claimed value is right when it is the expected text; a call is right as `f(2)`, raises
    /// as `f()`, and is wrong otherwise.
    struct Judge;

    impl PythonEngine for Judge {
        fn run(&mut self, request: &RunRequest) -> RunResult {
            let outcome = match (request.program.is_empty(), request.expression.as_str()) {
                (true, e) => Outcome::Value { repr: e.to_string(), matches: request.expected.as_ref().map(|x| x == e) },
                (false, "f()") => Outcome::Raised {
                    kind: "TypeError".into(),
                    message: "missing".into(),
                    traceback: String::new(),
                    phase: "expression".into(),
                },
                (false, e) => Outcome::Value { repr: "?".into(), matches: Some(e == "f(2)") },
            };
            RunResult { outcome, stdout: String::new(), elapsed_ms: 0.0, trace: None }
        }
    }

    fn samples() -> Vec<Sample> {
        let rows = [
            r#"{"id": "a", "code": "def f(x):\n    return x + 1", "input": "2", "output": "3"}"#,
            r#"{"id": "b", "code": "def f(x):\n    return x * 10", "input": "2", "output": "20"}"#,
            r#"{"id": "c", "code": "def f(x):\n    return [x]", "input": "2", "output": "[2]"}"#,
        ];
        execbench_core::load_jsonl("t", &rows.join("\n")).samples
    }

    fn answer(assertion: &str) -> String {
        format!("[ANSWER]\nassert {assertion}\n[/ANSWER]")
    }

    fn model_at(base_url: &str) -> ApiModel {
        let mut settings =
            ApiSettings::new(Endpoint { provider: "openai".into(), base_url: base_url.into(), model: "m".into() });
        settings.concurrency = 2;
        ApiModel { settings, key: Some("sk-test".into()) }
    }

    fn run(http: &ScriptedModel, prediction: Prediction, cache: &ProposalCache) -> Result<AskedClaims, String> {
        run_at("http://fake.invalid/v1", http, prediction, cache)
    }

    fn run_at(
        base_url: &str,
        http: &ScriptedModel,
        prediction: Prediction,
        cache: &ProposalCache,
    ) -> Result<AskedClaims, String> {
        let model = model_at(base_url);
        let (gate, live, jitter) = (Gate::new(2, 0), Live::new(3, 0), RefCell::new(Jitter::new(0)));
        let context = RequestContext { http, clock: &Immediate, gate: &gate, live: &live, jitter: &jitter };
        let python = BlockingPython::new(Judge);
        let mut seen = Vec::new();
        let asked = block_on(ask_wrong_answers(
            &context,
            &model,
            Some(&python),
            ProposalJob { samples: &samples(), prediction, cache },
            &CancelToken::new(),
            &mut |done, p| seen.push((done, p.sample_id.clone())),
        ));
        if let Ok(asked) = &asked {
            assert_eq!(
                seen,
                asked.proposals.iter().enumerate().map(|(i, p)| (i + 1, p.sample_id.clone())).collect::<Vec<_>>(),
                "progress in sample order"
            );
        }
        asked
    }

    fn leaked(replies: Vec<(&'static str, Vec<String>)>) -> Vec<(&'static str, Vec<&'static str>)> {
        replies
            .into_iter()
            .map(|(c, r)| (c, r.into_iter().map(|s| &*Box::leak(s.into_boxed_str())).collect()))
            .collect()
    }

    /// A proposal shown right is put to the model again; one that never changes ends in the
    /// offline source, and the proposal says why.
    #[test]
    fn rejected_proposals_are_asked_again_then_fall_back() {
        let http = ScriptedModel {
            replies: leaked(vec![
                ("x + 1", vec![answer("f(2) == 3"), answer("f(2) == 4")]),
                ("x * 10", vec![answer("f(2) == 20")]),
                ("[x]", vec!["I would rather not.".to_string(), answer("f(2) == [2, 2]")]),
            ]),
            status: 200,
            prompts: RefCell::default(),
            asked: RefCell::default(),
        };
        let asked = run(&http, Prediction::Output, &ProposalCache::default()).unwrap();
        let claims: Vec<Option<&str>> = asked.proposals.iter().map(|p| p.claim.as_deref()).collect();
        assert_eq!(claims, [Some("4"), None, Some("[2, 2]")]);
        assert_eq!(asked.requests, 2 + ASKS_PER_SAMPLE + 2);
        assert_eq!(
            asked.proposals[0].rejected,
            [RejectedProposal { claim: "3".into(), why: "that is the true return value".into() }]
        );
        // A reply without the asked form is read as a bare answer, which is no literal here.
        assert_eq!(
            asked.proposals[2].rejected[0],
            RejectedProposal { claim: "I would rather not.".into(), why: "not a Python literal".into() }
        );
        assert_eq!(
            asked.fell_back(),
            [("b".to_string(), "3 proposals, none usable (last: 20: that is the true return value)".to_string())]
        );
        assert_eq!(asked.tokens(), (70, 21));
        // The second prompt about `a` lists the first proposal; a first prompt lists nothing.
        let prompts = http.prompts.borrow();
        let about_a: Vec<&String> = prompts.iter().filter(|p| p.contains("x + 1")).collect();
        assert!(
            !about_a[0].contains("already tried") && about_a[1].contains("- 3 (that is the true return value)"),
            "{about_a:?}"
        );
        let table = asked.claims_table(&samples());
        assert_eq!(
            (table.claims_for("a", Prediction::Output), table.claims_for("b", Prediction::Output)),
            (&["4".to_string()][..], &[][..])
        );
    }

    /// Input prediction: a call that raises is no hint; the claims table holds calls.
    #[test]
    fn input_claims_are_calls_that_return_something_else() {
        let http = ScriptedModel {
            replies: leaked(vec![
                ("x + 1", vec![answer("f() == 3"), answer("f(5) == 3")]),
                ("x * 10", vec![answer("f(2) == 20")]),
                ("[x]", vec![answer("g(1) == [2]")]),
            ]),
            status: 200,
            prompts: RefCell::default(),
            asked: RefCell::default(),
        };
        let asked = run(&http, Prediction::Input, &ProposalCache::default()).unwrap();
        assert_eq!(asked.proposals[0].claim.as_deref(), Some("5"));
        assert_eq!(
            asked.proposals[0].rejected,
            [RejectedProposal { claim: "f()".into(), why: "that call raises TypeError".into() }]
        );
        assert_eq!(asked.proposals[1].rejected[0].why, "that call returns the same value");
        assert_eq!(asked.proposals[2].rejected[0].why, "no answer in the asked form");
        assert_eq!(asked.claims_table(&samples()).claims_for("a", Prediction::Input), ["f(5)".to_string()]);
    }

    /// What was asked once is not asked again: the cache's text form reads back, and a run with it
    /// sends no request and gives the same proposals.
    #[test]
    fn cached_proposals_are_not_asked_again() {
        let script = || {
            leaked(vec![
                ("x + 1", vec![answer("f(2) == 5")]),
                ("x * 10", vec![answer("f(2) == 21")]),
                ("[x]", vec![answer("f(2) == []")]),
            ])
        };
        let http =
            ScriptedModel { replies: script(), status: 200, prompts: RefCell::default(), asked: RefCell::default() };
        let first = run(&http, Prediction::Output, &ProposalCache::default()).unwrap();
        let mut cache = ProposalCache::default();
        first.proposals.iter().cloned().for_each(|p| cache.insert(p));
        let text = cache.to_jsonl();
        assert!(!text.contains("sk-test"), "no key in stored proposals");
        let read = ProposalCache::parse("proposals.jsonl", &text).unwrap();
        assert_eq!(read, cache);
        let again =
            ScriptedModel { replies: script(), status: 200, prompts: RefCell::default(), asked: RefCell::default() };
        let second = run(&again, Prediction::Output, &read).unwrap();
        assert_eq!(
            (second.requests, second.from_cache, second.proposals.clone(), second.tokens()),
            (0, 3, first.proposals.clone(), (0, 0))
        );
        assert!(again.prompts.borrow().is_empty());
        // Another task, another model: asked again.
        let other =
            ScriptedModel { replies: script(), status: 200, prompts: RefCell::default(), asked: RefCell::default() };
        assert_eq!(run(&other, Prediction::Input, &read).unwrap().from_cache, 0);
        assert_eq!(
            ProposalCache::parse("p.jsonl", "\n{\"sample_id\": 3}\n").unwrap_err().split(": not").next(),
            Some("p.jsonl:2")
        );
    }

    /// A base URL typed with a secret (a `?key=`) is kept without it: in the proposals made, in the
    /// cache's lines, and in lines of a proposal made elsewhere; the cache still finds what the
    /// same endpoint asked. (A `user:password@` is refused before any request: `Address::parse`.)
    /// (typed base URL, as kept)
    #[test]
    fn cached_proposals_keep_the_base_url_without_secrets() {
        let cases = [
            ("http://fake.invalid/v1beta?key=SECRET", "http://fake.invalid/v1beta"),
            ("http://fake.invalid/v1#SECRET", "http://fake.invalid/v1"),
            (
                "http://fake.invalid/openai?api-version=2024-10-21&sig=SECRET",
                "http://fake.invalid/openai?api-version=2024-10-21",
            ),
        ];
        for (typed, kept) in cases {
            let script = || leaked(vec![("def f", vec![answer("f(2) == 99")])]);
            let http = ScriptedModel {
                replies: script(),
                status: 200,
                prompts: RefCell::default(),
                asked: RefCell::default(),
            };
            let first = run_at(typed, &http, Prediction::Output, &ProposalCache::default()).unwrap();
            assert!(first.proposals.iter().all(|p| p.base_url == kept), "{typed}: {:?}", first.proposals);
            let mut cache = ProposalCache::default();
            first.proposals.iter().cloned().for_each(|p| cache.insert(p));
            // A proposal built by hand with the URL as typed is written without the secret too.
            cache.insert(ModelProposal { sample_id: "z".into(), base_url: typed.into(), ..first.proposals[0].clone() });
            let text = cache.to_jsonl();
            assert!(!text.contains("SECRET"), "{typed}: {text}");
            let read = ProposalCache::parse("proposals.jsonl", &text).unwrap();
            let again = ScriptedModel {
                replies: script(),
                status: 200,
                prompts: RefCell::default(),
                asked: RefCell::default(),
            };
            let second = run_at(typed, &again, Prediction::Output, &read).unwrap();
            assert_eq!((second.requests, second.from_cache), (0, 3), "{typed}: the same endpoint finds its proposals");
        }
    }

    /// A model that cannot be asked (a bad key) stops the whole job with the provider's message.
    #[test]
    fn a_bad_key_stops_everything() {
        let http = ScriptedModel {
            replies: leaked(vec![("def f", vec![String::new()])]),
            status: 401,
            prompts: RefCell::default(),
            asked: RefCell::default(),
        };
        let error = run(&http, Prediction::Output, &ProposalCache::default()).unwrap_err();
        assert!(error.starts_with("the model cannot be asked: ") && error.contains("Incorrect API key"), "{error}");
        assert!(http.prompts.borrow().len() <= 2, "not retried: {}", http.prompts.borrow().len());
    }
}
