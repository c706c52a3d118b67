#!/usr/bin/env python3
"""Trunk post-build hook (after csp_hashes.py): writes the built site's service worker, sw.js.

It is scripts/service_worker.js with a `BUILD` constant in front: every file of the build (path
relative to the site, SHA-256, size, whether it is cached on install or on first use, and of
the latter whether it is kept once a visit has settled) and a
version made from all of them and from the service worker's own code, so that any change to
any file is a new service worker, which the browser installs beside the running one.

Usage: python3 scripts/offline_build.py [DIST]   (Trunk passes TRUNK_STAGING_DIR instead)
Fails the build when the site has no index.html: an empty list would cache nothing."""
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT = "sw.js"
PRECOMPRESSED = (".br", ".gz")
# Files the first screen and the offline promise do not need (docs/deploy.md): the Parquet
# loader worker decodes files a user picks, the model worker runs the in-browser model a user
# picks. The service worker caches them on first use instead of on install, so a first visit
# does not download them.
ON_DEMAND = ("execbench-loader-worker", "execbench-model-worker", "stdlib-")
# Of those, what the offline promise does need after one visit (a program's import of the
# standard library's rest, a Parquet file opened offline): the page asks the service worker to
# keep these a few seconds after a visit's start (`idle` in sw.js; src/browser/offline.rs). The
# model worker stays on first use: an in-page model needs its weights downloaded anyway.
KEPT_WHEN_IDLE = ("execbench-loader-worker", "stdlib-")


def build_files(root: str) -> list:
    files = []
    for folder, _, names in os.walk(root):
        for name in names:
            full = os.path.join(folder, name)
            path = os.path.relpath(full, root).replace(os.sep, "/")
            # Not sw.js itself, nor the .br/.gz copies scripts/dist.sh writes after the build: the
            # browser asks for the originals (the host picks a copy by Accept-Encoding).
            if path == OUTPUT or path.endswith(PRECOMPRESSED):
                continue
            with open(full, "rb") as f:
                data = f.read()
            files.append({
                "path": path,
                "sha256": hashlib.sha256(data).hexdigest(),
                "bytes": len(data),
                "precache": not path.startswith(ON_DEMAND),
                "idle": path.startswith(KEPT_WHEN_IDLE),
            })
    return sorted(files, key=lambda f: f["path"])


def main() -> int:
    root = os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "dist")
    if not os.path.isfile(os.path.join(root, "index.html")):
        print(f"offline_build: {root} has no index.html", file=sys.stderr)
        return 1
    files = build_files(root)
    with open(os.path.join(HERE, "service_worker.js"), encoding="utf-8") as f:
        template = f.read()
    # The service worker's own code is part of the version: a change to it alone is a new cache.
    listing = "\n".join(f"{f['path']} {f['sha256']}" for f in files) + "\n" + template
    version = hashlib.sha256(listing.encode()).hexdigest()[:16]
    build = json.dumps({"version": version, "files": files}, indent=1)
    with open(os.path.join(root, OUTPUT), "w", encoding="utf-8") as f:
        f.write(f"// Written by scripts/offline_build.py: this build's files.\nconst BUILD = {build};\n\n{template}")
    kept = [f for f in files if f["precache"]]
    total = sum(f["bytes"] for f in kept)
    print(f"offline_build: sw.js caches {len(kept)} files on install, {total / 1e6:.1f} MB, "
          f"{len(files) - len(kept)} on first use, version {version}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
