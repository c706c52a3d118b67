//! Python on several threads, natively: the command line's engine when `--jobs` is above 1.
//!
//! Each thread makes its own engine (RustPython's interpreter cannot move between threads) and
//! takes the next request from a shared queue; a run's future resolves when its thread replies.
//! The run engine asks for many runs at once (a sample's answers, and with an API model several
//! samples in flight), so they spread over the threads while the async loop waits.

use std::future::Future;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

use execbench_core::{Outcome, PythonEngine, RunRequest, RunResult};
use futures::channel::oneshot;

use crate::Python;

type Job = (RunRequest, oneshot::Sender<RunResult>);

pub struct ThreadedPython {
    /// Closed on drop, which ends every thread once the queue is empty.
    queue: Option<mpsc::Sender<Job>>,
    threads: Vec<JoinHandle<()>>,
}

/// Runs a job keeps waiting per thread, so no thread idles while the job hands out the next.
const RUNS_WAITING_PER_THREAD: usize = 4;

impl ThreadedPython {
    /// `jobs` threads (at least one), each with an engine from `make_engine`.
    pub fn new<E: PythonEngine + 'static>(jobs: usize, make_engine: impl Fn() -> E + Send + Sync + 'static) -> Self {
        let (queue, receiver) = mpsc::channel::<Job>();
        let receiver = Arc::new(Mutex::new(receiver));
        let make_engine = Arc::new(make_engine);
        let threads = (0..jobs.max(1))
            .map(|_| {
                let (receiver, make_engine) = (receiver.clone(), make_engine.clone());
                thread::spawn(move || {
                    let mut engine = make_engine();
                    loop {
                        // The lock is held only while waiting for the next job, not during its run.
                        let next = match receiver.lock() {
                            Ok(queue) => queue.recv(),
                            Err(_) => return,
                        };
                        let Ok((request, reply)) = next else { return };
                        // A caller that stopped waiting (Stop) has dropped its receiver: the run
                        // is skipped if it has not started, and its result dropped if it has.
                        if reply.is_canceled() {
                            continue;
                        }
                        let _ = reply.send(engine.run(&request));
                    }
                })
            })
            .collect();
        ThreadedPython { queue: Some(queue), threads }
    }
}

impl Python for ThreadedPython {
    fn run(&self, request: RunRequest) -> impl Future<Output = RunResult> {
        let (reply, answer) = oneshot::channel();
        if let Some(queue) = &self.queue {
            // A send fails only when every thread has gone (a panic): the reply then never comes.
            let _ = queue.send((request, reply));
        }
        async move {
            answer.await.unwrap_or_else(|_| RunResult {
                outcome: Outcome::Crashed { reason: "the Python thread stopped".to_string() },
                stdout: String::new(),
                elapsed_ms: 0.0,
                trace: None,
            })
        }
    }

    fn runs_at_once(&self) -> usize {
        RUNS_WAITING_PER_THREAD * self.threads.len().max(1)
    }
}

impl Drop for ThreadedPython {
    fn drop(&mut self) {
        drop(self.queue.take());
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;
    use futures::future::join_all;

    /// Answers with the program's text and the thread it ran on.
    struct Echo;

    impl PythonEngine for Echo {
        fn run(&mut self, request: &RunRequest) -> RunResult {
            std::thread::sleep(std::time::Duration::from_millis(5));
            RunResult {
                outcome: Outcome::Value { repr: request.program.clone(), matches: None },
                stdout: format!("{:?}", thread::current().id()),
                elapsed_ms: 0.0,
                trace: None,
            }
        }
    }

    #[test]
    fn runs_asked_at_once_are_answered_in_order_across_threads() {
        let python = ThreadedPython::new(3, || Echo);
        let requests: Vec<RunRequest> = (0..24).map(|i| RunRequest::new(i.to_string(), "")).collect();
        let results = block_on(join_all(requests.into_iter().map(|r| python.run(r))));
        let values: Vec<String> = results.iter().map(|r| r.outcome.summary()).collect();
        assert_eq!(values, (0..24).map(|i| i.to_string()).collect::<Vec<_>>());
        let threads: std::collections::BTreeSet<&str> = results.iter().map(|r| r.stdout.as_str()).collect();
        assert!(threads.len() > 1, "the runs were shared: {threads:?}");
    }

    /// After Stop the engine's futures are dropped: runs still queued are skipped, so a stopped
    /// run does not keep the workers busy with work nobody waits for.
    #[test]
    fn runs_nobody_waits_for_are_skipped() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        /// Counts its runs; the first one waits until the test has given up on the others.
        struct Counting(Arc<AtomicUsize>, Arc<Mutex<mpsc::Receiver<()>>>);
        impl PythonEngine for Counting {
            fn run(&mut self, request: &RunRequest) -> RunResult {
                if self.0.fetch_add(1, Ordering::SeqCst) == 0 {
                    let _ = self.1.lock().map(|go| go.recv());
                }
                Echo.run(request)
            }
        }
        let ran = Arc::new(AtomicUsize::new(0));
        let (go, wait) = mpsc::channel();
        let (counter, wait) = (ran.clone(), Arc::new(Mutex::new(wait)));
        let python = ThreadedPython::new(1, move || Counting(counter.clone(), wait.clone()));
        let first = python.run(RunRequest::new("first", ""));
        // Queued behind the first (one thread), then given up.
        drop((0..20).map(|i| python.run(RunRequest::new(i.to_string(), ""))).collect::<Vec<_>>());
        go.send(()).unwrap();
        assert_eq!(block_on(first).outcome.summary(), "first");
        drop(python);
        assert_eq!(ran.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_panicking_engine_ends_as_a_crashed_run_not_a_hang() {
        struct Broken;
        impl PythonEngine for Broken {
            fn run(&mut self, _: &RunRequest) -> RunResult {
                panic!("engine bug")
            }
        }
        let python = ThreadedPython::new(1, || Broken);
        let result = block_on(python.run(RunRequest::new("x", "")));
        assert_eq!(result.outcome, Outcome::Crashed { reason: "the Python thread stopped".to_string() });
        // Every thread has gone: later runs crash at once too.
        let result = block_on(python.run(RunRequest::new("y", "")));
        assert!(matches!(result.outcome, Outcome::Crashed { .. }));
    }
}
