"""CPython reference for the filter benchmark (crates/bench/src/build_filter.rs).

Runs in CPython, in one process, the instrumented runs execbench's filter asks its engine for:
for each request, in fresh globals, the prelude (it loads the filter's harness once and caches it
in sys.modules, as in execbench's engine), then the rewritten program, then the expression (two
calls of f under the harness), whose repr is the harness's report; output is captured. Compiled under the names
execbench's engine uses (the harness counts the lines run in `<program>`). No time limit and no
process per run, so it is a lower bound for any filter built on CPython. The first pass compiles
the harness; later passes find it cached.
Prints one JSON line: {"runs": N, "ms": [T, ...], "cpu_ms": [T, ...], "reprs": [...]} (reprs of the last pass; a
run that raised reads "raised: Kind").

usage: python3 build_filter.py REQUESTS.json PASSES
"""
import io
import json
import sys
import time


def one_pass(requests):
    reprs = []
    for request in requests:
        # Output is captured per run, as execbench's engine does.
        sys.stdout = sys.stderr = io.StringIO()
        scope = {"__name__": "__main__"}
        try:
            exec(compile(request["prelude"], "<prelude>", "exec"), scope)
            exec(compile(request["program"], "<program>", "exec"), scope)
            value = eval(compile(request["expression"], "<expression>", "eval"), scope)
            reprs.append(repr(value))
        except Exception as e:
            reprs.append("raised: " + type(e).__name__)
    sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    return reprs


def main():
    requests_path, passes = sys.argv[1], int(sys.argv[2])
    with open(requests_path, encoding="utf-8") as f:
        requests = json.load(f)
    times = []
    cpu_times = []
    reprs = []
    for _ in range(max(passes, 1)):
        started, cpu = time.perf_counter(), time.process_time()
        reprs = one_pass(requests)
        times.append((time.perf_counter() - started) * 1000)
        cpu_times.append((time.process_time() - cpu) * 1000)
    print(json.dumps({"runs": len(requests), "ms": times, "cpu_ms": cpu_times, "reprs": reprs}))


if __name__ == "__main__":
    main()
