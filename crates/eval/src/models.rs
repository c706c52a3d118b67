//! "A model": given a sample, its rendered prompt and the task, n responses. The interface does no
//! I/O itself: a model answers with a [`ModelStep`] that either holds the responses or names the
//! Python run it needs first, and the caller performs that and hands the result back. The same
//! model thus runs natively with a blocking engine, or in the page with a Web Worker. (Models
//! behind an API are not models of this kind: `execbench-run` asks them through
//! `execbench-providers`.)
//!
//! Offline models, no key needed: [`Oracle`] (runs the code, always right), the output-prediction
//! baselines [`EchoFirstArgument`] and [`TypeDefault`], and [`Replay`] (answers from a file).

use std::collections::HashMap;

use execbench_core::sample::OutputKind;
use execbench_core::{Limits, Outcome, RunRequest, RunResult, Sample};
use ruff_python_ast::Expr;
use ruff_text_size::Ranged;

use crate::generations::{Generations, GenerationsKind};
use crate::literal::parse_expression_guarded;
use crate::prompt::Prompt;
use crate::report::SampleResult;
use crate::task::Task;

/// Where the page and callers have always found it.
pub use crate::generations::FileScope;

/// What a model is asked.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelRequest<'a> {
    pub sample: &'a Sample,
    pub task: Task,
    pub prompt: &'a Prompt,
    /// Responses wanted.
    pub n: usize,
}

/// Where a model is in answering one request.
#[derive(Clone, Debug, PartialEq)]
pub enum ModelStep {
    /// The responses (raw text, to be extracted), or why there are none.
    Done(Result<Vec<String>, String>),
    /// Run this in the Python engine and call [`Model::resume`] with the result.
    Run(RunRequest),
}

/// What the caller hands back after performing a step.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Run(RunResult),
}

/// A model. Offline ones answer at once or after one run.
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

/// Drives a model to its responses with a blocking engine (native callers and tests; the page
/// drives the steps itself). At most `MAX_STEPS` exchanges.
pub fn respond(
    model: &mut dyn Model,
    request: &ModelRequest,
    engine: &mut dyn execbench_core::PythonEngine,
) -> Result<Vec<String>, String> {
    const MAX_STEPS: usize = 64;
    let mut step = model.start(request);
    for _ in 0..MAX_STEPS {
        step = match step {
            ModelStep::Done(result) => return result,
            ModelStep::Run(run) => model.resume(request, Reply::Run(engine.run(&run))),
        };
    }
    Err(format!("{} did not finish within {MAX_STEPS} steps", model.name()))
}

/// A response in the shape the prompts ask for.
fn answer_block(call: &str, value: &str) -> String {
    format!("[ANSWER]\nassert {call} == {value}\n[/ANSWER]")
}

/// A baseline's answer to a question sample: `value` for a state or output question (the
/// baseline's guess at a value), `yes` for coverage, `return` for path; the truth's own answer
/// for the oracle (`value: None`).
fn question_block(sample: &Sample, value: Option<&str>) -> String {
    use execbench_core::question::QuestionKind;
    let answer = match (value, QuestionKind::of_sample(sample)) {
        (None, _) => sample.output.as_str(),
        (Some(_), Some(QuestionKind::Coverage)) => "yes",
        (Some(_), Some(QuestionKind::Path)) => "return",
        (Some(value), _) => value,
    };
    format!("[ANSWER]{answer}[/ANSWER]")
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
            // The truth rides in the sample: nothing to run.
            Task::Question => ModelStep::Done(Ok(vec![question_block(sample, None); request.n])),
        }
    }

    fn resume(&mut self, request: &ModelRequest, reply: Reply) -> ModelStep {
        ModelStep::Done(match reply {
            Reply::Run(RunResult { outcome: Outcome::Value { repr, .. }, .. }) => {
                Ok(vec![answer_block(&request.sample.call, &repr); request.n])
            }
            Reply::Run(other) => Err(format!("the oracle's run failed: {}", other.outcome.summary())),
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
            Task::Question => {
                question_block(sample, Some(&first_argument(&sample.call).unwrap_or_else(|| "None".into())))
            }
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
            Task::Question => question_block(sample, Some("None")),
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

impl Replay {
    /// The samples of `dataset` this file covers.
    pub fn scope(&self, dataset: &[Sample]) -> FileScope {
        FileScope::of(dataset, self.answers.iter().map(|(id, replayed)| (id.as_str(), replayed.answers.len())))
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
        Sample::new("s1", "def f(a, b=0):\n    return a", "f", call_args, output)
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
        respond(model, &request, engine)
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
        let got =
            respond(&mut replay, &ModelRequest { sample: &s, task: Task::Output, prompt: &prompt, n: 2 }, &mut engine);
        assert_eq!(got, Ok(vec!["[1]".to_string(), "[2]".to_string()]));
        let other = Sample { id: "nope".into(), ..s };
        let got = respond(
            &mut replay,
            &ModelRequest { sample: &other, task: Task::Output, prompt: &prompt, n: 2 },
            &mut engine,
        );
        assert_eq!(got, Err("the file has no answers for `nope`".into()));
    }
}
