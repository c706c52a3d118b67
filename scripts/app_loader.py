#!/usr/bin/env python3
"""Trunk post-build hook (before csp_hashes.py, which hashes the rewritten script): the app's
module is read straight from Cache Storage when the service worker keeps it there, not fetched
through the service worker, whose thread made reading the 6.6 MB module about twice as slow
(docs/performance.md). Trunk's module script in index.html calls
`init({ module_or_path: './execbench-app-<hash>_bg.wasm' })`; this passes a promise of the kept
response instead, or of a fetch when nothing is kept (a first visit, no service worker). The
name carries Trunk's content hash and the service worker keeps a file only after checking its
SHA-256, so a kept copy under that name is this build's. Trunk's `<link rel="preload">` of the
module goes: it would read the module through the service worker a second time.

Usage: python3 scripts/app_loader.py [DIST]   (Trunk passes TRUNK_STAGING_DIR instead)"""
import os
import re
import sys

KEPT = ("const kept = (file) => { const url = new URL(file, location.href).href; "
        "return (typeof caches === 'undefined' ? Promise.resolve(undefined) : caches.match(url).catch(() => undefined))"
        ".then((response) => response || fetch(url)); };\n")


def rewrite(html: str) -> str:
    call = re.compile(r"init\(\{ module_or_path: '(\./execbench-app-[0-9a-f]+_bg\.wasm)' \}\)")
    found = call.findall(html)
    if len(found) != 1:
        sys.exit(f"app_loader.py: expected one init call of the app's module in index.html, found {len(found)}")
    module = found[0]
    html = call.sub(lambda m: f"init({{ module_or_path: kept('{module}') }})", html)
    html = html.replace("import init, * as bindings", KEPT + "import init, * as bindings", 1)
    # Imports are hoisted, so `kept` may come before the import line; it only needs to exist
    # before the call.
    preload = re.compile(r'<link rel="preload" href="' + re.escape(module) + r'"[^>]*>\s*')
    return preload.sub("", html, count=1)


def main() -> int:
    root = os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "dist")
    path = os.path.join(root, "index.html")
    with open(path, encoding="utf-8") as f:
        html = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(rewrite(html))
    print("app_loader: the app's module is read from Cache Storage when kept", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
