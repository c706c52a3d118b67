#!/usr/bin/env bash
# The benchmark: execbench's Python worker against Pyodide (npm package, benchmark only) in
# headless Chromium, on the 800 CRUXEval samples, plus compressed download sizes, scoring and
# perturbation times, model API throughput against the mock server (command line and page), and
# the Build page's filter on the 800 samples (natively, CPython, page); prints Markdown tables.
# Installs what is missing. Extra arguments go to the benchmark
# (--reps N, --warm N, --restarts N, --sections engine,profile,perturb,score,models,store,build,compare,cli,
# --json FILE: every figure as JSON too).
set -euo pipefail
# The benchmark runs from the repository's root: make a relative --json FILE the caller's.
args=()
while (($#)); do
    if [[ $1 == --json && $# -ge 2 && $2 != /* ]]; then
        args+=("$1" "$PWD/$2")
        shift 2
    else
        args+=("$1")
        shift
    fi
done
set -- "${args[@]+"${args[@]}"}"
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
setup_all with-browser
install_bench_tools
cd "$ROOT"
say "building the site (trunk build --release)"
trunk build --release
say "building the command line (the models section runs target/release/execbench)"
cargo build --release --locked -p execbench-cli
say "running the benchmark (about 9-11 min for all sections; brotli sizes are cached in target/)"
# Release: brotli at quality 11 is slow unoptimised.
EXECBENCH_TOOLS="$TOOLS" cargo run --release --locked -p execbench-bench -- "$@"
