//! A Python for tests that behaves like a pool: it takes `width` runs at once and answers them
//! out of order (a later run often first), and records how many were ever in flight together.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use execbench_core::{PythonEngine, RunRequest, RunResult};

pub(crate) struct Overlapping<E> {
    pub engine: RefCell<E>,
    pub width: usize,
    issued: Cell<usize>,
    in_flight: Cell<usize>,
    pub max_in_flight: Cell<usize>,
}

impl<E: PythonEngine> Overlapping<E> {
    pub fn new(engine: E, width: usize) -> Self {
        Overlapping {
            engine: RefCell::new(engine),
            width,
            issued: Cell::new(0),
            in_flight: Cell::new(0),
            max_in_flight: Cell::new(0),
        }
    }
}

/// Pending for `turns` polls (waking itself), then ready.
struct Turns(usize);

impl Future for Turns {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 == 0 {
            return Poll::Ready(());
        }
        self.0 -= 1;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl<E: PythonEngine> execbench_io::Python for Overlapping<E> {
    async fn run(&self, request: RunRequest) -> RunResult {
        let n = self.issued.get();
        self.issued.set(n + 1);
        self.in_flight.set(self.in_flight.get() + 1);
        self.max_in_flight.set(self.max_in_flight.get().max(self.in_flight.get()));
        // Within each group of `width`, the last asked is answered first.
        Turns(2 * (self.width - n % self.width)).await;
        self.in_flight.set(self.in_flight.get() - 1);
        self.engine.borrow_mut().run(&request)
    }

    fn runs_at_once(&self) -> usize {
        self.width
    }
}
