"""The comparison a researcher would script instead (the reference for the comparison figure): read run files
(manifest line, then records), then per run and scoring mode pass@1 (mean of correct / n) with a
95% percentile bootstrap over samples (1000 resamples), and for each perturbed run against the
vanilla run of its model McNemar's exact two-sided p on the first counted answers. Pure Python,
as the figures need nothing more. Prints one JSON line: the time and the figures to compare."""

import json
import math
import random
import sys
import time


def read_run(path):
    with open(path) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    manifest = lines[0]["manifest"] if "manifest" in lines[0] else lines[0]
    records = [r for r in lines[1:] if "sample_id" in r]
    return manifest, records


def outcomes(records, mode):
    out = {}
    for record in records:
        if record.get("error"):
            continue
        for result in record["results"]:
            if result["mode"] != mode or result["n"] == 0:
                continue
            counted = [a for a in result["answers"] if a["verdict"]["verdict"] != "dropped"]
            first_right = bool(counted) and counted[0]["verdict"]["verdict"] == "correct"
            out[record["sample_id"]] = (result["correct"] / result["n"], first_right)
    return out


def bootstrap(values, resamples, rng):
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    return means[math.ceil(0.025 * resamples) - 1], means[math.ceil(0.975 * resamples) - 1]


def mcnemar(b, c):
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def main():
    paths = sys.argv[1:]
    started = time.perf_counter()
    runs = [read_run(p) for p in paths]
    rng = random.Random(0)
    figures = {}
    for mode in ["strict", "compatible"]:
        scored = [outcomes(records, mode) for _, records in runs]
        for (manifest, _), o in zip(runs, scored):
            values = [p for p, _ in o.values()]
            figures[f"{manifest['run_id']} {mode} pass@1"] = round(100 * sum(values) / len(values), 6)
            bootstrap(values, 1000, rng)
        vanilla = {m["model"]: i for i, (m, _) in enumerate(runs) if not m.get("provenance")}
        for i, (manifest, _) in enumerate(runs):
            if not manifest.get("provenance"):
                continue
            v = scored[vanilla[manifest["model"]]]
            b = sum(1 for k, (_, right) in scored[i].items() if k in v and v[k][1] and not right)
            c = sum(1 for k, (_, right) in scored[i].items() if k in v and not v[k][1] and right)
            figures[f"{manifest['run_id']} {mode} mcnemar"] = [b, c, round(mcnemar(b, c), 9)]
    elapsed = (time.perf_counter() - started) * 1000
    print(json.dumps({"ms": elapsed, "figures": figures}))


main()
