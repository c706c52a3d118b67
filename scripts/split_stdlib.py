"""Moves the Python worker's standard library (the part not frozen into the engine) out of its
wasm module into a file of its own, which the worker downloads on the first import that needs it.

crates/pyengine/src/lazy_stdlib.rs puts that part in a custom section of the module,
`execbench_stdlib_rest`: one byte (the file name's length), the file name (the content's hash in
it, the same name the worker asks for), then the file's bytes. Trunk's post-build hook runs this
on the staging folder before the Python worker's module is named by its hash
(python_worker_loader.py) and the service worker's file list is written (offline_build.py, which
caches the file on first use). Fails the build when no module or two modules carry the section:
the worker would then ask for a file the site does not have.
"""

import os
import pathlib
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from strip_names import drop_custom_section  # noqa: E402

SECTION = b"execbench_stdlib_rest"


def main() -> None:
    folder = pathlib.Path(os.environ.get("TRUNK_STAGING_DIR", "dist"))
    carriers = []
    for module in sorted(folder.glob("*.wasm")):
        data = module.read_bytes()
        rest, section = drop_custom_section(data, str(module), SECTION, "split_stdlib.py")
        if section is not None:
            carriers.append(module.name)
            name = section[1 : 1 + section[0]].decode("ascii")
            if not (name.startswith("stdlib-") and name.endswith(".bin")) or "/" in name:
                sys.exit(f"split_stdlib.py: {module.name}: unexpected file name {name!r} in the section")
            (folder / name).write_bytes(section[1 + section[0] :])
            module.write_bytes(rest)
            print(f"split_stdlib.py: {module.name}: {len(section) - 1 - section[0]} bytes moved to {name}")
    if len(carriers) != 1:
        sys.exit(f"split_stdlib.py: expected one module with the standard library section, found {carriers}")


if __name__ == "__main__":
    main()
