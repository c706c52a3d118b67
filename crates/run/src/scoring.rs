//! Scores one sample's responses in every mode, with the Python runs done by an asynchronous
//! engine (the page's worker, or a blocking engine natively). The verdicts are
//! `execbench_eval::score`'s (`plan` then `conclude`), so they equal what
//! `execbench_eval::evaluate::score_responses` computes with a blocking engine.

use std::collections::HashMap;

use execbench_core::Sample;
use execbench_eval::Task;
use execbench_eval::extract::{Extraction, extract};
use execbench_eval::report::SampleResult;
use execbench_eval::score::{self, Expected, Mode, SampleScore, ScoreOptions, Step, Verdict};

use crate::io::Python;

/// One sample's answers, before scoring.
pub struct Answers<'a> {
    pub prompt: Option<String>,
    pub responses: &'a [String],
    /// The responses are answers already (a CRUXEval generations file): not extracted again,
    /// and not kept as responses.
    pub extracted: bool,
}

/// Scores `answers` in each of `modes`. Identical answers to one sample share a run: programs
/// are deterministic, and a model asked for n samples often repeats itself. `on_run` is called
/// after each Python run (for progress counts).
pub async fn score_sample<P: Python>(python: &P, sample: &Sample, task: Task, modes: &[Mode], answers: Answers<'_>, options: &ScoreOptions, on_run: &mut dyn FnMut()) -> Vec<SampleResult> {
    let extractions: Vec<Extraction> = answers.responses.iter().map(|t| if answers.extracted { Extraction::verbatim(t.clone()) } else { extract(t, task) }).collect();
    let kept_responses = if answers.extracted { Vec::new() } else { answers.responses.to_vec() };
    let expected = Expected::of(sample);
    let mut rows = Vec::with_capacity(modes.len());
    for &mode in modes {
        let mut judged: HashMap<String, Verdict> = HashMap::new();
        let mut verdicts = Vec::with_capacity(extractions.len());
        for extraction in &extractions {
            let verdict = match score::plan(sample, task, mode, extraction, &expected, options) {
                Step::Done(verdict) => verdict,
                Step::Run(request) => {
                    let answer = extraction.answer().unwrap_or("");
                    match judged.get(answer) {
                        Some(verdict) => verdict.clone(),
                        None => {
                            let result = python.run(request).await;
                            on_run();
                            let verdict = score::conclude(mode, answer, &expected, &result);
                            judged.insert(answer.to_string(), verdict.clone());
                            verdict
                        }
                    }
                }
            };
            verdicts.push(verdict);
        }
        rows.push(SampleResult::new(&sample.id, task, mode, answers.prompt.clone(), kept_responses.clone(), extractions.clone(), SampleScore::from_verdicts(mode, verdicts)));
    }
    rows
}
