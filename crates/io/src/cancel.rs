//! A Stop button for one job: cloned into whatever needs to notice, awaited where work should end.
//! Per job, so stopping one page's job never touches another's.

use std::cell::RefCell;
use std::rc::Rc;
use std::task::{Poll, Waker};

#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Rc<RefCell<State>>,
}

#[derive(Default)]
struct State {
    cancelled: bool,
    wakers: Vec<Waker>,
}

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        let wakers = {
            let mut state = self.inner.borrow_mut();
            state.cancelled = true;
            std::mem::take(&mut state.wakers)
        };
        for w in wakers {
            w.wake();
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.inner.borrow().cancelled
    }

    /// Resolves once `cancel` has been called.
    pub async fn cancelled(&self) {
        futures::future::poll_fn(|cx| {
            let mut state = self.inner.borrow_mut();
            if state.cancelled {
                Poll::Ready(())
            } else {
                if !state.wakers.iter().any(|w| w.will_wake(cx.waker())) {
                    state.wakers.push(cx.waker().clone());
                }
                Poll::Pending
            }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancelling_wakes_the_waiter() {
        let token = CancelToken::new();
        let other = token.clone();
        let mut pool = futures::executor::LocalPool::new();
        let done = Rc::new(RefCell::new(false));
        let flag = done.clone();
        use futures::task::LocalSpawnExt;
        pool.spawner()
            .spawn_local(async move {
                other.cancelled().await;
                *flag.borrow_mut() = true;
            })
            .unwrap();
        pool.run_until_stalled();
        assert!(!*done.borrow());
        token.cancel();
        pool.run_until_stalled();
        assert!(*done.borrow() && token.is_cancelled());
    }
}
