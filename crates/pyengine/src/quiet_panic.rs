//! A panic inside RustPython during a run is that run's `Crashed` outcome (`interpreter.rs`
//! catches it), so it must not also print a message and backtrace on the user's terminal, as the
//! default panic hook does (seen under `execbench run --jobs N`: RustPython 0.5's
//! `InvalidBytecode`). A panic anywhere else still reaches the hook that was installed before.
//!
//! Natively only: in a Web Worker a panic aborts the worker, and its hook is how the page hears
//! of it.

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::cell::Cell;
    use std::sync::Once;
    use std::sync::atomic::{AtomicU64, Ordering};

    thread_local! {
        static IN_RUN: Cell<bool> = const { Cell::new(false) };
    }

    static INSTALL: Once = Once::new();
    static KEPT_QUIET: AtomicU64 = AtomicU64::new(0);

    /// How many panics inside runs this process has kept quiet (each one an engine bug that a
    /// run's outcome hid).
    pub fn engine_panics() -> u64 {
        KEPT_QUIET.load(Ordering::Relaxed)
    }

    /// Runs `f` with this thread's panics kept quiet.
    pub fn inside_run<T>(f: impl FnOnce() -> T) -> T {
        INSTALL.call_once(|| {
            let earlier = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if IN_RUN.with(Cell::get) {
                    KEPT_QUIET.fetch_add(1, Ordering::Relaxed);
                } else {
                    earlier(info);
                }
            }));
        });
        let was = IN_RUN.with(|flag| flag.replace(true));
        let out = f();
        IN_RUN.with(|flag| flag.set(was));
        out
    }
}

#[cfg(not(target_arch = "wasm32"))]
pub use native::{engine_panics, inside_run};

#[cfg(target_arch = "wasm32")]
pub fn inside_run<T>(f: impl FnOnce() -> T) -> T {
    f()
}
