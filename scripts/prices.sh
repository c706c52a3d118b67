#!/usr/bin/env bash
# Refreshes crates/runs/data/prices.json from LiteLLM's price table in the litellm wheel on PyPI.
# Usage: scripts/prices.sh [LITELLM_VERSION]   (PRICES_DATE=YYYY-MM-DD to fix the date)
# Needs python3 with pip; commit the regenerated file.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
exec python3 "$ROOT/scripts/prices.py" "$@"
