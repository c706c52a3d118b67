//! Compiles the curated standard library (stdlib.txt, paths in RustPython's Lib folder) to
//! bytecode and writes it to OUT_DIR as two frozen libraries, the format RustPython's
//! `FrozenLib` reads: what starting an interpreter imports (stdlib_start.txt) and the rest, which
//! the browser's worker downloads on first import (src/lazy_stdlib.rs). Freezing the whole Lib folder would add ~15 MB to the wasm module; the
//! subset is a fraction of that.
//!
//! The sources lose their docstrings first (as CPython's `-OO` does): they were ~18% of the
//! subset's source and went into the page's download as constants, while benchmark programs do
//! not read the standard library's `__doc__`. Each one becomes `(None)` spanning the same lines,
//! so line numbers in the engine's tracebacks stay those of RustPython's Lib folder.
//!
//! This does what RustPython's `py_freeze!` does (same compiler, options and module names) but
//! stores each code object uncompressed: `py_freeze!` compresses each one with LZ4, which the
//! page's brotli cannot compress further, while the marshalled bytecode itself compresses well
//! (measured: the subset is 0.92 MB brotli as LZ4 blocks, 0.65 MB as plain bytes).

use std::path::{Path, PathBuf};
use std::{env, fs};

use ruff_python_ast::visitor::{Visitor, walk_stmt};
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::{Ranged, TextRange};
use rustpython_compiler::core::bytecode::BasicBag;
use rustpython_compiler::core::frozen::{FrozenCodeObject, FrozenLib, FrozenModule};
use rustpython_compiler::core::marshal;
use rustpython_compiler::{CompileOpts, Mode};

fn main() {
    let lib = PathBuf::from(rustpython_pylib::LIB_PATH);
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=stdlib.txt");
    println!("cargo:rerun-if-changed=stdlib_start.txt");
    let list = fs::read_to_string("stdlib.txt").expect("stdlib.txt is readable");
    let start = fs::read_to_string("stdlib_start.txt").expect("stdlib_start.txt is readable");
    let start: Vec<&str> = entries(&start).collect();
    let mut modules: Vec<(String, bool, Vec<u8>)> = entries(&list).map(|entry| freeze(&lib, entry)).collect();
    for entry in &start {
        assert!(entries(&list).any(|e| e == *entry), "stdlib_start.txt names {entry}, which stdlib.txt does not");
    }
    // Sorted, so the library's bytes (and the wasm module's hash) do not depend on file order.
    modules.sort();
    let start_names: Vec<String> = start.iter().map(|entry| module_name(entry).0).collect();
    let (start_modules, rest): (Vec<_>, Vec<_>) = modules.iter().partition(|(name, _, _)| start_names.contains(name));
    fs::write(out.join("stdlib_start.frozen"), encode(&start_modules)).expect("OUT_DIR is writable");
    let rest_bytes = encode(&rest);
    fs::write(out.join("stdlib_rest.frozen"), &rest_bytes).expect("OUT_DIR is writable");
    write_rest_index(&out, &rest, &rest_bytes);
    compile_sandbox_sources(&out);
}

fn entries(list: &str) -> impl Iterator<Item = &str> {
    list.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'))
}

fn encode(modules: &[&(String, bool, Vec<u8>)]) -> Vec<u8> {
    FrozenLib::encode(modules.iter().map(|(name, package, bytes)| {
        (name.as_str(), FrozenModule { code: FrozenCodeObject { bytes: bytes.as_slice() }, package: *package })
    }))
    .bytes
}

/// `stdlib_rest.rs`: the rest's module names (and which are packages), the name of the file the
/// browser's worker downloads it as (its content's hash in it, so a cache never serves another
/// build's), and, for the wasm module's custom section, the file's name and bytes together
/// (`stdlib_rest.section`: the name's length as one byte, the name, the library), which the
/// site's build hook moves out of the module into that file (scripts/split_stdlib.py).
fn write_rest_index(out: &Path, rest: &[&(String, bool, Vec<u8>)], bytes: &[u8]) {
    let file = format!("stdlib-{:016x}.bin", fnv1a_64(bytes));
    let mut section = vec![u8::try_from(file.len()).expect("a short name")];
    section.extend_from_slice(file.as_bytes());
    section.extend_from_slice(bytes);
    fs::write(out.join("stdlib_rest.section"), &section).expect("OUT_DIR is writable");
    let names: String = rest.iter().map(|(name, package, _)| format!("    ({name:?}, {package}),\n")).collect();
    let code = format!(
        "/// The modules of stdlib.txt outside stdlib_start.txt, with whether each is a package.\n\
         pub const REST_MODULES: &[(&str, bool)] = &[\n{names}];\n\
         /// The file name the rest is served under, next to the worker's script.\n\
         pub const REST_FILE: &str = {file:?};\n\
         /// The length of `stdlib_rest.section`.\n\
         #[allow(dead_code)]\n\
         pub const REST_SECTION_LEN: usize = {};\n",
        section.len()
    );
    fs::write(out.join("stdlib_rest.rs"), code).expect("OUT_DIR is writable");
}

/// FNV-1a, 64 bits: a content tag for the file's name, not a check (the service worker checks
/// every file against its SHA-256).
fn fnv1a_64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// One stdlib file compiled: its module name, whether it is a package's `__init__`, and its
/// code object as a frozen module stores it.
fn freeze(lib: &Path, entry: &str) -> (String, bool, Vec<u8>) {
    let path = lib.join(entry);
    let source = fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("stdlib.txt names {} which cannot be read: {e}", path.display()));
    let (name, package) = module_name(entry);
    // The compiler's file name is the module's name, as `py_freeze!` passes it.
    let code =
        rustpython_compiler::compile(&without_docstrings(&source, &path), Mode::Exec, &name, CompileOpts::default())
            .unwrap_or_else(|e| panic!("{} does not compile: {e}", path.display()));
    let mut marshalled = Vec::new();
    marshal::serialize_code(&mut marshalled, &code);
    let stored = FrozenCodeObject { bytes: stored_lz4_block(&marshalled) };
    // What the engine will read back must be what was written.
    let mut again = Vec::new();
    marshal::serialize_code(&mut again, &stored.decode(BasicBag));
    assert!(again == marshalled, "{entry}: the frozen copy does not read back as written");
    (name, package, stored.bytes)
}

/// `collections/__init__.py` is the package `collections`, `collections/abc.py` the module
/// `collections.abc`.
fn module_name(entry: &str) -> (String, bool) {
    let dotted =
        entry.strip_suffix(".py").unwrap_or_else(|| panic!("stdlib.txt: {entry} is not a .py file")).replace('/', ".");
    match dotted.strip_suffix(".__init__") {
        Some(package) => (package.to_owned(), true),
        None => (dotted, false),
    }
}

/// `bytes` as the frozen format's LZ4 input expects them (`lz4_flex::decompress_size_prepended`:
/// the length as a little-endian u32, then an LZ4 block), with the block holding them as one
/// run of literals: a valid block that reading copies as it is, and that brotli compresses as
/// the bytecode it is. The length of a run of 15 or more is written as 15 in the token, then
/// bytes of 255 and a last byte below 255 that add up to the rest.
fn stored_lz4_block(bytes: &[u8]) -> Vec<u8> {
    let length = u32::try_from(bytes.len()).expect("a module's bytecode is under 4 GB");
    let mut block = Vec::with_capacity(bytes.len() + bytes.len() / 255 + 6);
    block.extend_from_slice(&length.to_le_bytes());
    if bytes.len() < 15 {
        block.push((bytes.len() as u8) << 4);
    } else {
        block.push(0xF0);
        let mut rest = bytes.len() - 15;
        while rest >= 255 {
            block.push(255);
            rest -= 255;
        }
        block.push(rest as u8);
    }
    block.extend_from_slice(bytes);
    block
}

/// The engine's own Python (the sandbox's modules and patches) compiled to bytecode at build
/// time, as the frozen stdlib is: starting an interpreter then runs no parser or compiler, which
/// the first program's compile (the worker's warm-up, in a browser) brings in instead.
/// `sandbox_code.rs` holds one function per source returning its `py_compile!` of a copy beside it, under the name its
/// tracebacks show.
fn compile_sandbox_sources(out: &Path) {
    let sources = [
        ("sandbox_io_code", "sandbox_io.py", "<execbench io>"),
        ("sandbox_posix_code", "sandbox_posix.py", "<execbench posix>"),
        ("engine_patches_code", "engine_patches.py", "<execbench patches>"),
        ("lazy_stdlib_code", "lazy_stdlib.py", "<execbench stdlib>"),
    ];
    let mut code = String::new();
    // Functions, not constants: the macro's expression slices a byte string, which a constant
    // cannot do on stable Rust.
    for (function, file, name) in sources {
        // Relative to the package: cargo keeps these paths in the build script's fingerprint, and
        // an absolute one differs between checkouts sharing the build cache (each rebuilt the
        // interpreter and everything above it).
        println!("cargo:rerun-if-changed=src/{file}");
        // The macro reads its file relative to the file that names it (this generated one, in
        // OUT_DIR), so the source is copied beside it: an absolute path to this checkout's
        // source would send another checkout that shares the cache (and reuses this output) to
        // a file that may not exist.
        fs::copy(Path::new("src").join(file), out.join(file)).expect("the sandbox's Python source is readable");
        code.push_str(&format!(
            "pub(crate) fn {function}() -> rustpython_compiler_core::frozen::FrozenCodeObject<&'static [u8]> {{ \
             rustpython_vm::py_compile!(file = {file:?}, module_name = {name:?}, crate_name = \"rustpython_compiler_core\") }}\n"
        ));
    }
    fs::write(out.join("sandbox_code.rs"), code).expect("OUT_DIR is writable");
}

/// The source with every docstring (the first statement of a module, class or function body
/// when it is a string literal) replaced by `(None)` over the same lines.
fn without_docstrings(source: &str, path: &Path) -> String {
    let parsed =
        ruff_python_parser::parse_module(source).unwrap_or_else(|e| panic!("{} does not parse: {e}", path.display()));
    let mut docstrings = Docstrings::default();
    docstrings.body(&parsed.syntax().body);
    docstrings.visit_body(&parsed.syntax().body);
    let mut out = String::with_capacity(source.len());
    let mut at = 0;
    docstrings.found.sort_by_key(|r| r.start());
    for range in docstrings.found {
        let (start, end) = (range.start().to_usize(), range.end().to_usize());
        out.push_str(&source[at..start]);
        // Parentheses let the kept line breaks sit inside one expression statement.
        out.push_str("(None");
        out.extend(source[start..end].chars().filter(|&c| c == '\n'));
        out.push(')');
        at = end;
    }
    out.push_str(&source[at..]);
    out
}

#[derive(Default)]
struct Docstrings {
    found: Vec<TextRange>,
}

impl Docstrings {
    fn body(&mut self, body: &[Stmt]) {
        if let Some(Stmt::Expr(statement)) = body.first()
            && let Expr::StringLiteral(literal) = statement.value.as_ref()
        {
            self.found.push(literal.range());
        }
    }
}

impl<'a> Visitor<'a> for Docstrings {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(function) => self.body(&function.body),
            Stmt::ClassDef(class) => self.body(&class.body),
            _ => {}
        }
        walk_stmt(self, stmt);
    }
}
