"""scikit-learn's SGDClassifier as a Trainbench trainer: a linear model trained by SGD.

One epoch is one partial_fit() over the training rows in a fresh order (drawn from the run's seed),
so the workbench draws its learning curve per epoch, stops it at a checkpoint like any other
trainer, and clocks only the training (the host pauses the clock while it evaluates predict()).
The model is scikit-learn's own: loss, penalty α and learning-rate schedule as in
sklearn.linear_model.SGDClassifier, which this file only drives.

    TRAINBENCH_PYTHON_PATH=plugins/python/examples build/bin/trainbench-cli list

Reproducible for a seed: the estimator's random_state and the epoch order come from ctx.seed.
"""
import numpy as np
from sklearn.linear_model import SGDClassifier


class Trainer:
    name = "SGDClassifier (scikit-learn)"
    description = "sklearn.linear_model.SGDClassifier, one partial_fit per epoch"
    citation = "Pedregosa et al., Scikit-learn, JMLR 2011"
    tasks = ("classification",)
    progress = "epochs"
    params = {
        "loss": {"type": "choice", "choices": ["hinge", "log_loss", "modified_huber", "squared_hinge"],
                 "default": "hinge", "help": "The loss SGDClassifier minimises."},
        "alpha": {"type": "real", "default": 1e-4, "min": 0.0, "exclusive_min": True, "max": 1e3, "log": True,
                  "help": "Multiplier of the L2 penalty (scikit-learn's alpha)."},
        "learning_rate": {"type": "choice", "choices": ["optimal", "constant", "invscaling", "adaptive"],
                          "default": "optimal", "help": "scikit-learn's learning-rate schedule."},
        "eta0": {"type": "real", "default": 0.01, "min": 0.0, "max": 10.0, "exclusive_min": True, "log": True,
                 "help": "Initial learning rate of the constant, invscaling and adaptive schedules."},
        "epochs": {"type": "int", "default": 10, "min": 1, "max": 1000000, "help": "Passes over the data."},
    }

    @staticmethod
    def predict_cost(params, shape):
        """An upper bound of the run's peak working memory, which the host checks before fit().

        Each epoch's shuffled copy of X (8·n·d bytes; scikit-learn may make one more in its own
        layout), the scores predict() returns (8·n·k, twice for two classes), the model
        (8·d·k) and 32 MiB for the estimator's own buffers.
        """
        n, d, k = shape.rows, shape.inputs, shape.outputs
        return {"memory_bytes": 2 * 8 * n * d + 2 * 8 * n * max(k, 2) + 8 * d * k + 32 * 2**20}

    def __init__(self, params):
        self.p = params
        self.model = None
        self.classes = None

    def fit(self, data, ctx):
        rng = np.random.default_rng(ctx.seed)
        self.classes = np.arange(data.y.shape[1])
        self.model = SGDClassifier(loss=self.p["loss"], alpha=self.p["alpha"], learning_rate=self.p["learning_rate"],
                                   eta0=self.p["eta0"], random_state=int(ctx.seed % 2**32))
        x, labels = data.x, np.asarray(data.labels)
        for epoch in range(1, self.p["epochs"] + 1):
            order = rng.permutation(x.shape[0])
            self.model.partial_fit(x[order], labels[order], classes=self.classes)
            if not ctx.checkpoint(epoch):
                return

    def predict(self, X):
        scores = self.model.decision_function(X)
        if scores.ndim == 1:  # two classes: one margin, for class 1
            scores = np.column_stack([-scores, scores])
        return scores
