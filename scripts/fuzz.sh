#!/usr/bin/env bash
# The property tests (the prop_*.rs files of crates/*/tests/, of the crates' one test binary,
# crates/*/tests/*/, of a crate's unit tests, crates/*/src/, and tests/app/prop_route.rs) with 100 times their CI cases, or SCALE times:
#   scripts/fuzz.sh            # about 100x the CI run
#   SCALE=10 scripts/fuzz.sh prop_streams   # one file, 10x
# A failure prints the shrunk input: commit it as a case of the parser's table test.
# Then, with no file named, the perturbation sweeps over all 800 CRUXEval samples with every seed
# (the test command runs one seed a sample: crates/perturb/tests/perturb/sweep.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
  tests=(prop_literal prop_rows prop_parquet prop_streams prop_extract prop_generations prop_runfile
         prop_templates prop_route prop_proposals prop_batch prop_stored prop_responses prop_claims
         prop_price_overrides prop_chat_request prop_content_range prop_identity prop_wire)
fi
export EXECBENCH_FUZZ_SCALE="${SCALE:-100}"
fuzz() {
  for t in "${tests[@]}"; do
    if [ -f "tests/$t.rs" ] || compgen -G "crates/*/tests/$t.rs" >/dev/null; then
      # A test binary of its own.
      cargo test --profile suite --workspace --locked --test "$t"
    elif compgen -G "crates/*/src/$t.rs" >/dev/null; then
      # A unit-test module of its crate's library: its tests only.
      cargo test --profile suite --workspace --locked --lib -- "$t::"
    else
      # A module of its crate's one test binary (crates/<crate>/tests/<crate>/<file>.rs, or the
      # app's, tests/app/<file>.rs): its tests only.
      file=$( (compgen -G "crates/*/tests/*/$t.rs"; compgen -G "tests/*/$t.rs") | head -n 1) || true
      [ -n "$file" ] || { echo "no property test named $t" >&2; exit 2; }
      cargo test --profile suite --workspace --locked --test "$(basename "$(dirname "$file")")" -- "$t::"
    fi
  done
}
time fuzz
if [ "$#" -eq 0 ]; then
  time EXECBENCH_SWEEP_ALL_SEEDS=1 cargo test --profile suite --workspace --locked --test perturb -- \
    cruxeval_all:: profiles_cruxeval:: verify_cruxeval::
fi
