//! Filtering generated candidates with an asynchronous Python, for the page's Build job and the
//! command line: the static rules first (no Python), then one instrumented run per candidate that
//! passed them (`execbench_recipe::filter`), one at a time, with progress and Stop.

use execbench_core::{RunRequest, RunResult};
use execbench_recipe::{Candidate, Judged, Rejection, Rule, Verdict};
use futures::StreamExt;

use execbench_io::Python;
use execbench_io::cancel::CancelToken;
use execbench_io::stoppable::{Next, next_or_stopped};

/// Kept and rejected counts so far, rejections per rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterTally {
    pub kept: usize,
    /// Indexed like `Rule::ALL`.
    rejected: [usize; Rule::ALL.len()],
}

impl Default for FilterTally {
    fn default() -> Self {
        FilterTally { kept: 0, rejected: [0; Rule::ALL.len()] }
    }
}

impl FilterTally {
    pub fn add(&mut self, verdict: &Verdict) {
        match verdict {
            Verdict::Kept { .. } => self.kept += 1,
            Verdict::Rejected(r) => {
                if let Some(i) = Rule::ALL.iter().position(|&rule| rule == r.rule) {
                    self.rejected[i] += 1;
                }
            }
        }
    }

    pub fn rejected_by(&self, rule: Rule) -> usize {
        Rule::ALL.iter().position(|&r| r == rule).map_or(0, |i| self.rejected[i])
    }

    pub fn rejected(&self) -> usize {
        self.rejected.iter().sum()
    }

    /// Candidates judged.
    pub fn judged(&self) -> usize {
        self.kept + self.rejected()
    }

    /// The rules that rejected any, with their counts, in `Rule::ALL` order.
    pub fn by_rule(&self) -> Vec<(Rule, usize)> {
        Rule::ALL.iter().zip(self.rejected).filter(|(_, n)| *n > 0).map(|(&rule, n)| (rule, n)).collect()
    }

    /// `kept 712, rejected 88: syntax 3, float 12, ...` (rules by stable id, in pipeline order).
    pub fn summary(&self) -> String {
        let mut line = format!("kept {}, rejected {}", self.kept, self.rejected());
        let rules: Vec<String> = self.by_rule().iter().map(|(rule, n)| format!("{} {n}", rule.id())).collect();
        if !rules.is_empty() {
            line.push_str(": ");
            line.push_str(&rules.join(", "));
        }
        line
    }
}

/// A filtering, whole or stopped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilterOutcome {
    /// The candidates judged, in input order.
    pub judged: Vec<Judged>,
    pub tally: FilterTally,
    /// Stop came before the last candidate's verdict.
    pub stopped: bool,
}

/// The filter's three steps, so the loop can be tested apart from the rules.
trait Stages {
    fn check_static(&self, candidate: &Candidate) -> Option<Rejection>;
    fn request(&self, candidate: &Candidate) -> RunRequest;
    fn judge(&self, candidate: &Candidate, result: &RunResult) -> Verdict;
    /// The request again, when `result` says the engine must load something first.
    fn again(&self, _request: &RunRequest, _result: &RunResult) -> Option<RunRequest> {
        None
    }
}

struct TheFilter;

impl Stages for TheFilter {
    fn check_static(&self, candidate: &Candidate) -> Option<Rejection> {
        execbench_recipe::check_static(candidate)
    }

    fn request(&self, candidate: &Candidate) -> RunRequest {
        execbench_recipe::runtime_request(candidate)
    }

    fn judge(&self, candidate: &Candidate, result: &RunResult) -> Verdict {
        execbench_recipe::judge_run(candidate, result)
    }

    fn again(&self, request: &RunRequest, result: &RunResult) -> Option<RunRequest> {
        execbench_recipe::harness_missing(result).then(|| execbench_recipe::loading_harness(request.clone()))
    }
}

/// Judges every candidate in order: the static rules, then (when they pass) the instrumented run.
/// `on_judged` gets the tally so far and the newest verdict. A run that Stop cuts short is no
/// verdict: it is dropped, as is anything that finishes after Stop.
pub async fn filter_candidates<P: Python>(
    python: &P,
    candidates: &[Candidate],
    cancel: &CancelToken,
    on_judged: &mut dyn FnMut(&FilterTally, &Judged),
) -> FilterOutcome {
    filter_with(&TheFilter, python, candidates, cancel, on_judged).await
}

async fn filter_with<S: Stages, P: Python>(
    stages: &S,
    python: &P,
    candidates: &[Candidate],
    cancel: &CancelToken,
    on_judged: &mut dyn FnMut(&FilterTally, &Judged),
) -> FilterOutcome {
    let mut outcome = FilterOutcome::default();
    // Candidates are run as many at a time as the Python takes; judged in order.
    let mut verdicts = futures::stream::iter(candidates)
        .map(|candidate| async move {
            let verdict = match stages.check_static(candidate) {
                Some(rejection) => Verdict::Rejected(rejection),
                None => {
                    let request = stages.request(candidate);
                    let mut result = python.run(request.clone()).await;
                    // A new (or restarted) engine loads the harness once, then runs the same request.
                    if let Some(again) = stages.again(&request, &result) {
                        result = python.run(again).await;
                    }
                    stages.judge(candidate, &result)
                }
            };
            (candidate, verdict)
        })
        .buffered(python.runs_at_once().max(1));
    while let Next::Item((candidate, verdict)) = next_or_stopped(&mut verdicts, cancel).await {
        outcome.tally.add(&verdict);
        let judged = Judged { candidate: candidate.clone(), verdict };
        on_judged(&outcome.tally, &judged);
        outcome.judged.push(judged);
    }
    outcome.stopped = outcome.judged.len() < candidates.len();
    outcome
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use execbench_core::{Outcome, PythonEngine};
    use futures::executor::block_on;

    use super::*;
    use crate::stopped_at::StoppedAt;
    use execbench_io::BlockingPython;

    /// Stand-in rules: code containing `import` breaks a static rule; a run that raises or times
    /// out breaks a runtime rule; any value is kept as the output.
    struct FakeStages;

    impl Stages for FakeStages {
        fn check_static(&self, c: &Candidate) -> Option<Rejection> {
            c.code.contains("import").then(|| Rejection::new(Rule::Import, "import"))
        }

        fn request(&self, c: &Candidate) -> RunRequest {
            RunRequest::new(c.code.clone(), format!("f({})", c.input))
        }

        fn judge(&self, _: &Candidate, result: &RunResult) -> Verdict {
            match &result.outcome {
                Outcome::Value { repr, .. } => Verdict::Kept { output: repr.clone() },
                Outcome::TimedOut { .. } => Verdict::Rejected(Rejection::new(Rule::TimedOut, "")),
                Outcome::Raised { kind, .. } => Verdict::Rejected(Rejection::new(Rule::Raised, kind.clone())),
                _ => Verdict::Rejected(Rejection::new(Rule::EngineFailure, "")),
            }
        }
    }

    /// Answers by the program's text, no interpreter: `loop` times out, `boom` raises, anything
    /// else returns its input. Counts its runs.
    #[derive(Default)]
    struct TextEngine {
        runs: usize,
    }

    impl PythonEngine for TextEngine {
        fn run(&mut self, request: &RunRequest) -> RunResult {
            self.runs += 1;
            let outcome = if request.program.contains("loop") {
                Outcome::TimedOut { limit_ms: request.limits.time_ms }
            } else if request.program.contains("boom") {
                Outcome::Raised {
                    kind: "ValueError".into(),
                    message: "boom".into(),
                    phase: "expression".into(),
                    traceback: String::new(),
                }
            } else {
                Outcome::Value {
                    repr: request.expression.trim_start_matches("f(").trim_end_matches(')').to_string(),
                    matches: None,
                }
            };
            RunResult { outcome, stdout: String::new(), elapsed_ms: 1.0, trace: None }
        }
    }

    fn candidate(id: &str, code: &str) -> Candidate {
        Candidate { id: id.into(), method: None, code: code.into(), input: format!("'{id}'") }
    }

    #[test]
    fn every_candidate_is_judged_in_order_and_static_rejections_skip_python() {
        let candidates = vec![
            candidate("a", "ok"),
            candidate("b", "import os"),
            candidate("c", "loop"),
            candidate("d", "boom"),
            candidate("e", "ok"),
            candidate("f", "import re"),
        ];
        let python = BlockingPython::new(TextEngine::default());
        let mut seen = Vec::new();
        let outcome = block_on(filter_with(&FakeStages, &python, &candidates, &CancelToken::new(), &mut |tally, j| {
            seen.push((tally.judged(), tally.kept, j.candidate.id.clone()))
        }));
        assert!(!outcome.stopped);
        let want = [(1, 1, "a"), (2, 1, "b"), (3, 1, "c"), (4, 1, "d"), (5, 2, "e"), (6, 2, "f")];
        assert_eq!(seen, want.map(|(n, k, id)| (n, k, id.to_string())));
        assert_eq!(python.0.borrow().runs, 4, "the two static rejections never reach Python");
        let verdicts: Vec<Option<Rule>> =
            outcome.judged.iter().map(|j| j.verdict.rejection().map(|r| r.rule)).collect();
        assert_eq!(
            verdicts,
            [None, Some(Rule::Import), Some(Rule::TimedOut), Some(Rule::Raised), None, Some(Rule::Import)]
        );
        assert_eq!(outcome.judged[0].verdict, Verdict::Kept { output: "'a'".into() });
        assert_eq!(outcome.tally.summary(), "kept 2, rejected 4: import 2, timed_out 1, raised 1");
        // Over a pool the runs overlap; the verdicts and their order are the same.
        let pool = crate::overlapping::Overlapping::new(TextEngine::default(), 3);
        let mut in_pool = Vec::new();
        let pooled = block_on(filter_with(&FakeStages, &pool, &candidates, &CancelToken::new(), &mut |tally, j| {
            in_pool.push((tally.judged(), tally.kept, j.candidate.id.clone()))
        }));
        assert_eq!((pooled.judged, in_pool), (outcome.judged, seen));
        assert!(pool.max_in_flight.get() > 1);
    }

    #[test]
    fn tally_summaries() {
        let rejected = |rule| Verdict::Rejected(Rejection::new(rule, ""));
        let kept = Verdict::Kept { output: "1".into() };
        // (verdicts, summary line)
        let cases: Vec<(Vec<Verdict>, &str)> = vec![
            (vec![], "kept 0, rejected 0"),
            (vec![kept.clone(), kept.clone()], "kept 2, rejected 0"),
            (
                vec![rejected(Rule::Float), rejected(Rule::Syntax), kept.clone(), rejected(Rule::Float)],
                "kept 1, rejected 3: syntax 1, float 2",
            ),
            (
                vec![rejected(Rule::EngineFailure), rejected(Rule::Unparseable)],
                "kept 0, rejected 2: unparseable 1, engine_failure 1",
            ),
        ];
        for (verdicts, line) in cases {
            let mut tally = FilterTally::default();
            for v in &verdicts {
                tally.add(v);
            }
            assert_eq!(tally.summary(), line);
            assert_eq!(tally.judged(), verdicts.len());
            assert_eq!(tally.by_rule().iter().map(|(_, n)| n).sum::<usize>(), tally.rejected());
        }
    }

    #[test]
    fn a_run_cut_short_by_stop_is_no_verdict() {
        let candidates: Vec<Candidate> =
            (0..10).map(|i| candidate(&format!("c{i}"), if i == 1 { "import x" } else { "ok" })).collect();
        let cancel = CancelToken::new();
        let python = StoppedAt::new(TextEngine::default(), &cancel, 4);
        let mut calls = 0;
        let outcome = block_on(filter_with(&FakeStages, &python, &candidates, &cancel, &mut |_, _| calls += 1));
        assert!(outcome.stopped);
        // c0, c1 (static), c2, c3 judged; c4's run is the one Stop cut.
        assert_eq!((outcome.judged.len(), outcome.tally.kept, outcome.tally.rejected(), calls), (4, 3, 1, 4));
        assert_eq!(python.runs.get(), 4, "nothing runs after Stop");
    }

    struct Hangs;

    impl Python for Hangs {
        fn run(&self, _: RunRequest) -> impl std::future::Future<Output = RunResult> {
            std::future::pending()
        }
    }

    #[test]
    fn stop_ends_a_run_that_never_answers() {
        let candidates = vec![candidate("a", "import os"), candidate("b", "ok")];
        let cancel = CancelToken::new();
        let mut pool = futures::executor::LocalPool::new();
        let done = std::rc::Rc::new(Cell::new(None));
        let (flag, token) = (done.clone(), cancel.clone());
        use futures::task::LocalSpawnExt;
        pool.spawner()
            .spawn_local(async move {
                let outcome = filter_with(&FakeStages, &Hangs, &candidates, &token, &mut |_, _| {}).await;
                flag.set(Some((outcome.stopped, outcome.judged.len())));
            })
            .unwrap();
        pool.run_until_stalled();
        assert_eq!(done.get(), None);
        cancel.cancel();
        pool.run_until_stalled();
        assert_eq!(done.get(), Some((true, 1)), "the static verdict stays, the hung run is dropped");
    }

    #[test]
    fn a_cancelled_token_judges_nothing() {
        let cancel = CancelToken::new();
        cancel.cancel();
        let python = BlockingPython::new(TextEngine::default());
        // The real filter's entry point: nothing is judged, so its rules are never asked.
        let outcome = block_on(filter_candidates(
            &python,
            &[candidate("a", "ok"), candidate("b", "import os")],
            &cancel,
            &mut |_, _| {},
        ));
        assert!(outcome.stopped && outcome.judged.is_empty());
        assert_eq!(python.0.borrow().runs, 0);
        let outcome = block_on(filter_candidates(&python, &[], &CancelToken::new(), &mut |_, _| {}));
        assert!(!outcome.stopped && outcome.judged.is_empty());
        assert_eq!(outcome.tally, FilterTally::default());
    }
}
