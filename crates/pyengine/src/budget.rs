//! Stopping a run that exceeds its wall-clock budget.
//!
//! Natively, a watchdog thread sends the interpreter a "user signal" at the deadline; RustPython
//! checks for one between bytecodes and raises our TimeoutError there. The signal fires again at
//! every check until the run ends, so a bare `except:` cannot swallow it for good. One long builtin call
//! (`sum(range(10**12))`) does not check signals and cannot be stopped this way.
//!
//! On wasm32 RustPython compiles signal checks out: the worker's owner enforces the deadline by
//! terminating the worker, and this type does nothing.

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc::{self, RecvTimeoutError};
    use std::sync::{Arc, Mutex};
    use std::thread;
    use std::time::Duration;

    use rustpython_vm::signal::{UserSignal, UserSignalReceiver, UserSignalSender, user_signal_channel};

    pub struct Watchdog {
        sender: UserSignalSender,
    }

    /// An armed deadline; disarmed when dropped.
    pub struct Deadline {
        cancel: Option<mpsc::Sender<()>>,
        fired: Arc<AtomicBool>,
        active: Arc<AtomicBool>,
        thread: Option<thread::JoinHandle<()>>,
    }

    impl Watchdog {
        pub fn new() -> (Watchdog, Option<UserSignalReceiver>) {
            let (sender, receiver) = user_signal_channel();
            (Watchdog { sender }, Some(receiver))
        }

        pub fn arm(&self, limit_ms: u32) -> Deadline {
            let (cancel, cancelled) = mpsc::channel::<()>();
            let fired = Arc::new(AtomicBool::new(false));
            let active = Arc::new(AtomicBool::new(true));
            let sender = Mutex::new(self.sender.clone());
            let (flag, still_running) = (fired.clone(), active.clone());
            let thread = thread::spawn(move || {
                let mut wait = Duration::from_millis(limit_ms as u64);
                // RustPython's "a signal is pending" flag is one per process: another engine in
                // the process can clear it while draining its own queue. Keep raising it.
                while let Err(RecvTimeoutError::Timeout) = cancelled.recv_timeout(wait) {
                    flag.store(true, Ordering::SeqCst);
                    let Ok(sender) = sender.lock() else { return };
                    if sender.send(timeout_signal(sender.clone(), still_running.clone(), limit_ms)).is_err() {
                        return;
                    }
                    wait = Duration::from_millis(2);
                }
            });
            Deadline { cancel: Some(cancel), fired, active, thread: Some(thread) }
        }
    }

    /// A signal that raises TimeoutError and queues itself again, so that the interpreter raises
    /// at every check until the run is over: an `except` clause that swallows one cannot run a
    /// single statement before the next. It goes quiet once the run has ended.
    fn timeout_signal(sender: UserSignalSender, active: Arc<AtomicBool>, limit_ms: u32) -> UserSignal {
        Box::new(move |vm| {
            if !active.load(Ordering::SeqCst) {
                return Ok(());
            }
            let _ = sender.send(timeout_signal(sender.clone(), active.clone(), limit_ms));
            let message = format!("execbench: the run exceeded its time limit of {limit_ms} ms");
            Err(vm.new_os_subtype_error(vm.ctx.exceptions.timeout_error.to_owned(), None, message).upcast())
        })
    }

    impl Deadline {
        pub fn fired(&self) -> bool {
            self.fired.load(Ordering::SeqCst)
        }
    }

    impl Drop for Deadline {
        fn drop(&mut self) {
            self.active.store(false, Ordering::SeqCst);
            drop(self.cancel.take());
            if let Some(t) = self.thread.take() {
                let _ = t.join();
            }
        }
    }
}

#[cfg(target_arch = "wasm32")]
mod wasm {
    use rustpython_vm::signal::UserSignalReceiver;

    pub struct Watchdog;
    pub struct Deadline;

    impl Watchdog {
        pub fn new() -> (Watchdog, Option<UserSignalReceiver>) {
            (Watchdog, None)
        }
        pub fn arm(&self, _limit_ms: u32) -> Deadline {
            Deadline
        }
    }

    impl Deadline {
        pub fn fired(&self) -> bool {
            false
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub use native::Watchdog;
#[cfg(target_arch = "wasm32")]
pub use wasm::Watchdog;
