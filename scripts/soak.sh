#!/usr/bin/env bash
# The soak (issue 32): the page runs 800 CRUXEval samples x n = 5 against the mock model server
# with faults, two reloads and a Stop/Resume while another tab perturbs, then `execbench run`
# scores 10,400 answers natively; prints records lost, requests asked again, memory over time,
# the longest frame and IndexedDB's usage (crates/bench/src/soak.rs). Not a test: a measurement,
# about 10 minutes. Installs what is missing. Extra arguments go to the benchmark (--json FILE).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
setup_all with-browser
cd "$ROOT"
say "building the site (trunk build --release)"
trunk build --release
say "building the command line and the benchmark"
cargo build --release --locked --workspace
say "running the soak"
"${CARGO_TARGET_DIR:-$ROOT/target}/release/execbench-bench" --sections soak "$@"
