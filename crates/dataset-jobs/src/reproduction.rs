//! Re-scoring a reproduction's results file with an asynchronous Python (the page's worker): every
//! row whose problem is in the dataset run once (`execbench_eval::reproduction`), in file order,
//! with progress and Stop.

use execbench_core::{Limits, Sample};
use execbench_eval::reproduction::{
    ProblemIndex, ReproductionReport, ReproductionRow, RescoredRow, judge, request_for,
};
use futures::StreamExt;

use execbench_io::Python;
use execbench_io::cancel::CancelToken;
use execbench_io::stoppable::{Next, next_or_stopped};

/// A re-scoring, whole or stopped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RescoreOutcome {
    pub report: ReproductionReport,
    /// Stop came before the last row's verdict.
    pub stopped: bool,
}

/// Re-scores `rows` against `samples`. `on_row` gets the rows handled so far (run or unknown) and
/// the newest verdict. A run that Stop cuts short is no verdict and is dropped.
pub async fn rescore_reproductions<P: Python>(
    python: &P,
    rows: &[ReproductionRow],
    samples: &[Sample],
    limits: Limits,
    cancel: &CancelToken,
    on_row: &mut dyn FnMut(usize, &ReproductionReport, Option<&RescoredRow>),
) -> RescoreOutcome {
    let index = ProblemIndex::new(samples);
    let mut outcome = RescoreOutcome::default();
    // Runs are asked for as many at a time as the Python takes; rows are judged in order.
    let index = &index;
    let mut runs = futures::stream::iter(rows)
        .map(|row| async move {
            match index.get(&row.problem_id) {
                Some(sample) => (row, Some((sample, python.run(request_for(row, sample, limits)).await))),
                None => (row, None),
            }
        })
        .buffered(python.runs_at_once().max(1));
    let mut done = 0;
    loop {
        let (row, ran) = match next_or_stopped(&mut runs, cancel).await {
            Next::Item(next) => next,
            Next::Done => break,
            Next::Stopped => {
                outcome.stopped = true;
                break;
            }
        };
        done += 1;
        let Some((sample, result)) = ran else {
            outcome.report.add_unknown(&row.problem_id);
            on_row(done, &outcome.report, None);
            continue;
        };
        let rescored = judge(row, sample, &result);
        outcome.report.add(rescored.clone());
        on_row(done, &outcome.report, Some(&rescored));
    }
    outcome
}

#[cfg(test)]
mod tests {
    use execbench_core::load_jsonl;
    use execbench_eval::reproduction::read_reproductions;
    use futures::executor::block_on;

    use super::*;
    use crate::verify::tests::RuleEngine;
    use execbench_io::BlockingPython;

    /// The same verdicts as the blocking re-scoring, in order, unknown problems counted; Stop ends it.
    #[test]
    fn rows_are_rescored_in_order_and_stop_ends_the_loop() {
        let dataset = load_jsonl(
            "d.jsonl",
            "{\"id\": \"a\", \"code\": \"def f(): pass\", \"call\": \"1\", \"output\": \"1\"}\n{\"id\": \"b\", \"question_id\": 7, \"code\": \"def f(): pass\", \"call\": \"boom()\", \"output\": \"1\"}",
        );
        assert!(dataset.is_clean(), "{:?}", dataset.errors);
        let rows: Vec<String> = [("\"a\"", true), ("7", true), ("8", false), ("\"a\"", false)]
            .iter()
            .map(|(id, ok)| {
                format!(
                    r#"{{"problem_id": {id}, "model_name": "m", "generated_code": "def f(): pass", "success": {ok}}}"#
                )
            })
            .collect();
        let read = read_reproductions("r.jsonl", &rows.join("\n"));
        let python = BlockingPython::new(RuleEngine::default());
        let mut seen = Vec::new();
        let outcome = block_on(rescore_reproductions(
            &python,
            &read.rows,
            &dataset.samples,
            Limits::default(),
            &CancelToken::new(),
            &mut |done, _, row| seen.push((done, row.map(|r| r.execbench_success))),
        ));
        assert!(!outcome.stopped);
        assert_eq!(seen, [(1, Some(true)), (2, Some(false)), (3, None), (4, Some(true))]);
        let blocking = execbench_eval::reproduction::rescore_with(
            &mut RuleEngine::default(),
            &read.rows,
            &dataset.samples,
            Limits::default(),
        );
        assert_eq!(outcome.report, blocking);
        assert_eq!(blocking.disagreements().map(|r| r.line).collect::<Vec<_>>(), [2, 4]);
        assert_eq!(blocking.rescored[1].reason.as_deref(), Some("raised ValueError: boom"));
        // Over a pool the runs overlap and the report is the same, rows in order.
        let pool = crate::overlapping::Overlapping::new(RuleEngine::default(), 3);
        let mut in_pool = Vec::new();
        let pooled = block_on(rescore_reproductions(
            &pool,
            &read.rows,
            &dataset.samples,
            Limits::default(),
            &CancelToken::new(),
            &mut |done, _, row| in_pool.push((done, row.map(|r| r.execbench_success))),
        ));
        assert_eq!((pooled.report, in_pool), (blocking.clone(), seen.clone()));
        assert!(pool.max_in_flight.get() > 1);

        let cancel = CancelToken::new();
        cancel.cancel();
        let stopped = block_on(rescore_reproductions(
            &python,
            &read.rows,
            &dataset.samples,
            Limits::default(),
            &cancel,
            &mut |_, _, _| {},
        ));
        assert!(stopped.stopped && stopped.report.rescored.is_empty());
    }
}
