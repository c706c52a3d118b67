//! Stopping a run that exceeds its wall-clock budget.
//!
//! Natively, a watchdog thread sends the interpreter a "user signal" at the deadline; RustPython
//! checks for one between bytecodes. The signal does not raise there: RustPython 0.5 raises a
//! signal's exception without resetting its decoder's pending argument, so when a handler of the
//! same frame catches it, the handler's first instruction decodes a wrong argument
//! (`InvalidBytecode`, or a read past the value stack that kills the process). That happens when
//! another engine of the process clears the one process-wide "signal pending" flag between two
//! instructions (`tests/time_outs.rs`). Instead the signal turns on tracing, with a trace function
//! that raises TimeoutError, for every frame: an exception raised by a trace event leaves its
//! frame without running the frame's handlers, and reaches the caller as a failed call, which
//! RustPython handles soundly. So a bare `except:` cannot swallow it either. One long builtin call
//! (`sum(range(10**12))`) runs no bytecode and cannot be stopped this way.
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

    use rustpython_vm::function::FuncArgs;
    use rustpython_vm::signal::{UserSignal, UserSignalReceiver, UserSignalSender, user_signal_channel};
    use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

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
                // the process can clear it while draining its own queue. Keep sending.
                while let Err(RecvTimeoutError::Timeout) = cancelled.recv_timeout(wait) {
                    flag.store(true, Ordering::SeqCst);
                    let Ok(sender) = sender.lock() else { return };
                    if sender.send(timeout_signal(still_running.clone(), limit_ms)).is_err() {
                        return;
                    }
                    wait = Duration::from_millis(2);
                }
            });
            Deadline { cancel: Some(cancel), fired, active, thread: Some(thread) }
        }
    }

    /// A signal that turns on the deadline's trace function for the frames running now and the
    /// ones still to start. The watchdog sends it again every 2 ms, so a frame that was not
    /// running at the first one (a generator resumed later) is caught too. It does not queue
    /// itself: the interpreter drains its queue in one loop, which would never end.
    fn timeout_signal(active: Arc<AtomicBool>, limit_ms: u32) -> UserSignal {
        Box::new(move |vm| {
            if active.load(Ordering::SeqCst) {
                trace_every_frame_with(vm, deadline_tracer(vm, limit_ms));
            }
            Ok(())
        })
    }

    /// A trace function that raises TimeoutError at every event it is given.
    fn deadline_tracer(vm: &VirtualMachine, limit_ms: u32) -> PyObjectRef {
        vm.new_function("_execbench_deadline", move |_args: FuncArgs, vm: &VirtualMachine| -> PyResult<PyObjectRef> {
            let message = format!("execbench: the run exceeded its time limit of {limit_ms} ms");
            Err(vm.new_os_subtype_error(vm.ctx.exceptions.timeout_error.to_owned(), None, message).upcast())
        })
        .into()
    }

    /// Installs `tracer` as the thread's trace function (new frames: their 'call' event) and as
    /// every running frame's own, with an event per instruction.
    fn trace_every_frame_with(vm: &VirtualMachine, tracer: PyObjectRef) {
        *vm.trace_func.borrow_mut() = tracer.clone();
        vm.use_tracing.set(true);
        let mut frame = vm.current_frame();
        while let Some(f) = frame {
            *f.trace.lock() = tracer.clone();
            *f.trace_opcodes.lock() = true;
            frame = f.f_back(vm);
        }
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
