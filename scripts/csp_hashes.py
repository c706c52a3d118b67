#!/usr/bin/env python3
"""Trunk post-build hook: fills the Content-Security-Policy of the built index.html with the
SHA-256 hashes of its inline scripts (the theme script and Trunk's module loader, whose text names
the hashed file names of this build), so that no other inline script runs. Fails the build when
the placeholder is missing or no inline script is found: a page that cannot start is worse than a
failed build."""
import base64
import hashlib
import os
import re
import sys

PLACEHOLDER = "'inline-script-hashes'"

def main() -> int:
    staging = os.environ.get("TRUNK_STAGING_DIR") or (sys.argv[1] if len(sys.argv) > 1 else "")
    path = os.path.join(staging, "index.html")
    with open(path, encoding="utf-8") as f:
        html = f.read()
    if PLACEHOLDER not in html:
        print(f"csp_hashes: {path} has no {PLACEHOLDER} in its Content-Security-Policy", file=sys.stderr)
        return 1
    # Inline scripts: <script ...> without a src attribute; the browser hashes the exact text.
    scripts = [
        body
        for attrs, body in re.findall(r"<script\b([^>]*)>(.*?)</script>", html, flags=re.S | re.I)
        if not re.search(r"\bsrc\s*=", attrs, flags=re.I)
    ]
    if not scripts:
        print(f"csp_hashes: no inline script found in {path}", file=sys.stderr)
        return 1
    hashes = sorted({"'sha256-" + base64.b64encode(hashlib.sha256(s.encode("utf-8")).digest()).decode() + "'" for s in scripts})
    with open(path, "w", encoding="utf-8") as f:
        f.write(html.replace(PLACEHOLDER, " ".join(hashes)))
    print(f"csp_hashes: {len(hashes)} inline script(s) allowed by hash", file=sys.stderr)
    return 0

if __name__ == "__main__":
    sys.exit(main())
