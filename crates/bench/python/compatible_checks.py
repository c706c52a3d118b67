"""CPython reference for the scoring benchmark (crates/bench/src/scoring.rs).

Does in CPython, in one process, what execbench's compatible mode asks its engine for each
answer: in fresh globals, run the sample's code followed by `assert <expected> == <answer>`.
No time limit and no process per check, so it is a lower bound for any harness built on CPython.
Prints one JSON line: {"checks": N, "passed": N, "ms": T}.

usage: python3 compatible_checks.py DATASET.jsonl GENERATIONS.json
"""
import json
import sys
import time


def main():
    dataset_path, generations_path = sys.argv[1], sys.argv[2]
    with open(dataset_path, encoding="utf-8") as f:
        samples = {row["id"]: row for row in map(json.loads, filter(str.strip, f))}
    with open(generations_path, encoding="utf-8") as f:
        generations = json.load(f)
    programs = []
    for sample_id, answers in generations.items():
        sample = samples[sample_id]
        for answer in answers:
            programs.append(f"{sample['code']}\nassert {sample['output']} == {answer}")
    passed = 0
    started = time.perf_counter()
    for program in programs:
        try:
            exec(compile(program, "<answer>", "exec"), {"__name__": "__main__"})
            passed += 1
        except Exception:
            pass
    ms = (time.perf_counter() - started) * 1000
    print(json.dumps({"checks": len(programs), "passed": passed, "ms": ms}))


if __name__ == "__main__":
    main()
