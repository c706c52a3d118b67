#!/usr/bin/env bash
# Installs whatever is missing, builds the app and serves it on http://127.0.0.1:8080.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
setup_all
cd "$ROOT"
say "building and serving execbench (first build: ~10 min on 2 cores; later ones: seconds)"
say "open http://127.0.0.1:8080/ once the build says it is serving"
# No auto-reload: Trunk injects its script when serving, after the build hook that lists the
# inline scripts the Content-Security-Policy allows, so the policy would block it anyway.
exec trunk serve --release --no-autoreload "$@"
