//! Scores one sample's responses in every mode, with the Python runs done by an asynchronous
//! engine (the page's worker, or a blocking engine natively). The verdicts are
//! `execbench_eval::score`'s (`plan` then `conclude`), so they equal what
//! `execbench_eval::evaluate::score_responses` computes with a blocking engine.

use std::collections::HashMap;

use execbench_core::{RunRequest, Sample};
use execbench_eval::Task;
use execbench_eval::extract::{Extraction, extract};
use execbench_eval::report::SampleResult;
use execbench_eval::score::{self, Expected, Mode, SampleScore, ScoreOptions, Step, Verdict};
use futures::future::join_all;

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
/// are deterministic, and a model asked for n samples often repeats itself. A sample's runs are
/// all asked for at once, so an engine with several interpreters (the command line's threads)
/// works on them side by side; one that runs one at a time queues them. `on_run` is called once
/// per Python run (for progress counts), when the sample's runs are done.
pub async fn score_sample<P: Python>(
    python: &P,
    sample: &Sample,
    task: Task,
    modes: &[Mode],
    answers: Answers<'_>,
    options: &ScoreOptions,
    on_run: &mut dyn FnMut(),
) -> Vec<SampleResult> {
    let extractions: Vec<Extraction> = answers
        .responses
        .iter()
        .map(|t| if answers.extracted { Extraction::verbatim(t.clone()) } else { extract(t, task) })
        .collect();
    let kept_responses = if answers.extracted { Vec::new() } else { answers.responses.to_vec() };
    let expected = Expected::of(sample);
    // Per mode, per answer: its verdict, or which of the distinct runs decides it.
    let mut runs: Vec<RunRequest> = Vec::new();
    let mut run_of: HashMap<(Mode, &str), usize> = HashMap::new();
    let planned: Vec<Vec<Planned>> = modes
        .iter()
        .map(|&mode| {
            extractions
                .iter()
                .map(|extraction| match score::plan(sample, task, mode, extraction, &expected, options) {
                    Step::Done(verdict) => Planned::Known(verdict),
                    Step::Run(request) => {
                        Planned::Run(*run_of.entry((mode, extraction.answer().unwrap_or(""))).or_insert_with(|| {
                            runs.push(request);
                            runs.len() - 1
                        }))
                    }
                })
                .collect()
        })
        .collect();
    let results = join_all(runs.into_iter().map(|request| python.run(request))).await;
    for _ in &results {
        on_run();
    }
    let mut rows = Vec::with_capacity(modes.len());
    for (&mode, plans) in modes.iter().zip(planned) {
        let verdicts = plans
            .into_iter()
            .zip(&extractions)
            .map(|(plan, extraction)| match plan {
                Planned::Known(verdict) => verdict,
                Planned::Run(index) => {
                    score::conclude(mode, extraction.answer().unwrap_or(""), &expected, &results[index])
                }
            })
            .collect();
        rows.push(
            SampleResult::new(
                &sample.id,
                task,
                mode,
                answers.prompt.clone(),
                kept_responses.clone(),
                extractions.clone(),
                SampleScore::from_verdicts(mode, verdicts),
            )
            .of_sample(sample),
        );
    }
    rows
}

/// One answer in one mode before its run: the verdict when nothing needs running, else its run.
enum Planned {
    Known(Verdict),
    Run(usize),
}
