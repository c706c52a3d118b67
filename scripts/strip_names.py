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


def drop_custom_section(data: bytes, path: str, name: bytes, tool: str):
    """`data` without its custom section called `name`, and that section's body after the name
    (None when there is none). The other sections stay byte for byte."""
    if data[:4] != b"\0asm":
        sys.exit(f"{tool}: {path} is not a wasm module")
    kept, dropped = [data[:8]], None
    at = 8
    while at < len(data):
        start = at
        section_id = data[at]
        size, body = read_leb(data, at + 1)
        end = body + size
        if end > len(data):
            sys.exit(f"{tool}: {path}: a section at byte {start} runs past the end")
        if section_id == 0:
            name_len, name_at = read_leb(data, body)
            if data[name_at : name_at + name_len] == name:
                dropped = data[name_at + name_len : end]
                at = end
                continue
        kept.append(data[start:end])
        at = end
    return b"".join(kept), dropped


def without_names(data: bytes, path: str) -> bytes:
    return drop_custom_section(data, path, b"name", "strip_names.py")[0]


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
