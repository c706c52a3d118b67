// The benchmark page's script (crates/bench). It starts one Python worker (ours or Pyodide's),
// feeds it the 800 CRUXEval samples in batches of `batch` runs a message, as the app hands runs to
// each of its workers, and leaves its figures in `window.benchState` for the Rust driver
// (src/main.rs) to read.
//
// Query parameters: engine=execbench|pyodide, warm=N (warm passes), batch=N (runs a message, 64 as
// in the app), restarts=N (execbench only: terminate the worker and time a new one until ready,
// N times).

const params = new URLSearchParams(location.search);
const engine = params.get("engine") || "execbench";
const warmPasses = Number(params.get("warm") || 3);
const restarts = Number(params.get("restarts") || 0);
const batch = Math.max(1, Number(params.get("batch") || 64));

const state = (window.benchState = { engine, done: false, error: null, log: [] });
const log = (line) => {
  state.log.push(line);
  document.getElementById("log").textContent += line + "\n";
};

// Both workers speak the same JSON text protocol (crates/worker-protocol): they post
// {"kind":"ready",...} once started, then answer {"runs":[{"id":N,"request":{...}},...]} with
// {"kind":"results","results":[{"id":N,"result":{...}},...]} messages, in order, a few
// milliseconds of runs each.
function startWorker() {
  const startedAt = performance.now();
  const worker =
    engine === "pyodide"
      ? new Worker("./pyodide-worker.js", { type: "module" })
      : new Worker("/execbench/execbench-python-worker_loader.js"); // a classic worker, as in the app
  return new Promise((resolve, reject) => {
    worker.onerror = (e) => reject(new Error(`worker error: ${e.message}`));
    worker.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      if (msg.kind === "ready") resolve({ worker, startedAt, readyAt: performance.now(), ready: msg });
      else reject(new Error(`unexpected first message: ${e.data.slice(0, 300)}`));
    };
  });
}

// Returns `runBatch(requests) -> Promise<results>`; one batch in flight at a time.
function runner(worker) {
  let nextId = 1;
  let pending = null;
  worker.onmessage = (e) => {
    const msg = JSON.parse(e.data);
    if (msg.kind === "results" && pending) {
      for (const { id, result } of msg.results) {
        if (id !== pending.ids[pending.results.length]) {
          state.error = `result for run ${id} out of order`;
          return;
        }
        pending.results.push(result);
      }
      if (pending.results.length === pending.ids.length) {
        const { resolve, results } = pending;
        pending = null;
        resolve(results);
      }
    } else if (msg.kind !== "idle") {
      state.error = `unexpected message: ${e.data.slice(0, 300)}`;
    }
  };
  return (requests) =>
    new Promise((resolve) => {
      const runs = requests.map((request) => ({ id: nextId++, request }));
      pending = { ids: runs.map((r) => r.id), results: [], resolve };
      worker.postMessage(JSON.stringify({ runs }));
    });
}

// One verify-all pass: for each sample, fresh globals, exec the code, `f(<input>) == <output>`.
async function verifyAll(runBatch, samples) {
  const t0 = performance.now();
  let passed = 0;
  let engineMs = 0; // the engines' own per-run time (`elapsed_ms`), without messaging
  const failures = [];
  for (let start = 0; start < samples.length; start += batch) {
    const chunk = samples.slice(start, start + batch);
    const results = await runBatch(
      chunk.map((s) => ({ program: s.code, expression: `f(${s.input})`, expected: s.output, limits: { time_ms: 2000, max_steps: 0 } })),
    );
    results.forEach((result, i) => {
      engineMs += result.elapsed_ms;
      const o = result.outcome;
      if (o.status === "value" && o.matches === true) passed++;
      else if (failures.length < 5) failures.push({ id: chunk[i].id, outcome: o });
    });
  }
  return { ms: performance.now() - t0, engine_ms: engineMs, passed, failures };
}

async function main() {
  // The dataset download overlaps the worker's start, as it would in the app.
  const dataset = fetch("/execbench/data/cruxeval/cruxeval.jsonl").then((r) => r.text());
  const first = await startWorker();
  // performance.now() counts from navigation start: this is the cold "ready" time.
  state.ready_ms = first.readyAt;
  state.worker_ready_ms = first.readyAt - first.startedAt;
  state.init_ms = first.ready.init_ms;
  state.resources = first.ready.resources || null; // Pyodide's worker lists what it fetched
  if (first.ready.fetched_at) state.fetched_ms = first.ready.fetched_at - performance.timeOrigin;
  log(`${engine}: ready at ${first.readyAt.toFixed(0)} ms after navigation start`);

  const samples = (await dataset)
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
  state.samples = samples.length;
  const run = runner(first.worker);

  state.first = await verifyAll(run, samples);
  log(`first pass: ${state.first.ms.toFixed(0)} ms, ${state.first.passed}/${samples.length} pass`);
  state.warm = [];
  for (let i = 0; i < warmPasses; i++) {
    const warm = await verifyAll(run, samples);
    state.warm.push(warm);
    log(`warm pass: ${warm.ms.toFixed(0)} ms, ${warm.passed} pass`);
  }

  // Restart: what the app's Stop button costs (terminate, then a new worker until ready).
  state.restart_ms = [];
  let worker = first.worker;
  for (let i = 0; i < restarts; i++) {
    worker.terminate();
    const next = await startWorker();
    state.restart_ms.push(next.readyAt - next.startedAt);
    worker = next.worker;
  }
  if (restarts) log(`restarts: ${state.restart_ms.map((t) => t.toFixed(0)).join(", ")} ms`);
  state.page_resources = performance.getEntriesByType("resource").map((e) => e.name);
}

main()
  .catch((e) => {
    state.error = String(e && e.stack ? e.stack : e);
  })
  .finally(() => {
    state.done = true;
  });
