//! A test double shared by the jobs' Stop tests: a Python that cancels its job's token at its
//! `at`-th run and answers that run as the page's worker answers a run Stop ended; every other run
//! goes to the wrapped engine.

use std::cell::{Cell, RefCell};

use execbench_core::{Outcome, PythonEngine, RunRequest, RunResult};

use execbench_io::Python;
use execbench_io::cancel::CancelToken;

pub(crate) struct StoppedAt<E> {
    pub engine: RefCell<E>,
    pub cancel: CancelToken,
    pub runs: Cell<usize>,
    pub at: usize,
}

impl<E> StoppedAt<E> {
    pub fn new(engine: E, cancel: &CancelToken, at: usize) -> Self {
        StoppedAt { engine: RefCell::new(engine), cancel: cancel.clone(), runs: Cell::new(0), at }
    }
}

impl<E: PythonEngine> Python for StoppedAt<E> {
    async fn run(&self, request: RunRequest) -> RunResult {
        self.runs.set(self.runs.get() + 1);
        if self.runs.get() == self.at {
            self.cancel.cancel();
            return RunResult {
                outcome: Outcome::Crashed { reason: "stopped by the user".into() },
                stdout: String::new(),
                elapsed_ms: 0.0,
                trace: None,
            };
        }
        self.engine.borrow_mut().run(&request)
    }
}
