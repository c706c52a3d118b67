//! REval's benchmark traced by execbench's engine and held against REval's own truths
//! (`execbench_trace_questions::reval`): every program input run with its trace, in the tasks
//! file's order, with progress and Stop.

use std::collections::BTreeMap;

use execbench_core::Limits;
use execbench_core::trace::TraceLimits;
use execbench_io::Python;
use execbench_io::cancel::CancelToken;
use execbench_io::stoppable::{Next, next_or_stopped};
use execbench_trace_questions::reval::{Agreement, ReferenceRow, RevalRun, our_row};
use futures::{FutureExt, StreamExt};

/// Traces each run within `limits`: its truths by REval's rules (one row a run, done ones only
/// after Stop), and their agreement with `reference`. `on_run` gets the count done so far.
pub async fn reval_agreement<P: Python>(
    python: &P,
    runs: &[RevalRun],
    reference: &BTreeMap<(String, usize), ReferenceRow>,
    limits: Limits,
    cancel: &CancelToken,
    on_run: &mut dyn FnMut(usize),
) -> (Agreement, Vec<ReferenceRow>) {
    let mut agreement = Agreement::default();
    let mut ours = Vec::new();
    let mut results = futures::stream::iter(runs)
        .map(|run| {
            let request = run.request().with_limits(limits).traced(TraceLimits::default());
            python.run(request).map(move |result| (run, result))
        })
        .buffered(python.runs_at_once().max(1));
    while let Next::Item((run, result)) = next_or_stopped(&mut results, cancel).await {
        ours.push(our_row(run, &result.outcome, result.trace.as_ref()));
        let theirs = reference.get(&(run.task_id.clone(), run.input_idx));
        agreement.add(run, &result.outcome, result.trace.as_ref(), theirs);
        on_run(ours.len());
    }
    (agreement, ours)
}
