#!/usr/bin/env python3
"""CPython's trace of programs, in the shape execbench's engine records (`crates/core/src/trace.rs`).

The reference the RustPython tracer is held against (`crates/pyengine/tests/pyengine/trace_cpython.rs`).
Reads JSON lines `{"program", "expression", "prelude"?, "max_steps"?, "max_bytes"?}` on stdin and
writes one JSON line per input: `{"trace": {...}, "outcome": repr-or-null, "error": text-or-null}`.
With `--time` it writes one line instead, the best of 3 passes over all inputs run plainly and
traced (`{"plain_ms", "traced_ms", "cases"}`), for the benchmark's `trace` section.

What is recorded (the same rules as the engine's recorder):
- a step for each line event in a frame of a named function compiled from `<program>`
  (module code, lambdas, comprehensions and generator expressions give no steps);
- a line that runs again right after itself, with no other step between, is one step;
- after each step, the frame's locals (repr, type name), read at the frame's next event;
- on a call's last step, whether it returned or which exception type left it (not the returned
  value: RustPython's return event does not carry it).
"""
import json
import signal
import sys

MAX_REPR_CHARS = 2000
PROGRAM_FILE = "<program>"


class Recorder:
    def __init__(self, max_steps, max_bytes):
        self.max_steps = max_steps
        self.max_bytes = max_bytes
        self.steps = []
        self.calls = []
        self.arguments = []
        self.truncated = False
        self.bytes = 0
        # frame -> [call number, index of its last step or None, exception type name or None]
        self.open = {}

    def value(self, name, value):
        type_name = type(value).__name__
        try:
            text = repr(value)
            if len(text) > MAX_REPR_CHARS:
                text = ""
        except Exception:
            text = ""
        self.bytes += len(text.encode()) + len(name.encode()) + len(type_name.encode())
        item = {"repr": text, "type": type_name}
        if name:
            item = {"name": name, **item}
        return item

    def locals_of(self, frame):
        return [self.value(str(k), v) for k, v in frame.f_locals.items()]

    def global_trace(self, frame, event, arg):
        code = frame.f_code
        if event != "call" or code.co_filename != PROGRAM_FILE or code.co_name.startswith("<"):
            return None
        if self.truncated:
            return None
        self.open[frame] = [len(self.calls), None, None]
        self.calls.append(code.co_name)
        self.arguments.append(self.locals_of(frame))
        return self.local_trace

    def local_trace(self, frame, event, arg):
        entry = self.open.get(frame)
        if entry is None or self.truncated:
            return self.local_trace
        call, last, raising = entry
        if event == "line":
            if last is not None:
                self.steps[last]["locals"] = self.locals_of(frame)
            line = frame.f_lineno
            if last is not None and last == len(self.steps) - 1 and self.steps[last]["line"] == line:
                entry[2] = None
                return self.local_trace
            if len(self.steps) >= self.max_steps or self.bytes > self.max_bytes:
                self.truncated = True
                return self.local_trace
            self.steps.append({"line": line, "call": call, "locals": []})
            entry[1] = len(self.steps) - 1
            entry[2] = None
        elif event == "exception":
            entry[2] = arg[0].__name__
        elif event == "return":
            del self.open[frame]
            if last is not None:
                step = self.steps[last]
                step["locals"] = self.locals_of(frame)
                if raising is not None:
                    step["ended"] = {"by": "raised", "kind": raising}
                else:
                    step["ended"] = {"by": "returned"}
        return self.local_trace

    def trace(self):
        out = {"steps": self.steps, "calls": self.calls, "arguments": self.arguments}
        if self.truncated:
            out["truncated"] = True
        return out


class TimeUp(Exception):
    pass


def on_alarm(signum, frame):
    raise TimeUp()


def trace_one(case):
    recorder = Recorder(case.get("max_steps", 10_000), case.get("max_bytes", 4 << 20))
    scope = {"__name__": "__main__"}
    outcome = None
    error = None
    signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(case.get("time_s", 10))
    sys.settrace(recorder.global_trace)
    try:
        if case.get("prelude"):
            exec(compile(case["prelude"], "<prelude>", "exec"), scope)
        exec(compile(case["program"], PROGRAM_FILE, "exec"), scope)
        outcome = repr(eval(compile(case["expression"], "<expression>", "eval"), scope))
    except TimeUp:
        error = "timed out"
    except BaseException as exc:  # the program's own exception is part of its behaviour
        error = f"{type(exc).__name__}: {exc}"
    finally:
        sys.settrace(None)
        signal.alarm(0)
    return {"trace": recorder.trace(), "outcome": outcome, "error": error}


def run_plain(case):
    """The same run without a tracer, for `--time`."""
    scope = {"__name__": "__main__"}
    try:
        if case.get("prelude"):
            exec(compile(case["prelude"], "<prelude>", "exec"), scope)
        exec(compile(case["program"], PROGRAM_FILE, "exec"), scope)
        eval(compile(case["expression"], "<expression>", "eval"), scope)
    except BaseException:
        pass


def main():
    cases = [json.loads(line) for line in sys.stdin if line.strip()]
    if "--time" in sys.argv[1:]:
        # The benchmark's figures: every case run plainly, then traced, best of 3 passes each (ms).
        import time

        def best(run):
            times = []
            for _ in range(3):
                start = time.perf_counter()
                for case in cases:
                    run(case)
                times.append((time.perf_counter() - start) * 1000)
            return min(times)

        print(json.dumps({"plain_ms": best(run_plain), "traced_ms": best(trace_one), "cases": len(cases)}))
        return
    for case in cases:
        print(json.dumps(trace_one(case)), flush=True)


if __name__ == "__main__":
    main()
