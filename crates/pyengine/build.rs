//! Copies the curated standard library (stdlib.txt) out of RustPython's Lib folder into OUT_DIR
//! and writes the `py_freeze!` call that compiles it to bytecode inside this crate. Freezing the
//! whole Lib folder would add ~15 MB to the wasm module; the subset is a fraction of that.

use std::path::{Path, PathBuf};
use std::{env, fs};

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
}

fn copy(from: &Path, to: &Path) {
    fs::create_dir_all(to.parent().expect("a file has a parent")).expect("OUT_DIR is writable");
    if let Err(e) = fs::copy(from, to) {
        panic!("stdlib.txt names {} which cannot be copied: {e}", from.display());
    }
}
