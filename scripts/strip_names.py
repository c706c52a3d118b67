"""Drops the `name` custom section (function names for stack traces) from the build's wasm modules.

Trunk's post-build hook runs it on the staging folder before the service worker's file list is
written. wasm-opt drops the section from the modules it optimises; the Python worker skips
wasm-opt (minutes on a 15 MB module, FACTS.md), and there the names were 1.3 MB raw, about 8% of
the module. Only names go: code, data and the sections wasm-bindgen's glue reads stay byte for
byte, so the module behaves the same (a stack trace shows `wasm-function[N]` instead of a name).
"""

import os
import pathlib
import sys

# The LEB128 reader of the size report beside this script (same folder, standard library only).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wasm_sizes import leb as read_leb  # noqa: E402


def without_names(data: bytes, path: str) -> bytes:
    if data[:4] != b"\0asm":
        sys.exit(f"strip_names.py: {path} is not a wasm module")
    kept = [data[:8]]
    at = 8
    while at < len(data):
        start = at
        section_id = data[at]
        size, body = read_leb(data, at + 1)
        end = body + size
        if end > len(data):
            sys.exit(f"strip_names.py: {path}: a section at byte {start} runs past the end")
        is_names = False
        if section_id == 0:
            name_len, name_at = read_leb(data, body)
            is_names = data[name_at : name_at + name_len] == b"name"
        if not is_names:
            kept.append(data[start:end])
        at = end
    return b"".join(kept)


def main() -> None:
    folder = pathlib.Path(os.environ.get("TRUNK_STAGING_DIR", "dist"))
    for module in sorted(folder.glob("*.wasm")):
        data = module.read_bytes()
        stripped = without_names(data, str(module))
        if len(stripped) != len(data):
            module.write_bytes(stripped)
            print(f"strip_names.py: {module.name}: {len(data) - len(stripped)} bytes of names dropped")


if __name__ == "__main__":
    main()
