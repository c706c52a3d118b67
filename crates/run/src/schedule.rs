//! The one loop that keeps API work in flight, shared by an evaluation's samples
//! (`run_evaluation`) and a generation's requests (`run_generation`). It starts work while there is room: at most the
//! model's concurrency plus two items at once (enough to keep every request slot of the
//! [`crate::gate::Gate`] busy while finished ones are scored), plus one for each request waiting
//! to be sent again (a rate limit's wait holds no slot: another sample takes it), and under a
//! spend cap only an item
//! whose worst-case cost fits beside what the items in flight have reserved. It hands each
//! finished item to the caller, reports the status every [`TICK_MS`] while it waits, and ends on
//! Stop, on a provider error that stops the run, on a failed finish, or at the cap. Work still in
//! flight when it ends is dropped, which aborts its requests.

use std::future::Future;

use execbench_providers::ProviderError;
use futures::stream::{FuturesUnordered, StreamExt};
use futures::{FutureExt, select_biased};

use crate::cancel::CancelToken;
use crate::cost::SpendCap;
use crate::io::Clock;
use crate::status::Live;

/// How often the status is sent while nothing else happens (a rate-limit countdown moves).
pub(crate) const TICK_MS: u64 = 250;

/// How a run ended (an evaluation's, a generation's).
#[derive(Clone, Debug, PartialEq)]
pub enum RunEnd {
    Finished,
    /// Stop was pressed: the samples or requests in flight were cancelled and have no record.
    Stopped,
    /// The provider refused in a way no retry fixes; the message says what to do.
    ProviderStopped(ProviderError),
    /// A record could not be stored: the run stopped rather than lose results.
    StoreFailed(String),
    /// The next request could have taken spending past the cap: (spent, cap) in dollars.
    SpendCap {
        spent: f64,
        limit: f64,
    },
}

impl RunEnd {
    pub fn describe(&self) -> String {
        match self {
            RunEnd::Finished => "finished".into(),
            RunEnd::Stopped => "stopped".into(),
            RunEnd::ProviderStopped(e) => format!("stopped by the provider: {e}"),
            RunEnd::StoreFailed(e) => format!("paused: a result could not be stored: {e}"),
            RunEnd::SpendCap { spent, limit } => format!(
                "paused at the spend cap: {} spent of {}; the next request could pass it (raise the cap and Resume)",
                crate::cost::format_usd(*spent),
                crate::cost::format_usd(*limit)
            ),
        }
    }
}

/// When the caller should send its status besides after each finished item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StatusMoment {
    /// Nothing finished within [`TICK_MS`].
    Tick,
    /// Stop was pressed: the status should say so.
    Stopping,
}

/// What a run's scheduling depends on besides its work.
pub(crate) struct Schedule<'a, C: Clock> {
    pub clock: &'a C,
    pub cancel: &'a CancelToken,
    /// The run's live counters: the spend cap reads this session's usage from them.
    pub live: &'a Live,
    /// Requests the model may have in flight at once (at least 1).
    pub concurrency: usize,
    pub spend_cap: Option<&'a SpendCap>,
}

impl<C: Clock> Schedule<'_, C> {
    /// Runs `items` in their order: `start` turns one into its work, whose output is the result
    /// and `Some(error)` when the run must stop (that result is then never finished);
    /// `worst_case` is an item's most possible cost under the cap; `finish` takes each result as
    /// it comes, and an error from it ends the run.
    pub(crate) async fn run<T, R, W: Future<Output = (R, Option<ProviderError>)>>(
        &self,
        items: impl IntoIterator<Item = T>,
        worst_case: impl Fn(&T, &SpendCap) -> f64,
        mut start: impl FnMut(T) -> W,
        mut finish: impl AsyncFnMut(R) -> Result<(), String>,
        on_status: impl Fn(StatusMoment),
    ) -> RunEnd {
        let mut queue = items.into_iter().peekable();
        let mut in_flight = FuturesUnordered::new();
        let mut end = RunEnd::Finished;
        // Dollars the items in flight could still cost at most (the spend cap's reserve).
        let mut reserved = 0.0f64;
        loop {
            // Spent so far, when the cap holds back the next item: it starts once the items in
            // flight have finished and freed their reserve, or the run pauses.
            let mut capped: Option<f64> = None;
            while in_flight.len() < self.concurrency + 2 + self.live.requests_waiting() {
                let Some(item) = queue.peek() else { break };
                let worst = match self.spend_cap {
                    None => 0.0,
                    Some(cap) => {
                        let worst = worst_case(item, cap);
                        if let Err(spent) = cap.admit(&self.live.usage(), reserved, worst) {
                            capped = Some(spent);
                            break;
                        }
                        worst
                    }
                };
                let Some(item) = queue.next() else { break };
                reserved += worst;
                in_flight.push(start(item).map(move |done| (done, worst)));
            }
            if in_flight.is_empty() {
                if let (Some(spent), Some(cap)) = (capped, self.spend_cap) {
                    // Spent by the items that were in flight when the cap was reached too.
                    end = RunEnd::SpendCap { spent: spent.max(cap.spent(&self.live.usage())), limit: cap.limit };
                }
                break;
            }
            let tick = self.clock.sleep(TICK_MS).fuse();
            let stop = self.cancel.cancelled().fuse();
            futures::pin_mut!(tick, stop);
            // In this order when several are ready: once Stop is pressed nothing more is finished
            // (as in the offline loop), and finished work comes before a tick, so a clock whose
            // sleeps end at once cannot starve it.
            select_biased! {
                _ = stop => {
                    on_status(StatusMoment::Stopping);
                    end = RunEnd::Stopped;
                    break;
                }
                done = in_flight.next() => {
                    let Some(((result, stop_run), worst)) = done else { continue };
                    reserved -= worst;
                    if let Some(error) = stop_run {
                        end = RunEnd::ProviderStopped(error);
                        break;
                    }
                    if let Err(e) = finish(result).await {
                        end = RunEnd::StoreFailed(e);
                        break;
                    }
                }
                _ = tick => on_status(StatusMoment::Tick),
            }
        }
        // Dropping what is still in flight aborts its requests.
        drop(in_flight);
        end
    }
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use execbench_providers::{ErrorKind, Usage};
    use futures::executor::block_on;

    use super::*;
    use crate::cost::Price;

    /// A clock whose ticks either never come or come at once.
    struct TestClock {
        ticks: bool,
    }

    impl Clock for TestClock {
        fn now_ms(&self) -> f64 {
            0.0
        }
        async fn sleep(&self, _: u64) {
            if !self.ticks {
                std::future::pending::<()>().await;
            }
        }
    }

    /// Pending `left` times (waking itself each time), then ready.
    struct Yields {
        left: usize,
    }

    impl Future for Yields {
        type Output = ();
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if self.left == 0 {
                return Poll::Ready(());
            }
            self.left -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    /// A dollar a prompt token.
    const PRICE: Price = Price { input: 1.0, output: 1.0, cached_input: None, reasoning: None };

    /// One item of work: it waits `waits` polls, could cost `worst` dollars, spends `spends`, and
    /// gives its id or stops the run.
    #[derive(Clone, Copy, Debug)]
    struct Item {
        id: usize,
        waits: usize,
        worst: u64,
        spends: u64,
        stops_run: bool,
        /// Waits as a request does after a rate limit (holding no slot).
        rate_limited: bool,
    }

    fn item(id: usize, waits: usize) -> Item {
        Item { id, waits, worst: 0, spends: 0, stops_run: false, rate_limited: false }
    }

    /// How a test run goes besides its items.
    #[derive(Clone, Copy, Default)]
    struct Setup {
        concurrency: usize,
        cap: Option<SpendCap>,
        ticks: bool,
        /// Stop is pressed once this many items have finished.
        stop_after: Option<usize>,
        /// The item whose finish fails.
        refuse: Option<usize>,
    }

    /// What a run did.
    struct Ran {
        end: RunEnd,
        /// Ids, in the order they were started and finished.
        started: Vec<usize>,
        finished: Vec<usize>,
        most_in_flight: usize,
        moments: Vec<StatusMoment>,
    }

    /// Counts an item as in flight from its start until it ends or is dropped.
    struct InFlight<'a>(&'a Cell<usize>);

    impl Drop for InFlight<'_> {
        fn drop(&mut self) {
            self.0.set(self.0.get() - 1);
        }
    }

    fn run(items: &[Item], setup: Setup) -> Ran {
        let clock = TestClock { ticks: setup.ticks };
        let cancel = CancelToken::new();
        let live = Live::new(items.len(), 0);
        let schedule = Schedule {
            clock: &clock,
            cancel: &cancel,
            live: &live,
            concurrency: setup.concurrency,
            spend_cap: setup.cap.as_ref(),
        };
        let (in_flight, most) = (Cell::new(0), Cell::new(0));
        let started = RefCell::new(Vec::new());
        let finished = RefCell::new(Vec::new());
        let moments = RefCell::new(Vec::new());
        let end = block_on(schedule.run(
            items.iter().copied(),
            |item, cap| cap.price.worst_case(item.worst, 1, 0, 0),
            |item| {
                started.borrow_mut().push(item.id);
                in_flight.set(in_flight.get() + 1);
                most.set(most.get().max(in_flight.get()));
                let counted = InFlight(&in_flight);
                let live = &live;
                async move {
                    let _counted = counted;
                    let request = live.request_id();
                    if item.rate_limited {
                        live.waiting(request, 0.0, true, (1, 10));
                    }
                    Yields { left: item.waits }.await;
                    live.done_waiting(request);
                    live.add_usage(&Usage { prompt_tokens: item.spends, ..Usage::default() });
                    let stop = item.stops_run.then(|| ProviderError::new(ErrorKind::BadKey, Some(401), "bad key"));
                    (item.id, stop)
                }
            },
            async |id| {
                if setup.refuse == Some(id) {
                    return Err(format!("cannot store {id}"));
                }
                finished.borrow_mut().push(id);
                if setup.stop_after == Some(finished.borrow().len()) {
                    cancel.cancel();
                }
                Ok(())
            },
            |moment| moments.borrow_mut().push(moment),
        ));
        assert_eq!(in_flight.get(), 0, "whatever is still in flight at the end is dropped");
        Ran {
            end,
            started: started.into_inner(),
            finished: finished.into_inner(),
            most_in_flight: most.get(),
            moments: moments.into_inner(),
        }
    }

    #[test]
    fn every_item_runs_with_at_most_concurrency_plus_two_in_flight() {
        let items: Vec<Item> = (0..10).map(|id| item(id, 10 - id)).collect();
        let ran = run(&items, Setup { concurrency: 2, ..Setup::default() });
        assert_eq!(ran.end, RunEnd::Finished);
        assert_eq!(ran.started, (0..10).collect::<Vec<_>>(), "started in their order");
        let mut finished = ran.finished.clone();
        finished.sort();
        assert_eq!(finished, (0..10).collect::<Vec<_>>());
        assert_ne!(ran.finished, finished, "finished as they came, not in their order");
        assert_eq!(ran.most_in_flight, 4);
        assert!(ran.moments.is_empty(), "no tick from a clock that never ticks");
    }

    #[test]
    fn a_request_waiting_after_a_rate_limit_lets_one_more_item_in() {
        // Concurrency 1: three in flight, and a fourth while the first waits out its rate limit.
        let mut items: Vec<Item> = (0..8).map(|id| item(id, 5)).collect();
        items[0] = Item { waits: 30, rate_limited: true, ..items[0] };
        let ran = run(&items, Setup { concurrency: 1, ticks: true, ..Setup::default() });
        assert_eq!((ran.end, ran.finished.len()), (RunEnd::Finished, 8));
        assert_eq!(ran.most_in_flight, 4);
        let ran = run(
            &(0..8).map(|id| item(id, 5)).collect::<Vec<_>>(),
            Setup { concurrency: 1, ticks: true, ..Setup::default() },
        );
        assert_eq!(ran.most_in_flight, 3, "none waiting: concurrency plus two");
    }

    #[test]
    fn nothing_to_do_finishes_at_once() {
        let ran = run(&[], Setup { concurrency: 3, ticks: true, ..Setup::default() });
        assert_eq!(ran.end, RunEnd::Finished);
        assert!(ran.started.is_empty() && ran.moments.is_empty());
    }

    #[test]
    fn the_spend_cap_holds_back_what_could_pass_it_and_ends_the_run() {
        // $4 each at most, a $10 cap: two reserve $8 and the third waits for them; once they
        // have spent their $8 a third could pass the cap, so the run ends there.
        let items: Vec<Item> = (0..5).map(|id| Item { worst: 4, spends: 4, ..item(id, 2) }).collect();
        let cap = SpendCap { limit: 10.0, price: PRICE, spent_before: 0.0 };
        let ran = run(&items, Setup { concurrency: 8, cap: Some(cap), ..Setup::default() });
        assert_eq!((ran.started, ran.finished), (vec![0, 1], vec![0, 1]));
        assert_eq!(ran.end, RunEnd::SpendCap { spent: 8.0, limit: 10.0 });
        // What earlier sessions spent counts: $7 of $10 leaves room for none.
        let cap = SpendCap { spent_before: 7.0, ..cap };
        let ran = run(&items, Setup { concurrency: 8, cap: Some(cap), ..Setup::default() });
        assert!(ran.started.is_empty());
        assert_eq!(ran.end, RunEnd::SpendCap { spent: 7.0, limit: 10.0 });
    }

    #[test]
    fn a_freed_reserve_lets_the_next_item_start() {
        // $1 each at most but nothing spent, a $2.50 cap: two at a time, and all of them run.
        let items: Vec<Item> = (0..6).map(|id| Item { worst: 1, ..item(id, 1) }).collect();
        let cap = SpendCap { limit: 2.5, price: PRICE, spent_before: 0.0 };
        let ran = run(&items, Setup { concurrency: 8, cap: Some(cap), ..Setup::default() });
        assert_eq!(ran.end, RunEnd::Finished);
        assert_eq!(ran.finished.len(), 6);
        assert_eq!(ran.most_in_flight, 2, "the cap's reserve, not the concurrency, bounds what is in flight");
    }

    #[test]
    fn a_provider_error_that_stops_the_run_drops_the_rest() {
        let mut items: Vec<Item> = (0..6).map(|id| item(id, 5)).collect();
        items[1] = Item { waits: 0, stops_run: true, ..items[1] };
        let ran = run(&items, Setup { concurrency: 1, ..Setup::default() });
        assert_eq!(ran.end, RunEnd::ProviderStopped(ProviderError::new(ErrorKind::BadKey, Some(401), "bad key")));
        assert!(ran.finished.is_empty(), "the stopping item is not finished, the others were dropped");
        assert_eq!(ran.started, vec![0, 1, 2]);
    }

    #[test]
    fn a_failed_finish_ends_the_run() {
        let items: Vec<Item> = (0..4).map(|id| item(id, id)).collect();
        let ran = run(&items, Setup { concurrency: 1, refuse: Some(1), ..Setup::default() });
        assert_eq!(ran.end, RunEnd::StoreFailed("cannot store 1".into()));
        assert_eq!(ran.finished, vec![0]);
    }

    #[test]
    fn stop_ends_the_run_and_says_so() {
        let items: Vec<Item> = (0..8).map(|id| item(id, 3 * id)).collect();
        let ran = run(&items, Setup { concurrency: 1, stop_after: Some(2), ..Setup::default() });
        assert_eq!(ran.end, RunEnd::Stopped);
        assert_eq!(ran.finished, vec![0, 1]);
        assert_eq!(ran.moments, vec![StatusMoment::Stopping]);
    }

    #[test]
    fn once_stop_is_pressed_nothing_more_is_finished() {
        // Every item is ready at once: the ones still in flight are dropped, not finished.
        let items: Vec<Item> = (0..6).map(|id| item(id, 0)).collect();
        let ran = run(&items, Setup { concurrency: 4, ticks: true, stop_after: Some(1), ..Setup::default() });
        assert_eq!((ran.end, ran.finished), (RunEnd::Stopped, vec![0]));
        assert_eq!(ran.moments, vec![StatusMoment::Stopping]);
    }

    #[test]
    fn ticks_report_the_status_while_work_waits() {
        let ran = run(&[item(0, 20)], Setup { concurrency: 1, ticks: true, ..Setup::default() });
        assert_eq!((ran.end, ran.finished), (RunEnd::Finished, vec![0]));
        assert!(!ran.moments.is_empty() && ran.moments.iter().all(|m| *m == StatusMoment::Tick), "{:?}", ran.moments);
    }
}
