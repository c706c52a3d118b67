#!/usr/bin/env python3
"""REval's own ground truth, for `execbench reval --reference` to hold execbench's trace against.

REval (r-eval/REval, Chen et al., ICSE 2025) computes each question's truth at evaluation time,
with its `dynamics.py` tracer in CPython; its files hold no answers. This script imports that
tracer from a checkout of REval's repository (which has no licence: it is never copied into
execbench, only run where a user has it) and writes, for every program input of
`data/DREval_tasks.jsonl`, what REval's rules give:

- coverage: `States.get_coverage(line)`;
- path: `States.get_next_line(line)`, 1-based, -1 for "nothing ran after" or "never ran";
- state: `States.interpret_var(line, var)`: the values after each run of the line (repr and
  type name), or null for REval's `Nil`;
- output (HumanEval half): the data file's expected output.

Usage: python3 scripts/reval_reference.py REVAL_CHECKOUT OUT.jsonl
"""

import json
import sys
import traceback


def value_of(value):
    try:
        text = repr(value)
    except Exception as error:  # a repr that raises is written as such
        text = f"<repr raised {type(error).__name__}>"
    return {"repr": text, "type": type(value).__name__}


def truths(states, asks, nil):
    out = []
    for ask in asks:
        line = ask["lineno"]
        values = states.interpret_var(line - 1, ask["var"])
        next_lines = sorted(a if a == -1 else a + 1 for a in states.get_next_line(line - 1))
        out.append({
            "line": line,
            "var": ask["var"],
            "coverage": bool(states.get_coverage(line - 1)),
            "next_lines": next_lines,
            "values": None if values is nil or not isinstance(values, list) else [value_of(v) for v in values],
        })
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    checkout, out_path = sys.argv[1], sys.argv[2]
    sys.path.insert(0, checkout)
    import dynamics  # REval's tracer, from the user's checkout
    from dataset import DREval

    data = [json.loads(line) for line in open(f"{checkout}/data/DREval_data.jsonl")]
    tasks = [json.loads(line) for line in open(f"{checkout}/data/DREval_tasks.jsonl")]
    rows = []
    for task in tasks:
        idx = task["idx"]
        program = data[idx]
        for pair in task["tasks"]:
            row = {"task_id": task["task_id"], "input_idx": pair["input_idx"]}
            try:
                if DREval.HUMANEVAL_START <= idx <= DREval.HUMANEVAL_END:
                    fn = dynamics.FunctionFactory.create(program["entry_point"], program["code"])
                    sandbox = dynamics.Sandbox(fn)
                    sandbox.run(*eval(program["inputs"][pair["input_idx"]]))
                    row["output"] = program["outputs"][pair["input_idx"]]
                else:
                    name = program["entry_point"]
                    dynamics.ClassFactory.create(name, program["code"])
                    classes = dynamics.ClassFactory.create_test_classes(
                        name, program["code"], program["test"],
                        DREval.tcls_pattern, DREval.tcls_validation, DREval.tcls_postprocess)
                    test = classes[pair["input_idx"]]()
                    if hasattr(test, "setUp"):
                        test.setUp()
                    sandbox = dynamics.Sandbox(test.dreval_test)
                    sandbox.run()
                row["status"] = sandbox.status
                row["trace"] = [s + 1 for s in sandbox.states.trace]
                row["asks"] = truths(sandbox.states, pair["task"], dynamics.Nil)
            except Exception as error:
                row["status"] = f"could not run: {type(error).__name__}: {error}"
                traceback.print_exc(file=sys.stderr)
            rows.append(row)
    with open(out_path, "w") as out:
        for row in rows:
            out.write(json.dumps(row) + "\n")
    print(f"{len(rows)} program inputs written to {out_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
