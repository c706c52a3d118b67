#!/usr/bin/env python3
"""Run llama.cpp's own HTTP server (through the xllamacpp wheel) on a local GGUF model, for
execbench's "local server" provider (an OpenAI-compatible endpoint a browser page can call).

    { read -r PY; read -r MODEL; } < <(scripts/llama_server/fetch.sh)   # venv python, model path
    "$PY" scripts/llama_server/serve.py --model "$MODEL" [--port 0] [--threads N] [--ctx 4096]
        [--parallel 1] [--alias qwen2.5-coder-0.5b-instruct] [--api-key KEY] [--no-stdin]

Contract
  * stdout: exactly one line, the OpenAI base URL, e.g. `http://127.0.0.1:40025/v1`, written and
    flushed once the server answers GET /health and GET /v1/models. Nothing else ever goes to
    stdout (native code's stdout is redirected to stderr).
  * stderr: llama.cpp's log (amount set by --log-verbosity) and this script's messages.
  * lifetime: serves until stdin reaches end-of-file (the parent closed the pipe or died), or
    SIGTERM / SIGINT / SIGHUP arrives; then it stops the server and exits 0. Requests still in
    flight then get their connection closed: llama.cpp's shutdown waits for them forever, so after
    --stop-timeout (3 s) the process exits anyway, with status 1; no thread or child survives.
    With --no-stdin, stdin is ignored (use that when stdin is /dev/null, e.g. under `&`).
  * exit status: 0 clean stop; 1 the server failed to start, never became ready, or had to be
    ended by the stop timeout; 2 bad usage.

Server settings
  * binds --host (127.0.0.1) and --port (0 = a free port chosen by the OS).
  * --ctx is the context (prompt + answer tokens) of one request; the KV cache holds
    ctx * parallel tokens, split into --parallel slots that decode concurrently (continuous batching).
  * model id: /v1/models reports the --alias (default `qwen2.5-coder-0.5b-instruct`) as `id`;
    llama.cpp does not check the request's `model` field against it.
  * greedy-friendly defaults: a request that sets no sampling fields is decoded greedily
    (temperature 0); the other defaults are OpenAI-like (top_k off, top_p 1, min_p 0, no
    repetition penalty) plus seed --seed (0), so a request that sets only `temperature: 0.8`
    samples from the full distribution. A request's own fields (temperature, top_p, top_k, min_p,
    seed, ...) override these defaults.
  * CORS: llama.cpp answers every origin (Access-Control-Allow-Origin echoes the request's Origin;
    preflight OPTIONS answers 200 with Allow-Methods GET, POST, DELETE, OPTIONS and, set here,
    Allow-Headers `Authorization, Content-Type, *`), so a page on another localhost port can call
    it, with or without an Authorization header (checked with headless Chromium 156).
    --cors-origin ORIGIN makes it send that one origin instead (llama.cpp sends the value verbatim,
    so a list does not work); the server still runs requests from other origins, browsers just
    refuse to hand the answer to their pages. --api-key makes the server demand
    `Authorization: Bearer KEY` (without it, any Authorization header is accepted and ignored).
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import os
import signal
import sys
import threading
import time
import urllib.error
import urllib.request

DEFAULT_ALIAS = "qwen2.5-coder-0.5b-instruct"


def log(msg: str) -> None:
    print(f"serve.py: {msg}", file=sys.stderr, flush=True)


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description="Serve a GGUF model with llama.cpp's HTTP server (via xllamacpp); prints the base URL.")
    ap.add_argument("--model", required=True, help="path of the GGUF file")
    ap.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    ap.add_argument("--port", type=int, default=0, help="TCP port; 0 (default) = any free port")
    ap.add_argument("--threads", type=int, default=0,
                    help="CPU threads for decoding and prompt processing (default: all cores)")
    ap.add_argument("--ctx", type=int, default=4096, help="context tokens per request/slot (default 4096)")
    ap.add_argument("--parallel", type=int, default=1, help="concurrent request slots (default 1)")
    ap.add_argument("--alias", default=DEFAULT_ALIAS, help=f"model id reported by /v1/models (default {DEFAULT_ALIAS})")
    ap.add_argument("--api-key", default="", help="require `Authorization: Bearer KEY` (default: no key)")
    ap.add_argument("--cors-origin", default="",
                    help="allow only this one browser origin, e.g. http://127.0.0.1:9999 (default: every origin)")
    ap.add_argument("--seed", type=int, default=0, help="default sampling seed (default 0)")
    ap.add_argument("--log-verbosity", type=int, default=2,
                    help="llama.cpp log threshold: 0 quiet ... 1 errors, 2 warnings (default), 3 info, 4 debug")
    ap.add_argument("--ready-timeout", type=float, default=120.0,
                    help="seconds to wait for the server to answer after loading (default 120)")
    ap.add_argument("--stop-timeout", type=float, default=3.0,
                    help="seconds to let the server stop cleanly before the process exits anyway (default 3)")
    ap.add_argument("--no-stdin", action="store_true", help="do not stop when stdin closes")
    args = ap.parse_args(argv)
    if not os.path.isfile(args.model):
        ap.error(f"--model: no such file: {args.model}")
    if not 0 <= args.port <= 65535:
        ap.error("--port must be 0..65535")
    if args.ctx < 64 or args.parallel < 1 or args.threads < 0:
        ap.error("need --ctx >= 64, --parallel >= 1, --threads >= 0")
    return args


def make_params(xl, args: argparse.Namespace):
    p = xl.CommonParams()
    p.model.path = os.path.abspath(args.model)
    p.hostnames = [args.host]
    p.port = args.port
    p.model_alias = {args.alias}
    threads = args.threads or os.cpu_count() or 1
    p.cpuparams.n_threads = threads
    p.cpuparams_batch.n_threads = threads
    p.n_parallel = args.parallel
    p.n_ctx = args.ctx * args.parallel  # llama.cpp splits n_ctx evenly between the slots
    p.fit_params = False  # keep exactly the context we asked for
    p.verbosity = args.log_verbosity
    p.ui = False  # no built-in web chat page at /
    if args.api_key:
        p.api_keys = [args.api_key]
    # llama.cpp answers preflights with `Access-Control-Allow-Headers: *`. The Fetch standard does
    # not let `*` cover Authorization (Firefox enforces that), so name it explicitly as well.
    p.cors_headers = "Authorization, Content-Type, *"
    if args.cors_origin:
        # Sent verbatim as Access-Control-Allow-Origin, so only a single origin works.
        p.cors_origins = args.cors_origin
    # Defaults for requests that do not set them: temperature 0 (llama.cpp then takes the most likely
    # token) and otherwise OpenAI-like, with no truncation, so that a request which sets only
    # `temperature` samples from the whole distribution (llama.cpp's own defaults would add
    # top_k 40, top_p 0.95, min_p 0.05; and a top_k 1 default would make every request greedy).
    s = p.sampling
    s.temp = 0.0
    s.top_k = 0
    s.top_p = 1.0
    s.min_p = 0.0
    s.penalty_repeat = 1.0
    s.seed = args.seed
    return p


def wait_ready(base: str, api_key: str, timeout: float) -> dict:
    """Poll /health, then return the /v1/models JSON."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(urllib.request.Request(base + "/health", headers=headers), timeout=5) as r:
                if r.status == 200:
                    req = urllib.request.Request(base + "/v1/models", headers=headers)
                    with urllib.request.urlopen(req, timeout=5) as m:
                        return json.load(m)
        except (urllib.error.URLError, OSError, ValueError) as e:  # 503 while loading, refused, ...
            last = e
        time.sleep(0.1)
    raise TimeoutError(f"server at {base} not ready after {timeout:.0f} s (last error: {last})")


def main(argv: list[str]) -> int:
    args = parse_args(argv)

    # Keep stdout for the one URL line: whatever native code prints goes to stderr instead.
    url_out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    stop = threading.Event()

    def on_signal(signum, _frame):
        log(f"got signal {signum}, stopping")
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, on_signal)

    try:
        import xllamacpp as xl
    except ImportError as e:
        log(f"cannot import xllamacpp ({e}); run scripts/llama_server/fetch.sh and use the python it prints")
        return 1

    started = time.monotonic()
    try:
        server = xl.Server(make_params(xl, args))
    except Exception as e:  # bad model file, port in use, ...
        log(f"server failed to start: {e}")
        return 1
    try:
        address = server.listening_address.rstrip("/")
        models = wait_ready(address, args.api_key, args.ready_timeout)
        ids = [m.get("id") for m in models.get("data", [])]
        log(f"ready in {time.monotonic() - started:.2f} s at {address} (model ids {ids})")
        if stop.is_set():
            return 0
        url_out.write(address + "/v1\n")
        url_out.flush()

        if not args.no_stdin:
            def watch_stdin():
                try:
                    while sys.stdin.buffer.read1(65536):
                        pass
                except (OSError, ValueError):
                    pass
                log("stdin closed, stopping")
                stop.set()

            threading.Thread(target=watch_stdin, daemon=True).start()
        while not stop.wait(0.5):
            pass
        return 0
    except Exception as e:
        log(str(e))
        return 1
    finally:
        # Dropping the last reference runs the server's destructor: it closes the listener, stops
        # the decoding loop and joins their threads. With a request still in flight that join never
        # returns (the HTTP thread waits for a result the stopped loop will not produce), and the
        # destructor holds the GIL meanwhile, so neither Python threads nor Python signal handlers
        # run. faulthandler's watchdog is a native thread that needs no GIL: after --stop-timeout
        # seconds it ends the process with _exit(1). From here on SIGTERM/SIGINT also kill at once.
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        log("stopping the server")
        t = time.monotonic()
        devnull = open(os.devnull, "w")
        faulthandler.dump_traceback_later(args.stop_timeout, exit=True, file=devnull)
        del server
        faulthandler.cancel_dump_traceback_later()
        log(f"server stopped in {time.monotonic() - t:.2f} s")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
