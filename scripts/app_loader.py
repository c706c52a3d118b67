#!/usr/bin/env python3
"""Trunk post-build hook (before csp_hashes.py, which hashes the rewritten script): the app's
module is read straight from Cache Storage when the service worker keeps it there, not fetched
through the service worker, whose thread made reading the 6.6 MB module about twice as slow
(docs/performance.md). Trunk's module script in index.html calls
`init({ module_or_path: './execbench-app-<hash>_bg.wasm' })`; this passes a promise of the module
compiled from the kept copy instead, or of a fetch when nothing is kept (a first visit, no service
worker). A kept copy is used only once its bytes match the module's SHA-256, written into the call
here: on an origin other sites share, any of them can write any cache. Trunk's `<link rel="preload">` of the
module goes: it would read the module through the service worker a second time.

Usage: python3 scripts/app_loader.py [DIST]   (Trunk passes TRUNK_STAGING_DIR instead)"""
import hashlib
import os
import re
import sys

# A kept copy is used only when its bytes have the build's SHA-256: another site on a shared
# origin can put any file under this name in any cache. The check runs beside the compile
# (compiling runs none of the module's code; only a module whose bytes passed is instantiated).
# Without WebCrypto (not a secure context) nothing kept is used.
KEPT = ("const kept = (file, sha256) => { const url = new URL(file, location.href).href; "
        "const hex = (d) => Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join(''); "
        "const check = (r) => r && Promise.all([r.clone().arrayBuffer().then((b) => crypto.subtle.digest('SHA-256', b))"
        ".then((d) => hex(d) === sha256), WebAssembly.compileStreaming(r).catch(() => undefined)])"
        ".then(([ok, module]) => (ok ? module : undefined)); "
        "return (typeof caches === 'undefined' || !(self.crypto && crypto.subtle) ? Promise.resolve(undefined) "
        ": caches.match(url).then(check).catch(() => undefined))"
        ".then((module) => module || fetch(url)); };\n")

def rewrite(html: str, root: str) -> str:
    call = re.compile(r"init\(\{ module_or_path: '(\./execbench-app-[0-9a-f]+_bg\.wasm)' \}\)")
    found = call.findall(html)
    if len(found) != 1:
        sys.exit(f"app_loader.py: expected one init call of the app's module in index.html, found {len(found)}")
    module = found[0]
    with open(os.path.join(root, module), "rb") as f:
        sha256 = hashlib.sha256(f.read()).hexdigest()
    html = call.sub(lambda m: f"init({{ module_or_path: kept('{module}', '{sha256}') }})", html)
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
        f.write(rewrite(html, root))
    print("app_loader: the app's module is read from Cache Storage when kept", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
