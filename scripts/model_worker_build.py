#!/usr/bin/env python3
"""Trunk post-build hook (first step): builds the in-browser model's worker (`crates/model-worker`)
with WebAssembly SIMD (128-bit vectors) and writes its loader, `execbench-model-worker_loader.js`,
the name the app starts the worker by.

Why here and not as a Trunk asset: candle picks its vectorised quantized dot products (Q8_0, Q4_K,
Q6_K) when it is compiled, by `cfg(target_feature = "simd128")`, and a target feature applies to
everything one cargo command builds; Trunk builds every module with the same flags, and the page,
the Python worker and the Parquet loader need no SIMD. The build has a target folder of its own
(`<target>/simd128`) so that its dependencies and the other modules' do not replace each other.

A build without the flag would not run where SIMD is missing either: candle turns on `gemm`'s
SIMD128 matrix kernels, so that module held SIMD instructions too (its `target_features` section
says `+simd128`), and one such instruction makes a browser without SIMD refuse the whole module.
So there is one build, and the loader first asks the browser (`WebAssembly.validate` on a 29-byte
module holding one SIMD instruction) and, where SIMD is missing, stops with words a person can
act on instead of a compile error.

Trunk's pre-build hook starts the cargo build in the background (`start`), so that it runs beside
Trunk's own builds, whose fat-LTO links keep one core of two; the post-build hook (no argument)
waits for it, or builds now when nothing was started, then runs wasm-bindgen and writes the loader.

Usage: python3 scripts/model_worker_build.py [start] [DIST]   (Trunk passes TRUNK_STAGING_DIR and
TRUNK_PROFILE instead of DIST)"""
import json
import os
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "execbench-model-worker"
# `(module (func (result v128) i32.const 0 i8x16.splat))`: type, function and code sections.
SIMD_PROBE = [
    0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00,  # "\0asm", version 1
    0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7B,  # one type: () -> v128
    0x03, 0x02, 0x01, 0x00,  # one function of that type
    0x0A, 0x08, 0x01, 0x06, 0x00, 0x41, 0x00, 0xFD, 0x0F, 0x0B,  # body: i32.const 0; i8x16.splat; end
]
NO_SIMD = ("This browser lacks WebAssembly SIMD, which the in-browser model needs "
           "(Chrome and Edge 91, Firefox 89, Safari 16.4 and later have it)")


def loader_script() -> str:
    probe = ",".join(str(b) for b in SIMD_PROBE)
    return (
        "// Written by scripts/model_worker_build.py: the model worker needs WebAssembly SIMD.\n"
        f"if (!WebAssembly.validate(new Uint8Array([{probe}]))) throw new Error({json.dumps(NO_SIMD)});\n"
        f"importScripts('./{NAME}.js');\n"
        f"wasm_bindgen('./{NAME}_bg.wasm');\n"
    )


def target_dir() -> str:
    if os.environ.get("CARGO_TARGET_DIR"):
        return os.environ["CARGO_TARGET_DIR"]
    metadata = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )
    return json.loads(metadata.stdout)["target_directory"]


def cargo_command(release: bool) -> list:
    # --config appends to .cargo/config.toml's rustflags (the stack size stays); RUSTFLAGS would
    # replace them.
    return [
        "cargo", "--config", 'target.wasm32-unknown-unknown.rustflags=["-C","target-feature=+simd128"]',
        "build", "--target", "wasm32-unknown-unknown", "--locked", "--offline",
        "--manifest-path", os.path.join(ROOT, "crates/model-worker/Cargo.toml"), "--bin", NAME,
    ] + (["--release"] if release else [])


def start(target: str, release: bool) -> int:
    """Starts the build in the background; its exit code lands in `status` when it ends."""
    os.makedirs(target, exist_ok=True)
    status, log = os.path.join(target, "model-worker-build.status"), os.path.join(target, "model-worker-build.log")
    if os.path.exists(status):
        os.remove(status)
    command = " ".join(shlex.quote(a) for a in cargo_command(release))
    script = f"{command} > {shlex.quote(log)} 2>&1; echo $? > {shlex.quote(status)}.part && mv {shlex.quote(status)}.part {shlex.quote(status)}"
    subprocess.Popen(["sh", "-c", script], cwd=ROOT, env=dict(os.environ, CARGO_TARGET_DIR=target),
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True)
    print(f"model_worker_build: building {NAME} with SIMD128 in {target}, in the background", file=sys.stderr)
    return 0


def finish_build(target: str, release: bool) -> bool:
    """Waits for the background build, or builds now when none was started; True when it built."""
    status, log = os.path.join(target, "model-worker-build.status"), os.path.join(target, "model-worker-build.log")
    if os.path.exists(log) and not os.path.exists(status):
        print(f"model_worker_build: waiting for the background build of {NAME} ({log})", file=sys.stderr)
        # A build that died without writing its status (killed) would hang here: an hour is far
        # beyond a cold build on two cores (about 6 min).
        deadline = time.time() + 3600
        while not os.path.exists(status) and time.time() < deadline:
            time.sleep(1)
    if os.path.exists(status):
        with open(status) as f:
            code = f.read().strip()
        os.remove(status)
        if code == "0":
            return True
        with open(log, encoding="utf-8", errors="replace") as f:
            sys.stderr.write(f.read())
        return False
    print(f"model_worker_build: building {NAME} with SIMD128 in {target}", file=sys.stderr)
    return subprocess.run(cargo_command(release), cwd=ROOT, env=dict(os.environ, CARGO_TARGET_DIR=target)).returncode == 0


def main() -> int:
    args = sys.argv[1:]
    starting = bool(args) and args[0] == "start"
    if starting:
        args = args[1:]
    staging = os.environ.get("TRUNK_STAGING_DIR") or (args[0] if args else "dist")
    release = os.environ.get("TRUNK_PROFILE", "release") == "release"
    target = os.path.join(target_dir(), "simd128")
    if starting:
        return start(target, release)
    if not finish_build(target, release):
        print(f"model_worker_build: cargo could not build {NAME}", file=sys.stderr)
        return 1
    module = os.path.join(target, "wasm32-unknown-unknown", "release" if release else "debug", f"{NAME}.wasm")
    bindgen = ["wasm-bindgen", "--target", "no-modules", "--no-typescript", "--out-dir", staging,
               "--out-name", NAME, module]
    if subprocess.run(bindgen, cwd=ROOT).returncode != 0:
        print(f"model_worker_build: wasm-bindgen failed on {module}", file=sys.stderr)
        return 1
    with open(os.path.join(staging, f"{NAME}_loader.js"), "w", encoding="utf-8") as f:
        f.write(loader_script())
    print(f"model_worker_build: {NAME}_loader.js, {NAME}.js and {NAME}_bg.wasm written", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
