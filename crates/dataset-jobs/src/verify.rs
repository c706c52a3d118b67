//! Verifying a dataset with an asynchronous Python: every sample's call run and checked against its
//! expected output (`execbench_core::verify`), with progress and Stop. Runs are asked for as many
//! at a time as the Python takes (`Python::runs_at_once`), and judged in dataset order.

use execbench_core::verify::{SampleCheck, VerifySummary, judge, request_for};
use execbench_core::{Limits, Sample};
use futures::{FutureExt, StreamExt};

use execbench_io::Python;
use execbench_io::cancel::CancelToken;
use execbench_io::stoppable::{Next, next_or_stopped};

/// A verification, whole or stopped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VerifyOutcome {
    /// The checks of the samples verified, in dataset order.
    pub checks: Vec<SampleCheck>,
    pub summary: VerifySummary,
    /// Stop came before the last sample's verdict.
    pub stopped: bool,
}

/// Checks every sample in order. `on_check` gets the totals so far (`summary.total()` samples
/// done) and the newest check. A run that Stop cuts short is not a verdict on the data: it is
/// dropped, as is anything that finishes after Stop.
pub async fn verify_dataset<P: Python>(
    python: &P,
    samples: &[Sample],
    limits: Limits,
    cancel: &CancelToken,
    on_check: &mut dyn FnMut(&VerifySummary, &SampleCheck),
) -> VerifyOutcome {
    let mut outcome = VerifyOutcome::default();
    let mut runs = futures::stream::iter(samples)
        .map(|sample| python.run(request_for(sample, limits)).map(move |result| (sample, result)))
        .buffered(python.runs_at_once().max(1));
    while let Next::Item((sample, result)) = next_or_stopped(&mut runs, cancel).await {
        let check = judge(sample, &result);
        outcome.summary.add(check.clone());
        on_check(&outcome.summary, &check);
        outcome.checks.push(check);
    }
    outcome.stopped = outcome.checks.len() < samples.len();
    outcome
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::Cell;

    use execbench_core::verify::Verdict;
    use execbench_core::{Outcome, PythonEngine, RunRequest, RunResult};
    use futures::executor::block_on;

    use super::*;
    use crate::stopped_at::StoppedAt;
    use execbench_io::BlockingPython;

    /// Answers by rule, no interpreter: a call equal to the expected output passes, `loop()` times
    /// out, `boom()` raises; anything else returns the call's text. Counts its runs.
    #[derive(Default)]
    pub(crate) struct RuleEngine {
        pub runs: usize,
    }

    impl PythonEngine for RuleEngine {
        fn run(&mut self, request: &RunRequest) -> RunResult {
            self.runs += 1;
            let outcome = match request.expression.as_str() {
                "loop()" => Outcome::TimedOut { limit_ms: request.limits.time_ms },
                "boom()" => Outcome::Raised {
                    kind: "ValueError".into(),
                    message: "boom".into(),
                    phase: "expression".into(),
                    traceback: String::new(),
                },
                call => {
                    Outcome::Value { repr: call.to_string(), matches: request.expected.as_ref().map(|e| e == call) }
                }
            };
            RunResult { outcome, stdout: String::new(), elapsed_ms: 1.0, trace: None }
        }
    }

    pub(crate) fn sample(id: &str, call: &str, output: &str) -> Sample {
        Sample { call: call.into(), ..Sample::new(id, "def f(): pass", "f", "", output) }
    }

    #[test]
    fn every_sample_is_judged_in_order() {
        let samples = vec![
            sample("a", "1", "1"),
            sample("b", "2", "3"),
            sample("c", "loop()", "1"),
            sample("d", "boom()", "1"),
            sample("e", "5", "5"),
        ];
        let python = BlockingPython::new(RuleEngine::default());
        let mut seen = Vec::new();
        let outcome = block_on(verify_dataset(
            &python,
            &samples,
            Limits::default(),
            &CancelToken::new(),
            &mut |summary, check| seen.push((summary.total(), check.id.clone())),
        ));
        assert!(!outcome.stopped);
        assert_eq!(seen, [(1, "a"), (2, "b"), (3, "c"), (4, "d"), (5, "e")].map(|(n, id)| (n, id.to_string())));
        let ids: Vec<&str> = outcome.checks.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c", "d", "e"]);
        assert_eq!((outcome.summary.passed, outcome.summary.failed, outcome.summary.engine_differences), (2, 3, 0));
        // The same verdicts as the blocking check the command line makes.
        let mut engine = RuleEngine::default();
        let blocking: Vec<SampleCheck> =
            samples.iter().map(|s| execbench_core::verify::check_sample(&mut engine, s, Limits::default())).collect();
        assert_eq!(outcome.checks, blocking);
        assert_eq!(
            outcome.summary.problems.iter().map(|p| p.verdict.clone()).collect::<Vec<_>>()[0],
            Verdict::Fail { reason: "returned 2, expected 3".into() }
        );
    }

    #[test]
    fn runs_overlap_in_a_pool_and_are_judged_in_dataset_order() {
        let samples: Vec<Sample> = (0..40)
            .map(|i| if i % 3 == 0 { sample(&format!("s{i}"), "2", "3") } else { sample(&format!("s{i}"), "1", "1") })
            .collect();
        let python = crate::overlapping::Overlapping::new(RuleEngine::default(), 8);
        let mut seen = Vec::new();
        let outcome =
            block_on(verify_dataset(&python, &samples, Limits::default(), &CancelToken::new(), &mut |_, check| {
                seen.push(check.id.clone())
            }));
        assert_eq!(seen, samples.iter().map(|s| s.id.clone()).collect::<Vec<_>>());
        assert_eq!(python.max_in_flight.get(), 8, "as many runs as the pool takes, and no more");
        let mut engine = RuleEngine::default();
        let one_at_a_time: Vec<SampleCheck> =
            samples.iter().map(|s| execbench_core::verify::check_sample(&mut engine, s, Limits::default())).collect();
        assert_eq!(outcome.checks, one_at_a_time);
    }

    #[test]
    fn a_run_cut_short_by_stop_is_no_verdict() {
        let samples: Vec<Sample> = (0..10).map(|i| sample(&format!("s{i}"), "1", "1")).collect();
        let cancel = CancelToken::new();
        let python = StoppedAt::new(RuleEngine::default(), &cancel, 4);
        let mut calls = 0;
        let outcome = block_on(verify_dataset(&python, &samples, Limits::default(), &cancel, &mut |_, _| calls += 1));
        assert!(outcome.stopped);
        assert_eq!((outcome.checks.len(), outcome.summary.passed, outcome.summary.failed, calls), (3, 3, 0, 3));
        assert_eq!(python.runs.get(), 4, "nothing runs after Stop");
    }

    /// A run that never answers: Stop alone must end the wait.
    struct Hangs;

    impl Python for Hangs {
        fn run(&self, _: RunRequest) -> impl std::future::Future<Output = RunResult> {
            std::future::pending()
        }
    }

    #[test]
    fn stop_ends_a_run_that_never_answers() {
        let samples = vec![sample("a", "1", "1")];
        let cancel = CancelToken::new();
        let mut pool = futures::executor::LocalPool::new();
        let done = std::rc::Rc::new(Cell::new(None));
        let (flag, token) = (done.clone(), cancel.clone());
        use futures::task::LocalSpawnExt;
        pool.spawner()
            .spawn_local(async move {
                let outcome = verify_dataset(&Hangs, &samples, Limits::default(), &token, &mut |_, _| {}).await;
                flag.set(Some(outcome.stopped && outcome.checks.is_empty()));
            })
            .unwrap();
        pool.run_until_stalled();
        assert_eq!(done.get(), None);
        cancel.cancel();
        pool.run_until_stalled();
        assert_eq!(done.get(), Some(true));
    }

    #[test]
    fn a_cancelled_token_runs_nothing() {
        let cancel = CancelToken::new();
        cancel.cancel();
        let python = BlockingPython::new(RuleEngine::default());
        let outcome =
            block_on(verify_dataset(&python, &[sample("a", "1", "1")], Limits::default(), &cancel, &mut |_, _| {}));
        assert!(outcome.stopped && outcome.checks.is_empty());
        assert_eq!(python.0.borrow().runs, 0);
        // An empty dataset is finished, not stopped.
        let outcome = block_on(verify_dataset(&python, &[], Limits::default(), &CancelToken::new(), &mut |_, _| {}));
        assert!(!outcome.stopped);
    }
}
