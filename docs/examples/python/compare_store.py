#!/usr/bin/python3
"""Notebook-style: load a run store into pandas and draw a comparison with matplotlib.

    PYTHONPATH=build/python /usr/bin/python3 docs/examples/python/compare_store.py runs.sqlite [EXPERIMENT_ID] [out.png]

Reads the store read-only (safe while the workbench or trainbench-cli writes it), takes the
newest experiment (or the one given), and draws test accuracy (or test RMSE for regression)
against training time for each configuration: the median over its seeds as a line and the
range of the seeds as a band — the same picture as the workbench's Charts tab, from the same rows.
Then prints the final metric per configuration with its mean and a 95 % t interval over seeds.
Each cell below is what one would type into a notebook.
"""
import sys

import matplotlib

matplotlib.use("Agg")  # a file, no display needed
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import trainbench

# %% Open the store and pick an experiment.
path = sys.argv[1] if len(sys.argv) > 1 else "runs.sqlite"
store = trainbench.Store(path)
experiments = store.experiments()
print(experiments[["id", "name", "kind", "created"]].tail())
experiment = int(sys.argv[2]) if len(sys.argv) > 2 else int(experiments["id"].max())

# %% Its runs (parameters flattened into param.* columns) and their checkpoints.
runs = store.runs(experiment=experiment)
runs = runs[runs["status"] == "finished"]
# algorithm_name is the configuration's label in the experiment file (its legend entry).
points = store.checkpoints(experiment=experiment).merge(runs[["id", "algorithm_name", "seed"]], left_on="run_id",
                                                        right_on="id", suffixes=("", "_run"))
metric = "test_accuracy" if points["test_accuracy"].notna().any() else "test_rmse"

# %% One line per configuration: median over seeds at each checkpoint, the seeds' range as a band.
fig, ax = plt.subplots(figsize=(8, 5))
for label, group in points.groupby("algorithm_name", sort=False):
    by_seq = group.groupby("seq")
    t = by_seq["train_time"].median()
    y = by_seq[metric].median()
    ax.plot(t, y, label="%s (%d seeds)" % (label, group["run_id"].nunique()))
    ax.fill_between(t, by_seq[metric].min(), by_seq[metric].max(), alpha=0.2)
ax.set_xlabel("training time (s)")
ax.set_ylabel(metric.replace("_", " "))
ax.set_title(experiments.set_index("id").loc[experiment, "name"])
ax.grid(alpha=0.3)
ax.legend()
out = sys.argv[3] if len(sys.argv) > 3 else "comparison.png"
fig.savefig(out, dpi=120, bbox_inches="tight")
print("wrote", out)

# %% The final metric per configuration: mean and a 95 % t interval over seeds.
summary = runs.groupby("algorithm_name", sort=False)[metric].agg(["count", "mean", "std"])
from scipy import stats  # noqa: E402  (python3-scipy; only for the t quantile)

summary["half_width"] = summary.apply(lambda r: stats.t.ppf(0.975, r["count"] - 1) * r["std"] / np.sqrt(r["count"])
                                      if r["count"] > 1 else np.nan, axis=1)
pd.set_option("display.width", 120)
print(summary)
