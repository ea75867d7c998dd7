"""run() with trainers written in Python (plugins/python): they train on the runner's threads in
this interpreter, taking the GIL there, while run() waits with it released. In a fresh process:
the plugin reads TRAINBENCH_PYTHON_PATH when the registry scans, once per process."""

import json
import os
import unittest

import trainbench
from support import TempDirTest, python, tiny

TRAINER = '''
import time
import numpy as np


class Trainer:
    name = "Nearest mean (test)"
    description = "nearest class mean, a short sleep per epoch"
    tasks = ("classification",)
    progress = "epochs"
    params = {"epochs": {"type": "int", "default": 10, "min": 1, "max": 100000000, "help": "Epochs."}}

    def __init__(self, params):
        self.p = params
        self.means = None

    def fit(self, data, ctx):
        x, y = np.asarray(data.x), np.asarray(data.y)
        for epoch in range(1, self.p["epochs"] + 1):
            self.means = (y.T @ x) / np.maximum(y.sum(axis=0)[:, None], 1)
            time.sleep(0.005)
            if not ctx.checkpoint(epoch):
                return

    def predict(self, X):
        X = np.asarray(X)
        return -((X[:, None, :] - self.means[None, :, :]) ** 2).sum(axis=2)
'''

RAISES = '''
class Trainer:
    def __init__(self, params):
        pass

    def fit(self, data, ctx):
        ctx.checkpoint(1)
        raise RuntimeError("boom in fit, rows %d" % data.x.shape[0])

    def predict(self, X):
        return X[:, :2] * 0
'''

BROKEN = "class Trainer:\n    def fit(self, data, ctx)\n        pass\n"  # no colon: a SyntaxError on line 2

SCRIPT = '''
import _thread, json, threading, time, warnings, trainbench
spec = json.loads(SPEC)
out = {"algorithms": [a["id"] for a in trainbench.algorithms()]}
out["broken"] = [[p["state"], p["error"]] for p in trainbench.plugins() if p["file"].endswith("broken_test.py")]
failing = dict(spec, algorithms=[{"id": "python.raises_test", "label": "Raises"}, {"id": "linear.ridge", "label": "Ridge"}])
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    f = trainbench.run(failing)
out["failing"] = [[s, e] for s, e in zip(f.runs["status"], f.runs["error"])]
out["failing_warned"] = any("failed" in str(w.message) for w in caught)
calls = []
r = trainbench.run(spec, progress=lambda d, n: calls.append([d, n]))
out["statuses"] = list(r.runs["status"])
out["epochs"] = [float(e) for e in r.runs["epochs"]]
out["last_call"] = calls[-1]
# Interrupted while a Python trainer trains: a Python thread ticks meanwhile (the GIL is free),
# then interrupts the main thread.
spec["algorithms"][0]["params"]["epochs"] = 10**8
ticks = []
def ticker():
    while len(ticks) < 50:
        ticks.append(1)
        time.sleep(0.002)
    _thread.interrupt_main()
threading.Thread(target=ticker).start()
try:
    trainbench.run(spec, db=DB)
    out["interrupted"] = False
except KeyboardInterrupt:
    out["interrupted"] = True
with trainbench.Store(DB) as s:
    out["stored"] = list(s.runs()["status"])
print(json.dumps(out))
'''


def python_plugin_loaded():
    return any(p["id"] == "python" and p["state"] == "loaded" for p in trainbench.plugins())


@unittest.skipUnless(python_plugin_loaded(), "the Python trainer host (plugins/python) is not built or not loaded")
class PythonTrainers(TempDirTest):
    def test_run_and_interrupt_a_python_trainer(self):
        scripts = self.path("scripts")
        os.mkdir(scripts, 0o755)
        for name, text in (("nearest_mean_test.py", TRAINER), ("raises_test.py", RAISES), ("broken_test.py", BROKEN)):
            with open(os.path.join(scripts, name), "w") as f:
                f.write(text)
        spec = tiny(name="python trainers")
        spec["algorithms"] = [{"id": "python.nearest_mean_test", "label": "Mean", "params": {"epochs": 20}},
                              {"id": "linear.ridge", "label": "Ridge", "params": {}}]
        spec["threads"] = 2
        code = f"SPEC = {json.dumps(spec)!r}\nDB = {self.path('py.sqlite')!r}\n" + SCRIPT
        p = python(code, env={"TRAINBENCH_PYTHON_PATH": scripts})
        self.assertEqual(p.returncode, 0, p.stderr)
        out = json.loads(p.stdout.strip().splitlines()[-1])
        self.assertIn("python.nearest_mean_test", out["algorithms"])
        # A broken script is listed with its reason, its algorithm not offered.
        self.assertEqual(len(out["broken"]), 1, out["broken"])
        self.assertEqual(out["broken"][0][0], "invalid")
        self.assertIn("line 2", out["broken"][0][1])
        self.assertNotIn("python.broken_test", out["algorithms"])
        # An exception in a Python trainer fails its runs with the traceback; the others finish.
        statuses = [s for s, _ in out["failing"]]
        self.assertEqual(statuses, ["failed", "failed", "finished", "finished"], out["failing"])
        self.assertIn("python.raises_test: fit() raised RuntimeError: boom in fit, rows", out["failing"][0][1])
        self.assertIn("Traceback", out["failing"][0][1])
        self.assertTrue(out["failing_warned"])
        self.assertEqual(out["statuses"], ["finished"] * 4)
        self.assertEqual(out["epochs"][:2], [20.0, 20.0])
        self.assertEqual(out["last_call"], [4, 4])
        self.assertTrue(out["interrupted"])
        self.assertEqual(len(out["stored"]), 4)
        self.assertNotIn("running", out["stored"])
        self.assertIn("cancelled", out["stored"])


if __name__ == "__main__":
    unittest.main()
