#!/usr/bin/env bash
# Runs every test: native unit and integration tests of all crates, then the built app in headless
# Chromium (browser tests of the worker engine and end-to-end tests). Installs what is missing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# The snapshot tests rewrite their files instead of checking them under EXECBENCH_BLESS, which
# would make them tests that cannot fail: the test command (and CI, which runs it) checks.
if [ -n "${EXECBENCH_BLESS:-}" ]; then
  die "EXECBENCH_BLESS is set: the test command checks snapshots, never rewrites them (unset it; bless with cargo test directly)"
fi
setup_all with-browser
cd "$ROOT"
started=$(date +%s)
say "format: cargo fmt --all --check (rustfmt.toml; run \`cargo fmt --all\` to fix)"
cargo fmt --all --check
# The site and the IndexedDB tests' wasm build beside the native steps: their cargo profiles
# (Cargo.toml's site-*, and dev for wasm32) lock other folders of the build cache than
# `suite`, and Trunk's fat-LTO links keep one core of two, so the native build fills the other
# (docs/performance.md, CI time). Their output goes to a log, shown if they fail.
site_log="$CARGO_TARGET_DIR/execbench-site-build.log"
say "building the site (trunk build --release) and the IndexedDB tests' wasm beside the native steps: $site_log"
(
  trunk build --release
  cargo test -p execbench-idbstore --target wasm32-unknown-unknown --profile wasm-test --locked --no-run
) >"$site_log" 2>&1 &
site_pid=$!
# A failing step stops the background build too (Trunk, its cargo and rustc processes).
kill_tree() { local child; for child in $(pgrep -P "$1"); do kill_tree "$child"; done; kill "$1" 2>/dev/null || true; }
trap 'kill_tree "$site_pid"' EXIT
# Clippy lints the workspace's crates while they are compiled for the tests, instead of a
# `cargo clippy` that first checks every dependency and then a build that compiles them again (on
# an empty cache the check alone took about 3 min of 2 cores' time: docs/performance.md, CI time).
# Its driver is the workspace's compiler, as `cargo clippy` makes it (RUSTC_WORKSPACE_WRAPPER),
# with `-D warnings` passed the way cargo-clippy passes its arguments (CLIPPY_ARGS); every target
# `cargo clippy --all-targets` lints is built here (libraries, their unit tests, binaries,
# integration tests, examples; there are no benches). The run below uses the same compiler, so
# nothing is built twice.
lint=(env RUSTC_WORKSPACE_WRAPPER="$(rustup which clippy-driver)" CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__")
# The canary: that driver, given those arguments, must refuse a file with a Clippy warning and
# accept it fixed; were the argument convention to change, the lint would pass anything unseen.
canary=$(mktemp -d)
echo 'pub fn same(x: u32) -> u32 { x.clone() }' >"$canary/lib.rs"
if "${lint[@]}" "$(rustup which clippy-driver)" rustc --crate-type lib --edition 2021 --emit metadata \
    --out-dir "$canary" "$canary/lib.rs" 2>/dev/null; then
  die "Clippy's driver let a warning pass with CLIPPY_ARGS: the lint step would check nothing (scripts/test.sh)"
fi
echo 'pub fn same(x: u32) -> u32 { x }' >"$canary/lib.rs"
"${lint[@]}" "$(rustup which clippy-driver)" rustc --crate-type lib --edition 2021 --emit metadata \
  --out-dir "$canary" "$canary/lib.rs" || die "Clippy's driver refused a clean file (scripts/test.sh's canary)"
rm -rf "$canary"
say "lint and build the native tests: cargo test --profile suite --no-run, Clippy's driver compiling the workspace's crates with -D warnings (a warning fails the run)"
# Profile `suite` (Cargo.toml): release's code for Python, the model and the perturbations (RustPython
# unoptimised is slow enough to trip time limits), opt-level 1 for the rest.
"${lint[@]}" cargo test --profile suite --workspace --locked --no-run
say "waiting for the site's build"
if ! wait "$site_pid"; then
  tail -n 60 "$site_log" >&2
  die "the site's build failed (above: the end of $site_log)"
fi
trap - EXIT
say "running all tests (native, browser, end-to-end); screenshots go to tests/artifacts/"
"${lint[@]}" cargo test --profile suite --workspace --locked
say "running the IndexedDB run store's tests in headless Chromium (wasm-bindgen-test)"
# wasm32 tests run through wasm-bindgen-test-runner (.cargo/config.toml), which drives Chromium
# through chromedriver; setup_all set the C flags tree-sitter needs for wasm32.
CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver)}" \
  cargo test -p execbench-idbstore --target wasm32-unknown-unknown --profile wasm-test --locked
# What this run built from, for the next checkout that shares the cache (setup.sh claim_build_cache).
python3 scripts/build_cache.py record "$ROOT" "$CARGO_TARGET_DIR" >/dev/null
say "all tests passed in $(( $(date +%s) - started )) s"
