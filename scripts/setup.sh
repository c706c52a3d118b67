#!/usr/bin/env bash
# Installs whatever execbench needs to build, serve and test, and nothing that is already there.
# Idempotent: a second run only checks. Sourced by the other scripts, which then have PATH and
# the build environment set (see `execbench_env`).
set -euo pipefail

TRUNK_VERSION=0.21.14
# Must equal the wasm-bindgen version in Cargo.lock (Cargo.toml pins it with `=`).
WASM_BINDGEN_VERSION=0.2.130
# Debian's binaryen 108 produces a module that crashes on load; the npm build works.
BINARYEN_VERSION=132.0.0
PYODIDE_VERSION=314.0.7

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${EXECBENCH_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/execbench-tools}"

SETUP_STARTED=${SETUP_STARTED:-$SECONDS}
# Each line says when, in seconds since set-up began: CI's log then shows where the time went.
say() { printf '\033[1;34m[setup %d s]\033[0m %s\n' "$((SECONDS - SETUP_STARTED))" "$*" >&2; }
die() { printf '\033[1;31m[setup]\033[0m %s\n' "$*" >&2; exit 1; }

need_apt() {
  # $1: package list; the commands they provide are checked by the caller.
  if ! command -v apt-get >/dev/null 2>&1; then
    die "apt-get not found. Install by hand: $*  (Debian/Ubuntu package names), then run this again."
  fi
  local sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  say "installing with apt-get: $*"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

install_system_packages() {
  local missing=()
  command -v clang >/dev/null 2>&1 || missing+=(clang)
  command -v llvm-ar >/dev/null 2>&1 || [ -n "$(ls /usr/bin/llvm-ar-* 2>/dev/null)" ] || missing+=(llvm)
  if [ "${1:-}" = with-browser ]; then
    command -v chromium >/dev/null 2>&1 || missing+=(chromium)
    command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
  fi
  command -v npm >/dev/null 2>&1 || missing+=(npm)
  # python3 reads `cargo metadata` for tree-sitter's wasm headers (tree_sitter_cflags).
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
  if [ ${#missing[@]} -gt 0 ]; then need_apt "${missing[@]}"; fi
}

install_rust_tools() {
  command -v cargo >/dev/null 2>&1 || die "cargo not found: install Rust 1.95 with rustup first (https://rustup.rs)."
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  for component in rustfmt clippy; do
    if ! rustup component list --installed 2>/dev/null | grep -q "^$component"; then
      say "adding the $component component (scripts/test.sh checks format and lints)"
      rustup component add "$component"
    fi
  done
  if ! trunk --version 2>/dev/null | grep -q "$TRUNK_VERSION"; then
    # 0.22 needs a newer rustc than 1.95. Built without Trunk's own release settings (fat LTO, one
    # codegen unit) at opt-level 1, and without its default features (TLS and an update check,
    # for downloads Trunk.toml's `offline` never makes): 225 s instead of 342 here, and the site
    # it builds is the same byte for byte, as fast (docs/performance.md, CI time).
    say "installing trunk $TRUNK_VERSION (about 4 min on 2 cores)"
    CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_PROFILE_RELEASE_OPT_LEVEL=1 \
      cargo install trunk --version "$TRUNK_VERSION" --locked --no-default-features
  fi
  if ! wasm-bindgen --version 2>/dev/null | grep -q "$WASM_BINDGEN_VERSION"; then
    # `--locked` fails for this crate (its lockfile pins a yanked crate), so resolve afresh.
    # Without TLS (its test runner talks to chromedriver over plain HTTP on loopback).
    say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 2 min)"
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --no-default-features
  fi
}

install_node_tools() {
  mkdir -p "$TOOLS"
  if [ ! -x "$TOOLS/node_modules/.bin/wasm-opt" ] || \
     ! "$TOOLS/node_modules/.bin/wasm-opt" --version 2>/dev/null | grep -q "version ${BINARYEN_VERSION%%.*}"; then
    say "installing binaryen@$BINARYEN_VERSION (wasm-opt) from npm into $TOOLS"
    npm install --silent --no-audit --no-fund --prefix "$TOOLS" "binaryen@$BINARYEN_VERSION" >/dev/null
  fi
}

install_bench_tools() {
  mkdir -p "$TOOLS"
  if [ ! -f "$TOOLS/node_modules/pyodide/package.json" ] || \
     ! grep -q "\"version\": \"$PYODIDE_VERSION\"" "$TOOLS/node_modules/pyodide/package.json"; then
    say "installing pyodide@$PYODIDE_VERSION from npm into $TOOLS (benchmark only)"
    npm install --silent --no-audit --no-fund --prefix "$TOOLS" "pyodide@$PYODIDE_VERSION" >/dev/null
  fi
}

# tree-sitter-python's C build for wasm32 needs the small libc headers that the
# tree-sitter-language crate ships; cc reads this variable for that target only.
tree_sitter_cflags() {
  local dir
  dir=$(cd "$ROOT" && cargo metadata --format-version 1 --offline 2>/dev/null \
    | python3 -c 'import json,sys
m=json.load(sys.stdin)
for p in m["packages"]:
    if p["name"]=="tree-sitter-language":
        import os; print(os.path.dirname(p["manifest_path"])); break' 2>/dev/null || true)
  [ -n "$dir" ] || say "warning: tree-sitter-language's wasm headers not found; the wasm build of tree-sitter-python may fail"
  if [ -n "$dir" ] && [ -d "$dir/wasm/include" ]; then
    export CFLAGS_wasm32_unknown_unknown="-I$dir/wasm/include"
  fi
}

# Cargo names a workspace crate's artifacts by its path inside the workspace and trusts file
# times, so a crate built in another checkout of the same cache looks up to date here when this
# checkout's files are older. When the cache was last used from elsewhere, this checkout takes the
# times the last test run recorded for every file whose content is the same (scripts/build_cache.py:
# cargo then rebuilds exactly what differs); when there is no such record, or something was built
# after it, every file is touched: this checkout's crates are rebuilt, dependencies are not.
claim_build_cache() {
  local marker="$CARGO_TARGET_DIR/.execbench-checkout"
  # A checkout is its folder and a random id kept in its .git: a fresh clone in the folder of the
  # last one (CI's usual case) is another checkout, whose files all carry the time of the clone.
  # (The .git's inode was used before: a clone made right after the last one was deleted got the
  # same inode, and its crates were all rebuilt.)
  local checkout id_file
  id_file="$ROOT/.git/execbench-checkout-id"
  if [ -d "$ROOT/.git" ] && [ ! -s "$id_file" ]; then
    od -An -N8 -tx8 /dev/urandom | tr -d ' \n' >"$id_file" 2>/dev/null || true
  fi
  checkout="$ROOT $(cat "$id_file" 2>/dev/null || echo no-git)"
  mkdir -p "$CARGO_TARGET_DIR"
  if [ "$(cat "$marker" 2>/dev/null || true)" != "$checkout" ]; then
    local said
    if said=$(python3 "$ROOT/scripts/build_cache.py" adopt "$ROOT" "$CARGO_TARGET_DIR" 2>&1); then
      say "the build cache was last used from another checkout: $said"
    else
      say "the build cache was last used from another checkout ($said): rebuilding this checkout's own crates"
      find "$ROOT/src" "$ROOT/crates" "$ROOT/tests" "$ROOT/index.html" "$ROOT/Cargo.toml" "$ROOT/style" \
        -path "$ROOT/crates/*/target" -prune -o -type f -exec touch {} + 2>/dev/null || true
    fi
    printf '%s\n' "$checkout" > "$marker"
  fi
}

execbench_env() {
  export PATH="$HOME/.cargo/bin:$TOOLS/node_modules/.bin:$PATH"
  # One build cache outside the clone, shared by every checkout on this machine (a work tree and a
  # fresh CI clone): cargo's fingerprints keep it correct, and a clone does not rebuild RustPython.
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/execbench-target}"
  claim_build_cache
  local ar
  if ! command -v llvm-ar >/dev/null 2>&1; then
    ar=$(ls /usr/bin/llvm-ar-* 2>/dev/null | sort -V | tail -n 1 || true)
    [ -n "$ar" ] && export AR_wasm32_unknown_unknown="$ar"
  fi
  export CC_wasm32_unknown_unknown="${CC_wasm32_unknown_unknown:-clang}"
  (cd "$ROOT" && cargo fetch --locked >/dev/null 2>&1) || (cd "$ROOT" && cargo fetch --locked)
  tree_sitter_cflags
}

setup_all() {
  # apt's downloads and installs (Chromium, clang) go on beside cargo's builds of Trunk and
  # wasm-bindgen, which need nothing of them, where apt can run without asking for a password.
  local apt_pid=""
  if [ "$(id -u)" = 0 ] || sudo -n true 2>/dev/null; then
    install_system_packages "${1:-}" &
    apt_pid=$!
  else
    install_system_packages "${1:-}"
  fi
  export PATH="$HOME/.cargo/bin:$TOOLS/node_modules/.bin:$PATH"
  install_rust_tools
  if [ -n "$apt_pid" ] && ! wait "$apt_pid"; then
    die "installing the system packages failed (above)"
  fi
  install_node_tools
  execbench_env
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  setup_all with-browser
  say "all tools present"
fi
