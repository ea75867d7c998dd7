#!/usr/bin/python3
"""The PyTorch example's time per epoch inside the workbench against the same script outside it.

Issue 48's speed goal: plugins/python/examples/torch_adam.py trained by the workbench
(trainbench-cli run, the Python trainer host, the engine's Runner and its checkpoint clock) takes
within 10 % of the time per epoch it takes when the same Trainer class is driven by a plain Python
loop in this process (a stub ctx whose checkpoint() only records the time, nothing evaluated).
Both see the same data (Fashion-MNIST from Debian's dataset-fashion-mnist, pixels / 255, float64 in
column-major order as the host hands it over), the same parameters and seeds and the same threads;
they alternate (outside, inside, outside, inside …) for --rounds rounds so that both see the same
machine load. Per epoch: outside, the time between checkpoints (the first from the start of fit());
inside, the checkpoints' train_time_s in the run's CSV (the host's training clock, paused while it
evaluates). The summary gives the median s/epoch of each over every epoch of every round, and the
ratio inside / outside.

    OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/python_torch_epoch.py [--build build] [--rounds 3]
        [--epochs 5] [--batch 128] [--threads 2] [--precision float32|double]

Needs python3-torch (Debian) and a build with the Python trainer host (plugins/python). Never run
by test.sh or CI.
"""
import argparse
import csv
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "plugins", "python", "examples")
DATA = "/usr/share/datasets/fashion-mnist"


def read_idx(name):
    with gzip.open(os.path.join(DATA, name), "rb") as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


class Data:
    """What the host gives fit(): float64 views in column-major order, one-hot targets."""

    def __init__(self):
        x = read_idx("train-images-idx3-ubyte.gz").reshape(-1, 784).astype(np.float64) / 255.0
        self.labels = read_idx("train-labels-idx1-ubyte.gz").astype(np.int64)
        self.x = np.asfortranarray(x)
        self.y = np.asfortranarray(np.eye(10)[self.labels])
        self.task = "classification"
        self.class_names = [str(i) for i in range(10)]
        self.feature_names = []


class Ctx:
    """A stub of the host's ctx: checkpoint() records the time and continues."""

    def __init__(self, seed, threads):
        self.seed, self.threads, self.times = seed, threads, []

    def checkpoint(self, epoch, loss=None, note=""):
        self.times.append(time.perf_counter())
        return True

    def stopped(self):
        return False

    def budget_spent(self):
        return False

    def record(self, key, value):
        pass

    def log(self, message):
        pass


def params(args):
    return {"hidden": [50], "activation": "sigmoid", "init": "glorot", "init_low": -1.0, "init_high": 1.0,
            "lr": 0.001, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "ridge": 0.0, "batch_size": args.batch,
            "epochs": args.epochs, "precision": args.precision}


def outside(args, data, seed):
    sys.path.insert(0, EXAMPLES)
    import torch_adam
    ctx = Ctx(seed, args.threads)
    trainer = torch_adam.Trainer(params(args))
    start = time.perf_counter()
    trainer.fit(data, ctx)
    marks = [start] + ctx.times
    return [b - a for a, b in zip(marks, marks[1:])]


def inside(args, seed, work):
    spec = {"name": "torch epoch bench", "kind": "learning-curve", "format": 2,
            "dataset": {"source": "fashion_mnist"}, "seed": seed, "threads": args.threads, "repeats": 1,
            "algorithms": [{"id": "python.torch_adam", "params": {k: v for k, v in params(args).items()}}]}
    path = os.path.join(work, "spec.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    out = os.path.join(work, "out.csv")
    env = dict(os.environ, TRAINBENCH_PYTHON_PATH=EXAMPLES)
    subprocess.run([os.path.join(args.build, "bin", "trainbench-cli"), "run", path, "--no-db", "--quiet",
                    "--csv", out], check=True, env=env)
    with open(out) as f:
        rows = [r for r in csv.DictReader(f) if r.get("train_time_s") not in (None, "") and float(r["epoch"]) > 0]
    times = [float(r["train_time_s"]) for r in rows]
    return [b - a for a, b in zip([0.0] + times, times)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--precision", choices=["float32", "double"], default="float32")
    args = ap.parse_args()
    import torch
    torch.set_num_threads(args.threads)
    data = Data()
    out_t, in_t, out_first, in_first = [], [], [], []
    with tempfile.TemporaryDirectory() as work:
        for r in range(args.rounds):
            seed = r + 1
            o = outside(args, data, seed)
            i = inside(args, seed, work)
            print("round %d: outside %s s/epoch; inside %s s/epoch" % (
                r + 1, " ".join("%.3f" % t for t in o), " ".join("%.3f" % t for t in i)), flush=True)
            out_first.append(o[0])
            in_first.append(i[0])
            out_t += o[1:]
            in_t += i[1:]
    mo, mi = statistics.median(out_t), statistics.median(in_t)
    ao, ai = statistics.mean(out_t), statistics.mean(in_t)
    fo, fi = statistics.median(out_first), statistics.median(in_first)
    print("SUMMARY torch %s, %s, batch %d, %d threads, %d rounds × %d epochs: epochs 2 on: s/epoch median outside "
          "%.4f, inside %.4f, ratio inside/outside %.3f (means %.4f, %.4f: %.3f); first epoch (one-off work "
          "included) median outside %.3f s, inside %.3f s" % (
              torch.__version__, args.precision, args.batch, args.threads, args.rounds, args.epochs, mo, mi, mi / mo,
              ao, ai, ai / ao, fo, fi))
    return 0


if __name__ == "__main__":
    sys.exit(main())
