#!/usr/bin/env bash
# The property tests (crates/*/tests/prop_*.rs) with 100 times their CI cases, or SCALE times:
#   scripts/fuzz.sh            # about 100x the CI run
#   SCALE=10 scripts/fuzz.sh prop_streams   # one file, 10x
# A failure prints the shrunk input: commit it as a case of the parser's table test.
set -euo pipefail
cd "$(dirname "$0")/.."
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
  tests=(prop_literal prop_rows prop_parquet prop_streams prop_extract prop_generations prop_runfile
         prop_templates prop_route prop_proposals)
fi
args=()
for t in "${tests[@]}"; do args+=(--test "$t"); done
export EXECBENCH_FUZZ_SCALE="${SCALE:-100}"
time cargo test --release --workspace --locked "${args[@]}"
