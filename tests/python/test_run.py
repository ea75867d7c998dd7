"""trainbench.run(): experiments in-process, their Result, bad specs, progress, stopping."""

import _thread
import json
import os
import signal
import threading
import unittest
import warnings

import numpy as np

import trainbench
from support import SOURCE_DIR, TempDirTest, long_running, store_statuses, tiny


class RunWithoutStore(unittest.TestCase):
    """db=None: nothing stored, everything in the Result."""

    @classmethod
    def setUpClass(cls):
        cls.result = trainbench.run(tiny())

    def test_result(self):
        r = self.result
        self.assertEqual(r.experiment_id, -1)
        self.assertEqual(r.experiment_ids, [])
        self.assertEqual(r.kind, "learning-curve")
        self.assertFalse(r.cancelled)
        self.assertEqual(r.error, "")
        self.assertEqual(r.store_error, "")
        self.assertEqual((r.runs_planned, r.runs_finished, r.runs_failed), (4, 4, 0))
        self.assertGreaterEqual(r.wall_seconds, 0)
        self.assertIn("4 runs", repr(r))

    def test_runs_frame(self):
        runs = self.result.runs
        self.assertEqual(len(runs), 4)
        self.assertEqual(list(runs["label"]), ["Ridge", "Ridge", "Adam", "Adam"])
        self.assertEqual(list(runs["algorithm_id"]), ["linear.ridge"] * 2 + ["gradient.adam"] * 2)
        self.assertEqual(list(runs["repeat"]), [0, 1, 0, 1])
        self.assertEqual(list(runs["status"]), ["finished"] * 4)
        self.assertTrue(runs["run_id"].isna().all())  # nothing stored
        self.assertEqual(runs["seed"].dtype, np.uint64)
        self.assertEqual(runs["seed"].iloc[0], runs["seed"].iloc[2])  # repeat r has the same seed for every algorithm
        self.assertNotEqual(runs["seed"].iloc[0], runs["seed"].iloc[1])
        self.assertTrue(runs["test_accuracy"].between(0, 1).all())
        self.assertEqual(list(runs[runs["label"] == "Adam"]["epochs"]), [5.0, 5.0])

    def test_checkpoints_frame(self):
        cp = self.result.checkpoints
        for column in ("label", "algorithm_id", "repeat", "seq", "epoch", "train_time", "loss", "train_accuracy",
                       "test_accuracy", "validation_accuracy", "train_rmse", "test_rmse", "validation_rmse"):
            self.assertIn(column, cp.columns)
        adam = cp[cp["label"] == "Adam"]
        self.assertEqual(adam.groupby("repeat").size().to_dict(), {0: 5, 1: 5})  # a checkpoint per epoch
        self.assertEqual(list(adam[adam["repeat"] == 0]["seq"]), [0, 1, 2, 3, 4])
        self.assertTrue((cp["train_time"] >= 0).all())
        # The last checkpoint of each run is its final metrics.
        last = adam[adam["repeat"] == 1].iloc[-1]
        final = self.result.runs[(self.result.runs["label"] == "Adam") & (self.result.runs["repeat"] == 1)].iloc[0]
        self.assertEqual(last["test_accuracy"], final["test_accuracy"])

    def test_same_seed_same_numbers(self):
        again = trainbench.run(tiny())
        np.testing.assert_array_equal(again.checkpoints["test_accuracy"].to_numpy(),
                                      self.result.checkpoints["test_accuracy"].to_numpy())


class RunSpecs(TempDirTest):
    """Files and dicts, and what is wrong with them."""

    def write(self, name, spec):
        p = self.path(name)
        with open(p, "w") as f:
            f.write(spec if isinstance(spec, str) else json.dumps(spec))
        return p

    def test_file_and_dict_give_the_same_runs(self):
        from_file = trainbench.run(self.write("tiny.json", tiny()))
        from_dict = trainbench.run(tiny())
        np.testing.assert_array_equal(from_file.runs["test_accuracy"].to_numpy(),
                                      from_dict.runs["test_accuracy"].to_numpy())

    def test_path_like(self):
        import pathlib
        r = trainbench.run(pathlib.Path(self.write("tiny.json", tiny())), db=pathlib.Path(self.path("p.sqlite")))
        self.assertGreater(r.experiment_id, 0)

    def test_example_file_of_the_tree(self):
        # An experiment file of resources/experiments, its Adam shortened: the file format as shipped.
        with open(os.path.join(SOURCE_DIR, "resources", "experiments", "teaching-moons.json")) as f:
            spec = json.load(f)
        spec["repeats"] = 1
        spec["algorithms"] = [a for a in spec["algorithms"] if a["id"] == "gradient.adam"]
        spec["algorithms"][0]["params"]["epochs"] = 3
        r = trainbench.run(spec)
        self.assertEqual(list(r.runs["status"]), ["finished"])

    def test_bad_value_names_the_key(self):
        with self.assertRaisesRegex(ValueError, "repeats"):
            trainbench.run(tiny(repeats="two"))

    def test_unknown_parameter_names_it(self):
        spec = tiny()
        spec["algorithms"][1]["params"]["bogus_rate"] = 1
        with self.assertRaisesRegex(ValueError, r"algorithms\[1\]\.params.*bogus_rate"):
            trainbench.run(spec)

    def test_every_problem_is_reported(self):
        spec = tiny()
        spec["algorithms"][0]["params"]["nope"] = 1
        spec["algorithms"][1]["params"]["nada"] = 1
        with self.assertRaises(ValueError) as caught:
            trainbench.run(spec)
        self.assertIn("nope", str(caught.exception))
        self.assertIn("nada", str(caught.exception))

    def test_unknown_algorithm(self):
        spec = tiny()
        spec["algorithms"][0]["id"] = "nosuch.algorithm"
        with self.assertRaisesRegex(ValueError, "nosuch.algorithm"):
            trainbench.run(spec)

    def test_bad_json_file_names_the_file(self):
        p = self.write("broken.json", '{"name": "x", ')
        with self.assertRaisesRegex(ValueError, "broken.json:1:"):
            trainbench.run(p)

    def test_missing_file(self):
        with self.assertRaisesRegex(ValueError, "missing.json: cannot open"):
            trainbench.run(self.path("missing.json"))

    def test_data_that_does_not_load_raises_experiment_error(self):
        spec = tiny(dataset={"source": "csv", "file": self.path("no-such.csv"), "target": "y",
                             "task": "classification", "test_fraction": 0.3})
        db = self.path("runs.sqlite")
        with self.assertRaisesRegex(trainbench.ExperimentError, "no-such.csv"):
            trainbench.run(spec, db=db)
        with trainbench.Store(db) as s:
            self.assertEqual(len(s.experiments()), 0)  # no experiment row is left behind

    def test_wrong_argument_types(self):
        with self.assertRaises(TypeError):
            trainbench.run(42)
        with self.assertRaises(TypeError):
            trainbench.run(tiny(), progress="not callable")
        with self.assertRaises(TypeError):
            trainbench.run(tiny(), threads=True)
        with self.assertRaisesRegex(ValueError, "threads"):
            trainbench.run(tiny(), threads=5000)

    def test_threads_override(self):
        r = trainbench.run(tiny(), threads=2, db=self.path("t.sqlite"))
        with trainbench.Store(self.path("t.sqlite")) as s:
            self.assertEqual(set(s.runs()["threads"]), {2})
            self.assertEqual(s.experiments()["spec"].iloc[0]["threads"], 2)
        self.assertEqual(len(r.runs), 4)

    def test_numpy_values_in_a_dict(self):
        spec = tiny(repeats=np.int64(1))
        spec["algorithms"][1]["params"]["lr"] = np.float64(0.01)
        r = trainbench.run(spec)
        self.assertEqual(len(r.runs), 2)

    def test_unwritable_store_raises_store_error(self):
        garbage = self.path("garbage.sqlite")
        with open(garbage, "wb") as f:
            f.write(b"not a database at all")
        with self.assertRaisesRegex(trainbench.StoreError, "garbage.sqlite"):
            trainbench.run(tiny(), db=garbage)
        with open(garbage, "rb") as f:
            self.assertEqual(f.read(), b"not a database at all")

    def test_former_parameter_name_warns(self):
        spec = tiny()
        spec["algorithms"][1]["params"]["hidden_activation"] = "tanh"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = trainbench.run(spec)
        messages = [str(w.message) for w in caught if issubclass(w.category, trainbench.TrainbenchWarning)]
        self.assertTrue(any("hidden_activation" in m for m in messages), messages)
        self.assertTrue(any("hidden_activation" in m for m in r.warnings))
        self.assertTrue(all(w.filename == __file__ for w in caught if issubclass(w.category, trainbench.TrainbenchWarning)))

    def test_resume(self):
        db = self.path("resume.sqlite")
        first = trainbench.run(tiny(), db=db)
        again = trainbench.run(tiny(), db=db, resume=True)
        self.assertEqual(again.experiment_id, first.experiment_id)
        self.assertEqual(list(again.runs["status"]), ["finished"] * 4)
        self.assertEqual(len(trainbench.Store(db).runs()), 4)  # nothing trained twice
        with self.assertRaisesRegex(ValueError, "db"):
            trainbench.run(tiny(), resume=True)
        with self.assertRaisesRegex(trainbench.ExperimentError, "resume"):
            trainbench.run(tiny(name="never stored"), db=db, resume=True)

    def test_suite(self):
        spec = tiny(name="python module: suite")
        del spec["dataset"]
        spec["datasets"] = [
            {"name": "moons", "dataset": {"source": "moons", "samples": 120, "seed": 1}},
            {"name": "circles", "dataset": {"source": "circles", "samples": 120, "seed": 1}},
        ]
        spec["repeats"] = 1
        db = self.path("suite.sqlite")
        r = trainbench.run(spec, db=db)
        self.assertEqual(r.suite_sets, ["moons", "circles"])
        self.assertEqual(len(r.experiment_ids), 2)
        self.assertEqual(sorted(set(r.runs["set"])), ["circles", "moons"])
        self.assertEqual(len(r.runs), 4)
        self.assertEqual(len(trainbench.Store(db).experiments()), 2)


class Progress(TempDirTest):
    """progress(done, total) on the calling thread; its exceptions stop the run."""

    def test_progress_increases_to_total(self):
        calls = []
        caller = threading.get_ident()

        def progress(done, total):
            self.assertEqual(threading.get_ident(), caller)
            calls.append((done, total))

        spec = tiny(repeats=3)
        spec["algorithms"][1]["params"]["epochs"] = 300
        trainbench.run(spec, progress=progress)
        self.assertTrue(calls)
        self.assertEqual(calls[-1], (6, 6))
        self.assertTrue(all(total == 6 for _, total in calls))
        done = [d for d, _ in calls]
        self.assertEqual(done, sorted(set(done)), "done must increase from call to call")

    def test_exception_in_progress_stops_the_run(self):
        db = self.path("stopped.sqlite")

        class Enough(Exception):
            pass

        def progress(done, total):
            raise Enough(f"enough at {done} of {total}")

        with self.assertRaisesRegex(Enough, "enough at"):
            trainbench.run(long_running(), db=db, progress=progress)
        statuses = store_statuses(db)
        self.assertEqual(len(statuses), 4)
        self.assertNotIn("running", statuses)
        self.assertIn("cancelled", statuses)


class Interrupt(TempDirTest):
    """Ctrl-C: the run stops cleanly, the store keeps what finished, KeyboardInterrupt is re-raised."""

    def check_store(self, db):
        statuses = store_statuses(db)
        self.assertEqual(len(statuses), 4)  # every run recorded, the ones not started as cancelled
        self.assertNotIn("running", statuses)
        self.assertIn("cancelled", statuses)
        self.assertTrue(set(statuses) <= {"finished", "cancelled"}, statuses)

    def test_sigint_raised_in_progress(self):
        db = self.path("sigint.sqlite")
        calls = []

        def progress(done, total):
            calls.append(done)
            if len(calls) == 1:
                signal.raise_signal(signal.SIGINT)

        with self.assertRaises(KeyboardInterrupt):
            trainbench.run(long_running(), db=db, progress=progress)
        self.check_store(db)
        self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)  # still Python's

    def test_interrupt_while_training(self):
        # The interrupt arrives while run() waits with the GIL released (not inside the callback):
        # run() sees it through PyErr_CheckSignals().
        db = self.path("interrupt.sqlite")
        timers = []

        def progress(done, total):
            if not timers:
                timers.append(threading.Timer(0.2, _thread.interrupt_main))
                timers[0].start()

        with self.assertRaises(KeyboardInterrupt):
            trainbench.run(long_running(), db=db, progress=progress)
        self.check_store(db)
        # The store is closed and consistent: a new run into it works.
        r = trainbench.run(tiny(), db=db)
        self.assertEqual(list(r.runs["status"]), ["finished"] * 4)

    def test_interrupt_without_store(self):
        def progress(done, total):
            signal.raise_signal(signal.SIGINT)

        with self.assertRaises(KeyboardInterrupt):
            trainbench.run(long_running(), progress=progress)


class OtherThreads(TempDirTest):
    """run() releases the GIL: other Python threads run while it trains."""

    def test_python_runs_while_training(self):
        # A ticker thread counts 50 ticks after the first progress call, then interrupts the run.
        # Were the GIL held while training, it could not tick, and the (hours-long) run would not end.
        db = self.path("gil.sqlite")
        started = threading.Event()
        ticks = []

        def ticker():
            started.wait()
            while len(ticks) < 50:
                ticks.append(1)
                threading.Event().wait(0.002)
            _thread.interrupt_main()

        def progress(done, total):
            started.set()

        t = threading.Thread(target=ticker)
        t.start()
        try:
            with self.assertRaises(KeyboardInterrupt):
                trainbench.run(long_running(), db=db, progress=progress)
        finally:
            started.set()
            t.join()
        self.assertEqual(len(ticks), 50)
        self.assertNotIn("running", store_statuses(db))

    def test_run_on_a_worker_thread_while_the_main_thread_reads(self):
        db = self.path("threads.sqlite")
        trainbench.run(tiny(), db=db)
        out = {}

        def work():
            try:
                out["result"] = trainbench.run(tiny(), db=db)
            except BaseException as e:  # reported below
                out["error"] = e

        t = threading.Thread(target=work)
        t.start()
        while t.is_alive():
            with trainbench.Store(db) as s:
                self.assertGreaterEqual(len(s.runs()), 4)
            t.join(0.01)
        self.assertNotIn("error", out)
        self.assertEqual(len(trainbench.Store(db).runs()), 8)


if __name__ == "__main__":
    unittest.main()
