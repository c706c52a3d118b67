//! Copies the curated standard library (stdlib.txt) out of RustPython's Lib folder into OUT_DIR
//! and writes the `py_freeze!` call that compiles it to bytecode inside this crate. Freezing the
//! whole Lib folder would add ~15 MB to the wasm module; the subset is a fraction of that.
//!
//! The copies lose their docstrings (as CPython's `-OO` does): they were ~18% of the subset's
//! source and went into the page's download as constants, while benchmark programs do not read
//! the standard library's `__doc__`. Each one becomes `(None)` spanning the same lines, so line
//! numbers in the engine's tracebacks stay those of RustPython's Lib folder.

use std::path::{Path, PathBuf};
use std::{env, fs};

use ruff_python_ast::visitor::{Visitor, walk_stmt};
use ruff_python_ast::{Expr, Stmt};
use ruff_text_size::{Ranged, TextRange};

fn main() {
    let lib = PathBuf::from(rustpython_pylib::LIB_PATH);
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let frozen = out.join("Lib");
    let _ = fs::remove_dir_all(&frozen);
    println!("cargo:rerun-if-changed=stdlib.txt");
    let list = fs::read_to_string("stdlib.txt").expect("stdlib.txt is readable");
    for entry in list.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        copy(&lib.join(entry), &frozen.join(entry));
    }
    let code = format!(
        "rustpython_vm::py_freeze!(dir = {:?}, crate_name = \"rustpython_compiler_core\")",
        frozen.display().to_string()
    );
    fs::write(out.join("frozen_stdlib.rs"), code).expect("OUT_DIR is writable");
    compile_sandbox_sources(&out);
}

/// The engine's own Python (the sandbox's modules and patches) compiled to bytecode at build
/// time, as the frozen stdlib is: starting an interpreter then runs no parser or compiler, which
/// the first program's compile (the worker's warm-up, in a browser) brings in instead.
/// `sandbox_code.rs` holds one function per source returning its `py_compile!`, by absolute path, under the name its
/// tracebacks show.
fn compile_sandbox_sources(out: &Path) {
    let sources = [
        ("sandbox_io_code", "sandbox_io.py", "<execbench io>"),
        ("sandbox_posix_code", "sandbox_posix.py", "<execbench posix>"),
        ("engine_patches_code", "engine_patches.py", "<execbench patches>"),
    ];
    let here = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("src");
    let mut code = String::new();
    // Functions, not constants: the macro's expression slices a byte string, which a constant
    // cannot do on stable Rust.
    for (function, file, name) in sources {
        let path = here.join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        code.push_str(&format!(
            "fn {function}() -> rustpython_compiler_core::frozen::FrozenCodeObject<&'static [u8]> {{ \
             rustpython_vm::py_compile!(file = {:?}, module_name = {name:?}, crate_name = \"rustpython_compiler_core\") }}\n",
            path.display().to_string()
        ));
    }
    fs::write(out.join("sandbox_code.rs"), code).expect("OUT_DIR is writable");
}

fn copy(from: &Path, to: &Path) {
    fs::create_dir_all(to.parent().expect("a file has a parent")).expect("OUT_DIR is writable");
    let source = fs::read_to_string(from)
        .unwrap_or_else(|e| panic!("stdlib.txt names {} which cannot be read: {e}", from.display()));
    fs::write(to, without_docstrings(&source, from)).expect("OUT_DIR is writable");
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
