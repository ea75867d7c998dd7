"""PyTorch's Adam on the network gradient.adam trains, as a Trainbench trainer.

The same model, loss, initialisation and update rule as the C++ plugin's gradient.adam with its
defaults (docs/gradient.md): hidden layers of `hidden` units with a sigmoid (or tanh / relu)
activation, a softmax output trained with cross-entropy for classification (identity output and
squared loss ½‖ŷ − y‖² for regression), every weight and bias drawn from U[init_low, init_high]
("uniform", the BPLS paper's and the plugin's default) or Glorot-uniform with zero biases
("glorot"), Adam with PyTorch's rule (which the C++ plugin follows: core/training/Optimizer.h),
`ridge` r adding 2r·w to every gradient (PyTorch's weight_decay = 2r), minibatches of
`batch_size` in a fresh order every epoch. So a comparison of this trainer with gradient.adam on
one clock, data and split races PyTorch against the workbench's own kernels.

Put the folder on TRAINBENCH_PYTHON_PATH to use it:

    TRAINBENCH_PYTHON_PATH=plugins/python/examples build/bin/trainbench-cli run \
        resources/experiments/python-torch-vs-adam.json --db runs.sqlite

Reproducible for a seed and a thread count: torch.manual_seed(ctx.seed) draws the weights and
a generator seeded from it the minibatch order; PyTorch's CPU kernels are deterministic for a
given thread count (torch.use_deterministic_algorithms is set). Not bit-identical to gradient.adam:
the two draw their initial weights and orders from different generators.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # torch's own threads, not OpenBLAS's as well
# OpenMP's wait policy is left to the user (docs/python.md, "Speed"): its default spins a little
# before sleeping, the fastest on a quiet machine; OMP_WAIT_POLICY=PASSIVE, set before the process
# starts, is 2.7× slower there but keeps an epoch from slowing 20–40× when the cores are shared.

import numpy as np
import torch


class Trainer:
    name = "Adam (PyTorch)"
    description = "torch.optim.Adam on the network of gradient.adam, minibatches, PyTorch's CPU kernels"
    citation = "Kingma & Ba, Adam, ICLR 2015; PyTorch 1.13"
    tasks = ("classification", "regression")
    progress = "epochs"
    params = {
        "hidden": {"type": "int list", "default": [50], "min": 1, "max": 100000, "min_count": 0, "max_count": 16,
                   "help": "Widths of the hidden layers (none = a linear model)."},
        "activation": {"type": "choice", "choices": ["sigmoid", "tanh", "relu"], "default": "sigmoid",
                       "help": "Activation of every hidden layer."},
        "init": {"type": "choice", "choices": ["uniform", "glorot"], "default": "uniform",
                 "help": "uniform = U[init_low, init_high] for every weight and bias; glorot = Xavier uniform "
                         "weights, zero biases."},
        "init_low": {"type": "real", "default": -1.0, "min": -100.0, "max": 100.0, "help": "Low end of uniform."},
        "init_high": {"type": "real", "default": 1.0, "min": -100.0, "max": 100.0, "help": "High end of uniform."},
        "lr": {"type": "real", "default": 0.001, "min": 0.0, "max": 10.0, "exclusive_min": True, "log": True,
               "help": "Learning rate η."},
        "beta1": {"type": "real", "default": 0.9, "min": 0.0, "max": 0.9999, "help": "Decay of the first moment."},
        "beta2": {"type": "real", "default": 0.999, "min": 0.0, "max": 0.999999,
                  "help": "Decay of the second moment."},
        "epsilon": {"type": "real", "default": 1e-8, "min": 1e-16, "max": 1.0, "log": True,
                    "help": "Added to the root of the second-moment estimate."},
        "ridge": {"type": "real", "default": 0.0, "min": 0.0, "max": 1e6,
                  "help": "r of mean loss + r·‖w‖² (PyTorch's weight_decay = 2r), biases included."},
        "batch_size": {"type": "int", "default": 32, "min": 1, "max": 1000000000,
                       "help": "Samples per update; above the training rows means full batch."},
        "epochs": {"type": "int", "default": 10, "min": 1, "max": 10000000, "help": "Passes over the data."},
        "precision": {"type": "choice", "choices": ["double", "float32"], "default": "double",
                      "help": "Arithmetic of training (the model's outputs are returned in double)."},
    }

    @staticmethod
    def predict_cost(params, shape):
        """An upper bound of the run's peak working memory, which the host checks before fit().

        fit() copies X into row-major order (8·n·d bytes) and, in float32, once more (4·n·d);
        predict() does the same for the rows it gets (the host evaluates on the training set, so
        n rows again) and holds each layer's outputs for them; the labels are 8·n. Torch's runtime
        (its thread pools, oneDNN's buffers, the allocator's slack) and the weights: 256 MiB. On
        Fashion-MNIST in double that is 1029 MiB against a measured peak of 957 MiB.
        """
        n, d, k = shape.rows, shape.inputs, shape.outputs
        per_value = 12 if params["precision"] == "float32" else 8
        layers = sum(params["hidden"]) + k
        return {"memory_bytes": 2 * per_value * n * d + 2 * 8 * n * layers + 8 * n + 256 * 2**20}

    def __init__(self, params):
        self.p = params
        if params["init"] == "uniform" and params["init_low"] > params["init_high"]:
            raise ValueError('parameter "init_low" (%g) is above "init_high" (%g)'
                             % (params["init_low"], params["init_high"]))
        self.net = None
        self.dtype = torch.float32 if params["precision"] == "float32" else torch.float64

    def _network(self, d, k, classify):
        layers, width = [], d
        act = {"sigmoid": torch.nn.Sigmoid, "tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[self.p["activation"]]
        for h in self.p["hidden"]:
            layers += [torch.nn.Linear(width, h), act()]
            width = h
        layers.append(torch.nn.Linear(width, k))
        net = torch.nn.Sequential(*layers).to(self.dtype)
        with torch.no_grad():
            for layer in net:
                if isinstance(layer, torch.nn.Linear):
                    if self.p["init"] == "uniform":
                        layer.weight.uniform_(self.p["init_low"], self.p["init_high"])
                        layer.bias.uniform_(self.p["init_low"], self.p["init_high"])
                    else:
                        torch.nn.init.xavier_uniform_(layer.weight)
                        layer.bias.zero_()
        return net

    def fit(self, data, ctx):
        torch.set_num_threads(ctx.threads)
        torch.use_deterministic_algorithms(True)
        torch.manual_seed(ctx.seed)
        classify = data.task == "classification"
        x = torch.from_numpy(np.ascontiguousarray(data.x)).to(self.dtype)
        if classify:
            y = torch.from_numpy(np.asarray(data.labels, dtype=np.int64))
            loss_fn = torch.nn.CrossEntropyLoss()
        else:
            y = torch.from_numpy(np.ascontiguousarray(data.y)).to(self.dtype)
            mse = torch.nn.MSELoss(reduction="sum")

            def loss_fn(out, target):  # ½‖ŷ − y‖² averaged over the batch, the plugin's "squared"
                return 0.5 * mse(out, target) / out.shape[0]
        self.net = self._network(x.shape[1], data.y.shape[1], classify)
        opt = torch.optim.Adam(self.net.parameters(), lr=self.p["lr"], betas=(self.p["beta1"], self.p["beta2"]),
                               eps=self.p["epsilon"], weight_decay=2.0 * self.p["ridge"])
        order = torch.Generator().manual_seed(ctx.seed + 1)
        n, batch = x.shape[0], min(self.p["batch_size"], x.shape[0])
        for epoch in range(1, self.p["epochs"] + 1):
            perm = torch.randperm(n, generator=order)
            total = torch.zeros((), dtype=torch.float64)
            for start in range(0, n, batch):
                if ctx.stopped():
                    return
                idx = perm[start:start + batch]
                opt.zero_grad(set_to_none=True)
                loss = loss_fn(self.net(x[idx]), y[idx])
                loss.backward()
                opt.step()
                total += loss.detach().double() * len(idx)
            if not ctx.checkpoint(epoch, loss=total.item() / n):
                return

    def predict(self, X):
        with torch.no_grad():
            out = self.net(torch.from_numpy(np.ascontiguousarray(X)).to(self.dtype))
        return out.double().numpy()
