//! The standard library in two parts: what starting an interpreter imports (`stdlib_start.txt`,
//! always frozen in) and the rest of `stdlib.txt`.
//!
//! Natively the rest is frozen in too. On wasm32 it is not: it is a file of its own (about
//! 0.6 MB of brotli that a first visit would otherwise download, while the bundled CRUXEval's
//! programs import none of it), which the worker downloads on the first import of one of its
//! modules, through the function given to [`fetch_rest_with`] (in the browser a synchronous
//! request, which a dedicated worker may make), and keeps for the worker's life. The import
//! system finds those modules through a last finder on `sys.meta_path` (`lazy_stdlib.py`). A
//! failed download is that import's `ImportError`, saying why; the next import tries again.
//! Tests set a fetcher natively to run this path.

use std::sync::Mutex;

use rustpython_compiler_core::frozen::{FrozenCodeObject, FrozenLib};
use rustpython_vm::builtins::PyUtf8StrRef;
use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine};

include!(concat!(env!("OUT_DIR"), "/stdlib_rest.rs"));

/// The modules every interpreter has frozen in.
pub(crate) const START: &FrozenLib =
    FrozenLib::from_ref(include_bytes!(concat!(env!("OUT_DIR"), "/stdlib_start.frozen")));

/// The rest, as the downloaded file holds it (natively frozen in as well).
#[cfg(not(target_arch = "wasm32"))]
pub const REST_BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/stdlib_rest.frozen"));

/// The rest's file name and bytes as a custom section of the worker's wasm module: the site's
/// build hook (`scripts/split_stdlib.py`) writes them out as that file and drops the section, so
/// the bytes travel from this crate's build to `dist/` without being part of the module. Not
/// `#[used]`: that keeps a second copy among the module's data (measured), while rustc emits a
/// wasm custom section from an unused static as well.
#[cfg(target_arch = "wasm32")]
#[allow(dead_code)]
#[unsafe(link_section = "execbench_stdlib_rest")]
static REST_SECTION: [u8; REST_SECTION_LEN] = *include_bytes!(concat!(env!("OUT_DIR"), "/stdlib_rest.section"));

/// Downloads the rest's file (named [`REST_FILE`]) and returns its bytes, or says why it could not.
pub type Fetch = fn() -> Result<Vec<u8>, String>;

static FETCH: Mutex<Option<Fetch>> = Mutex::new(None);
static REST: Mutex<Option<&'static [u8]>> = Mutex::new(None);

/// From now on, interpreters started in this process read the rest on first import, through
/// `fetch`, instead of having it frozen in (which only native builds can).
pub fn fetch_rest_with(fetch: Fetch) {
    *FETCH.lock().unwrap_or_else(|e| e.into_inner()) = Some(fetch);
}

/// Whether new interpreters read the rest on first import.
pub(crate) fn is_lazy() -> bool {
    cfg!(target_arch = "wasm32") || FETCH.lock().unwrap_or_else(|e| e.into_inner()).is_some()
}

/// The rest's bytes: downloaded once, then kept (a failed download is not kept).
fn rest() -> Result<&'static [u8], String> {
    let mut kept = REST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(bytes) = *kept {
        return Ok(bytes);
    }
    let fetch = FETCH.lock().unwrap_or_else(|e| e.into_inner()).ok_or("no way to download it was set")?;
    let bytes = fetch()?;
    check(&bytes)?;
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    *kept = Some(bytes);
    Ok(bytes)
}

/// Whether `bytes` is a frozen library holding exactly [`REST_MODULES`], read the way
/// `FrozenLib` reads it (which panics on a malformed library, so a truncated or foreign file
/// must be turned away here).
fn check(bytes: &[u8]) -> Result<(), String> {
    fn take<'a>(rest: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        let (head, tail) = (rest.get(..n)?, rest.get(n..)?);
        *rest = tail;
        Some(head)
    }
    fn length(rest: &mut &[u8]) -> Option<usize> {
        take(rest, 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }
    let wrong = || format!("the file is not this build's standard library ({} bytes)", bytes.len());
    let mut rest = bytes;
    let count = length(&mut rest).ok_or_else(wrong)?;
    if count != REST_MODULES.len() {
        return Err(wrong());
    }
    for &(expected, package) in REST_MODULES {
        let n = length(&mut rest).ok_or_else(wrong)?;
        let name = take(&mut rest, n).ok_or_else(wrong)?;
        let n = length(&mut rest).ok_or_else(wrong)?;
        take(&mut rest, n).ok_or_else(wrong)?;
        let flag = take(&mut rest, 1).ok_or_else(wrong)?;
        if name != expected.as_bytes() || (flag[0] != 0) != package {
            return Err(wrong());
        }
    }
    if rest.is_empty() { Ok(()) } else { Err(wrong()) }
}

/// `name`'s code object from the rest, downloading it first if need be.
fn code_of(name: PyUtf8StrRef, vm: &VirtualMachine) -> PyResult<PyObjectRef> {
    let cannot = |why: String| {
        let message = format!(
            "cannot import {:?}: it is part of the standard library that this page downloads on first use, \
             and the download failed ({why}). Once downloaded online it is kept for offline use",
            name.as_str()
        );
        vm.new_import_error(message, name.clone())
    };
    let bytes = rest().map_err(cannot)?;
    let code: FrozenCodeObject<&[u8]> = FrozenLib::from_ref(bytes)
        .decode()
        .find(|(module, _)| *module == name.as_str())
        .map(|(_, module)| module.code)
        .ok_or_else(|| cannot("the module is not in the file".to_string()))?;
    Ok(vm.ctx.new_code(code).into())
}

/// Puts the last finder on `sys.meta_path`, which finds the rest's modules and loads each from
/// the downloaded file.
pub(crate) fn install_finder(vm: &VirtualMachine) -> PyResult<()> {
    let globals = vm.ctx.new_dict();
    let packages = vm.ctx.new_dict();
    for &(name, package) in REST_MODULES {
        packages.set_item(name, vm.ctx.new_bool(package).into(), vm)?;
    }
    globals.set_item("_packages", packages.into(), vm)?;
    globals.set_item("_code", vm.new_function("_code", code_of).into(), vm)?;
    crate::frozen::run_frozen(vm, crate::frozen::lazy_stdlib_code(), globals)
}
