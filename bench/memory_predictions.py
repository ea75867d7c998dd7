#!/usr/bin/env python3
"""Predicted against measured peak memory of every run of the example experiments.

Each experiment file is run once by trainbench-cli (one repeat, its own parameters), into a
store of its own; then every run's prediction (predicted_cost.memory_bytes, what the memory
check before allocation uses) is set against its measured peak (peak_memory_bytes: the
resident growth during fit() and the host's evaluations, PeakMemory.h) as the ratio
measured / predicted. Above 1: the check before allocation let through a run that needed more;
far below 1: a machine that has the memory is refused the run.

    python3 bench/memory_predictions.py [--cli build/bin/trainbench-cli] [EXPERIMENT.json ...]

Without files: the example experiments of resources/experiments/ that bench/README.md lists under
"Memory predictions". The table is Markdown, for bench/README.md.
"""
import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT = [
    "teaching-moons.json",
    "fashion-mnist-learning-curve.json",
    "lsq-table1-fashion-mnist.json",
    "sparse-text-rcv1-shape.json",
    "dsgd-fashion-binary.json",
    "libsvm-fashion-mnist-10k.json",
    "liblinear-fashion-mnist.json",
    "bld-mv-b2ld-vs-lbfgs.json",
]


def mib(b):
    return "-" if b is None else f"{b / 2**20:.1f}"


def run(cli, path, work):
    with open(path) as f:
        spec = json.load(f)
    spec["repeats"] = 1
    name = os.path.splitext(os.path.basename(path))[0]
    short = os.path.join(work, name + ".json")
    # Relative data paths stay the original file's.
    spec.setdefault("dataset", {})
    with open(short, "w") as f:
        json.dump(spec, f)
    db = os.path.join(work, name + ".sqlite")
    r = subprocess.run([cli, "run", short, "--db", db, "--quiet"], cwd=os.path.dirname(os.path.abspath(path)),
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"{name}: exit {r.returncode}: {r.stderr.strip()[-400:]}", file=sys.stderr)
    rows = []
    con = sqlite3.connect(db)
    for alg, label_params, info, status in con.execute(
            "SELECT algorithm_id, params_json, info_json, status FROM runs ORDER BY id"):
        info = json.loads(info)
        predicted = (info.get("predicted_cost") or {}).get("memory_bytes")
        measured = info.get("peak_memory_bytes")
        shape = (info.get("predicted_cost") or {}).get("shape", "")
        rows.append((name, alg, shape, predicted, measured, status))
    con.close()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "bin", "trainbench-cli"))
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or [os.path.join(ROOT, "resources", "experiments", f) for f in DEFAULT]
    print("| experiment | algorithm | shape | predicted MiB | measured MiB | measured / predicted |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as work:
        for path in files:
            for name, alg, shape, p, m, status in run(a.cli, path, work):
                ratio = f"{m / p:.2f}" if p and m is not None else "-"
                note = "" if status == "finished" else f" ({status})"
                print(f"| {name} | {alg}{note} | {shape} | {mib(p)} | {mib(m)} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
