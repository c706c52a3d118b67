//! Taking results from a stream of runs until Stop: the one loop step that Verify, Perturb,
//! Build's filter and the reproduction re-scoring share.

use futures::{FutureExt, Stream, StreamExt, select_biased};

use crate::cancel::CancelToken;

/// What [`next_or_stopped`] got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next<T> {
    /// The stream's next item, with no Stop before, during or after the wait.
    Item(T),
    /// The stream has ended, and there was no Stop.
    Done,
    /// Stop came before or while waiting, or together with the item or the end (an item that
    /// arrives with Stop was cut short by it: it is dropped, no verdict).
    Stopped,
}

/// Waits for the stream's next item unless `cancel` is (or becomes) cancelled. Stop wins over an
/// item that is ready at the same time, and a Stop that comes while the stream is polled (a run
/// that noticed it and ended early) drops the item the poll returned.
pub async fn next_or_stopped<S: Stream + Unpin>(stream: &mut S, cancel: &CancelToken) -> Next<S::Item> {
    if cancel.is_cancelled() {
        return Next::Stopped;
    }
    let next = select_biased! {
        _ = cancel.cancelled().fuse() => return Next::Stopped,
        next = stream.next().fuse() => next,
    };
    if cancel.is_cancelled() {
        return Next::Stopped;
    }
    match next {
        Some(item) => Next::Item(item),
        None => Next::Done,
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::VecDeque;
    use std::rc::Rc;
    use std::task::Poll;

    use futures::executor::{LocalPool, block_on};
    use futures::task::LocalSpawnExt;

    use super::*;

    /// What the scripted stream does when polled once.
    #[derive(Clone, Copy, Debug)]
    enum Step {
        Item(u32),
        /// Cancels the token while being polled, then returns the item (a run that saw Stop).
        CancelThenItem(u32),
        /// Cancels the token while being polled, then ends.
        CancelThenEnd,
        /// Not ready; the test cancels (or not) from outside.
        Pending,
        End,
    }

    /// A stream that follows `steps`, one per poll, and counts its polls.
    fn scripted(
        steps: &[Step],
        cancel: &CancelToken,
        polls: Rc<RefCell<usize>>,
    ) -> impl Stream<Item = u32> + Unpin + use<> {
        let mut steps: VecDeque<Step> = steps.iter().copied().collect();
        let cancel = cancel.clone();
        futures::stream::poll_fn(move |_| {
            *polls.borrow_mut() += 1;
            match steps.pop_front().unwrap_or(Step::End) {
                Step::Item(n) => Poll::Ready(Some(n)),
                Step::CancelThenItem(n) => {
                    cancel.cancel();
                    Poll::Ready(Some(n))
                }
                Step::CancelThenEnd => {
                    cancel.cancel();
                    Poll::Ready(None)
                }
                Step::Pending => Poll::Pending,
                Step::End => Poll::Ready(None),
            }
        })
    }

    /// Calls `next_or_stopped` until it gives something other than an item; every item is listed.
    #[test]
    fn items_until_done_or_stopped() {
        use Step::*;
        // (case, cancelled before the first call, steps, items seen, how it ended, stream polls)
        #[allow(clippy::type_complexity)]
        let cases: &[(&str, bool, &[Step], &[u32], Next<u32>, usize)] = &[
            ("item then done", false, &[Item(1), Item(2), End], &[1, 2], Next::Done, 3),
            ("an empty stream is done", false, &[End], &[], Next::Done, 1),
            ("cancel before: not polled", true, &[Item(1), End], &[], Next::Stopped, 0),
            ("cancel with an item drops it", false, &[Item(1), CancelThenItem(2), Item(3)], &[1], Next::Stopped, 2),
            ("cancel with the end is Stop", false, &[Item(1), CancelThenEnd], &[1], Next::Stopped, 2),
        ];
        for &(case, before, steps, items, end, polls) in cases {
            let cancel = CancelToken::new();
            if before {
                cancel.cancel();
            }
            let polled = Rc::new(RefCell::new(0));
            let mut stream = scripted(steps, &cancel, polled.clone());
            let mut seen = Vec::new();
            let got = block_on(async {
                loop {
                    match next_or_stopped(&mut stream, &cancel).await {
                        Next::Item(n) => seen.push(n),
                        other => break other,
                    }
                }
            });
            assert_eq!((seen.as_slice(), got, *polled.borrow()), (items, end, polls), "{case}");
        }
    }

    /// A Stop while the stream is not ready ends the wait at once; without one, it goes on waiting.
    #[test]
    fn cancel_while_pending_stops_the_wait() {
        // (case, cancel while waiting, the result once the pool has stalled again)
        let cases: &[(&str, bool, Option<Next<u32>>)] =
            &[("cancel while pending", true, Some(Next::Stopped)), ("no cancel: still waiting", false, None)];
        for &(case, cancel_it, expected) in cases {
            let cancel = CancelToken::new();
            let polled = Rc::new(RefCell::new(0));
            let mut stream = scripted(&[Step::Pending, Step::Item(1)], &cancel, polled.clone());
            let result = Rc::new(RefCell::new(None));
            let mut pool = LocalPool::new();
            let (token, out) = (cancel.clone(), result.clone());
            pool.spawner()
                .spawn_local(async move {
                    let next = next_or_stopped(&mut stream, &token).await;
                    *out.borrow_mut() = Some(next);
                })
                .unwrap();
            pool.run_until_stalled();
            assert_eq!((*result.borrow(), *polled.borrow()), (None, 1), "{case}: waiting");
            if cancel_it {
                cancel.cancel();
            }
            pool.run_until_stalled();
            assert_eq!(*result.borrow(), expected, "{case}");
            // Stop is seen before the stream is polled again.
            assert_eq!(*polled.borrow(), 1, "{case}: polls");
        }
    }
}
