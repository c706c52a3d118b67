// The peer: Pyodide in a module Web Worker, speaking the same JSON protocol as execbench's worker
// (crates/worker-protocol: a batch of runs in, one result message per run out), so the benchmark
// page drives both the same way. Each run gets
// fresh globals and a captured stdout, and evaluates expression and expected like our engine does.

import { loadPyodide } from "/pyodide/pyodide.mjs";

const started = performance.now();
const pyodide = await loadPyodide({ indexURL: new URL("/pyodide/", location.href).href });

pyodide.runPython(`
import io, json, sys, time, traceback

def _bench_run(program, expression, expected):
    started = time.perf_counter()
    g = {"__name__": "__main__"}
    buffer = io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = buffer
    phase = "program"
    try:
        exec(compile(program, "<program>", "exec"), g)
        phase = "expression"
        value = eval(compile(expression, "<expression>", "eval"), g)
        outcome = {"status": "value", "repr": repr(value), "matches": None}
        if expected is not None:
            phase = "expected"
            outcome["matches"] = bool(value == eval(compile(expected, "<expected>", "eval"), g))
    except BaseException as e:
        outcome = {"status": "raised", "kind": type(e).__name__, "message": str(e),
                   "traceback": traceback.format_exc(), "phase": phase}
    finally:
        sys.stdout, sys.stderr = saved
    return json.dumps({"outcome": outcome, "stdout": buffer.getvalue(),
                       "elapsed_ms": (time.perf_counter() - started) * 1000})
`);
const run = pyodide.globals.get("_bench_run");
const init_ms = performance.now() - started;

// Results go in groups by the same rule as execbench's worker (crates/worker-protocol's
// `Outbox`): what is held is posted before a run starts once 4 ms have passed since the last
// post, and at the end of the batch.
const FLUSH_MS = 4;
onmessage = (e) => {
  let held = [];
  let lastPost = performance.now();
  const flush = () => {
    postMessage(`{"kind":"results","results":[${held.join(",")}]}`);
    held = [];
    lastPost = performance.now();
  };
  for (const { id, request } of JSON.parse(e.data).runs) {
    if (held.length > 0 && performance.now() - lastPost >= FLUSH_MS) flush();
    const result = run(request.program, request.expression, request.expected ?? null);
    held.push(`{"id":${id},"result":${result}}`);
  }
  if (held.length > 0) flush();
  postMessage(`{"kind":"idle","memory_bytes":0}`);
};

// What loadPyodide fetched (this worker's own timeline), for the size comparison.
// `fetched_at` (epoch ms) says when the last of them arrived: the rest of the start-up is
// compiling and starting the engine.
const entries = performance.getEntriesByType("resource");
const resources = entries.map((e) => e.name);
const fetched_at = performance.timeOrigin + Math.max(0, ...entries.map((e) => e.responseEnd));
postMessage(JSON.stringify({ kind: "ready", init_ms, resources, fetched_at }));
