//! The run's concurrency limit, shared by every request of a run. It shrinks when the provider
//! rate-limits (halved, at least 1, and no request starts before the wait the provider asked for
//! is over) and grows back by one after each `limit` clean responses in a row, up to the setting.
//! It also spaces request starts by the "delay between requests" setting.

use std::cell::RefCell;
use std::rc::Rc;
use std::task::{Poll, Waker};

use crate::io::Clock;

#[derive(Clone)]
pub struct Gate {
    inner: Rc<RefCell<State>>,
}

struct State {
    max: usize,
    limit: usize,
    in_use: usize,
    most_in_use: usize,
    /// No request starts before this time (a rate limit's wait).
    paused_until: f64,
    next_start_at: f64,
    min_interval_ms: f64,
    clean_in_a_row: usize,
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
        let max = max.max(1);
        Gate {
            inner: Rc::new(RefCell::new(State {
                max,
                limit: max,
                in_use: 0,
                most_in_use: 0,
                paused_until: f64::NEG_INFINITY,
                next_start_at: f64::NEG_INFINITY,
                min_interval_ms: min_interval_ms as f64,
                clean_in_a_row: 0,
                waiters: Vec::new(),
            })),
        }
    }

    /// Waits for a free slot (and for any rate-limit pause and the spacing between requests).
    pub async fn acquire<C: Clock>(&self, clock: &C) -> Permit {
        loop {
            let now = clock.now_ms();
            let wait_ms = {
                let mut s = self.inner.borrow_mut();
                if s.in_use < s.limit {
                    let start_at = s.paused_until.max(s.next_start_at);
                    if now >= start_at {
                        s.in_use += 1;
                        s.most_in_use = s.most_in_use.max(s.in_use);
                        s.next_start_at = now + s.min_interval_ms;
                        return Permit { gate: self.clone() };
                    }
                    Some((start_at - now).ceil().max(1.0) as u64)
                } else {
                    None
                }
            };
            match wait_ms {
                Some(ms) => clock.sleep(ms).await,
                None => self.released().await,
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

    pub fn on_rate_limited(&self, now_ms: f64, wait_ms: u64) {
        let mut s = self.inner.borrow_mut();
        s.limit = (s.limit / 2).max(1);
        s.clean_in_a_row = 0;
        s.paused_until = s.paused_until.max(now_ms + wait_ms as f64);
    }

    pub fn on_success(&self) {
        let waiters = {
            let mut s = self.inner.borrow_mut();
            s.clean_in_a_row += 1;
            if s.limit < s.max && s.clean_in_a_row >= s.limit {
                s.limit += 1;
                s.clean_in_a_row = 0;
                std::mem::take(&mut s.waiters)
            } else {
                Vec::new()
            }
        };
        waiters.into_iter().for_each(Waker::wake);
    }

    pub fn limit(&self) -> usize {
        self.inner.borrow().limit
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
    use crate::io::Clock;
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
    fn limit_halves_on_rate_limits_and_grows_back_slowly() {
        let gate = Gate::new(8, 0);
        assert_eq!(gate.limit(), 8);
        gate.on_rate_limited(0.0, 1000);
        assert_eq!(gate.limit(), 4);
        gate.on_rate_limited(0.0, 1000);
        gate.on_rate_limited(0.0, 1000);
        gate.on_rate_limited(0.0, 1000);
        assert_eq!(gate.limit(), 1, "never below one");
        // One clean response at limit 1 raises it to 2, then two more to 3, ...
        let mut limits = Vec::new();
        for _ in 0..12 {
            gate.on_success();
            limits.push(gate.limit());
        }
        assert_eq!(limits, vec![2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5]);
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
            gate.on_rate_limited(clock.now_ms(), 5000);
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
