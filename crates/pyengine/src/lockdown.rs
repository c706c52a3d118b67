//! No code object is built from anything but source text.
//!
//! RustPython 0.5 runs a code object's bytecode without checking it: an instruction that reads
//! past the value stack, or a local or constant index out of range, reads or writes memory it
//! does not own. The compiler's bytecode is consistent; bytecode a program writes itself is not.
//! So every way Python has to make a code object from bytes or from fields is refused here:
//!
//! - `types.CodeType(...)` (also reached as `type(f.__code__)`, `f.__code__.__class__`,
//!   `CodeType.__new__`): the type's `new` slot, which every one of these calls goes through;
//! - `code.replace(...)`, `code.__replace__(...)` (and so `copy.replace(code, ...)`): the type's
//!   attributes, replaced by methods that refuse;
//! - `marshal.loads`, `marshal.load`: the `marshal` module's definition is swapped for a copy
//!   whose two loaders refuse, so a module made again (`del sys.modules['marshal']`, then
//!   `import marshal`, or `_imp.create_builtin`) is the guarded one too;
//! - `_imp.get_frozen_object(name, data)`: decodes `data` as a code object; `_imp` is swapped the
//!   same way, and without `data` the call is RustPython's own (the frozen stdlib is imported
//!   through it).
//!
//! Nor does a frame jump: `frame.f_lineno = N`, which CPython allows only inside a trace function,
//! RustPython 0.5 allows anywhere, moving a running frame (a caller's, a suspended generator's) to
//! another instruction: the same class of escape, made with the compiler's own bytecode. The
//! frame type's `f_lineno` is replaced by one that reads as before and refuses every write
//! ([`lock_frame_jumps`]).
//!
//! Built-in types cannot be changed from Python (their attributes are read-only), and the
//! originals are kept by Rust only, where Python cannot reach them. `compile()` and `exec()` of
//! source text stay: what they run comes from the compiler.

use std::cell::OnceCell;

use rustpython_vm::builtins::PyUtf8StrRef;
use rustpython_vm::builtins::{PyModuleDef, PyModuleSlots, PyTypeRef};
use rustpython_vm::frame::Frame;
use rustpython_vm::function::{FuncArgs, PyMethodDef, PyMethodFlags, PySetterValue};
use rustpython_vm::{Context, PyObjectRef, PyResult, VirtualMachine};

/// Why the sandbox refuses, in every refusal's message.
const WHY: &str = "execbench runs Python in a sandbox where code objects come only from source text \
                   (RustPython runs hand-made bytecode unchecked, which can corrupt the engine's memory)";

fn refusal(vm: &VirtualMachine, what: &str) -> rustpython_vm::builtins::PyBaseExceptionRef {
    vm.new_os_subtype_error(
        vm.ctx.exceptions.permission_error.to_owned(),
        None,
        format!("{what} is not available: {WHY}"),
    )
    .upcast()
}

/// The module definitions that replace RustPython's `marshal` and `_imp`; handed to the
/// interpreter builder, whose later definitions win over its built-in ones of the same name.
/// Made once per thread (RustPython's context, whose names they use, is one per thread here) and
/// kept for the thread's life, as the built-in definitions are.
pub fn guarded_module_defs(ctx: &Context) -> Vec<&'static PyModuleDef> {
    thread_local! {
        static DEFS: OnceCell<Vec<&'static PyModuleDef>> = const { OnceCell::new() };
    }
    DEFS.with(|defs| defs.get_or_init(|| make_guarded_defs(ctx)).clone())
}

fn make_guarded_defs(ctx: &Context) -> Vec<&'static PyModuleDef> {
    let originals = rustpython_vm::stdlib::builtin_module_defs(ctx);
    let original = |name: &str| {
        *originals
            .iter()
            .find(|def| def.name.as_str() == name)
            .unwrap_or_else(|| panic!("RustPython 0.5 has a built-in `{name}` module"))
    };
    vec![
        with_methods(
            original("marshal"),
            &[
                PyMethodDef::new_raw_const("loads", refuse_marshal_loads, PyMethodFlags::EMPTY, None),
                PyMethodDef::new_raw_const("load", refuse_marshal_load, PyMethodFlags::EMPTY, None),
            ],
        ),
        with_methods(
            original("_imp"),
            &[PyMethodDef::new_raw_const("get_frozen_object", frozen_object_by_name_only, PyMethodFlags::EMPTY, None)],
        ),
    ]
}

/// A copy of `def` whose methods named in `replacements` are those; the rest (and the module's
/// attributes, set by its `exec` slot) as they were. Every replaced name must exist, so an engine
/// upgrade that renames one fails here, loudly, rather than leaving the original in place.
fn with_methods(def: &'static PyModuleDef, replacements: &[PyMethodDef]) -> &'static PyModuleDef {
    let mut methods: Vec<PyMethodDef> = def.methods.to_vec();
    for replacement in replacements {
        let slot = methods
            .iter_mut()
            .find(|m| m.name == replacement.name)
            .unwrap_or_else(|| panic!("RustPython's `{}` has no `{}` to guard", def.name.as_str(), replacement.name));
        *slot = PyMethodDef { flags: slot.flags, ..replacement.clone() };
    }
    Box::leak(Box::new(PyModuleDef {
        name: def.name,
        doc: def.doc,
        methods: Box::leak(methods.into_boxed_slice()),
        slots: PyModuleSlots { create: def.slots.create, exec: def.slots.exec },
    }))
}

fn refuse_marshal_loads(vm: &VirtualMachine, _args: FuncArgs) -> PyResult {
    Err(refusal(vm, "marshal.loads()"))
}

fn refuse_marshal_load(vm: &VirtualMachine, _args: FuncArgs) -> PyResult {
    Err(refusal(vm, "marshal.load()"))
}

/// `_imp.get_frozen_object(name)` as RustPython has it; with `data` (bytes to decode as a code
/// object) refused.
fn frozen_object_by_name_only(vm: &VirtualMachine, mut args: FuncArgs) -> PyResult {
    let data = args.kwargs.swap_remove("data").or_else(|| (args.args.len() > 1).then(|| args.args.remove(1)));
    if data.is_some_and(|data| !vm.is_none(&data)) {
        return Err(refusal(vm, "_imp.get_frozen_object() with data"));
    }
    let (name,): (PyUtf8StrRef,) = args.bind(vm)?;
    rustpython_vm::import::make_frozen(vm, name.as_str()).map(Into::into)
}

/// Makes `types.CodeType(...)`, `code.replace(...)` and `code.__replace__(...)` refuse. Runs on
/// every new interpreter (the code type is shared by the interpreters of a thread; doing it
/// twice changes nothing).
pub fn lock_code_type(vm: &VirtualMachine) {
    let code_type = vm.ctx.types.code_type;
    code_type.slots.new.store(Some(refuse_code_new));
    for name in ["replace", "__replace__"] {
        let refuse = vm.new_method(name, code_type, move |_args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            Err(refusal(vm, &format!("code.{name}()")))
        });
        code_type.set_attr(vm.ctx.intern_str(name), refuse.into());
    }
}

/// Makes `frame.f_lineno = N` (and `del frame.f_lineno`) refuse, on every frame; reading it is
/// unchanged. Runs on every new interpreter, as [`lock_code_type`] does.
pub fn lock_frame_jumps(vm: &VirtualMachine) {
    let frame_type = vm.ctx.types.frame_type;
    let line_number = vm.ctx.new_static_getset(
        "f_lineno",
        frame_type,
        |frame: &Frame, _vm: &VirtualMachine| frame.f_lineno(),
        |_frame: &Frame, _value: PySetterValue<PyObjectRef>, vm: &VirtualMachine| -> PyResult<()> {
            Err(vm.new_os_subtype_error(
                vm.ctx.exceptions.permission_error.to_owned(),
                None,
                "setting frame.f_lineno is not available: execbench runs Python in a sandbox where a frame runs from where the compiler put it (RustPython allows the jump anywhere, which can corrupt the engine's memory)".to_string(),
            )
            .upcast())
        },
    );
    frame_type.set_attr(vm.ctx.intern_str("f_lineno"), line_number.into());
}

fn refuse_code_new(_cls: PyTypeRef, _args: FuncArgs, vm: &VirtualMachine) -> PyResult {
    Err(refusal(vm, "types.CodeType()"))
}
