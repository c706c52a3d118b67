//! Records a run's line steps for `RunRequest::trace` (`execbench_core::trace` says what a step
//! is). It lives in the engine's Rust trace function, so the program cannot read or change it:
//! a call of that function from Python (through `sys.gettrace()`) with anything but the frame
//! that is running is ignored, and a program that replaces the trace function gets a trace
//! marked truncated.

use std::collections::HashMap;

use execbench_core::trace::{CallEnd, ExitMark, MAX_REPR_CHARS, Trace, TraceLimits, TraceStep, TracedValue};
use rustpython_vm::builtins::{PyDict, PyTuple};
use rustpython_vm::frame::Frame;
use rustpython_vm::{AsObject, Py, PyObjectRef, VirtualMachine};

/// The file name the engine compiles the program under (`run.rs`).
pub(crate) const PROGRAM_FILE: &str = "<program>";

pub(crate) struct Recorder {
    limits: TraceLimits,
    trace: Trace,
    bytes: usize,
    /// The program's calls that are running, by frame address.
    open: HashMap<usize, OpenCall>,
}

struct OpenCall {
    call: u32,
    last_step: Option<usize>,
    /// An exception is passing through the call (the type's name); a line event clears it.
    raising: Option<String>,
}

impl Recorder {
    pub(crate) fn new(limits: TraceLimits) -> Recorder {
        Recorder { limits, trace: Trace::default(), bytes: 0, open: HashMap::new() }
    }

    /// One trace event. `frame` must be the frame running now (checked by the caller).
    pub(crate) fn event(&mut self, vm: &VirtualMachine, frame: &Py<Frame>, event: &str, arg: &PyObjectRef) {
        if self.trace.truncated || !is_program_function(frame) {
            return;
        }
        let key = frame.as_object().get_id();
        match event {
            "call" => {
                let call = self.trace.calls.len() as u32;
                self.trace.calls.push(frame.code.obj_name.as_str().to_owned());
                let arguments = self.locals_of(vm, frame);
                self.trace.arguments.push(arguments);
                self.open.insert(key, OpenCall { call, last_step: None, raising: None });
            }
            "line" => {
                let Some(open) = self.open.get(&key) else { return };
                let (call, last_step) = (open.call, open.last_step);
                if let Some(i) = last_step {
                    self.trace.steps[i].locals = self.locals_of(vm, frame);
                }
                let line = frame.f_lineno() as u32;
                // A line that runs again right after itself (a one-line loop; a comprehension,
                // which RustPython runs inline and CPython 3.11 in a frame of its own) is one step.
                if let Some(i) = last_step
                    && i + 1 == self.trace.steps.len()
                    && self.trace.steps[i].line == line
                {
                    self.open.get_mut(&key).expect("looked up above").raising = None;
                    return;
                }
                if self.trace.steps.len() >= self.limits.max_steps as usize || self.over_bytes() {
                    self.trace.truncated = true;
                    return;
                }
                self.trace.steps.push(TraceStep { line, call, locals: Vec::new(), ended: None });
                let open = self.open.get_mut(&key).expect("looked up above");
                open.last_step = Some(self.trace.steps.len() - 1);
                open.raising = None;
            }
            "exception" => {
                if let Some(open) = self.open.get_mut(&key) {
                    open.raising = Some(exception_kind(vm, arg));
                    let call = open.call;
                    self.mark_exit(call, frame, true);
                }
            }
            "return" => {
                let Some(open) = self.open.remove(&key) else { return };
                self.mark_exit(open.call, frame, false);
                let Some(i) = open.last_step else { return };
                self.trace.steps[i].locals = self.locals_of(vm, frame);
                self.trace.steps[i].ended = Some(match open.raising {
                    Some(kind) => CallEnd::Raised { kind },
                    None => CallEnd::Returned,
                });
            }
            _ => {}
        }
    }

    /// The trace so far; the program replaced the trace function if `replaced`.
    pub(crate) fn finish(mut self, replaced: bool) -> Trace {
        self.trace.truncated |= replaced;
        self.trace
    }

    fn mark_exit(&mut self, call: u32, frame: &Py<Frame>, raised: bool) {
        if self.trace.exits.len() < self.limits.max_steps as usize {
            let after = self.trace.steps.len() as u32;
            self.trace.exits.push(ExitMark { after, call, line: frame.f_lineno() as u32, raised });
        }
    }

    fn over_bytes(&self) -> bool {
        self.bytes > self.limits.max_bytes as usize
    }

    fn locals_of(&mut self, vm: &VirtualMachine, frame: &Py<Frame>) -> Vec<TracedValue> {
        let Ok(mapping) = frame.locals(vm) else { return Vec::new() };
        let items = match mapping.obj().downcast_ref::<PyDict>() {
            Some(dict) => dict.items_vec(),
            None => return Vec::new(),
        };
        items
            .into_iter()
            .filter_map(|(name, value)| {
                let name = name.str(vm).ok()?.to_string_lossy().into_owned();
                Some(self.value(vm, name, &value))
            })
            .collect()
    }

    fn value(&mut self, vm: &VirtualMachine, name: String, value: &PyObjectRef) -> TracedValue {
        let type_name = value.class().name().to_string();
        let repr = match value.repr(vm) {
            Ok(text) => {
                let text = text.to_string_lossy();
                if text.chars().count() > MAX_REPR_CHARS { String::new() } else { text.into_owned() }
            }
            Err(_) => String::new(),
        };
        self.bytes += repr.len() + name.len() + type_name.len();
        TracedValue { name, repr, type_name }
    }
}

/// A frame of one of the program's named functions (not its module code, a lambda or a
/// comprehension: their names are in angle brackets).
fn is_program_function(frame: &Py<Frame>) -> bool {
    frame.code.source_path().as_str() == PROGRAM_FILE && !frame.code.obj_name.as_str().starts_with('<')
}

/// The type's name from an `exception` event's `(type, value, traceback)`.
fn exception_kind(vm: &VirtualMachine, arg: &PyObjectRef) -> String {
    arg.downcast_ref::<PyTuple>()
        .and_then(|t| t.first().cloned())
        .and_then(|kind| kind.get_attr("__name__", vm).ok())
        .and_then(|name| name.str(vm).ok().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "Exception".to_owned())
}
