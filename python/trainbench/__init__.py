"""Trainbench from Python: the run store as pandas frames, experiments run in-process, the plugins.

Three parts, all backed by the same C++ core as the workbench and ``trainbench-cli``:

``Store(path)``
    A run store (the SQLite file every run is logged to) opened **read-only**: ``experiments()``,
    ``runs()``, ``checkpoints()`` and ``summary_points()`` return pandas DataFrames. Safe while the
    workbench or the CLI writes the same file (WAL). A file that does not exist, is not a
    Trainbench store or has a newer schema raises :class:`StoreError` and is never created or
    modified.

``run(spec_or_path, db=None, progress=None, threads=None)``
    Runs an experiment file (or the same JSON as a dict) in this process, like
    ``trainbench-cli run``, and returns a :class:`Result` with its runs and checkpoints as
    DataFrames. Training happens on C++ threads with the GIL released; Ctrl-C stops it cleanly
    and re-raises :class:`KeyboardInterrupt`.

``algorithms()``, ``plugins()``
    The algorithms of the loaded plugins with their parameter schemas, and every plugin file found
    with its state and error, so a broken plugin is visible.

Plugins are searched, in this order, in the folders of ``TRAINBENCH_PLUGIN_PATH`` (colon-separated,
read when the registry is first used), the plugins of the build or installation this module belongs
to (build tree: ``build/bin/plugins``; installed: ``<prefix>/lib/.../trainbench/plugins``), then
the default places of the C++ registry (see ``search_paths()``). The process has one registry,
scanned once, on first use.

Qt: the core needs a ``QCoreApplication``. The module creates one on first use when the process
has none (a Qt program that embeds Python keeps its own). Make that first call from the main
thread (importing and using the module from the main thread does): Qt takes the thread that
creates it as its main thread. It installs no signal handler, so Ctrl-C stays Python's.

Example::

    import trainbench
    r = trainbench.run("resources/experiments/teaching-moons.json", db="runs.sqlite")
    print(r.runs[["label", "repeat", "status", "test_accuracy"]])
    with trainbench.Store("runs.sqlite") as s:
        cps = s.checkpoints(experiment=r.experiment_id)
"""

from . import _core
from ._core import Error, ExperimentError, StoreError
from ._plugins import algorithms, algorithms_frame, plugin_folders, plugin_notices, plugins, search_paths
from ._run import Result, TrainbenchWarning, run
from ._store import Store

__version__ = _core.__version__

for _cls in (Error, StoreError, ExperimentError):
    _cls.__module__ = __name__
del _cls

Error.__doc__ = "Base class of the errors the trainbench module raises itself."
StoreError.__doc__ = (
    "A run store could not be opened or read; the message is the store's own (it names the file and the cause)."
)
ExperimentError.__doc__ = (
    "An experiment could not start (its data did not load, nothing to resume, ...); the message says why."
)


def git_hash():
    """The commit the module was built from ("unknown" outside a git checkout)."""
    return _core.git_hash()


def schema_version():
    """The newest run-store schema version this module reads (newer files raise StoreError)."""
    return _core.schema_version()


__all__ = [
    "Error",
    "ExperimentError",
    "Result",
    "Store",
    "StoreError",
    "TrainbenchWarning",
    "algorithms",
    "algorithms_frame",
    "git_hash",
    "plugin_folders",
    "plugin_notices",
    "plugins",
    "run",
    "schema_version",
    "search_paths",
]
