#!/usr/bin/env python3
"""Trunk post-build hook (after strip_names.py, before csp_hashes.py and offline_build.py): writes
the Python worker's loader, one script in place of Trunk's shim and wasm-bindgen's glue.

- The engine's module is renamed after its SHA-256 (`execbench-python-worker-<hash>_bg.wasm`): the loader
  reads a copy kept in Cache Storage under that name directly instead of through the service
  worker (scripts/python_worker_start.js says why), once its bytes match the whole SHA-256, which
  the loader carries (another site on a shared origin can write any cache).
- The loader is the glue followed by that start code, so the worker loads one script, not a shim
  that then imports the glue (one request through the service worker fewer).
- The start code saves and restores a started worker's memory, which leans on two things the glue
  says: the module's exports `boot` and `serve`, and the layout of wasm-bindgen's reference table
  (its reserved slots end at 1027). A glue that says otherwise fails the build here.

The worker is still created as `execbench-python-worker_loader.js` (the app, the benchmark page).

Usage: python3 scripts/python_worker_loader.py [DIST]   (Trunk passes TRUNK_STAGING_DIR instead)"""
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GLUE = "execbench-python-worker.js"
MODULE = "execbench-python-worker_bg.wasm"
LOADER = "execbench-python-worker_loader.js"


def main() -> int:
    root = os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "dist")
    glue_path, module_path = os.path.join(root, GLUE), os.path.join(root, MODULE)
    for path in (glue_path, module_path):
        if not os.path.isfile(path):
            print(f"python_worker_loader: {path} is missing (did Trunk build the Python worker?)", file=sys.stderr)
            return 1
    with open(module_path, "rb") as f:
        sha256 = hashlib.sha256(f.read()).hexdigest()
    hashed = f"execbench-worker-{sha256[:16]}_bg.wasm"
    os.replace(module_path, os.path.join(root, hashed))
    with open(glue_path, encoding="utf-8") as f:
        glue = f.read()
    for needed, why in (
        ("table.set(1027, false);", "wasm-bindgen's reserved reference slots moved (FIRST_HELD in python_worker_start.js)"),
        ("wasm.__wbindgen_externrefs", "wasm-bindgen's reference table has another name"),
        ("exports.boot = boot;", "the worker no longer exports boot"),
        ("exports.serve = serve;", "the worker no longer exports serve"),
    ):
        if needed not in glue:
            print(f"python_worker_loader: {GLUE} lacks `{needed}`: {why}", file=sys.stderr)
            return 1
    with open(os.path.join(HERE, "python_worker_start.js"), encoding="utf-8") as f:
        start = f.read()
    with open(os.path.join(root, LOADER), "w", encoding="utf-8") as f:
        f.write(f"{glue}\nvar MODULE = {json.dumps('./' + hashed)};\nvar MODULE_SHA256 = {json.dumps(sha256)};\n{start}")
    os.remove(glue_path)
    print(f"python_worker_loader: {LOADER} loads {hashed}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
