#!/usr/bin/python3
"""PyTorch reference for the gradient baselines (bench/README.md, "Gradient baselines").

Same problem as build/bin/gradient_fashion: Fashion-MNIST from Debian's dataset-fashion-mnist
(pixels / 255), network 784-50-10 with a sigmoid hidden layer and a softmax output trained with
cross-entropy, weights and biases drawn from U[-1, 1], Adam (lr 1e-3, betas 0.9/0.999, eps 1e-8),
batch 128 for 10 epochs, then batch 1 for one epoch. PyTorch at its best on this machine:
float32, the data as tensors in memory (no DataLoader workers), torch.set_num_threads(2) and
OPENBLAS_NUM_THREADS=1 so that OpenBLAS does not add threads of its own. Only the training loop
is timed; accuracy is evaluated after each epoch outside the clock, like the workbench's host.

    OPENBLAS_NUM_THREADS=1 /usr/bin/python3 bench/pytorch_fashion.py [--threads 2] [--epochs 10]
        [--batch 128] [--batch1-epochs 1] [--skip-batch1] [--float64] [--init uniform|glorot|default]
        [--cpp build/bin/gradient_fashion [--rounds N] [--cpp-precision double,float32] [--seed-per-round]]

With --cpp, the C++ benchmark runs in the same session with the same settings, alternating with
PyTorch for N rounds (C++, PyTorch, C++, PyTorch, ...) so that both see the same machine load;
the summary gives the median s/epoch of each over all rounds and their ratio (C++ / PyTorch).
--cpp-precision runs the C++ benchmark once per listed "precision" of the gradient plugin in every
round (C++ double, C++ float32, PyTorch, ...), each summarised against the same PyTorch runs.
--seed-per-round trains round r with seed r in both (C++ weights and order, PyTorch's
manual_seed), so that the accuracies cover several seeds; without it every round uses seed 1.

Needs python3-torch and python3-numpy (Debian); never run by test.sh or CI.
"""
import argparse
import gzip
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import torch  # noqa: E402  (after the environment is set)

DATA_DIR = "/usr/share/datasets/fashion-mnist"


def read_idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load(dtype):
    def images(name):
        x = read_idx(os.path.join(DATA_DIR, name)).reshape(-1, 784).astype(np.float64) / 255.0
        return torch.from_numpy(x).to(dtype)

    def labels(name):
        return torch.from_numpy(read_idx(os.path.join(DATA_DIR, name)).astype(np.int64))

    return (images("train-images-idx3-ubyte.gz"), labels("train-labels-idx1-ubyte.gz"),
            images("t10k-images-idx3-ubyte.gz"), labels("t10k-labels-idx1-ubyte.gz"))


def make_net(dtype, seed, init):
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(784, 50), torch.nn.Sigmoid(), torch.nn.Linear(50, 10)).to(dtype)
    with torch.no_grad():
        for layer in (net[0], net[2]):
            if init == "uniform":  # the BPLS paper's U[-1, 1], the plugin's default
                layer.weight.uniform_(-1.0, 1.0)
                layer.bias.uniform_(-1.0, 1.0)
            elif init == "glorot":  # the plugin's "glorot": Xavier uniform, zero biases
                torch.nn.init.xavier_uniform_(layer.weight)
                layer.bias.zero_()
            # "default": PyTorch's own Linear initialisation
    return net


def accuracy(net, x, y):
    with torch.no_grad():
        return (net(x).argmax(dim=1) == y).double().mean().item()


def train(net, xtr, ytr, xte, yte, batch, epochs, seed, verbose):
    # CrossEntropyLoss = log-softmax + NLL: the softmax output layer of the C++ network.
    loss_fn = torch.nn.CrossEntropyLoss()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
    gen = torch.Generator().manual_seed(seed)
    n = xtr.shape[0]
    times = []
    for epoch in range(epochs):
        t0 = time.perf_counter()
        # The loss is summed on the tensor side: no .item() synchronisation per step. (Gathering
        # each batch by index is faster than one shuffled copy of the data per epoch here.)
        perm = torch.randperm(n, generator=gen)
        total = torch.zeros((), dtype=xtr.dtype)
        for start in range(0, n, batch):
            idx = perm[start:start + batch]
            xb, yb = xtr[idx], ytr[idx]
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(net(xb), yb)
            loss.backward()
            opt.step()
            total += loss.detach() * len(xb)
        total = total.item()
        times.append(time.perf_counter() - t0)
        if verbose:
            print("batch %d  epoch %2d  %.3f s  loss %.4f  train %.2f %%  test %.2f %%" % (
                batch, epoch + 1, times[-1], total / n, 100 * accuracy(net, xtr, ytr), 100 * accuracy(net, xte, yte)),
                flush=True)
    return times


def run_pytorch(args, dtype, data, seed=1):
    xtr, ytr, xte, yte = data
    net = make_net(dtype, seed, args.init)
    times = train(net, xtr, ytr, xte, yte, args.batch, args.epochs, seed, True)
    med = statistics.median(times)
    test_acc, train_acc = accuracy(net, xte, yte), accuracy(net, xtr, ytr)
    b1 = -1.0
    b1_acc = 0.0
    if not args.skip_batch1:
        net1 = make_net(dtype, seed, args.init)
        t1 = train(net1, xtr, ytr, xte, yte, 1, args.batch1_epochs, seed, False)
        b1 = sum(t1) / len(t1)
        b1_acc = accuracy(net1, xte, yte)
        print("batch 1  %d epoch(s)  %.3f s/epoch  test %.2f %%" % (args.batch1_epochs, b1, 100 * b1_acc))
    print("RESULT pytorch init=%s threads=%d batch=%d epochs=%d median_s_per_epoch=%.4f mean_s_per_epoch=%.4f "
          "train_acc=%.2f test_acc=%.2f batch1_s_per_epoch=%.3f batch1_test_acc=%.2f" % (
              args.init, args.threads, args.batch, args.epochs, med, sum(times) / len(times), 100 * train_acc,
              100 * test_acc, b1, 100 * b1_acc), flush=True)
    return times, b1, test_acc


def run_cpp(args, precision=None, seed=1):
    cmd = [args.cpp, "--threads", str(args.threads), "--epochs", str(args.epochs), "--batch", str(args.batch),
           "--batch1-epochs", str(args.batch1_epochs), "--init", "uniform" if args.init == "uniform" else "glorot"]
    if precision:
        cmd += ["--precision", precision]
    if seed != 1:
        cmd += ["--first-seed", str(seed)]
    if args.skip_batch1:
        cmd.append("--skip-batch1")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    print(out, end="", flush=True)
    times = [float(t) for t in re.findall(r"^batch \d+  epoch +\d+  ([0-9.]+) s", out, re.M)]
    b1 = re.search(r"batch1_s_per_epoch=([-0-9.]+)", out)
    acc = re.search(r" test_acc=([0-9.]+)", out)
    return times, float(b1.group(1)) if b1 else -1.0, float(acc.group(1)) / 100 if acc else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--batch1-epochs", type=int, default=1)
    ap.add_argument("--skip-batch1", action="store_true")
    ap.add_argument("--float64", action="store_true", help="double precision, like the C++ plugin")
    ap.add_argument("--init", choices=["uniform", "glorot", "default"], default="uniform")
    ap.add_argument("--cpp", help="path of build/bin/gradient_fashion: run it in the same session")
    ap.add_argument("--rounds", type=int, default=1, help="with --cpp: alternating rounds of both")
    ap.add_argument("--cpp-precision", help="with --cpp: the gradient plugin's precision(s), comma separated "
                    "(double, float32); each runs in every round")
    ap.add_argument("--seed-per-round", action="store_true", help="round r trains with seed r (both sides)")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    dtype = torch.float64 if args.float64 else torch.float32
    data = load(dtype)
    print("torch %s, %d threads (OPENBLAS_NUM_THREADS=%s), %s, init %s" % (
        torch.__version__, torch.get_num_threads(), os.environ.get("OPENBLAS_NUM_THREADS"), dtype, args.init))
    if not args.cpp:
        run_pytorch(args, dtype, data)
        return 0

    # Epoch 1 of each run includes one-off work (PyTorch's lazy initialisation, the C++ run's
    # transposed data copy): the medians below cover every epoch of every round.
    precisions = args.cpp_precision.split(",") if args.cpp_precision else [None]
    cpp = {p: {"times": [], "b1": [], "acc": []} for p in precisions}
    py_times, py_b1, py_acc = [], [], []
    for r in range(args.rounds):
        seed = r + 1 if args.seed_per_round else 1
        for p in precisions:
            print("--- round %d of %d: C++%s, seed %d" % (r + 1, args.rounds, " " + p if p else "", seed), flush=True)
            t, b1, acc = run_cpp(args, p, seed)
            cpp[p]["times"] += t
            cpp[p]["b1"].append(b1)
            cpp[p]["acc"].append(acc)
        print("--- round %d of %d: PyTorch, seed %d" % (r + 1, args.rounds, seed), flush=True)
        t, b1, acc = run_pytorch(args, dtype, data, seed)
        py_times += t
        py_b1.append(b1)
        py_acc.append(acc)
    pm = statistics.median(py_times)
    pct = lambda v: " ".join("%.2f" % (100 * a) for a in v)
    for p in precisions:
        cm = statistics.median(cpp[p]["times"])
        print("SUMMARY batch=%d threads=%d init=%s rounds=%d%s: s/epoch median C++ %.4f, PyTorch %.4f, ratio "
              "C++/PyTorch %.2f; test accuracy by round C++ %s (mean %.2f %%), PyTorch %s (mean %.2f %%)" % (
                  args.batch, args.threads, args.init, args.rounds, " precision=" + p if p else "", cm, pm, cm / pm,
                  pct(cpp[p]["acc"]), 100 * statistics.mean(cpp[p]["acc"]), pct(py_acc),
                  100 * statistics.mean(py_acc)))
        if not args.skip_batch1:
            cb, pb = min(cpp[p]["b1"]), min(py_b1)
            print("SUMMARY batch=1%s: s/epoch best C++ %.3f, PyTorch %.3f, ratio C++/PyTorch %.3f" % (
                " precision=" + p if p else "", cb, pb, cb / pb))
    return 0


if __name__ == "__main__":
    sys.exit(main())
