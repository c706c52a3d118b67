//! The run's request slots, shared by every request of a run: at most the concurrency limit in
//! flight, which rate limits lower and time brings back as [`crate::recovery`] decides (an
//! isolated 429 waits alone; repeated ones halve the limit and pause every start until the
//! provider's wait is over). It also spaces request starts by the "delay between requests"
//! setting.

use std::cell::RefCell;
use std::rc::Rc;
use std::task::{Poll, Waker};

use futures::FutureExt;

use crate::recovery::{ConcurrencyLimit, Lowered, RecoveryPolicy, Verdict};
use execbench_io::Clock;

#[derive(Clone)]
pub struct Gate {
    inner: Rc<RefCell<State>>,
}

struct State {
    limit: ConcurrencyLimit,
    in_use: usize,
    most_in_use: usize,
    next_start_at: f64,
    min_interval_ms: f64,
    waiters: Vec<Waker>,
}

/// Held while a request is in flight; dropping it frees the slot.
pub struct Permit {
    gate: Gate,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let waiters = {
            let mut s = self.gate.inner.borrow_mut();
            s.in_use -= 1;
            std::mem::take(&mut s.waiters)
        };
        waiters.into_iter().for_each(Waker::wake);
    }
}

impl Gate {
    pub fn new(max: usize, min_interval_ms: u64) -> Self {
        Gate {
            inner: Rc::new(RefCell::new(State {
                limit: ConcurrencyLimit::new(max, RecoveryPolicy::default()),
                in_use: 0,
                most_in_use: 0,
                next_start_at: f64::NEG_INFINITY,
                min_interval_ms: min_interval_ms as f64,
                waiters: Vec::new(),
            })),
        }
    }

    /// Waits for a free slot (and for any rate-limit pause and the spacing between requests).
    pub async fn acquire<C: Clock>(&self, clock: &C) -> Permit {
        loop {
            let now = clock.now_ms();
            // How long to sleep before trying again, and whether a release may end it sooner.
            let (sleep_ms, or_release) = {
                let mut s = self.inner.borrow_mut();
                if s.in_use < s.limit.limit(now) {
                    let start_at = s.limit.paused_until().max(s.next_start_at);
                    if now >= start_at {
                        s.in_use += 1;
                        s.most_in_use = s.most_in_use.max(s.in_use);
                        s.next_start_at = now + s.min_interval_ms;
                        return Permit { gate: self.clone() };
                    }
                    (Some((start_at - now).ceil().max(1.0) as u64), false)
                } else {
                    // Full: a release frees a slot, and so does the limit's next step back up.
                    (s.limit.next_rise_at(now).map(|at| (at - now).ceil().max(1.0) as u64), true)
                }
            };
            match (sleep_ms, or_release) {
                (Some(ms), false) => clock.sleep(ms).await,
                (Some(ms), true) => {
                    futures::select_biased! {
                        _ = self.released().fuse() => {}
                        _ = clock.sleep(ms).fuse() => {}
                    }
                }
                (None, _) => self.released().await,
            }
        }
    }

    /// Resolves after the next release (or any change that may free a slot).
    async fn released(&self) {
        let mut registered = false;
        futures::future::poll_fn(|cx| {
            if registered {
                return Poll::Ready(());
            }
            registered = true;
            self.inner.borrow_mut().waiters.push(cx.waker().clone());
            Poll::Pending
        })
        .await
    }

    /// A request sent at `sent_ms` was rate-limited at `now_ms` and will wait `wait_ms` before
    /// it is sent again; `again`: it was rate-limited before.
    pub fn on_rate_limited(&self, now_ms: f64, sent_ms: f64, wait_ms: u64, again: bool) -> Verdict {
        self.inner.borrow_mut().limit.on_rate_limited(now_ms, sent_ms, wait_ms, again)
    }

    pub fn on_success(&self, now_ms: f64) {
        self.inner.borrow_mut().limit.on_success(now_ms);
    }

    /// The concurrency limit at `now_ms`.
    pub fn limit(&self, now_ms: f64) -> usize {
        self.inner.borrow().limit.limit(now_ms)
    }

    /// The limit while rate limits keep it below the setting, and when it is back.
    pub fn lowered(&self, now_ms: f64) -> Option<Lowered> {
        self.inner.borrow().limit.lowered(now_ms)
    }

    pub fn in_use(&self) -> usize {
        self.inner.borrow().in_use
    }

    /// The most requests that were ever in flight at once.
    pub fn most_in_use(&self) -> usize {
        self.inner.borrow().most_in_use
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use execbench_io::Clock;
    use std::cell::Cell;

    /// A clock that jumps forward when slept on (the tests need no real time).
    struct JumpClock(Cell<f64>);
    impl Clock for JumpClock {
        fn now_ms(&self) -> f64 {
            self.0.get()
        }
        fn sleep(&self, ms: u64) -> impl std::future::Future<Output = ()> {
            self.0.set(self.0.get() + ms as f64);
            std::future::ready(())
        }
    }

    #[test]
    fn an_isolated_rate_limit_keeps_every_slot_and_pauses_no_one() {
        let clock = JumpClock(Cell::new(1_000.0));
        let gate = Gate::new(2, 0);
        assert_eq!(gate.on_rate_limited(1_000.0, 600.0, 5_000, false), Verdict::Isolated);
        futures::executor::block_on(async {
            let _a = gate.acquire(&clock).await;
            let _b = gate.acquire(&clock).await;
        });
        assert_eq!((clock.now_ms(), gate.limit(1_000.0), gate.most_in_use()), (1_000.0, 2, 2));
    }

    #[test]
    fn a_lowered_gate_lets_the_next_request_in_when_the_limit_steps_back_up() {
        // Four slots cut to two at 0 (a request limited again), the pause 1 s: two requests hold
        // the two slots, and a third starts when the limit grows to three (one step, 5 s).
        let clock = JumpClock(Cell::new(0.0));
        let gate = Gate::new(4, 0);
        assert_eq!(gate.on_rate_limited(0.0, 0.0, 1_000, true), Verdict::Saturated { limit: 2 });
        assert_eq!(gate.lowered(0.0), Some(Lowered { limit: 2, setting: 4, back_in_ms: 10_000 }));
        futures::executor::block_on(async {
            let _a = gate.acquire(&clock).await;
            assert_eq!(clock.now_ms(), 1_000.0, "no start before the pause is over");
            let _b = gate.acquire(&clock).await;
            let _c = gate.acquire(&clock).await;
            assert_eq!(clock.now_ms(), 5_000.0, "the third waited for the limit's next step");
        });
        assert_eq!(gate.most_in_use(), 3);
    }

    #[test]
    fn acquire_waits_out_a_pause_and_the_spacing() {
        let clock = JumpClock(Cell::new(0.0));
        let gate = Gate::new(2, 100);
        futures::executor::block_on(async {
            let a = gate.acquire(&clock).await;
            assert_eq!(clock.now_ms(), 0.0);
            let b = gate.acquire(&clock).await;
            assert_eq!(clock.now_ms(), 100.0, "spaced by the delay between requests");
            drop((a, b));
            gate.on_rate_limited(clock.now_ms(), clock.now_ms(), 5000, true);
            let _c = gate.acquire(&clock).await;
            assert_eq!(clock.now_ms(), 5100.0, "no start before the rate limit's wait is over");
        });
        assert_eq!(gate.most_in_use(), 2);
    }

    #[test]
    fn a_full_gate_waits_for_a_release() {
        use futures::task::LocalSpawnExt;
        let clock = Rc::new(JumpClock(Cell::new(0.0)));
        let gate = Gate::new(1, 0);
        let mut pool = futures::executor::LocalPool::new();
        let first = futures::executor::block_on(gate.acquire(clock.as_ref()));
        let got = Rc::new(Cell::new(false));
        let (g, c, flag) = (gate.clone(), clock.clone(), got.clone());
        pool.spawner()
            .spawn_local(async move {
                let _p = g.acquire(c.as_ref()).await;
                flag.set(true);
            })
            .unwrap();
        pool.run_until_stalled();
        assert!(!got.get());
        drop(first);
        pool.run_until_stalled();
        assert!(got.get());
        assert_eq!(gate.in_use(), 0);
    }
}
