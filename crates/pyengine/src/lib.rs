//! The execbench Python engine: RustPython with a curated frozen standard library and no host
//! access, behind `execbench_core::PythonEngine`. The same code runs natively (tests, the command
//! line) and in the Web Worker.
//!
//! Budgets: natively a watchdog thread interrupts the interpreter at the deadline (RustPython's
//! user-signal channel, checked between bytecodes: no cost while running). On wasm32 there are no
//! signals; the worker's owner enforces the wall clock by terminating the worker, and `max_steps`
//! (an interpreter trace hook, which costs speed) is the in-engine stop.

mod budget;
mod clock;
mod frozen;
mod interpreter;
mod lazy_stdlib;
mod lockdown;
mod quiet_panic;
mod run;
mod trace_recorder;

pub use interpreter::{FROZEN_MODULES, RustPythonEngine};
/// The standard library's part downloaded on first import in the browser (`lazy_stdlib.rs`).
pub mod stdlib_rest {
    #[cfg(not(target_arch = "wasm32"))]
    pub use crate::lazy_stdlib::REST_BYTES;
    pub use crate::lazy_stdlib::{Fetch, REST_FILE, REST_MODULES, fetch_rest_with};
}
#[cfg(not(target_arch = "wasm32"))]
pub use quiet_panic::engine_panics;
