//! One run: fresh globals, captured stdout, program then expression (then expected), budgets.

use std::cell::Cell;
use std::rc::Rc;

use execbench_core::{Outcome, RunRequest, RunResult};
use rustpython_vm::builtins::PyBaseExceptionRef;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::types::PyComparisonOp;
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine, compiler::Mode};

use crate::budget::Watchdog;
use crate::clock::now_ms;

/// Why the interpreter was stopped by us rather than by the program.
#[derive(Clone, Copy, PartialEq)]
enum Stop {
    None,
    Steps,
    Time,
}

pub fn run(vm: &VirtualMachine, request: &RunRequest, watchdog: &Watchdog) -> RunResult {
    let started = now_ms();
    let capture = match start_capture(vm) {
        Ok(c) => c,
        Err(exc) => return crashed(vm, &exc, started),
    };
    let stop = Rc::new(Cell::new(Stop::None));
    let tracing = install_tracer(vm, request, stop.clone(), started);
    let deadline = watchdog.arm(request.limits.time_ms);
    let result = evaluate(vm, request);
    let timed_out = deadline.fired();
    // Natively the deadline is a guard whose drop disarms the watchdog; in wasm it is plain data.
    #[allow(clippy::drop_non_drop)]
    drop(deadline);
    if tracing {
        let _ = vm.sys_module.get_attr("settrace", vm).and_then(|f| f.call((vm.ctx.none(),), vm));
    }
    drain_pending_signals(vm);
    let stdout = finish_capture(vm, capture);
    let outcome = match (stop.get(), timed_out) {
        (_, true) | (Stop::Time, _) => Outcome::TimedOut { limit_ms: request.limits.time_ms },
        (Stop::Steps, _) => Outcome::StepLimit { steps: request.limits.max_steps },
        (Stop::None, false) => match result {
            Ok(outcome) => outcome,
            Err((phase, exc)) => raised(vm, &exc, phase),
        },
    };
    RunResult { outcome, stdout, elapsed_ms: now_ms() - started }
}

type Failure = (&'static str, PyBaseExceptionRef);

fn evaluate(vm: &VirtualMachine, request: &RunRequest) -> Result<Outcome, Failure> {
    let scope = vm.new_scope_with_builtins();
    let in_phase = |phase: &'static str| move |exc: PyBaseExceptionRef| (phase, exc);
    scope.globals.set_item("__name__", vm.ctx.new_str("__main__").into(), vm).map_err(in_phase("program"))?;
    if !request.prelude.is_empty() {
        exec(vm, &request.prelude, Mode::Exec, "<prelude>", &scope).map_err(in_phase("program"))?;
    }
    exec(vm, &request.program, Mode::Exec, "<program>", &scope).map_err(in_phase("program"))?;
    let value = exec(vm, &request.expression, Mode::Eval, "<expression>", &scope).map_err(in_phase("expression"))?;
    let repr = value.repr(vm).map_err(in_phase("expression"))?.to_string_lossy().into_owned();
    let matches = match &request.expected {
        None => None,
        Some(expected) => {
            let expected = exec(vm, expected, Mode::Eval, "<expected>", &scope).map_err(in_phase("expected"))?;
            Some(value.rich_compare_bool(&expected, PyComparisonOp::Eq, vm).map_err(in_phase("expected"))?)
        }
    };
    Ok(Outcome::Value { repr, matches })
}

fn exec(vm: &VirtualMachine, source: &str, mode: Mode, name: &str, scope: &rustpython_vm::scope::Scope) -> PyResult {
    let code = vm.compile(source, mode, name.to_owned()).map_err(|err| vm.new_syntax_error(&err, Some(source)))?;
    vm.run_code_obj(code, scope.clone())
}

fn raised(vm: &VirtualMachine, exc: &PyBaseExceptionRef, phase: &str) -> Outcome {
    let kind = exc.class().name().to_string();
    let message = exc.as_object().str(vm).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let mut traceback = String::new();
    let _ = vm.write_exception(&mut traceback, exc);
    Outcome::Raised { kind, message, traceback, phase: phase.to_owned() }
}

fn crashed(vm: &VirtualMachine, exc: &PyBaseExceptionRef, started: f64) -> RunResult {
    let mut text = String::new();
    let _ = vm.write_exception(&mut text, exc);
    RunResult {
        outcome: Outcome::Crashed { reason: format!("could not set up the run: {text}") },
        stdout: String::new(),
        elapsed_ms: now_ms() - started,
    }
}

/// Points `sys.stdout` and `sys.stderr` at a fresh `io.StringIO` (the engine has no real stdio).
fn start_capture(vm: &VirtualMachine) -> PyResult<PyObjectRef> {
    let buffer = vm.import("_io", 0)?.get_attr("StringIO", vm)?.call((), vm)?;
    vm.sys_module.set_attr("stdout", buffer.clone(), vm)?;
    vm.sys_module.set_attr("stderr", buffer.clone(), vm)?;
    Ok(buffer)
}

fn finish_capture(vm: &VirtualMachine, buffer: PyObjectRef) -> String {
    let text = buffer
        .get_attr("getvalue", vm)
        .and_then(|f| f.call((), vm))
        .and_then(|v| v.str(vm))
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let _ = vm.sys_module.set_attr("stdout", vm.ctx.none(), vm);
    let _ = vm.sys_module.set_attr("stderr", vm.ctx.none(), vm);
    text
}

/// A deadline that fired after the run ended leaves signals queued; consume them now so they do
/// not interrupt the next run.
fn drain_pending_signals(vm: &VirtualMachine) {
    for _ in 0..1000 {
        if vm.check_signals().is_ok() {
            return;
        }
    }
}

/// With a step budget, a trace function counts interpreter events (calls, lines, returns) and
/// stops the run when the budget is spent; it also checks the clock every 1024 events, which is
/// the only in-engine time limit on wasm32. Without a step budget nothing is installed: tracing
/// makes tight loops several times slower.
fn install_tracer(vm: &VirtualMachine, request: &RunRequest, stop: Rc<Cell<Stop>>, started: f64) -> bool {
    let max_steps = request.limits.max_steps;
    if max_steps == 0 {
        return false;
    }
    let deadline = started + request.limits.time_ms as f64;
    let steps = Rc::new(Cell::new(0u64));
    let this: Rc<Cell<Option<PyObjectRef>>> = Rc::new(Cell::new(None));
    let this_inner = this.clone();
    let tracer =
        vm.new_function("_execbench_tracer", move |_args: FuncArgs, vm: &VirtualMachine| -> PyResult<PyObjectRef> {
            let n = steps.get() + 1;
            steps.set(n);
            if n > max_steps {
                stop.set(Stop::Steps);
                return Err(vm.new_exception_msg(
                    vm.ctx.exceptions.runtime_error.to_owned(),
                    format!("execbench: step limit of {max_steps} reached").into(),
                ));
            }
            if n.is_multiple_of(1024) && now_ms() > deadline {
                stop.set(Stop::Time);
                return Err(vm
                    .new_os_subtype_error(
                        vm.ctx.exceptions.timeout_error.to_owned(),
                        None,
                        "execbench: time limit reached",
                    )
                    .upcast());
            }
            // Returning the tracer itself keeps line events coming for the new frame.
            let me = this_inner.take();
            let result = me.clone().unwrap_or_else(|| vm.ctx.none());
            this_inner.set(me);
            Ok(result)
        });
    let tracer: PyObjectRef = tracer.into();
    this.set(Some(tracer.clone()));
    vm.sys_module.get_attr("settrace", vm).and_then(|f| f.call((tracer,), vm)).is_ok()
}
