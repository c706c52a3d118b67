//! The Python pool's bookkeeping, without a browser: which queued runs go to a worker as one
//! batch, which run of a batch is the first unanswered (the one whose deadline the page keeps),
//! and what becomes of a batch's runs when a worker is stopped, dies or overruns a deadline. The
//! edge (`mod.rs`) owns the workers and timers and asks this module what to do.
//!
//! A worker posts results in groups (`execbench_worker_protocol::Outbox`), so when the page gives
//! up on a stuck worker the first unanswered run may have finished: the runaway is one of the
//! unanswered runs, and those before it finished within moments of the last message. Unless the
//! culprit is certain (a single unanswered run, or a batch answered run by run), every unanswered
//! run goes back to the queue as a suspect; suspects are sent again with `report_each`, where
//! the runaway is found exactly, and nothing is ever answered with another run's failure.
//!
//! `R` is a run's reply channel; tests use plain values.

use std::collections::VecDeque;

use execbench_core::RunRequest;
use execbench_worker_protocol::{RunMessage, ToWorker};

/// At most this many runs go to a worker in one message.
pub const MAX_BATCH: usize = 64;

/// A batch holds about this much work (by the runs' recent pace): enough that the worker never
/// waits for the page between runs, little enough that the runs of a queue spread over every
/// worker and no worker is left with a long tail while the others idle.
pub const BATCH_MS: f64 = 50.0;

/// A worker gets its next batch while about this much work is left in it, so it finds the next
/// message already waiting when it finishes: more than the protocol's `FLUSH_MS` (results come
/// that far apart) plus a round trip through a busy page.
pub const REFILL_MS: f64 = 25.0;

/// How long runs take lately, from their results: sizes batches to [`BATCH_MS`] of work.
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    ms_per_run: f64,
}

impl Default for Pace {
    fn default() -> Self {
        Pace { ms_per_run: 1.0 }
    }
}

impl Pace {
    /// A run took `elapsed_ms`; a moving average, so one slow run does not size every batch.
    pub fn observe(&mut self, elapsed_ms: f64) {
        if elapsed_ms.is_finite() && elapsed_ms >= 0.0 {
            self.ms_per_run = 0.9 * self.ms_per_run + 0.1 * elapsed_ms.max(0.01);
        }
    }

    /// The most runs one batch should carry.
    pub fn batch_cap(&self) -> usize {
        ((BATCH_MS / self.ms_per_run) as usize).clamp(1, MAX_BATCH)
    }

    /// A worker with this few runs left gets the next batch.
    pub fn refill_at(&self) -> usize {
        ((REFILL_MS / self.ms_per_run).ceil() as usize).clamp(1, MAX_BATCH)
    }

    /// Runs this slow are answered one by one anyway (each outlasts the protocol's `FLUSH_MS`),
    /// so their batches ask for it, and a runaway among them is known the first time.
    pub fn report_each(&self) -> bool {
        self.ms_per_run >= execbench_worker_protocol::FLUSH_MS
    }
}

/// A run's reply channel: a run nobody waits for any more (its job dropped it) is never sent.
pub trait Reply {
    fn is_wanted(&self) -> bool;
}

impl<T> Reply for futures::channel::oneshot::Sender<T> {
    fn is_wanted(&self) -> bool {
        !self.is_canceled()
    }
}

/// Added to a run's time limit before the page gives up on its worker.
pub const GRACE_MS: u32 = 500;

/// A run waiting for a worker. A `suspect` was unanswered when a worker was given up on: it goes
/// to a worker in a batch answered run by run.
pub struct Queued<R> {
    pub job: u64,
    pub request: RunRequest,
    pub reply: R,
    pub suspect: bool,
}

/// A run sent to a worker. `reply` is `None` once it has been answered early (its job stopped);
/// the worker's result for it is then ignored. `report_each`: its batch is answered run by run.
pub struct InFlight<R> {
    pub id: u64,
    pub job: u64,
    pub request: RunRequest,
    pub reply: Option<R>,
    pub report_each: bool,
}

/// Why the page gives up on a worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GiveUp {
    /// The first unanswered run's job was stopped: that run is answered as stopped.
    Stopped,
    /// A deadline passed or the worker died: the run that caused it is answered with it, when the
    /// page can know which one it is.
    Stuck,
}

/// A given-up worker's runs: the one to answer with the failure, and those to queue again.
pub struct Abandoned<R> {
    pub culprit: Option<InFlight<R>>,
    pub requeue: Vec<InFlight<R>>,
}

/// The runs no worker has yet, in order, and the pace of the runs lately.
pub struct RunQueue<R> {
    items: VecDeque<Queued<R>>,
    next_id: u64,
    pub pace: Pace,
}

impl<R> Default for RunQueue<R> {
    fn default() -> Self {
        RunQueue { items: VecDeque::new(), next_id: 0, pace: Pace::default() }
    }
}

/// How many of `queued` runs one of `workers` idle workers takes: an even share, at most `cap`,
/// at least one.
pub fn batch_len(queued: usize, workers: usize, cap: usize) -> usize {
    queued.div_ceil(workers.max(1)).clamp(1, cap.max(1))
}

impl<R: Reply> RunQueue<R> {
    pub fn push(&mut self, job: u64, request: RunRequest, reply: R) {
        self.items.push_back(Queued { job, request, reply, suspect: false });
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The next batch for one of `workers` idle workers; runs nobody waits for are dropped on the
    /// way. Empty when nothing is queued. Suspects (always at the front) go together, answered run
    /// by run; other runs go in an even share of the queue.
    pub fn take_batch(&mut self, workers: usize) -> Batch<R> {
        self.items.retain(|q| q.reply.is_wanted());
        let suspects = self.items.iter().take_while(|q| q.suspect).count();
        let n = match (suspects, self.items.len()) {
            (_, 0) => 0,
            (0, queued) => batch_len(queued, workers, self.pace.batch_cap()),
            (suspects, _) => suspects,
        };
        let slow = self.pace.report_each();
        let runs = self
            .items
            .drain(..n)
            .map(|q| {
                self.next_id += 1;
                let report_each = q.suspect || slow;
                InFlight { id: self.next_id, job: q.job, request: q.request, reply: Some(q.reply), report_each }
            })
            .collect();
        Batch { runs }
    }

    /// Runs of a given-up worker go back to the front, in their order; `suspect` as they go.
    pub fn put_back(&mut self, runs: Vec<InFlight<R>>, suspect: bool) {
        for run in runs.into_iter().rev() {
            if let Some(reply) = run.reply {
                self.items.push_front(Queued { job: run.job, request: run.request, reply, suspect });
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

    /// Few enough runs left (`refill_at`, from the pace) that the worker should get the next
    /// batch now.
    pub fn wants_more(&self, refill_at: usize) -> bool {
        self.runs.len() <= refill_at
    }

    /// How many runs the worker has.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// `next` was sent after this batch: the worker runs it once this one is done.
    pub fn append(&mut self, next: Batch<R>) {
        self.runs.extend(next.runs);
    }

    /// The first unanswered run (executing, or done with its result not yet posted): its id and
    /// time limit.
    pub fn running(&self) -> Option<(u64, u32)> {
        self.runs.front().map(|r| (r.id, r.request.limits.time_ms))
    }

    /// How long after the worker's latest message the page waits before it gives up on the
    /// worker: the first unanswered run's limit and a grace period. The runs before it in the
    /// worker finished within the protocol's `FLUSH_MS` of that message, far less than the grace.
    pub fn deadline_ms(&self) -> Option<u32> {
        self.running().map(|(_, limit_ms)| limit_ms.saturating_add(GRACE_MS))
    }

    /// The message that hands this batch to a worker.
    pub fn message(&self) -> ToWorker {
        ToWorker {
            runs: self.runs.iter().map(|r| RunMessage { id: r.id, request: r.request.clone() }).collect(),
            report_each: self.runs.front().is_some_and(|r| r.report_each),
        }
    }

    /// The worker answered run `id`. A worker answers in order, so `id` is the first unanswered
    /// run; anything else is ignored (`None`).
    pub fn finish(&mut self, id: u64) -> Option<Finished<R>> {
        if self.runs.front().is_none_or(|r| r.id != id) {
            return None;
        }
        let done = self.runs.pop_front()?;
        Some(Finished { reply: done.reply, next_limit_ms: self.running().map(|(_, limit)| limit) })
    }

    /// The page gives up on the worker. Stopped: the first unanswered run is answered as stopped,
    /// the rest queued again. Stuck: the culprit is the first unanswered run when that is certain
    /// (it was sent to be answered on its own, or it is the only run left); otherwise every run
    /// goes back as a suspect, to be run again one answer at a time.
    pub fn abandon(&mut self, why: GiveUp) -> Abandoned<R> {
        let certain = self.runs.len() == 1 || self.runs.front().is_some_and(|r| r.report_each);
        if why == GiveUp::Stuck && !certain {
            return Abandoned { culprit: None, requeue: self.runs.drain(..).collect() };
        }
        let culprit = self.runs.pop_front();
        Abandoned { culprit, requeue: self.runs.drain(..).collect() }
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
        // (queued, idle workers, cap) -> runs in one batch
        let cases = [
            (0, 1, 64, 1),
            (1, 4, 64, 1),
            (10, 1, 64, 10),
            (10, 2, 64, 5),
            (11, 2, 64, 6),
            (100, 1, 64, 64),
            (800, 4, 64, 64),
            (130, 3, 64, 44),
            (800, 1, 3, 3),
            (800, 1, 0, 1),
        ];
        for (queued, workers, cap, expected) in cases {
            assert_eq!(batch_len(queued, workers, cap), expected, "{queued} queued over {workers} workers, cap {cap}");
        }
    }

    #[test]
    fn the_pace_sizes_batches_to_their_work() {
        // (run times observed, each 100 times) -> (batch cap, refill at)
        let cases: [(&[f64], usize, usize); 5] = [
            (&[], 50, 25),
            (&[0.1], MAX_BATCH, MAX_BATCH),
            (&[2.0], 25, 13),
            (&[100.0], 1, 1),
            // Not a time: ignored.
            (&[f64::NAN, -1.0], 50, 25),
        ];
        for (times, cap, refill_at) in cases {
            let mut pace = Pace::default();
            for &t in times {
                for _ in 0..100 {
                    pace.observe(t);
                }
            }
            assert_eq!((pace.batch_cap(), pace.refill_at()), (cap, refill_at), "{times:?}");
            assert_eq!(pace.report_each(), cap < 13, "{times:?}");
        }
        // One slow run among fast ones moves the pace, without sizing every batch at one run.
        let mut pace = Pace::default();
        pace.observe(2000.0);
        assert_eq!(pace.batch_cap(), 1);
        for _ in 0..60 {
            pace.observe(0.2);
        }
        assert!(pace.batch_cap() > 10, "{pace:?}");
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
        assert!(!message.report_each);
        assert!(q.take_batch(2).is_empty());
        // Slow runs: answered one by one.
        q.push(1, request(1000), label("e"));
        for _ in 0..50 {
            q.pace.observe(30.0);
        }
        assert!(q.take_batch(1).message().report_each);
    }

    #[test]
    fn results_come_in_order_and_move_the_deadline_to_the_next_run() {
        let mut q = RunQueue::default();
        q.push(1, request(100), label("a"));
        q.push(1, request(300), label("b"));
        let mut batch = q.take_batch(1);
        assert_eq!((batch.running(), batch.deadline_ms()), (Some((1, 100)), Some(100 + GRACE_MS)));
        assert!(batch.finish(2).is_none(), "an answer out of order is ignored");
        let first = batch.finish(1).unwrap();
        assert_eq!((first.reply.unwrap().0, first.next_limit_ms), ("a", Some(300)));
        assert_eq!(batch.deadline_ms(), Some(300 + GRACE_MS));
        let second = batch.finish(2).unwrap();
        assert_eq!((second.reply.unwrap().0, second.next_limit_ms), ("b", None));
        assert!(batch.is_empty());
        assert_eq!(batch.deadline_ms(), None);
    }

    #[test]
    fn a_worker_gets_its_next_batch_before_it_runs_out() {
        let mut q = RunQueue::default();
        for i in 0..(MAX_BATCH + 10) {
            q.push(1, request(1000 + i as u32), label("r"));
        }
        q.pace.observe(0.5);
        let (cap, refill_at) = (q.pace.batch_cap(), q.pace.refill_at());
        assert!(refill_at < cap, "{cap} {refill_at}");
        let mut batch = q.take_batch(1);
        assert_eq!(batch.len(), cap);
        assert!(!batch.wants_more(refill_at));
        while batch.len() > refill_at {
            let id = batch.running().unwrap().0;
            batch.finish(id).unwrap();
        }
        assert!(batch.wants_more(refill_at));
        let running = batch.running();
        let next = q.take_batch(1);
        let sent = next.message().runs.len();
        assert_eq!(sent, (MAX_BATCH + 10 - cap).min(cap), "the message carries the new runs only");
        batch.append(next);
        assert_eq!((batch.len(), batch.running()), (refill_at + sent, running), "the first unanswered run stays first");
        // In order to the end: the worker answers the appended runs after the first ones.
        let mut limits = Vec::new();
        while let Some((id, limit)) = batch.running() {
            limits.push(limit);
            batch.finish(id).unwrap();
        }
        assert!(limits.windows(2).all(|w| w[0] < w[1]), "{limits:?}");
    }

    /// Names of the runs given back, and the culprit's.
    fn abandoned(a: Abandoned<Label>) -> (Option<&'static str>, Vec<&'static str>) {
        (a.culprit.map(|r| r.reply.unwrap().0), a.requeue.into_iter().map(|r| r.reply.unwrap().0).collect())
    }

    #[test]
    #[allow(clippy::type_complexity)] // a table of cases, one tuple a row
    fn giving_up_on_a_worker_blames_a_run_only_when_it_is_certain() {
        // (runs left in the worker, sent to be answered one by one, why) -> (culprit, queued again)
        let cases: [(&[&'static str], bool, GiveUp, Option<&str>, &[&str]); 5] = [
            // Results come in groups: any unanswered run may be the runaway.
            (&["a", "b", "c"], false, GiveUp::Stuck, None, &["a", "b", "c"]),
            // The only run left is the runaway.
            (&["a"], false, GiveUp::Stuck, Some("a"), &[]),
            // Answered run by run: the first unanswered one is executing.
            (&["a", "b"], true, GiveUp::Stuck, Some("a"), &["b"]),
            // Stop: the first unanswered run is the stopped job's, answered as stopped.
            (&["a", "b"], false, GiveUp::Stopped, Some("a"), &["b"]),
            (&["a", "b"], true, GiveUp::Stopped, Some("a"), &["b"]),
        ];
        for (runs, report_each, why, culprit, requeue) in cases {
            let mut q = RunQueue::default();
            for &name in runs {
                q.push(1, request(1000), label(name));
            }
            if report_each {
                let taken = q.take_batch(1);
                q.put_back(taken.runs.into(), true);
            }
            let mut batch = q.take_batch(1);
            assert_eq!(batch.message().report_each, report_each);
            let got = abandoned(batch.abandon(why));
            assert_eq!(got, (culprit, requeue.to_vec()), "{runs:?} report_each {report_each} {why:?}");
        }
    }

    #[test]
    fn a_runaway_among_grouped_results_is_found_by_running_the_suspects_one_answer_at_a_time() {
        let mut q = queue(&[(1, "a"), (1, "b"), (1, "c"), (1, "d")]);
        // The worker ran a and b (their results held), then stuck on c.
        let mut first = q.take_batch(1);
        let a = first.abandon(GiveUp::Stuck);
        assert!(a.culprit.is_none());
        q.put_back(a.requeue, true);
        q.push(1, request(1000), label("e"));
        // The suspects go together, answered run by run; the run queued after them does not join.
        let mut second = q.take_batch(1);
        assert!(second.message().report_each);
        assert_eq!(second.len(), 4);
        for expected in ["a", "b"] {
            let id = second.running().unwrap().0;
            assert_eq!(second.finish(id).unwrap().reply.unwrap().0, expected);
        }
        // c overruns again: now it is certain, and d goes back as an ordinary run.
        let b = second.abandon(GiveUp::Stuck);
        assert_eq!(abandoned(Abandoned { culprit: b.culprit, requeue: Vec::new() }).0, Some("c"));
        q.put_back(b.requeue, false);
        let third = q.take_batch(1);
        assert!(!third.message().report_each);
        assert_eq!(third.runs.iter().map(|r| r.reply.as_ref().unwrap().0).collect::<Vec<_>>(), ["d", "e"]);
    }

    #[test]
    #[allow(clippy::type_complexity)] // a table of cases, one tuple a row
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
                let abandoned = batch.abandon(GiveUp::Stopped);
                now.insert(0, abandoned.culprit.unwrap().reply.unwrap());
                q.put_back(abandoned.requeue, false);
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
