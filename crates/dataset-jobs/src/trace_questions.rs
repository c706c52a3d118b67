//! Making trace questions for a whole dataset: every sample's call run with its trace recorded
//! (`RunRequest::trace`), then `execbench_trace_questions::make_questions` on each trace, in
//! dataset order, with progress and Stop. The page's Questions job and `execbench questions` both
//! call it.

use execbench_core::trace::TraceLimits;
use execbench_core::{Limits, Outcome, Sample};
use execbench_io::Python;
use execbench_io::cancel::CancelToken;
use execbench_io::stoppable::{Next, next_or_stopped};
use execbench_trace_questions::{MakeOptions, Question, make_questions};
use futures::{FutureExt, StreamExt};

/// The questions of every sample traced, and why the others gave none.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuestionsOutcome {
    pub questions: Vec<Question>,
    /// Samples that gave no question at all: (id, why).
    pub skipped: Vec<(String, String)>,
    /// Kinds a sample gave no question of: (id, kind, why).
    pub missing: Vec<(String, &'static str, String)>,
    /// Samples traced.
    pub traced: usize,
    /// Milliseconds spent in Python, all runs together.
    pub elapsed_ms: f64,
    /// Stop came before the last sample.
    pub stopped: bool,
}

/// Traces each sample (its call, within `limits`) and makes its questions. `on_sample` gets the
/// count done so far and the sample's questions.
pub async fn questions_for_dataset<P: Python>(
    python: &P,
    samples: &[Sample],
    options: &MakeOptions,
    limits: Limits,
    cancel: &CancelToken,
    on_sample: &mut dyn FnMut(usize, &[Question]),
) -> QuestionsOutcome {
    let mut outcome = QuestionsOutcome::default();
    let mut runs = futures::stream::iter(samples)
        .map(|sample| {
            let request = sample.request(sample.call.clone()).with_limits(limits).traced(TraceLimits::default());
            python.run(request).map(move |result| (sample, result))
        })
        .buffered(python.runs_at_once().max(1));
    while let Next::Item((sample, result)) = next_or_stopped(&mut runs, cancel).await {
        outcome.traced += 1;
        outcome.elapsed_ms += result.elapsed_ms;
        let made = match (&result.outcome, &result.trace) {
            (Outcome::Value { .. }, Some(trace)) => {
                make_questions(sample, trace, options).map_err(|why| why.to_string())
            }
            (Outcome::Value { .. }, None) => Err("the engine recorded no trace".to_owned()),
            (other, _) => Err(format!("the call did not return: {}", other.summary())),
        };
        match made {
            Ok(made) => {
                on_sample(outcome.traced, &made.questions);
                outcome.questions.extend(made.questions);
                for (kind, why) in made.missing {
                    outcome.missing.push((sample.id.clone(), kind.label(), why));
                }
            }
            Err(why) => {
                on_sample(outcome.traced, &[]);
                outcome.skipped.push((sample.id.clone(), why));
            }
        }
    }
    outcome.stopped = outcome.traced < samples.len();
    outcome
}
