//! The Python pool's bookkeeping, without a browser: which queued runs go to a worker as one
//! batch, which run of a batch is executing (the one whose deadline the page keeps), and what
//! becomes of a batch's other runs when a worker is stopped or dies. The edge (`mod.rs`) owns the
//! workers and timers and asks this module what to do.
//!
//! `R` is a run's reply channel; tests use plain values.

use std::collections::VecDeque;

use execbench_core::RunRequest;
use execbench_worker_protocol::{RunMessage, ToWorker};

/// At most this many runs go to a worker in one message: enough that the worker never waits for
/// the page between runs, few enough that the runs of a queue spread over every worker.
pub const MAX_BATCH: usize = 64;

/// A worker gets its next batch when this few of its runs are left, so it finds the next message
/// already waiting when it finishes (no idle round trip to the page between batches).
pub const REFILL_AT: usize = MAX_BATCH / 4;

/// A run's reply channel: a run nobody waits for any more (its job dropped it) is never sent.
pub trait Reply {
    fn is_wanted(&self) -> bool;
}

impl<T> Reply for futures::channel::oneshot::Sender<T> {
    fn is_wanted(&self) -> bool {
        !self.is_canceled()
    }
}

/// A run waiting for a worker.
pub struct Queued<R> {
    pub job: u64,
    pub request: RunRequest,
    pub reply: R,
}

/// A run sent to a worker. `reply` is `None` once it has been answered early (its job stopped);
/// the worker's result for it is then ignored.
pub struct InFlight<R> {
    pub id: u64,
    pub job: u64,
    pub request: RunRequest,
    pub reply: Option<R>,
}

/// The runs no worker has yet, in order.
pub struct RunQueue<R> {
    items: VecDeque<Queued<R>>,
    next_id: u64,
}

impl<R> Default for RunQueue<R> {
    fn default() -> Self {
        RunQueue { items: VecDeque::new(), next_id: 0 }
    }
}

/// How many of `queued` runs one of `workers` idle workers takes: an even share, at most
/// [`MAX_BATCH`], at least one.
pub fn batch_len(queued: usize, workers: usize) -> usize {
    queued.div_ceil(workers.max(1)).clamp(1, MAX_BATCH)
}

impl<R: Reply> RunQueue<R> {
    pub fn push(&mut self, job: u64, request: RunRequest, reply: R) {
        self.items.push_back(Queued { job, request, reply });
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The next batch for one of `workers` idle workers; runs nobody waits for are dropped on the
    /// way. Empty when nothing is queued.
    pub fn take_batch(&mut self, workers: usize) -> Batch<R> {
        self.items.retain(|q| q.reply.is_wanted());
        let n = if self.items.is_empty() { 0 } else { batch_len(self.items.len(), workers) };
        let runs = self
            .items
            .drain(..n)
            .map(|q| {
                self.next_id += 1;
                InFlight { id: self.next_id, job: q.job, request: q.request, reply: Some(q.reply) }
            })
            .collect();
        Batch { runs }
    }

    /// Runs a worker had but did not start go back to the front, in their order.
    pub fn put_back(&mut self, runs: Vec<InFlight<R>>) {
        for run in runs.into_iter().rev() {
            if let Some(reply) = run.reply {
                self.items.push_front(Queued { job: run.job, request: run.request, reply });
            }
        }
    }

    /// Removes `job`'s queued runs and returns their replies.
    pub fn remove_job(&mut self, job: u64) -> Vec<R> {
        let (mine, others): (VecDeque<_>, VecDeque<_>) = self.items.drain(..).partition(|q| q.job == job);
        self.items = others;
        mine.into_iter().map(|q| q.reply).collect()
    }

    pub fn remove_all(&mut self) -> Vec<R> {
        self.items.drain(..).map(|q| q.reply).collect()
    }
}

/// The runs a worker has, in order; the first is executing.
pub struct Batch<R> {
    runs: VecDeque<InFlight<R>>,
}

impl<R> Default for Batch<R> {
    fn default() -> Self {
        Batch { runs: VecDeque::new() }
    }
}

/// What the worker's answer for run `id` means.
pub struct Finished<R> {
    /// Where the result goes (`None`: nobody waits for it any more).
    pub reply: Option<R>,
    /// The time limit of the run the worker starts next, when the batch has one.
    pub next_limit_ms: Option<u32>,
}

impl<R> Batch<R> {
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Few enough runs left that the worker should get the next batch now.
    pub fn wants_more(&self) -> bool {
        self.runs.len() <= REFILL_AT
    }

    /// How many runs the worker has.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// `next` was sent after this batch: the worker runs it once this one is done.
    pub fn append(&mut self, next: Batch<R>) {
        self.runs.extend(next.runs);
    }

    /// The executing run: its id and time limit.
    pub fn running(&self) -> Option<(u64, u32)> {
        self.runs.front().map(|r| (r.id, r.request.limits.time_ms))
    }

    /// The message that hands this batch to a worker.
    pub fn message(&self) -> ToWorker {
        ToWorker { runs: self.runs.iter().map(|r| RunMessage { id: r.id, request: r.request.clone() }).collect() }
    }

    /// The worker answered run `id`. A worker answers in order, so `id` is the executing run;
    /// anything else is ignored (`None`).
    pub fn finish(&mut self, id: u64) -> Option<Finished<R>> {
        if self.runs.front().is_none_or(|r| r.id != id) {
            return None;
        }
        let done = self.runs.pop_front()?;
        Some(Finished { reply: done.reply, next_limit_ms: self.running().map(|(_, limit)| limit) })
    }

    /// The worker is gone (it died, overran its deadline or was stopped): the executing run is
    /// returned to be answered, the others to be queued again.
    pub fn abandon(&mut self) -> (Option<InFlight<R>>, Vec<InFlight<R>>) {
        let running = self.runs.pop_front();
        (running, self.runs.drain(..).collect())
    }

    /// Every run, answered with the same failure (the worker could not read the batch).
    pub fn take_all(&mut self) -> Vec<R> {
        self.runs.drain(..).filter_map(|r| r.reply).collect()
    }

    /// Stop for `job`: the replies of its runs that are waiting in this batch are returned to be
    /// answered now (their results will be ignored), and whether the executing run is `job`'s
    /// (then the worker must be replaced, the only way to interrupt Python).
    pub fn stop_job(&mut self, job: u64) -> (Vec<R>, bool) {
        let running_is_mine = self.runs.front().is_some_and(|r| r.job == job);
        let replies = self
            .runs
            .iter_mut()
            .skip(usize::from(running_is_mine))
            .filter(|r| r.job == job)
            .filter_map(|r| r.reply.take())
            .collect();
        (replies, running_is_mine)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::rc::Rc;

    use super::*;

    /// A reply that records nothing; `wanted` can be switched off as a dropped receiver would.
    #[derive(Clone, Debug, PartialEq)]
    struct Label(&'static str, Rc<Cell<bool>>);

    impl Reply for Label {
        fn is_wanted(&self) -> bool {
            self.1.get()
        }
    }

    fn label(name: &'static str) -> Label {
        Label(name, Rc::new(Cell::new(true)))
    }

    fn request(limit_ms: u32) -> RunRequest {
        let mut r = RunRequest::new("x = 1", "x");
        r.limits.time_ms = limit_ms;
        r
    }

    fn queue(jobs: &[(u64, &'static str)]) -> RunQueue<Label> {
        let mut q = RunQueue::default();
        for &(job, name) in jobs {
            q.push(job, request(1000), label(name));
        }
        q
    }

    fn names(replies: Vec<Label>) -> Vec<&'static str> {
        replies.into_iter().map(|l| l.0).collect()
    }

    #[test]
    fn batches_share_the_queue_evenly_up_to_the_cap() {
        // (queued, idle workers) -> runs in one batch
        let cases = [
            (0, 1, 1),
            (1, 4, 1),
            (10, 1, 10),
            (10, 2, 5),
            (11, 2, 6),
            (100, 1, MAX_BATCH),
            (800, 4, MAX_BATCH),
            (130, 3, 44),
        ];
        for (queued, workers, expected) in cases {
            assert_eq!(batch_len(queued, workers), expected, "{queued} queued over {workers} workers");
        }
    }

    #[test]
    fn a_batch_takes_runs_in_order_with_fresh_ids_and_skips_dropped_ones() {
        let mut q = queue(&[(1, "a"), (1, "b"), (2, "c"), (1, "d")]);
        q.items[1].reply.1.set(false);
        let batch = q.take_batch(1);
        assert_eq!(batch.runs.iter().map(|r| r.reply.as_ref().unwrap().0).collect::<Vec<_>>(), ["a", "c", "d"]);
        assert_eq!(batch.runs.iter().map(|r| r.id).collect::<Vec<_>>(), [1, 2, 3]);
        assert!(q.is_empty());
        let message = batch.message();
        assert_eq!(message.runs.iter().map(|r| r.id).collect::<Vec<_>>(), [1, 2, 3]);
        assert!(q.take_batch(2).is_empty());
    }

    #[test]
    fn results_come_in_order_and_move_the_deadline_to_the_next_run() {
        let mut q = RunQueue::default();
        q.push(1, request(100), label("a"));
        q.push(1, request(300), label("b"));
        let mut batch = q.take_batch(1);
        assert_eq!(batch.running(), Some((1, 100)));
        assert!(batch.finish(2).is_none(), "an answer out of order is ignored");
        let first = batch.finish(1).unwrap();
        assert_eq!((first.reply.unwrap().0, first.next_limit_ms), ("a", Some(300)));
        let second = batch.finish(2).unwrap();
        assert_eq!((second.reply.unwrap().0, second.next_limit_ms), ("b", None));
        assert!(batch.is_empty());
    }

    #[test]
    fn a_worker_gets_its_next_batch_before_it_runs_out() {
        let mut q = RunQueue::default();
        for i in 0..(MAX_BATCH + 10) {
            q.push(1, request(1000 + i as u32), label("r"));
        }
        let mut batch = q.take_batch(1);
        assert_eq!(batch.len(), MAX_BATCH);
        assert!(!batch.wants_more());
        while batch.len() > REFILL_AT {
            let id = batch.running().unwrap().0;
            batch.finish(id).unwrap();
        }
        assert!(batch.wants_more());
        let running = batch.running();
        let next = q.take_batch(1);
        assert_eq!(next.message().runs.len(), 10, "the message carries the new runs only");
        batch.append(next);
        assert_eq!((batch.len(), batch.running()), (REFILL_AT + 10, running), "the executing run is still the first");
        // In order to the end: the worker answers the appended runs after the first ones.
        let mut limits = Vec::new();
        while let Some((id, limit)) = batch.running() {
            limits.push(limit);
            batch.finish(id).unwrap();
        }
        assert!(limits.windows(2).all(|w| w[0] < w[1]), "{limits:?}");
    }

    #[test]
    fn a_dead_worker_fails_only_its_running_run_and_the_rest_go_back_first() {
        let mut q = queue(&[(1, "a"), (1, "b"), (1, "c"), (1, "d")]);
        let mut batch = q.take_batch(2);
        assert_eq!(batch.runs.len(), 2);
        let (running, rest) = batch.abandon();
        assert_eq!(running.unwrap().reply.unwrap().0, "a");
        q.put_back(rest);
        assert_eq!(names(q.remove_all()), ["b", "c", "d"]);
    }

    #[test]
    fn stop_answers_the_jobs_runs_and_keeps_the_others() {
        // (job of each run in the batch, job stopped) -> (answered now, worker replaced, put back)
        let cases: [(&[(u64, &str)], u64, &[&str], bool, &[&str]); 4] = [
            (&[(1, "a"), (2, "b"), (1, "c")], 1, &["a", "c"], true, &["b"]),
            (&[(2, "a"), (1, "b"), (2, "c")], 1, &["b"], false, &[]),
            (&[(2, "a"), (2, "b")], 1, &[], false, &[]),
            (&[(1, "a")], 1, &["a"], true, &[]),
        ];
        for (runs, job, answered, replaced, back) in cases {
            let runs: Vec<(u64, &'static str)> =
                runs.iter().map(|&(j, n)| (j, &*Box::leak(n.to_string().into_boxed_str()))).collect();
            let mut q = queue(&runs);
            let mut batch = q.take_batch(1);
            let (mut now, mine) = batch.stop_job(job);
            if mine {
                let (running, rest) = batch.abandon();
                now.insert(0, running.unwrap().reply.unwrap());
                q.put_back(rest);
            }
            assert_eq!(names(now), answered, "{runs:?}");
            assert_eq!(mine, replaced, "{runs:?}");
            assert_eq!(names(q.remove_all()), back, "{runs:?}");
        }
    }

    #[test]
    fn stop_takes_the_jobs_queued_runs_only() {
        let mut q = queue(&[(1, "a"), (2, "b"), (1, "c")]);
        assert_eq!(names(q.remove_job(1)), ["a", "c"]);
        assert_eq!(names(q.remove_all()), ["b"]);
    }
}
