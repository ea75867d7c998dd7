"""trainbench.run(): an experiment run in this process, and its Result."""

import json
import numbers
import os
import warnings
from collections.abc import Mapping

from . import _core
from ._frames import frame


# A result's experiment and run ids: <NA> when nothing was stored (db=None).
_IDS = ("experiment_id", "run_id")


class TrainbenchWarning(UserWarning):
    """Something about a run that does not stop it but should be seen: a key written twice in the
    spec, a former parameter spelling upgraded, a data set with one class, another process holding
    the store's lock, runs that failed, a set of a suite that could not start."""


class Result:
    """What :func:`run` produced. Available whether or not the runs were stored (``db=None``).

    Attributes:
        experiment_id: the stored experiment's id (-1 with ``db=None``; a suite's first set's).
        experiment_ids: every stored experiment (a suite stores one per set).
        name, kind: the experiment's name and kind ("learning-curve", "noise-sweep", ...).
        cancelled: True when it was stopped before every run finished.
        error: why it could not start (always empty: run() raises ExperimentError instead).
        store_error: the first failed write to the store, empty when none failed; the experiment
            was stopped there and this result is the only complete copy of what was trained.
        warnings: every note about the spec, the data and the store (also issued as
            :class:`TrainbenchWarning`).
        wall_seconds: the experiment's wall-clock time.
        runs_planned, runs_finished, runs_failed, runs_cancelled, runs_not_started: counts, in the
            kind's unit (runs; a noise sweep's cells).
        run_errors: the distinct messages of failed or diverged runs.
        varied_keys: the parameters that differ between configurations (a param sweep's grid).
        suite_sets, set_errors: a suite's set names, and the sets that could not start.
        runs: DataFrame, one row per run (per repeat of each configuration): label,
            configuration, algorithm_id, dataset, dataset_index, set (a suite's set name), repeat,
            seed, status, error, experiment_id, run_id (<NA> when not stored), clock ("wall" or
            "cpu": the clock of train_time), the final metrics (epochs, loss, train/validation/
            test accuracy and RMSE, train_seconds, train_cpu_seconds, as Store.runs() has them),
            peak_memory_bytes, and ``setting.<key>`` for the varied parameters.
        checkpoints: DataFrame, one row per checkpoint: label, algorithm_id, set, repeat, run_id,
            seq, epoch, train_time, loss, train/validation/test accuracy and RMSE.
        selection_runs, selection_checkpoints: the same for the runs that chose the compared
            configurations (a tuned comparison's trials); empty for other kinds.
        summary: DataFrame of the statistics a noise sweep keeps instead of curves: algorithm_id,
            algorithm_name, x (the axis named by ``summary_axis``, e.g. sigma), count,
            train/test RMSE mean and std.
    """

    def __init__(self, raw):
        self.experiment_id = raw["experiment_id"]
        self.experiment_ids = list(raw["experiment_ids"])
        self.name = raw["name"]
        self.kind = raw["kind"]
        self.cancelled = raw["cancelled"]
        self.error = raw["error"]
        self.store_error = raw["store_error"]
        self.warnings = list(raw["warnings"])
        self.wall_seconds = raw["wall_seconds"]
        self.runs_planned = raw["runs_planned"]
        self.runs_finished = raw["runs_finished"]
        self.runs_failed = raw["runs_failed"]
        self.runs_cancelled = raw["runs_cancelled"]
        self.runs_not_started = raw["runs_not_started"]
        self.run_errors = list(raw["run_errors"])
        self.varied_keys = list(raw["varied_keys"])
        self.suite_sets = list(raw["suite_sets"])
        self.set_errors = list(raw["set_errors"])
        self.summary_axis = raw["summary_axis"]
        self.runs = frame(raw["runs"], _IDS)
        self.checkpoints = frame(raw["checkpoints"], _IDS)
        self.selection_runs = frame(raw["selection_runs"], _IDS)
        self.selection_checkpoints = frame(raw["selection_checkpoints"], _IDS)
        self.summary = frame(raw["summary"])

    def __repr__(self):
        state = "cancelled" if self.cancelled else "done"
        stored = f"experiment {self.experiment_id}" if self.experiment_id >= 0 else "not stored"
        return (f"<trainbench.Result {self.name!r} ({self.kind}): {state}, {len(self.runs)} runs, "
                f"{len(self.checkpoints)} checkpoints, {stored}>")


def _json_default(value):
    # numpy scalars and arrays (and any other number type) as JSON numbers and lists.
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"spec: a value of type {type(value).__name__} cannot be written as JSON: {value!r}")


def _warn(message):
    # stacklevel 3: run()'s caller (the frames are this function, then run(); C++ adds none).
    warnings.warn(message, TrainbenchWarning, stacklevel=3)


def run(spec_or_path, db=None, progress=None, threads=None, *, resume=False):
    """Runs an experiment in this process, as ``trainbench-cli run`` does, and returns its
    :class:`Result`.

    Args:
        spec_or_path: the path of an experiment file (str or os.PathLike; relative data paths
            resolve against the file's folder), or a dict holding the same JSON as a file
            (relative data paths resolve against the current folder). See docs/experiments.md.
        db: the run store to log the runs to (a path; created if missing, opened for writing,
            shared safely with the workbench and other processes), or None: nothing is stored
            (the Result still holds every run and checkpoint).
        progress: None, or a callable ``progress(done, total)``, called on the calling thread
            with the units done (runs; a noise sweep's cells) of ``total`` whenever the count
            changed since the last call. It sees the latest count at each wake-up (at most every
            50 ms), so counts in between may be skipped; ``done`` only grows, and the last call is
            ``(total, total)`` when every unit finished. An exception it raises stops the run
            (cleanly, as Ctrl-C does) and is re-raised by run().
        threads: overrides the spec's "threads" (0 = all cores; at most 1024).
        resume: continue the newest run of this spec stored in ``db`` (same settings): only
            what did not finish is trained, into the same experiment (``run --resume``).

    The spec is checked like the CLI checks it: a file that is not valid JSON, a key with a wrong
    value, an unknown algorithm or a bad parameter raise ValueError with the spec's own
    message(s), one per line, each naming the key ("experiment dict: algorithms[1].params:
    parameter \\"lr\\": ..."). A store that cannot be opened raises StoreError; an experiment
    that cannot start (its data does not load) raises ExperimentError. A suite (a spec with
    "datasets" or "suite") runs set by set like the CLI's, each set an experiment of its own.

    Threads and Ctrl-C: training runs on C++ threads with the GIL released, so other Python
    threads (and trainers written in Python) keep running. The calling thread wakes at least
    every 50 ms to call ``progress`` and to check for signals. On Ctrl-C (KeyboardInterrupt,
    seen when run() is called from the main thread) it asks the experiment to stop, waits until
    it has stopped cleanly — which conforming plugins do within 200 ms; further Ctrl-C meanwhile
    are ignored — and then re-raises KeyboardInterrupt. What finished is stored; the runs it
    stopped are stored as cancelled, as the CLI does: none is left "running", and
    ``resume=True`` trains the rest.

    Warnings (a key written twice, a former parameter name, a data problem, a failed write,
    failed runs) are issued as :class:`TrainbenchWarning` and kept in ``Result.warnings``.
    """
    if isinstance(spec_or_path, (str, os.PathLike)):
        spec, is_path = os.fspath(spec_or_path), True
        if isinstance(spec, bytes):
            spec = os.fsdecode(spec)
    elif isinstance(spec_or_path, Mapping):
        spec, is_path = json.dumps(dict(spec_or_path), default=_json_default, allow_nan=False), False
    else:
        raise TypeError("spec_or_path: expected the path of an experiment file or a dict, got "
                        f"{type(spec_or_path).__name__}")
    if db is not None:
        db = os.fsdecode(os.fspath(db))
    if progress is not None and not callable(progress):
        raise TypeError(f"progress: expected a callable progress(done, total) or None, got {type(progress).__name__}")
    if threads is not None:
        if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
            raise TypeError(f"threads: expected an int (0 = all cores) or None, got {threads!r}")
        threads = int(threads)
    raw = _core.run(spec, is_path, db, progress, threads, bool(resume), _warn)
    result = Result(raw)
    for w in raw["result_warnings"]:
        _warn(w)
    for e in result.set_errors:
        _warn(f"{e} (the suite went on with the other sets)")
    if result.run_errors:
        _warn(f"{result.runs_failed} run(s) failed or diverged: " + "; ".join(result.run_errors))
    if result.store_error:
        _warn("the experiment was stopped because a write to the run store failed: " + result.store_error
              + " (this Result holds everything that was trained)")
    return result
