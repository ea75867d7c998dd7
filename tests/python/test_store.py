"""trainbench.Store: the run store read-only, as DataFrames."""

import os
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
import unittest
import json

import numpy as np
import pandas as pd

import trainbench
from support import CLI, TempDirTest, long_running, tiny


class StoreOfOneExperiment(unittest.TestCase):
    """The tiny experiment run into a fresh store once; its frames read back."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tb-pytest-store-")
        cls.db = os.path.join(cls.tmp, "runs.sqlite")
        cls.result = trainbench.run(tiny(), db=cls.db)
        cls.store = trainbench.Store(cls.db)

    @classmethod
    def tearDownClass(cls):
        cls.store.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_experiments_has_the_one_experiment(self):
        e = self.store.experiments()
        self.assertEqual(len(e), 1)
        row = e.iloc[0]
        self.assertEqual(row["id"], self.result.experiment_id)
        self.assertEqual(row["name"], "python module: tiny")
        self.assertEqual(row["kind"], "learning-curve")
        self.assertEqual(row["app_version"], trainbench.__version__)
        self.assertTrue(row["git_hash"])
        self.assertTrue(pd.api.types.is_datetime64_any_dtype(e["created"]))
        self.assertEqual(str(e["created"].dt.tz), "UTC")
        self.assertEqual(row["spec"]["repeats"], 2)
        self.assertEqual([a["id"] for a in row["spec"]["algorithms"]], ["linear.ridge", "gradient.adam"])

    def test_runs_have_params_and_final_metrics(self):
        runs = self.store.runs()
        self.assertEqual(len(runs), 4)
        self.assertEqual(list(runs["status"]), ["finished"] * 4)
        self.assertEqual(sorted(runs["algorithm_id"]), ["gradient.adam"] * 2 + ["linear.ridge"] * 2)
        self.assertEqual(set(runs["experiment_id"]), {self.result.experiment_id})
        self.assertEqual(runs["seed"].dtype, np.uint64)
        self.assertEqual(sorted(runs["repeat"]), [0, 0, 1, 1])
        for column in ("started", "ended"):
            self.assertTrue(pd.api.types.is_datetime64_any_dtype(runs[column]))
            self.assertFalse(runs[column].isna().any())
        self.assertTrue((runs["ended"] >= runs["started"]).all())
        for column in ("plugin_id", "plugin_version", "dataset", "threads", "error", "tags", "note"):
            self.assertIn(column, runs.columns)
        params = [c for c in runs.columns if c.startswith("param.")]
        self.assertIn("param.epochs", params)
        self.assertIn("param.hidden", params)
        adam = runs[runs["algorithm_id"] == "gradient.adam"]
        self.assertEqual(list(adam["param.epochs"]), [5, 5])
        self.assertEqual(list(adam["param.hidden"]), [(4,), (4,)])  # lists as tuples
        self.assertEqual(list(adam["param.batch_size"]), [32, 32])
        # A parameter only Adam has is missing (<NA>) for ridge, not 0.
        ridge = runs[runs["algorithm_id"] == "linear.ridge"]
        self.assertTrue(ridge["param.epochs"].isna().all())
        self.assertTrue(runs["test_accuracy"].between(0, 1).all())

    def test_final_metrics_equal_the_result(self):
        stored = self.store.runs().set_index("id")
        result = self.result.runs.set_index("run_id")
        self.assertEqual(sorted(stored.index), sorted(int(i) for i in result.index))
        for metric in ("epochs", "loss", "train_accuracy", "test_accuracy", "train_rmse", "test_rmse",
                       "validation_accuracy", "train_seconds"):
            for run_id in stored.index:
                a, b = stored.loc[run_id, metric], result.loc[run_id, metric]
                self.assertTrue((np.isnan(a) and np.isnan(b)) or a == b, f"run {run_id} {metric}: {a} != {b}")
        for run_id in stored.index:
            self.assertEqual(stored.loc[run_id, "seed"], result.loc[run_id, "seed"])
            self.assertEqual(stored.loc[run_id, "repeat"], result.loc[run_id, "repeat"])
            self.assertEqual(stored.loc[run_id, "algorithm_id"], result.loc[run_id, "algorithm_id"])

    def test_checkpoint_counts_match_the_result(self):
        stored = self.store.checkpoints(experiment=self.result.experiment_id)
        self.assertEqual(list(stored.columns),
                         ["run_id", "seq", "epoch", "train_time", "loss", "train_accuracy", "validation_accuracy",
                          "test_accuracy", "train_rmse", "validation_rmse", "test_rmse"])
        self.assertEqual(len(stored), len(self.result.checkpoints))
        counts = stored.groupby("run_id").size().to_dict()
        expected = {int(k): v for k, v in self.result.checkpoints.groupby("run_id").size().to_dict().items()}
        self.assertEqual(counts, expected)
        self.assertEqual(len(self.store.checkpoints()), len(stored))  # every run: the same here
        one = int(stored["run_id"].iloc[-1])
        self.assertEqual(len(self.store.checkpoints(one)), counts[one])
        self.assertEqual(list(self.store.checkpoints([one]).columns), list(stored.columns))
        np.testing.assert_array_equal(
            self.store.checkpoints(one)["test_accuracy"].to_numpy(),
            self.result.checkpoints[self.result.checkpoints["run_id"] == one]["test_accuracy"].to_numpy())

    def test_unknown_ids_raise_key_error(self):
        with self.assertRaisesRegex(KeyError, "no run 999"):
            self.store.checkpoints(999)
        with self.assertRaisesRegex(KeyError, "no run 998, 999"):
            self.store.checkpoints([1, 998, 999])
        with self.assertRaisesRegex(KeyError, "no experiment 77"):
            self.store.runs(77)
        with self.assertRaisesRegex(KeyError, "no experiment 77"):
            self.store.checkpoints(experiment=77)
        with self.assertRaises(ValueError):
            self.store.checkpoints(1, experiment=self.result.experiment_id)
        with self.assertRaises(TypeError):
            self.store.checkpoints("1")

    def test_runs_with_info(self):
        runs = self.store.runs(self.result.experiment_id, info=True)
        self.assertEqual(len(runs), 4)
        self.assertIn("final", runs["info"].iloc[0])

    def test_learning_curves_have_no_summary_points(self):
        s = self.store.summary_points()
        self.assertEqual(len(s), 0)
        self.assertIn("test_rmse_mean", s.columns)


class ManyCheckpoints(TempDirTest):
    """10^5 checkpoints come back in one frame of typed columns."""

    def test_hundred_thousand_checkpoints(self):
        db = self.path("big.sqlite")
        trainbench.run(tiny(), db=db)
        run_id = int(trainbench.Store(db).runs()["id"].iloc[-1])
        with sqlite3.connect(db) as con:
            con.executemany(
                "INSERT INTO metrics (run_id, seq, epoch, train_time_s, loss, train_acc, test_acc) VALUES (?,?,?,?,?,?,?)",
                [(run_id, 1000 + i, i / 10, i / 100, 1 / (i + 1), 0.5, 0.75) for i in range(100_000)])
        with trainbench.Store(db) as s:
            started = time.perf_counter()
            c = s.checkpoints(run_id)
            took = time.perf_counter() - started
        print(f"\n  {len(c)} checkpoints read in {took:.3f} s", end=" ", flush=True)
        self.assertGreater(len(c), 100_000)
        self.assertEqual(c["test_accuracy"].dtype, np.float64)
        self.assertEqual(c["seq"].dtype, np.int64)
        self.assertTrue(c["validation_rmse"].isna().all())  # NULL reads back as NaN
        self.assertEqual(c["seq"].iloc[-1], 1000 + 99_999)


class RefusedFiles(TempDirTest):
    """A file that is not a store raises StoreError and is neither created nor modified."""

    @staticmethod
    def read(path):
        if not os.path.exists(path):
            return None
        with open(path, "rb") as f:
            return f.read()

    def assertRefused(self, path, pattern):
        before = self.read(path)
        with self.assertRaisesRegex(trainbench.StoreError, pattern):
            trainbench.Store(path)
        after = self.read(path)
        self.assertEqual(before, after, f"{path} was modified or created")
        for side in ("-wal", "-shm", "-journal"):
            self.assertFalse(os.path.exists(path + side), f"{path}{side} was created")

    def test_missing_file(self):
        self.assertRefused(self.path("nothing.sqlite"), "does not exist")
        self.assertRefused(self.path("no/such/folder/runs.sqlite"), "does not exist")
        self.assertFalse(os.path.exists(self.path("no")))

    def test_garbage_file(self):
        p = self.path("garbage.sqlite")
        with open(p, "wb") as f:
            f.write(b"this is no database\x00\x01\x02" * 50)
        self.assertRefused(p, "not an SQLite database")

    def test_empty_file(self):
        p = self.path("empty.sqlite")
        open(p, "wb").close()
        self.assertRefused(p, "empty")

    def test_folder(self):
        with self.assertRaisesRegex(trainbench.StoreError, "folder"):
            trainbench.Store(self.tmp)

    def test_other_applications_database(self):
        p = self.path("other.sqlite")
        with sqlite3.connect(p) as con:
            con.execute("CREATE TABLE t (x)")
            con.execute("INSERT INTO t VALUES (1)")
        con.close()
        self.assertRefused(p, "other.sqlite")

    def test_newer_schema(self):
        p = self.path("newer.sqlite")
        trainbench.run(tiny(), db=p)
        with sqlite3.connect(p) as con:
            con.execute("PRAGMA user_version = 999")
        con.close()
        self.assertRefused(p, "999")

    def test_store_error_is_a_trainbench_error(self):
        self.assertTrue(issubclass(trainbench.StoreError, trainbench.Error))
        self.assertTrue(issubclass(trainbench.ExperimentError, trainbench.Error))

    def test_closed_store(self):
        p = self.path("runs.sqlite")
        trainbench.run(tiny(), db=p)
        s = trainbench.Store(p)
        s.close()
        s.close()
        self.assertTrue(s.closed)
        with self.assertRaisesRegex(trainbench.StoreError, "closed"):
            s.runs()


@unittest.skipUnless(CLI and os.path.exists(CLI), "TB_TEST_CLI names no trainbench-cli")
class ReadWhileAnotherProcessWrites(TempDirTest):
    """Store reads a file that trainbench-cli is writing (WAL): reads work and see the runs grow."""

    def test_read_while_the_cli_writes(self):
        spec = self.path("long.json")
        with open(spec, "w") as f:
            json.dump(long_running(), f)
        db = self.path("shared.sqlite")
        cli = subprocess.Popen([CLI, "run", spec, "--db", db, "--quiet"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: cli.poll() is None and cli.kill())
        reads_while_running = 0
        saw_running = False
        deadline = time.monotonic() + 120
        # Until the CLI has trained into the file for a while: it runs ridge (done at once), then Adam (hours).
        while cli.poll() is None and reads_while_running < 20 and time.monotonic() < deadline:
            try:
                with trainbench.Store(db) as s:
                    runs = s.runs()
                    s.checkpoints()
                    s.experiments()
            except trainbench.StoreError:
                time.sleep(0.05)  # not created yet, or not yet a store
                continue
            if (runs["status"] == "running").any():
                saw_running = True
                reads_while_running += 1
            time.sleep(0.05)
        if cli.poll() is not None:  # (the message reads stderr only then: read() waits for the CLI's end)
            self.fail("trainbench-cli ended early: " + (cli.stderr.read() if cli.stderr else ""))
        self.assertTrue(saw_running)
        cli.send_signal(signal.SIGINT)  # the CLI stops cleanly (exit code 5)
        _, err = cli.communicate(timeout=120)
        self.assertEqual(cli.returncode, 5, err)
        with trainbench.Store(db) as s:
            runs = s.runs()
            self.assertEqual(len(runs), 4)
            self.assertNotIn("running", set(runs["status"]))
            self.assertEqual(list(runs[runs["algorithm_id"] == "linear.ridge"]["status"]), ["finished"] * 2)


if __name__ == "__main__":
    unittest.main()
