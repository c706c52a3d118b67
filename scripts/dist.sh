#!/usr/bin/env bash
# Builds the static site into dist/: copy that folder to any static host, at any sub-path.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
setup_all
cd "$ROOT"
trunk build --release "$@"
say "static site written to $ROOT/dist"
