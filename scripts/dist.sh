#!/usr/bin/env bash
# Builds the static site into dist/: copy that folder to any static host, at any sub-path.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
setup_all
cd "$ROOT"
trunk build --release "$@"
# Brotli and gzip copies next to each file for hosts that serve them (docs/deploy.md). A small
# workspace tool (two codecs, seconds to build): no Python module or system package needed.
cargo run --release --locked --quiet -p execbench-precompress -- dist
say "static site written to $ROOT/dist"
