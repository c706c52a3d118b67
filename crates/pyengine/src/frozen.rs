//! The engine's own Python, compiled to bytecode by build.rs, and how it is run: the sandbox's
//! sources for the interpreter's start (`interpreter.rs`) and the standard library's finder
//! (`lazy_stdlib.rs`). Both read it from here, so neither needs the other for it.

use rustpython_vm::{PyResult, VirtualMachine};

// `sandbox_io_code()`, `sandbox_posix_code()`, `engine_patches_code()`, `lazy_stdlib_code()`:
// sandbox_io.py, sandbox_posix.py, engine_patches.py and lazy_stdlib.py as bytecode, compiled by
// build.rs.
include!(concat!(env!("OUT_DIR"), "/sandbox_code.rs"));

/// Runs bytecode build.rs compiled, in `globals`.
pub(crate) fn run_frozen(
    vm: &VirtualMachine,
    code: rustpython_compiler_core::frozen::FrozenCodeObject<&[u8]>,
    globals: rustpython_vm::builtins::PyDictRef,
) -> PyResult<()> {
    let scope = rustpython_vm::scope::Scope::with_builtins(None, globals, vm);
    vm.run_code_obj(vm.ctx.new_code(code), scope).map(drop)
}
