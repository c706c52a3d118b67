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
mod interpreter;
mod lockdown;
mod quiet_panic;
mod run;

pub use interpreter::{FROZEN_MODULES, RustPythonEngine};
#[cfg(not(target_arch = "wasm32"))]
pub use quiet_panic::engine_panics;
