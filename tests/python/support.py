"""Shared helpers of the trainbench module's tests: the tiny experiments and the build's paths.

The tests run with the environment tst_python_module sets (tests/python/CMakeLists.txt):
PYTHONPATH at the build tree's python/ folder, TRAINBENCH_PLUGIN_PATH at its plugins, TB_TEST_CLI
the build's trainbench-cli, TB_TEST_SOURCE_DIR the source tree.
"""

import copy
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import trainbench

CLI = os.environ.get("TB_TEST_CLI", "")
SOURCE_DIR = os.environ.get("TB_TEST_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))

# Two algorithms, two repeats (seeds) on a small generated set: 4 runs in a fraction of a second.
TINY = {
    "name": "python module: tiny",
    "kind": "learning-curve",
    "format": 2,
    "dataset": {"source": "moons", "samples": 200, "noise": 0.2, "test_fraction": 0.3, "seed": 1},
    "seed": 1,
    "threads": 1,
    "repeats": 2,
    "algorithms": [
        {"id": "linear.ridge", "label": "Ridge", "params": {}},
        {"id": "gradient.adam", "label": "Adam", "params": {"epochs": 5, "hidden": [4], "batch_size": 32}},
    ],
}


def tiny(**changes):
    """A copy of TINY with top-level keys replaced."""
    spec = copy.deepcopy(TINY)
    spec.update(changes)
    return spec


def long_running(epochs=1_000_000):
    """TINY on a larger set whose Adam runs would take hours (an epoch of tens of milliseconds, a
    checkpoint at each): something to stop. Ridge runs finish at once."""
    spec = tiny(name="python module: long")
    spec["dataset"] = dict(spec["dataset"], samples=40_000)
    spec["algorithms"][1]["params"].update(epochs=epochs, hidden=[32])
    return spec


class TempDirTest(unittest.TestCase):
    """A test case with a fresh temporary folder, self.tmp, removed afterwards."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tb-pytest-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.tmp, name)


def python(code, env=None, timeout=120):
    """Runs ``code`` in a fresh interpreter (the registry and the QCoreApplication are per
    process) with this process's environment updated by ``env``; returns the CompletedProcess."""
    e = dict(os.environ)
    for k, v in (env or {}).items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    return subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True, timeout=timeout)


def store_statuses(db):
    """The statuses of every run in store ``db``, read through trainbench.Store."""
    with trainbench.Store(db) as s:
        return list(s.runs()["status"])
