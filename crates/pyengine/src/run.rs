//! One run: fresh globals, captured stdout, program then expression (then expected), budgets.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use execbench_core::{Outcome, RunRequest, RunResult};
use rustpython_vm::builtins::{PyBaseExceptionRef, PyStr};
use rustpython_vm::frame::Frame;
use rustpython_vm::function::FuncArgs;
use rustpython_vm::types::PyComparisonOp;
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine, compiler::Mode};

use crate::budget::Watchdog;
use crate::clock::now_ms;
use crate::trace_recorder::{PROGRAM_FILE, Recorder};

/// Why the interpreter was stopped by us rather than by the program.
#[derive(Clone, Copy, Default, PartialEq)]
enum Stop {
    #[default]
    None,
    Steps,
    Time,
}

pub fn run(vm: &VirtualMachine, request: &RunRequest, watchdog: &Watchdog, tracer: &StepTracer) -> RunResult {
    let started = now_ms();
    let capture = match start_capture(vm) {
        Ok(c) => c,
        Err(exc) => return crashed(vm, &exc, started),
    };
    let tracing = tracer.install(vm, request, started);
    let deadline = watchdog.arm(request.limits.time_ms);
    let result = evaluate(vm, request);
    let timed_out = deadline.fired();
    // Natively the deadline is a guard whose drop disarms the watchdog; in wasm it is plain data.
    #[allow(clippy::drop_non_drop)]
    drop(deadline);
    let trace = tracer.take_trace(vm);
    // A deadline that fired left its own trace function behind (`budget.rs`).
    if tracing || timed_out {
        tracer.remove(vm);
    }
    drain_pending_signals(vm);
    let stdout = finish_capture(vm, capture);
    let outcome = match (tracer.stopped(), timed_out) {
        (_, true) | (Stop::Time, _) => Outcome::TimedOut { limit_ms: request.limits.time_ms },
        (Stop::Steps, _) => Outcome::StepLimit { steps: request.limits.max_steps },
        (Stop::None, false) => match result {
            Ok(outcome) => outcome,
            Err((phase, exc)) => raised(vm, &exc, phase),
        },
    };
    RunResult { outcome, stdout, elapsed_ms: now_ms() - started, trace }
}

type Failure = (&'static str, PyBaseExceptionRef);

fn evaluate(vm: &VirtualMachine, request: &RunRequest) -> Result<Outcome, Failure> {
    let scope = vm.new_scope_with_builtins();
    let in_phase = |phase: &'static str| move |exc: PyBaseExceptionRef| (phase, exc);
    scope.globals.set_item("__name__", vm.ctx.new_str("__main__").into(), vm).map_err(in_phase("program"))?;
    if !request.prelude.is_empty() {
        exec(vm, &request.prelude, Mode::Exec, "<prelude>", &scope).map_err(in_phase("program"))?;
    }
    exec(vm, &request.program, Mode::Exec, PROGRAM_FILE, &scope).map_err(in_phase("program"))?;
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
        trace: None,
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

/// The step budget's trace function, one per interpreter for its whole life: RustPython keeps
/// the closure of every function made from Rust forever (`Box::leak` in `new_method_def`), so a
/// tracer made per run would leave one closure, and what it holds, behind each run. Its budget is
/// set afresh for every run. It returns the trace function in force (so line events keep coming
/// for each new frame) rather than holding a reference to itself.
pub struct StepTracer {
    budget: Rc<Budget>,
    function: PyObjectRef,
}

#[derive(Default)]
struct Budget {
    steps: Cell<u64>,
    max_steps: Cell<u64>,
    deadline: Cell<f64>,
    stop: Cell<Stop>,
    /// Set for a run that asked for its trace.
    recorder: RefCell<Option<Recorder>>,
}

thread_local! {
    /// Trace functions made on this thread (the tests check it does not grow per run).
    static TRACERS_MADE: Cell<u64> = const { Cell::new(0) };
}

impl StepTracer {
    pub fn new(vm: &VirtualMachine) -> StepTracer {
        TRACERS_MADE.with(|n| n.set(n.get() + 1));
        let budget = Rc::new(Budget::default());
        let seen = budget.clone();
        let function =
            vm.new_function("_execbench_tracer", move |args: FuncArgs, vm: &VirtualMachine| -> PyResult<PyObjectRef> {
                let n = seen.steps.get() + 1;
                seen.steps.set(n);
                let max_steps = seen.max_steps.get();
                if n > max_steps {
                    seen.stop.set(Stop::Steps);
                    return Err(vm.new_exception_msg(
                        vm.ctx.exceptions.runtime_error.to_owned(),
                        format!("execbench: step limit of {max_steps} reached").into(),
                    ));
                }
                if n.is_multiple_of(1024) && now_ms() > seen.deadline.get() {
                    seen.stop.set(Stop::Time);
                    return Err(vm
                        .new_os_subtype_error(
                            vm.ctx.exceptions.timeout_error.to_owned(),
                            None,
                            "execbench: time limit reached",
                        )
                        .upcast());
                }
                // The engine turns tracing off while it calls this function; a call from the
                // program (through `sys.gettrace()`) finds it on, and records nothing.
                if !vm.use_tracing.get()
                    && let Ok(mut recorder) = seen.recorder.try_borrow_mut()
                    && let Some(recorder) = recorder.as_mut()
                    && let [frame, event, arg] = &args.args[..]
                    && let (Some(frame), Some(event)) = (frame.downcast_ref::<Frame>(), event.downcast_ref::<PyStr>())
                    && vm.current_frame().is_some_and(|now| now.as_object().is(frame.as_object()))
                {
                    recorder.event(vm, frame, &event.to_string_lossy(), arg);
                }
                Ok(vm.trace_func.borrow().clone())
            });
        StepTracer { budget, function: function.into() }
    }

    /// With a step budget, counts interpreter events (calls, lines, returns) and stops the run
    /// when the budget is spent; it also checks the clock every 1024 events, which is the only
    /// in-engine time limit on wasm32. Without a step budget nothing is installed: tracing makes
    /// tight loops several times slower. Returns whether it was installed.
    fn install(&self, vm: &VirtualMachine, request: &RunRequest, started: f64) -> bool {
        self.budget.stop.set(Stop::None);
        *self.budget.recorder.borrow_mut() = request.trace.map(Recorder::new);
        // A traced run is counted too; without a step budget its count never stops it.
        let max_steps = match (request.limits.max_steps, request.trace) {
            (0, None) => return false,
            (0, Some(_)) => u64::MAX,
            (n, _) => n,
        };
        self.budget.steps.set(0);
        self.budget.max_steps.set(max_steps);
        self.budget.deadline.set(started + request.limits.time_ms as f64);
        vm.sys_module.get_attr("settrace", vm).and_then(|f| f.call((self.function.clone(),), vm)).is_ok()
    }

    /// The recorded trace of a run that asked for one (before `remove`: a program that replaced
    /// the trace function is found out here).
    fn take_trace(&self, vm: &VirtualMachine) -> Option<execbench_core::trace::Trace> {
        let recorder = self.budget.recorder.borrow_mut().take()?;
        let replaced = !vm.trace_func.borrow().is(&self.function);
        Some(recorder.finish(replaced))
    }

    fn remove(&self, vm: &VirtualMachine) {
        let _ = vm.sys_module.get_attr("settrace", vm).and_then(|f| f.call((vm.ctx.none(),), vm));
    }

    fn stopped(&self) -> Stop {
        self.budget.stop.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs with a step budget add nothing that outlives them: one trace function per engine,
    /// however many runs it makes.
    #[test]
    fn runs_with_a_step_budget_make_no_new_trace_function() {
        let made = || TRACERS_MADE.with(Cell::get);
        let before = made();
        let mut engine = crate::RustPythonEngine::new();
        let request = RunRequest::new("def f(n):\n    return sum(range(n))", "f(50)")
            .with_limits(execbench_core::Limits { time_ms: 5_000, max_steps: 100_000 });
        for _ in 0..50 {
            let outcome = execbench_core::PythonEngine::run(&mut engine, &request).outcome;
            assert_eq!(outcome, Outcome::Value { repr: "1225".to_string(), matches: None });
        }
        assert_eq!(made() - before, 1, "trace functions made for 50 runs of one engine");
    }
}
