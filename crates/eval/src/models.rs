//! "A model": given a sample, its rendered prompt and the task, n responses. The interface does no
//! I/O itself: a model answers with a [`ModelStep`] that either holds the responses or names what
//! it needs first (a Python run, or an HTTP exchange for the API-backed models to come), and the
//! caller performs that and hands the reply back. The same model thus runs natively with a
//! blocking engine, or in the page with a Web Worker and `fetch`.
//!
//! Offline models, no key needed: [`Oracle`] (runs the code, always right), the output-prediction
//! baselines [`EchoFirstArgument`] and [`TypeDefault`], and [`Replay`] (answers from a file).

use std::collections::HashMap;

use execbench_core::sample::OutputKind;
use execbench_core::{Limits, Outcome, RunRequest, RunResult, Sample};
use ruff_python_ast::Expr;
use ruff_text_size::Ranged;
use serde::{Deserialize, Serialize};

use crate::generations::{Generations, GenerationsKind};
use crate::literal::parse_expression_guarded;
use crate::prompt::Prompt;
use crate::report::SampleResult;
use crate::task::Task;

/// What a model is asked.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelRequest<'a> {
    pub sample: &'a Sample,
    pub task: Task,
    pub prompt: &'a Prompt,
    /// Responses wanted.
    pub n: usize,
}

/// An HTTP exchange a model needs (for API-backed models; the offline ones never ask).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpRequest {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpResponse {
    pub status: u16,
    pub body: String,
}

/// Where a model is in answering one request.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelStep {
    /// The responses (raw text, to be extracted), or why there are none.
    Done(Result<Vec<String>, String>),
    /// Run this in the Python engine and call [`Model::resume`] with the result.
    Run(RunRequest),
    /// Perform this HTTP request and call [`Model::resume`] with the response.
    Http(HttpRequest),
}

/// What the caller hands back after performing a step.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Run(RunResult),
    Http(HttpResponse),
}

/// A model. Offline ones answer at once or after one run; API-backed ones will keep state between
/// `start` and `resume` (a request in flight, streamed chunks).
pub trait Model {
    /// Shown in results, e.g. `oracle`.
    fn name(&self) -> String;

    fn start(&mut self, request: &ModelRequest) -> ModelStep;

    fn resume(&mut self, request: &ModelRequest, reply: Reply) -> ModelStep {
        let _ = (request, reply);
        ModelStep::Done(Err(format!("{} asked for nothing to resume", self.name())))
    }

    /// True when the responses for `sample_id` are answers already extracted (a replayed
    /// generations file, or a results file that kept no responses).
    fn gives_extracted_answers(&self, sample_id: &str) -> bool {
        let _ = sample_id;
        false
    }
}

/// Drives a model to its responses with a blocking engine and HTTP client (native callers and
/// tests; the page drives the steps itself). At most `max_steps` exchanges.
pub fn respond(
    model: &mut dyn Model,
    request: &ModelRequest,
    engine: &mut dyn execbench_core::PythonEngine,
    http: &mut dyn FnMut(&HttpRequest) -> HttpResponse,
) -> Result<Vec<String>, String> {
    const MAX_STEPS: usize = 64;
    let mut step = model.start(request);
    for _ in 0..MAX_STEPS {
        step = match step {
            ModelStep::Done(result) => return result,
            ModelStep::Run(run) => model.resume(request, Reply::Run(engine.run(&run))),
            ModelStep::Http(call) => model.resume(request, Reply::Http(http(&call))),
        };
    }
    Err(format!("{} did not finish within {MAX_STEPS} steps", model.name()))
}

/// An HTTP client for callers that have none: every request fails.
pub fn no_http(_: &HttpRequest) -> HttpResponse {
    HttpResponse { status: 599, body: "no HTTP client in this context".into() }
}

/// A response in the shape the prompts ask for.
fn answer_block(call: &str, value: &str) -> String {
    format!("[ANSWER]\nassert {call} == {value}\n[/ANSWER]")
}

/// The offline models a run can name, as its manifest and `execbench run --provider` spell them.
pub const OFFLINE_MODELS: &[&str] = &["oracle", "echo-first-argument", "type-default"];

/// An offline model rebuilt from its name ([`OFFLINE_MODELS`]): how a stored run of one goes on.
pub fn offline_model(name: &str) -> Option<Box<dyn Model>> {
    match name {
        "oracle" => Some(Box::new(Oracle::default())),
        "echo-first-argument" => Some(Box::new(EchoFirstArgument)),
        "type-default" => Some(Box::new(TypeDefault)),
        _ => None,
    }
}

/// Always right: for output prediction it runs the sample's call and answers with the `repr`;
/// for input prediction it answers with the sample's own call. It validates the whole pipeline:
/// anything short of 100% is a bug (or an engine difference) somewhere.
#[derive(Clone, Debug)]
pub struct Oracle {
    pub limits: Limits,
}

impl Default for Oracle {
    fn default() -> Self {
        Oracle { limits: Limits { time_ms: 10_000, max_steps: 0 } }
    }
}

impl Model for Oracle {
    fn name(&self) -> String {
        "oracle".into()
    }

    fn start(&mut self, request: &ModelRequest) -> ModelStep {
        let sample = request.sample;
        match request.task {
            Task::Output => ModelStep::Run(sample.request(sample.call.clone()).with_limits(self.limits)),
            Task::Input => ModelStep::Done(Ok(vec![answer_block(&sample.call, &sample.output); request.n])),
        }
    }

    fn resume(&mut self, request: &ModelRequest, reply: Reply) -> ModelStep {
        ModelStep::Done(match reply {
            Reply::Run(RunResult { outcome: Outcome::Value { repr, .. }, .. }) => {
                Ok(vec![answer_block(&request.sample.call, &repr); request.n])
            }
            Reply::Run(other) => Err(format!("the oracle's run failed: {}", other.outcome.summary())),
            Reply::Http(_) => Err("the oracle makes no HTTP requests".into()),
        })
    }
}

/// Baseline: the output is the first argument unchanged (many CRUXEval functions edit their
/// input a little). For input prediction: the call with the expected output as its argument.
#[derive(Clone, Copy, Debug, Default)]
pub struct EchoFirstArgument;

impl Model for EchoFirstArgument {
    fn name(&self) -> String {
        "echo-first-argument".into()
    }

    fn start(&mut self, request: &ModelRequest) -> ModelStep {
        let sample = request.sample;
        let response = match request.task {
            Task::Output => answer_block(&sample.call, &first_argument(&sample.call).unwrap_or_else(|| "None".into())),
            Task::Input => answer_block(&format!("{}({})", sample.function_name, sample.output), &sample.output),
        };
        ModelStep::Done(Ok(vec![response; request.n]))
    }
}

/// The text of the first positional argument of a call, `None` when there is none.
pub fn first_argument(call: &str) -> Option<String> {
    let call = call.trim();
    let Ok(Expr::Call(call_expr)) = parse_expression_guarded(call) else { return None };
    let arg = call_expr.arguments.args.first().or(call_expr.arguments.keywords.first().map(|k| &k.value))?;
    call.get(arg.range().start().to_usize()..arg.range().end().to_usize()).map(str::to_string)
}

/// Baseline: the default value of the expected output's type (`0`, `''`, `[]`, ...). For input
/// prediction: the call with no arguments.
#[derive(Clone, Copy, Debug, Default)]
pub struct TypeDefault;

/// The default value of a type, as a literal.
pub fn type_default(kind: OutputKind) -> &'static str {
    match kind {
        OutputKind::Str => "''",
        OutputKind::Int => "0",
        OutputKind::Float => "0.0",
        OutputKind::Bool => "False",
        OutputKind::None | OutputKind::Other => "None",
        OutputKind::List => "[]",
        OutputKind::Tuple => "()",
        OutputKind::Dict => "{}",
        OutputKind::Set => "set()",
        OutputKind::Bytes => "b''",
    }
}

impl Model for TypeDefault {
    fn name(&self) -> String {
        "type-default".into()
    }

    fn start(&mut self, request: &ModelRequest) -> ModelStep {
        let sample = request.sample;
        let response = match request.task {
            Task::Output => answer_block(&sample.call, type_default(sample.output_kind())),
            Task::Input => answer_block(&format!("{}()", sample.function_name), &sample.output),
        };
        ModelStep::Done(Ok(vec![response; request.n]))
    }
}

/// Answers from an imported file: a generations file (answers already extracted) or raw
/// responses, or the rows of an earlier results file.
#[derive(Clone, Debug, Default)]
pub struct Replay {
    pub label: String,
    answers: HashMap<String, Replayed>,
}

/// What the file holds for one sample.
#[derive(Clone, Debug, Default)]
struct Replayed {
    answers: Vec<String>,
    /// The answers are extracted already (no raw responses to extract from).
    extracted: bool,
}

impl Replay {
    pub fn from_generations(label: &str, generations: &Generations) -> Self {
        let extracted = generations.kind == GenerationsKind::Extracted;
        Replay {
            label: label.into(),
            answers: generations
                .entries
                .iter()
                .map(|e| (e.id.clone(), Replayed { answers: e.answers.clone(), extracted }))
                .collect(),
        }
    }

    /// Replays the rows of a results file: their raw responses when every answer kept one, else
    /// their extracted answers (rows re-scored from a CRUXEval generations file have no
    /// responses). An answer with neither cannot be replayed and is left out. A file with
    /// several rows for one sample (one per mode, or several runs) replays the last.
    pub fn from_results(label: &str, results: &[SampleResult]) -> Self {
        let answers = results
            .iter()
            .map(|row| {
                let replayed = match row.answers.iter().map(|a| a.response.clone()).collect::<Option<Vec<_>>>() {
                    Some(responses) => Replayed { answers: responses, extracted: false },
                    None => Replayed {
                        answers: row.answers.iter().filter_map(|a| a.extraction.answer().map(str::to_string)).collect(),
                        extracted: true,
                    },
                };
                (row.id.clone(), replayed)
            })
            .filter(|(_, replayed)| !replayed.answers.is_empty())
            .collect();
        Replay { label: label.into(), answers }
    }
}

/// The part of a dataset that a file of answers covers. A file scores the samples it contains,
/// with the answers it has: a sample it lacks is listed in `missing`, never scored as wrong, and
/// `n` is the most answers the file gives one sample (never padded). Re-scoring a file and
/// replaying it as a model both start here, so they give the same figures.
#[derive(Clone, Debug, PartialEq)]
pub struct FileScope {
    /// The dataset's samples the file has answers for, in dataset order.
    pub samples: Vec<Sample>,
    pub n: usize,
    /// Dataset samples the file has no answers for.
    pub missing: Vec<String>,
    /// Ids in the file that the dataset does not have.
    pub unknown: Vec<String>,
}

impl Replay {
    /// The samples of `dataset` this file covers.
    pub fn scope(&self, dataset: &[Sample]) -> FileScope {
        let (samples, missing): (Vec<&Sample>, Vec<&Sample>) =
            dataset.iter().partition(|s| self.answers.contains_key(&s.id));
        let n =
            samples.iter().filter_map(|s| self.answers.get(&s.id)).map(|r| r.answers.len()).max().unwrap_or(1).max(1);
        let known: std::collections::HashSet<&str> = dataset.iter().map(|s| s.id.as_str()).collect();
        let mut unknown: Vec<String> = self.answers.keys().filter(|id| !known.contains(id.as_str())).cloned().collect();
        unknown.sort();
        FileScope {
            samples: samples.into_iter().cloned().collect(),
            n,
            missing: missing.into_iter().map(|s| s.id.clone()).collect(),
            unknown,
        }
    }

    /// True when the file has no answers for any sample.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }
}

impl Model for Replay {
    fn name(&self) -> String {
        format!("replay: {}", self.label)
    }

    fn start(&mut self, request: &ModelRequest) -> ModelStep {
        ModelStep::Done(match self.answers.get(&request.sample.id) {
            // A file gives what it has; n only caps it.
            Some(replayed) => Ok(replayed.answers.iter().take(request.n.max(1)).cloned().collect()),
            None => Err(format!("the file has no answers for `{}`", request.sample.id)),
        })
    }

    fn gives_extracted_answers(&self, sample_id: &str) -> bool {
        self.answers.get(sample_id).is_some_and(|r| r.extracted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::extract;
    use crate::fake_engine::FakeEngine;
    use crate::prompt::{Style, default_template};

    fn sample(call_args: &str, output: &str) -> Sample {
        Sample {
            id: "s1".into(),
            code: "def f(a, b=0):\n    return a".into(),
            function_name: "f".into(),
            input: call_args.into(),
            call: format!("f({call_args})"),
            output: output.into(),
            meta: Default::default(),
        }
    }

    fn answers(
        model: &mut dyn Model,
        engine: &mut FakeEngine,
        sample: &Sample,
        task: Task,
        n: usize,
    ) -> Result<Vec<String>, String> {
        let prompt = default_template(task, Style::Direct).render(sample);
        let request = ModelRequest { sample, task, prompt: &prompt, n };
        respond(model, &request, engine, &mut no_http)
            .map(|rs| rs.iter().map(|r| extract(r, task).answer().unwrap_or("<none>").to_string()).collect())
    }

    /// (model, task, call arguments, expected output, extracted answers).
    #[test]
    fn offline_models_table() {
        let cases: Vec<(Box<dyn Model>, Task, &str, &str, Vec<&str>)> = vec![
            (Box::new(Oracle::default()), Task::Output, "[3, 1]", "[3, 1]", vec!["[3, 1]", "[3, 1]"]),
            (Box::new(Oracle::default()), Task::Input, "'x'", "'x'", vec!["f('x')", "f('x')"]),
            (Box::new(EchoFirstArgument), Task::Output, "'ab', 2", "'ba'", vec!["'ab'", "'ab'"]),
            (Box::new(EchoFirstArgument), Task::Output, "b={1: 2}", "3", vec!["{1: 2}", "{1: 2}"]),
            (Box::new(EchoFirstArgument), Task::Output, "", "3", vec!["None", "None"]),
            (Box::new(EchoFirstArgument), Task::Input, "'ab'", "'ba'", vec!["f('ba')", "f('ba')"]),
            (Box::new(TypeDefault), Task::Output, "1", "[1, 2]", vec!["[]", "[]"]),
            (Box::new(TypeDefault), Task::Output, "1", "{'a': 1}", vec!["{}", "{}"]),
            (Box::new(TypeDefault), Task::Output, "1", "{1, 2}", vec!["set()", "set()"]),
            (Box::new(TypeDefault), Task::Output, "1", "-2.5", vec!["0.0", "0.0"]),
            (Box::new(TypeDefault), Task::Output, "1", "'x'", vec!["''", "''"]),
            (Box::new(TypeDefault), Task::Input, "1", "'x'", vec!["f()", "f()"]),
        ];
        for (mut model, task, args, output, want) in cases {
            let s = sample(args, output);
            let mut engine = FakeEngine::new().value(&s.call, output);
            let got = answers(model.as_mut(), &mut engine, &s, task, 2);
            assert_eq!(got, Ok(want.iter().map(|w| w.to_string()).collect()), "{} {task:?} {args}", model.name());
        }
    }

    #[test]
    fn oracle_reports_a_failed_run() {
        let s = sample("1", "1");
        let mut engine = FakeEngine::new();
        let got = answers(&mut Oracle::default(), &mut engine, &s, Task::Output, 1);
        assert_eq!(got, Err("the oracle's run failed: engine failure: the fake engine has no rule for `f(1)`".into()));
    }

    #[test]
    fn replay_gives_the_file_answers() {
        let g = crate::generations::import_generations("g.json", r#"{"s1": ["[1]", "[2]", "[3]"]}"#);
        let mut replay = Replay::from_generations("g.json", &g);
        assert!(replay.gives_extracted_answers("s1"));
        let s = sample("1", "1");
        let prompt = default_template(Task::Output, Style::Direct).render(&s);
        let mut engine = FakeEngine::new();
        let got = respond(
            &mut replay,
            &ModelRequest { sample: &s, task: Task::Output, prompt: &prompt, n: 2 },
            &mut engine,
            &mut no_http,
        );
        assert_eq!(got, Ok(vec!["[1]".to_string(), "[2]".to_string()]));
        let other = Sample { id: "nope".into(), ..s };
        let got = respond(
            &mut replay,
            &ModelRequest { sample: &other, task: Task::Output, prompt: &prompt, n: 2 },
            &mut engine,
            &mut no_http,
        );
        assert_eq!(got, Err("the file has no answers for `nope`".into()));
    }

    /// Strict output prediction of `samples` with `model`, written out and read back as a
    /// results file would be.
    fn results_file(model: &mut dyn Model, samples: &[Sample], n: usize) -> Vec<SampleResult> {
        use crate::evaluate::{EvalPlan, evaluate};
        let plan = EvalPlan {
            template: default_template(Task::Output, Style::Direct),
            n,
            modes: vec![crate::score::Mode::Strict],
            options: Default::default(),
        };
        let evaluation = evaluate(model, &mut FakeEngine::new(), &mut no_http, samples, &plan, &mut |_, _| {});
        crate::report::from_jsonl("results.jsonl", &crate::report::to_jsonl(&evaluation.results[0])).unwrap()
    }

    /// (id, n, correct, responses kept) of each row.
    fn figures(rows: &[SampleResult]) -> Vec<(String, usize, usize, bool)> {
        rows.iter().map(|r| (r.id.clone(), r.n, r.correct, r.answers.iter().all(|a| a.response.is_some()))).collect()
    }

    #[test]
    fn replaying_a_results_file_of_raw_responses_gives_the_same_results() {
        let a = Sample { id: "a".into(), ..sample("[1], 2", "[1]") };
        let b = Sample { id: "b".into(), ..sample("'x'", "'y'") };
        let first = results_file(&mut EchoFirstArgument, &[a.clone(), b.clone()], 3);
        assert_eq!(figures(&first), vec![("a".into(), 3, 3, true), ("b".into(), 3, 0, true)]);
        let mut replay = Replay::from_results("results.jsonl", &first);
        assert_eq!(replay.name(), "replay: results.jsonl");
        assert!(!replay.gives_extracted_answers("a"), "raw responses are extracted again");
        let again = results_file(&mut replay, &[a.clone(), b.clone()], 3);
        assert_eq!(again, first, "the same responses, extractions and verdicts");
        // n caps what is replayed; a sample the file does not have is a model error.
        let mut replay = Replay::from_results("results.jsonl", &first);
        let c = Sample { id: "c".into(), ..a.clone() };
        let capped = results_file(&mut replay, &[a, c], 2);
        assert_eq!((capped[0].n, capped[0].answers.len()), (2, 2));
        assert_eq!(capped[1].model_error.as_deref(), Some("the file has no answers for `c`"));
    }

    /// Rows re-scored from a CRUXEval generations file keep no responses: replay gives their
    /// extracted answers, marked as extracted, instead of having nothing to replay.
    #[test]
    fn replaying_a_results_file_of_extracted_answers_uses_the_answers() {
        let dataset =
            vec![Sample { id: "a".into(), ..sample("1", "[1]") }, Sample { id: "b".into(), ..sample("1", "'y'") }];
        let g = crate::generations::import_generations("g.json", r#"{"a": ["[1]", "[2]", "[1]"], "b": ["'y'", "1"]}"#);
        let rescored = crate::generations::rescore(
            &mut FakeEngine::new(),
            &dataset,
            &g,
            Task::Output,
            crate::score::Mode::Strict,
            &Default::default(),
        );
        let file = crate::report::from_jsonl("r.jsonl", &crate::report::to_jsonl(&rescored.results)).unwrap();
        assert_eq!(figures(&file), vec![("a".into(), 3, 2, false), ("b".into(), 2, 1, false)]);
        let mut replay = Replay::from_results("r.jsonl", &file);
        assert!(replay.gives_extracted_answers("a") && replay.gives_extracted_answers("b"));
        assert!(!replay.gives_extracted_answers("zz"));
        let replayed = results_file(&mut replay, &dataset, 5);
        assert_eq!(figures(&replayed), vec![("a".into(), 3, 2, false), ("b".into(), 2, 1, false)]);
        let answers: Vec<Option<&str>> = replayed[0].answers.iter().map(|a| a.extraction.answer()).collect();
        assert_eq!(answers, vec![Some("[1]"), Some("[2]"), Some("[1]")]);
        assert!(replayed.iter().all(|r| r.model_error.is_none()));
    }

    /// A model that needs an HTTP exchange, as the API-backed ones will: the driver performs it.
    #[test]
    fn http_steps_are_performed_by_the_caller() {
        struct Echoing;
        impl Model for Echoing {
            fn name(&self) -> String {
                "echoing".into()
            }
            fn start(&mut self, request: &ModelRequest) -> ModelStep {
                ModelStep::Http(HttpRequest {
                    method: "POST".into(),
                    url: "https://api.invalid/v1".into(),
                    headers: vec![],
                    body: request.prompt.text(),
                })
            }
            fn resume(&mut self, _: &ModelRequest, reply: Reply) -> ModelStep {
                match reply {
                    Reply::Http(r) if r.status == 200 => ModelStep::Done(Ok(vec![r.body])),
                    _ => ModelStep::Done(Err("request failed".into())),
                }
            }
        }
        let s = sample("1", "1");
        let prompt = default_template(Task::Output, Style::Direct).render(&s);
        let request = ModelRequest { sample: &s, task: Task::Output, prompt: &prompt, n: 1 };
        let mut seen = Vec::new();
        let mut http = |r: &HttpRequest| {
            seen.push(r.url.clone());
            HttpResponse { status: 200, body: "[ANSWER]assert f(1) == 1[/ANSWER]".into() }
        };
        let got = respond(&mut Echoing, &request, &mut FakeEngine::new(), &mut http);
        assert_eq!(got, Ok(vec!["[ANSWER]assert f(1) == 1[/ANSWER]".to_string()]));
        assert_eq!(seen, vec!["https://api.invalid/v1".to_string()]);
        assert_eq!(respond(&mut Echoing, &request, &mut FakeEngine::new(), &mut no_http), Err("request failed".into()));
    }
}
