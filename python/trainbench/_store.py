"""trainbench.Store: a run store opened read-only, its tables as pandas DataFrames."""

import os

from . import _core
from ._frames import frame


class Store:
    """A Trainbench run store (the SQLite file the workbench and ``trainbench-cli`` log every run
    to), opened **read-only**.

    ``Store(path)`` opens the file with the C++ ``RunStore`` in read-only mode: nothing is created,
    migrated, recovered or written, so it may be read while the workbench or the CLI writes it
    (the file is in WAL mode: each read sees what had been committed when it began), and it works
    in a read-only folder. A run that is still "running" in the file but whose process has died
    reads as "interrupted".

    Raises :class:`trainbench.StoreError`, with the store's own message, when the file does not
    exist, is empty, is not SQLite, is another application's database or has a newer schema than
    this module reads; such a file is left exactly as it was (no file is created either).

    Every read returns a new DataFrame (a default RangeIndex; ids are columns) and raises
    StoreError when the file cannot be read (a damaged file, a lock held too long). Reads release
    the GIL while SQLite works, and a Store may be used from several threads. Use it as a context
    manager, or call :meth:`close`, to close the file early; reads after that raise StoreError.
    """

    def __init__(self, path):
        self._store = _core.Store(os.fspath(path))

    @property
    def path(self):
        """The absolute path of the file."""
        return self._store.path

    @property
    def schema_version(self):
        """The file's schema version (PRAGMA user_version)."""
        return self._store.schema_version

    @property
    def closed(self):
        """True once :meth:`close` was called."""
        return self._store.closed

    def close(self):
        """Closes the file (idempotent)."""
        self._store.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return f"trainbench.Store({self.path!r}{', closed' if self.closed else ''})"

    def experiments(self):
        """Every experiment, oldest first.

        Columns: id, name, kind ("learning-curve", "noise-sweep", "param-sweep",
        "tuned-comparison", ...), created (UTC datetime), app_version, git_hash, description, spec
        (the experiment file as it was run, a dict: threads and seed resolved, data paths absolute).
        """
        return frame(self._store.experiments())

    def runs(self, experiment=None, *, info=False):
        """The runs of experiment ``experiment`` (an id), or every run when None; oldest first.

        Columns: id, experiment_id (<NA>: a run of no experiment), algorithm_id, algorithm_name,
        plugin_id, plugin_version, dataset, seed (uint64), threads, repeat, sigma (a noise sweep's
        sigma, NaN otherwise), status ("running", "finished", "cancelled", "failed", "diverged",
        "interrupted"), error, started, ended (UTC datetimes; NaT while running), app_version,
        tags (tuple), note; the final metrics from the run's info["final"]: epochs, loss,
        train_accuracy, validation_accuracy, test_accuracy, train_rmse, validation_rmse, test_rmse,
        train_seconds, train_cpu_seconds (NaN where they do not apply) and any other number the
        run recorded there; peak_memory_bytes (NaN when not measured); then the normalised
        (complete) parameters, one column ``param.<key>`` each (lists such as hidden-layer sizes
        as tuples; None where a run's algorithm has no such parameter). With ``info=True`` also
        "info": every fact the run recorded, as a dict.

        Raises KeyError when ``experiment`` names no experiment.
        """
        return frame(self._store.runs(experiment, info), optional_ids=("experiment_id",))

    def checkpoints(self, run=None, *, experiment=None):
        """The checkpoints of runs: of ``run`` (an id or a list of ids), of experiment
        ``experiment``'s runs, or of every run when both are None (not both).

        Columns: run_id, seq, epoch, train_time (seconds on the run's clock, evaluation left out),
        loss, train_accuracy, validation_accuracy, test_accuracy, train_rmse, validation_rmse,
        test_rmse (NaN where a metric does not apply). Ordered by run (as given, else oldest first)
        then seq. Built column by column in C++: 10^5 checkpoints take a fraction of a second.
        Join with :meth:`runs` on ``run_id`` = ``id`` for the algorithm and parameters.

        Raises KeyError naming the ids that are not in the file, ValueError when both arguments
        are given.
        """
        return frame(self._store.checkpoints(run, experiment))

    def summary_points(self, experiment=None):
        """The statistics a noise sweep keeps instead of each run's curve, of experiment
        ``experiment`` or of every experiment: experiment_id, algorithm_id, algorithm_name, x (the
        sweep's axis value: the noise sigma), count (finished runs in the statistics),
        train_rmse_mean, train_rmse_std, test_rmse_mean, test_rmse_std.

        Raises KeyError when ``experiment`` names no experiment.
        """
        return frame(self._store.summary_points(experiment))
