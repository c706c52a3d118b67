#!/usr/bin/env bash
# Create (or reuse) the venv that check.py runs in, and print its python's path as the last line
# of stdout. Everything else goes to stderr, so `py=$(scripts/provider_defs/setup.sh)` works.
#
#   venv:  ${EXECBENCH_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/execbench-tools}/provider-defs-venv
#   needs: python3 >= 3.10 with venv + pip (or set PYTHON=...), and PyPI when (re)installing.
#
# The venv keeps a copy of requirements.txt; while that copy matches, nothing is installed and
# this returns at once. When requirements.txt changes the venv is rebuilt from scratch.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
req="$here/requirements.txt"
tools="${EXECBENCH_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/execbench-tools}"
venv="$tools/provider-defs-venv"
py="$venv/bin/python"
stamp="$venv/requirements.installed.txt"

ready() { [ -x "$py" ] && [ -f "$stamp" ] && cmp -s "$req" "$stamp"; }

if ready; then
    echo "$py"
    exit 0
fi

mkdir -p "$tools"
# Two jobs setting up at once: the second waits for the first, then finds it ready.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$tools/provider-defs-venv.lock"
    flock 9
    if ready; then
        echo "$py"
        exit 0
    fi
fi

python="${PYTHON:-python3}"
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
    echo "setup.sh: $python is missing or older than 3.10 (anthropic 2.x needs >= 3.10); set PYTHON=..." >&2
    exit 1
fi

echo "setup.sh: building $venv" >&2
rm -rf "$venv"
"$python" -m venv "$venv" >&2
"$py" -m pip install --disable-pip-version-check --no-input -q -r "$req" >&2
# A quick import proves the set works before it is marked ready.
"$py" -c 'import anthropic, google.genai.types, jsonschema, yaml' >&2
cp "$req" "$stamp"
echo "$py"
