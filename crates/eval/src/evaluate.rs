//! A whole evaluation: dataset × task × template × n, scored in every mode asked for. Natively it
//! runs end to end with a blocking engine; the page drives [`crate::models::Model`] steps itself
//! and hands the responses to [`score_responses`].

use execbench_core::{PythonEngine, Sample};
use serde::{Deserialize, Serialize};

use crate::extract::{ExtractFailure, Extraction, extract};
use crate::models::{Model, ModelRequest, respond};
use crate::prompt::Template;
use crate::report::{SampleResult, Summary, summarize};
use crate::score::{Mode, ScoreOptions, score_answers};

/// What to evaluate. The task is the template's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvalSettings {
    pub template: Template,
    /// Responses per sample.
    pub n: usize,
    pub modes: Vec<Mode>,
    #[serde(default)]
    pub options: ScoreOptions,
}

/// Scores a model's responses for one sample in one mode. `extracted` says the responses are
/// answers already (a replayed generations file); a model error scores as `n` empty responses so
/// the sample counts as wrong, not as missing.
pub fn score_responses(
    engine: &mut dyn PythonEngine,
    sample: &Sample,
    plan: &EvalSettings,
    mode: Mode,
    prompt: Option<String>,
    responses: &Result<Vec<String>, String>,
    extracted: bool,
) -> SampleResult {
    let task = plan.template.task;
    let (texts, extractions): (Vec<String>, Vec<Extraction>) = match responses {
        Ok(texts) => {
            let extractions = texts
                .iter()
                .map(|t| if extracted { Extraction::verbatim(t.clone()) } else { extract(t, task) })
                .collect();
            (texts.clone(), extractions)
        }
        Err(error) => {
            let failed = Extraction::Failed {
                failure: ExtractFailure::EmptyResponse,
                detail: format!("the model gave no response: {error}"),
            };
            (vec![String::new(); plan.n.max(1)], vec![failed; plan.n.max(1)])
        }
    };
    let score = score_answers(engine, sample, task, mode, &extractions, &plan.options);
    let kept_responses = if extracted { Vec::new() } else { texts };
    let mut result =
        SampleResult::new(&sample.id, task, mode, prompt, kept_responses, extractions, score).of_sample(sample);
    result.model_error = responses.as_ref().err().cloned();
    result
}

/// The results of an evaluation, per mode in the plan's order.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    pub model: String,
    pub results: Vec<Vec<SampleResult>>,
    pub summaries: Vec<Summary>,
}

/// Runs `model` over `samples`; `progress(done, total)` after each sample.
pub fn evaluate(
    model: &mut dyn Model,
    engine: &mut dyn PythonEngine,
    samples: &[Sample],
    plan: &EvalSettings,
    progress: &mut dyn FnMut(usize, usize),
) -> Evaluation {
    let task = plan.template.task;
    let mut results: Vec<Vec<SampleResult>> = plan.modes.iter().map(|_| Vec::with_capacity(samples.len())).collect();
    for (index, sample) in samples.iter().enumerate() {
        let prompt = plan.template.render(sample);
        let responses = respond(model, &ModelRequest { sample, task, prompt: &prompt, n: plan.n }, engine);
        let prompt_text = prompt.text();
        for (mode, per_mode) in plan.modes.iter().zip(results.iter_mut()) {
            per_mode.push(score_responses(
                engine,
                sample,
                plan,
                *mode,
                Some(prompt_text.clone()),
                &responses,
                model.gives_extracted_answers(&sample.id),
            ));
        }
        progress(index + 1, samples.len());
    }
    let summaries = plan.modes.iter().zip(&results).map(|(mode, r)| summarize(task, *mode, r)).collect();
    Evaluation { model: model.name(), results, summaries }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_engine::FakeEngine;
    use crate::models::{EchoFirstArgument, Replay, TypeDefault};
    use crate::prompt::{Style, default_template};
    use crate::task::Task;

    fn sample(id: &str, output: &str) -> Sample {
        Sample::new(id, "def f(x):\n    return x", "f", "1", output)
    }

    #[test]
    fn a_baseline_evaluation_runs_end_to_end() {
        let samples = vec![sample("a", "[]"), sample("b", "[1]"), sample("c", "0")];
        let plan = EvalSettings {
            template: default_template(Task::Output, Style::Direct),
            n: 5,
            modes: vec![Mode::Strict, Mode::Compatible],
            options: ScoreOptions::default(),
        };
        // The fake engine plays Python for the compatible assertions.
        let pass = |expected: &str| {
            format!(
                "assert {expected} == {}",
                crate::models::type_default(execbench_core::sample::OutputKind::of_literal(expected))
            )
        };
        let mut engine = FakeEngine::new().value(&pass("[]"), "None").value(&pass("0"), "None").rule(
            &pass("[1]"),
            execbench_core::Outcome::Raised {
                kind: "AssertionError".into(),
                message: String::new(),
                traceback: String::new(),
                phase: "program".into(),
            },
        );
        let mut ticks = Vec::new();
        let evaluation =
            evaluate(&mut TypeDefault, &mut engine, &samples, &plan, &mut |done, total| ticks.push((done, total)));
        assert_eq!(ticks, vec![(1, 3), (2, 3), (3, 3)]);
        assert_eq!(evaluation.model, "type-default");
        for summary in &evaluation.summaries {
            assert_eq!((summary.samples, summary.answers, summary.correct), (3, 15, 10), "{:?}", summary.mode);
            assert_eq!(summary.pass_at_1.display(), "66.7");
        }
        let first = &evaluation.results[0][0];
        assert!(first.prompt.as_deref().is_some_and(|p| p.contains("assert f(1) == ??")));
        assert_eq!(first.answers[0].response.as_deref(), Some("[ANSWER]\nassert f(1) == []\n[/ANSWER]"));
    }

    #[test]
    fn a_model_error_scores_as_wrong_answers() {
        let plan = EvalSettings {
            template: default_template(Task::Output, Style::Direct),
            n: 3,
            modes: vec![Mode::Strict],
            options: ScoreOptions::default(),
        };
        let r = score_responses(
            &mut FakeEngine::new(),
            &sample("a", "1"),
            &plan,
            Mode::Strict,
            None,
            &Err("rate limited".into()),
            false,
        );
        assert_eq!((r.n, r.correct, r.model_error.as_deref()), (3, 0, Some("rate limited")));
        assert!(
            r.answers
                .iter()
                .all(|a| a.verdict.to_string() == "extraction failed: the model gave no response: rate limited")
        );
    }

    /// A sample for the replay tests: `f(a, b=0)` returning `a`, called with `call_args`.
    fn replay_sample(call_args: &str, output: &str) -> Sample {
        Sample::new("s1", "def f(a, b=0):\n    return a", "f", call_args, output)
    }

    /// Strict output prediction of `samples` with `model`, written out and read back as a
    /// results file would be.
    fn results_file(model: &mut dyn Model, samples: &[Sample], n: usize) -> Vec<SampleResult> {
        let plan = EvalSettings {
            template: default_template(Task::Output, Style::Direct),
            n,
            modes: vec![Mode::Strict],
            options: Default::default(),
        };
        let evaluation = evaluate(model, &mut FakeEngine::new(), samples, &plan, &mut |_, _| {});
        crate::report::from_jsonl("results.jsonl", &crate::report::to_jsonl(&evaluation.results[0])).unwrap()
    }

    /// (id, n, correct, responses kept) of each row.
    fn figures(rows: &[SampleResult]) -> Vec<(String, usize, usize, bool)> {
        rows.iter().map(|r| (r.id.clone(), r.n, r.correct, r.answers.iter().all(|a| a.response.is_some()))).collect()
    }

    #[test]
    fn replaying_a_results_file_of_raw_responses_gives_the_same_results() {
        let a = Sample { id: "a".into(), ..replay_sample("[1], 2", "[1]") };
        let b = Sample { id: "b".into(), ..replay_sample("'x'", "'y'") };
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
        let dataset = vec![
            Sample { id: "a".into(), ..replay_sample("1", "[1]") },
            Sample { id: "b".into(), ..replay_sample("1", "'y'") },
        ];
        let g = crate::generations::import_generations("g.json", r#"{"a": ["[1]", "[2]", "[1]"], "b": ["'y'", "1"]}"#);
        let rescored = crate::generations::rescore(
            &mut FakeEngine::new(),
            &dataset,
            &g,
            Task::Output,
            Mode::Strict,
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
}
