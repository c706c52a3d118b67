//! Building the interpreter: native modules, the frozen curated stdlib, the sandboxed `posix`.

use execbench_core::{Outcome, PythonEngine, RunRequest, RunResult};
use rustpython_vm::{Interpreter, PyResult, Settings, VirtualMachine};

use crate::budget::Watchdog;
use crate::frozen::{engine_patches_code, run_frozen, sandbox_io_code, sandbox_posix_code};
use crate::run;

/// Python's recursion limit in the browser (CPython and the native engine use 1000).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub const WASM_RECURSION_LIMIT: u32 = 400;

/// The names of the frozen standard-library modules, for the docs and the sandbox tests.
pub const FROZEN_MODULES: &str = include_str!("../stdlib.txt");

/// A RustPython interpreter that runs requests in fresh globals.
pub struct RustPythonEngine {
    interpreter: Interpreter,
    watchdog: Watchdog,
    tracer: run::StepTracer,
}

impl RustPythonEngine {
    /// Starts an interpreter (tens of milliseconds: the stdlib is frozen, nothing is read).
    pub fn new() -> Self {
        let (watchdog, signals) = Watchdog::new();
        let mut settings = Settings::default();
        settings.import_site = false;
        settings.ignore_environment = true;
        settings.isolated = true;
        settings.install_signal_handlers = false;
        settings.path_list.clear();
        let builder = Interpreter::builder(settings);
        let native = rustpython_stdlib::stdlib_module_defs(&builder.ctx);
        // After the stdlib's: a later definition of a name replaces RustPython's own.
        let guarded = crate::lockdown::guarded_module_defs(&builder.ctx);
        let builder = builder
            .add_native_modules(&native)
            .add_native_modules(&guarded)
            .add_frozen_modules(crate::lazy_stdlib::START);
        let lazy = crate::lazy_stdlib::is_lazy();
        #[cfg(not(target_arch = "wasm32"))]
        let builder = if lazy {
            builder
        } else {
            builder.add_frozen_modules(rustpython_compiler_core::frozen::FrozenLib::from_ref(
                crate::lazy_stdlib::REST_BYTES,
            ))
        };
        let interpreter = builder
            .init_hook(move |vm| {
                if let Some(rx) = signals {
                    vm.set_user_signal_channel(rx);
                }
            })
            .build();
        let tracer = interpreter.enter(|vm| {
            if let Err(exc) =
                install_sandbox(vm).and_then(|()| if lazy { crate::lazy_stdlib::install_finder(vm) } else { Ok(()) })
            {
                let mut text = String::new();
                let _ = vm.write_exception(&mut text, &exc);
                panic!("the engine's own Python failed to install (a bug in sandbox_posix.py, sandbox_io.py, engine_patches.py or lazy_stdlib.py):\n{text}");
            }
            run::StepTracer::new(vm)
        });
        RustPythonEngine { interpreter, watchdog, tracer }
    }
}

impl Default for RustPythonEngine {
    fn default() -> Self {
        Self::new()
    }
}

impl PythonEngine for RustPythonEngine {
    /// A panic inside RustPython (a bug of the engine, e.g. 0.5's `str.rfind` on some slices of
    /// non-ASCII text) is the run's `Crashed` outcome, not the caller's crash: the interpreter is
    /// replaced, since it may have stopped halfway through changing its own state. (On wasm32 a
    /// panic aborts the worker instead, and the page replaces the worker.)
    fn run(&mut self, request: &RunRequest) -> RunResult {
        let started = crate::clock::now_ms();
        let watchdog = &self.watchdog;
        let interpreter = &self.interpreter;
        let tracer = &self.tracer;
        let caught = crate::quiet_panic::inside_run(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                interpreter.enter(|vm| run::run(vm, request, watchdog, tracer))
            }))
        });
        match caught {
            Ok(result) => {
                // A run stopped at its budget may have been anywhere, halfway through an import
                // (a module left half-made in `sys.modules`) or a class body: the next run gets
                // a fresh interpreter rather than whatever the stopped one left behind.
                if matches!(result.outcome, Outcome::TimedOut { .. } | Outcome::StepLimit { .. }) {
                    *self = RustPythonEngine::new();
                }
                result
            }
            Err(payload) => {
                let message =
                    execbench_core::panic_message(payload.as_ref()).unwrap_or_else(|| "no message".to_string());
                *self = RustPythonEngine::new();
                let elapsed_ms = crate::clock::now_ms() - started;
                // A run past its time limit timed out, however it was stopped: if RustPython
                // panics while a deadline stops it (it did when TimeoutError was raised at a
                // signal check, before `budget.rs` used a trace function), the outcome must not
                // depend on that.
                let limit_ms = request.limits.time_ms;
                let outcome = if limit_ms > 0 && elapsed_ms >= limit_ms as f64 {
                    Outcome::TimedOut { limit_ms }
                } else {
                    Outcome::Crashed {
                        reason: format!("RustPython failed inside the run ({message}); the interpreter was restarted"),
                    }
                };
                RunResult { outcome, stdout: String::new(), elapsed_ms, trace: None }
            }
        }
    }
}

/// Refuses code objects made from anything but source and frame jumps (`lockdown.rs`), registers the sandbox
/// `posix` as a built-in module, before anything imports `os`, and makes file access fail with a
/// message that says why.
fn install_sandbox(vm: &VirtualMachine) -> PyResult<()> {
    crate::lockdown::lock_code_type(vm);
    crate::lockdown::lock_frame_jumps(vm);
    run_frozen(vm, sandbox_io_code(), vm.ctx.new_dict())?;
    let module = vm.new_module("posix", vm.ctx.new_dict(), None);
    run_frozen(vm, sandbox_posix_code(), module.dict())?;
    let sys = &vm.sys_module;
    sys.get_attr("modules", vm)?.set_item("posix", module.into(), vm)?;
    // os.py picks its platform module by looking for it among the built-in names.
    let names = sys.get_attr("builtin_module_names", vm)?;
    let mut list: Vec<_> = names.try_to_value::<Vec<rustpython_vm::PyObjectRef>>(vm)?;
    list.push(vm.ctx.new_str("posix").into());
    sys.set_attr("builtin_module_names", vm.ctx.new_tuple(list), vm)?;
    let patches = vm.ctx.new_dict();
    run_frozen(vm, engine_patches_code(), patches.clone())?;
    let fromkeys = patches.get_item("_dict_fromkeys", vm)?;
    vm.ctx.types.dict_type.set_attr(vm.ctx.intern_str("fromkeys"), fromkeys);
    // In a browser each Python call uses the JavaScript engine's native stack, which overflows
    // (killing the worker) between 600 and 800 nested calls; stop earlier with a RecursionError.
    #[cfg(target_arch = "wasm32")]
    sys.get_attr("setrecursionlimit", vm)?.call((WASM_RECURSION_LIMIT,), vm)?;
    Ok(())
}
