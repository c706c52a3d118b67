#!/usr/bin/env python3
"""Lets a fresh checkout use the shared build cache without rebuilding what it already holds.

Cargo decides what to rebuild by file times: an artifact is fresh when it is newer than every
source it was built from. Checkouts sharing one cache (a work tree, CI's fresh clones) therefore
cannot trust each other's times: a clone's files are all new, and a work tree's are not the
clone's content. So:

  record CHECKOUT TARGET   after a test run: every tracked file's SHA-256 and time, and when.
  adopt CHECKOUT TARGET    in a checkout new to the cache: each file whose content equals the
                           record's takes the recorded time, every other file the time of now.

Cargo then decides in the new checkout exactly as it would have in the recorded one: what was
built from these bytes is fresh, and whatever differs is rebuilt. If anything was built after the
record (a cargo command outside the test run, whose sources the record does not describe),
`adopt` refuses (exit 1) and the caller touches every file instead, as for an unknown cache.
"""

import hashlib
import json
import os
import subprocess
import sys
import time

RECORD = ".execbench-sources.json"


def tracked(checkout):
    out = subprocess.run(["git", "-C", checkout, "ls-files", "-z"], check=True, capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def newest_build(target):
    """The newest time of any fingerprint cargo wrote under the target directory, in ns."""
    newest = 0
    for root, dirs, files in os.walk(target):
        # Fingerprints sit in `<profile>/.fingerprint/<unit>/` and `<triple>/<profile>/.fingerprint/<unit>/`.
        if os.path.basename(os.path.dirname(root)) == ".fingerprint":
            for name in files:
                try:
                    newest = max(newest, os.stat(os.path.join(root, name)).st_mtime_ns)
                except OSError:
                    pass
            dirs[:] = []
        elif root.count(os.sep) - target.count(os.sep) > 3:
            dirs[:] = []
        else:
            dirs[:] = [d for d in dirs if d not in ("deps", "build", "incremental", "examples")]
    return newest


def record(checkout, target):
    files = {}
    for path in tracked(checkout):
        full = os.path.join(checkout, path)
        if os.path.isfile(full) and not os.path.islink(full):
            files[path] = [sha256(full), os.stat(full).st_mtime_ns]
    data = {"checkout": checkout, "recorded_ns": time.time_ns(), "files": files}
    tmp = os.path.join(target, RECORD + ".tmp")
    with open(tmp, "w") as f:
        json.dump(data, f)
    os.replace(tmp, os.path.join(target, RECORD))
    print(f"recorded {len(files)} files of {checkout}")
    return 0


def adopt(checkout, target):
    try:
        with open(os.path.join(target, RECORD)) as f:
            data = json.load(f)
    except (OSError, ValueError):
        print("no record of the cache's sources")
        return 1
    built = newest_build(target)
    if built > data["recorded_ns"]:
        print(f"the cache was built after its record (by {(built - data['recorded_ns']) / 1e9:.0f} s)")
        return 1
    now = time.time_ns()
    kept = changed = 0
    for path in tracked(checkout):
        full = os.path.join(checkout, path)
        if not os.path.isfile(full) or os.path.islink(full):
            continue
        known = data["files"].get(path)
        when = known[1] if known and known[0] == sha256(full) else now
        os.utime(full, ns=(when, when))
        if when == now:
            changed += 1
        else:
            kept += 1
    print(f"{kept} files as last built (from {data['checkout']}), {changed} new or changed")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("record", "adopt"):
        sys.exit(__doc__)
    action, checkout, target = sys.argv[1:]
    sys.exit((record if action == "record" else adopt)(os.path.abspath(checkout), os.path.abspath(target)))
