#!/usr/bin/env bash
# Fetch @wllama/wllama (llama.cpp compiled to WebAssembly, MIT) from npm, for the benchmark's
# realmodel section only: issue 58 asks to measure it beside the page's own engine on the same
# file and prompts. It is never part of the site.
#
#   scripts/llama_server/fetch_wllama.sh     # download, check, unpack as needed
#
# Output: one line on stdout, the unpacked package folder (holding esm/index.js and
# esm/wasm/wllama.wasm). Progress and errors go to stderr; exit 0 ready, 1 failure.
# The tarball is checked against npm's published SHA-512 integrity before it is unpacked.
set -euo pipefail

VERSION=3.13.0
INTEGRITY=sha512-ZvoRdQAn+E+18EvQ9qS036gudiI9rbZRBJgG/qNICPPwrA0Y6SMMdbziz/j7K/0WxcbJlhaRraVIYsnEy732NA==

TOOLS="${EXECBENCH_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/execbench-tools}"
[[ "$TOOLS" == /* ]] || TOOLS="$PWD/$TOOLS"
DEST="$TOOLS/wllama-$VERSION"

log() { echo "fetch_wllama.sh: $*" >&2; }
die() { echo "fetch_wllama.sh: error: $*" >&2; exit 1; }

if [[ -f "$DEST/.execbench-checked" && -f "$DEST/esm/wasm/wllama.wasm" ]]; then
    echo "$DEST"
    exit 0
fi
command -v npm >/dev/null || die "npm is needed to fetch @wllama/wllama (apt-get install npm)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
log "fetching @wllama/wllama@$VERSION from npm"
(cd "$tmp" && npm pack --silent "@wllama/wllama@$VERSION" >/dev/null) || die "npm pack failed"
tarball="$(ls "$tmp"/*.tgz)"
got="sha512-$(sha512sum "$tarball" | cut -d' ' -f1 | xxd -r -p | base64 -w0)"
[[ "$got" == "$INTEGRITY" ]] || die "the tarball's SHA-512 is $got, npm published $INTEGRITY; nothing unpacked"
mkdir -p "$tmp/unpacked"
tar -xzf "$tarball" -C "$tmp/unpacked"
rm -rf "$DEST"
mkdir -p "$TOOLS"
mv "$tmp/unpacked/package" "$DEST"
touch "$DEST/.execbench-checked"
log "unpacked into $DEST"
echo "$DEST"
