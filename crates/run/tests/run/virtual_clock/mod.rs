//! Virtual time for the run engine's integration tests: a clock whose sleeps complete only when
//! the test's executor loop moves time forward to their deadline, so nothing waits in real time
//! and waits can be asserted exactly.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use execbench_run::Clock;

#[derive(Default)]
struct Timers {
    now: f64,
    next_id: u64,
    /// Sleeps that were polled and are not over: id → (deadline, waker; taken once woken).
    pending: BTreeMap<u64, (f64, Option<Waker>)>,
}

/// A clock on virtual time: `sleep` completes once [`VirtualClock::advance`] has moved time to its
/// deadline. A dropped sleep leaves nothing behind.
#[derive(Clone, Default)]
pub struct VirtualClock(Rc<RefCell<Timers>>);

struct Sleep {
    timers: Rc<RefCell<Timers>>,
    id: u64,
    deadline: f64,
}

impl Future for Sleep {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut timers = self.timers.borrow_mut();
        if timers.now >= self.deadline {
            timers.pending.remove(&self.id);
            Poll::Ready(())
        } else {
            timers.pending.insert(self.id, (self.deadline, Some(cx.waker().clone())));
            Poll::Pending
        }
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        self.timers.borrow_mut().pending.remove(&self.id);
    }
}

impl Clock for VirtualClock {
    fn now_ms(&self) -> f64 {
        self.0.borrow().now
    }

    fn sleep(&self, ms: u64) -> impl Future<Output = ()> {
        let mut timers = self.0.borrow_mut();
        timers.next_id += 1;
        Sleep { timers: self.0.clone(), id: timers.next_id, deadline: timers.now + ms as f64 }
    }
}

impl VirtualClock {
    /// Jumps to the earliest deadline of the sleeps pending and wakes every sleep due by then.
    /// False when nothing sleeps (whatever waits then would wait forever).
    pub fn advance(&self) -> bool {
        let wakers: Vec<Waker> = {
            let mut timers = self.0.borrow_mut();
            let now = timers.now;
            let Some(next) =
                timers.pending.values().map(|(deadline, _)| *deadline).filter(|d| *d > now).min_by(f64::total_cmp)
            else {
                return false;
            };
            timers.now = next;
            timers
                .pending
                .values_mut()
                .filter(|(deadline, _)| *deadline <= next)
                .filter_map(|(_, waker)| waker.take())
                .collect()
        };
        wakers.into_iter().for_each(Waker::wake);
        true
    }
}
