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

    thread_local! {
        static IN_RUN: Cell<bool> = const { Cell::new(false) };
    }

    static INSTALL: Once = Once::new();

    /// Runs `f` with this thread's panics kept quiet.
    pub fn inside_run<T>(f: impl FnOnce() -> T) -> T {
        INSTALL.call_once(|| {
            let earlier = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if !IN_RUN.with(Cell::get) {
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
pub use native::inside_run;

#[cfg(target_arch = "wasm32")]
pub fn inside_run<T>(f: impl FnOnce() -> T) -> T {
    f()
}
