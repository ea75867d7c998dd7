"""The QCoreApplication the module creates: where, and what it leaves alone (each in a fresh process)."""

import json
import unittest

import trainbench
from support import TempDirTest, python, tiny


class QtRuntime(TempDirTest):
    def test_created_once_and_sigint_stays_pythons(self):
        code = (
            "import json, locale, signal, trainbench\n"
            "before = (locale.setlocale(locale.LC_ALL), signal.getsignal(signal.SIGINT) is signal.default_int_handler)\n"
            "created_before = trainbench._core.qt_application_created()\n"
            "trainbench.algorithms()\n"
            "after = (locale.setlocale(locale.LC_ALL), signal.getsignal(signal.SIGINT) is signal.default_int_handler)\n"
            "print(json.dumps([created_before, trainbench._core.qt_application_created(), before, after]))\n")
        p = python(code)
        self.assertEqual(p.returncode, 0, p.stderr)
        created_before, created_after, before, after = json.loads(p.stdout)
        self.assertFalse(created_before)  # lazily: importing creates nothing
        self.assertTrue(created_after)
        self.assertEqual(before, after)  # the C locale and Python's SIGINT handler are untouched
        self.assertTrue(after[1])

    def test_first_use_on_a_worker_thread(self):
        # The documented rule: Qt adopts the thread that creates the application; the module's
        # stores, runs and plugins keep working on every thread, also once that thread has ended.
        db = self.path("runs.sqlite")
        spec = json.dumps(tiny())
        code = (
            "import json, threading, trainbench\n"
            f"db, spec = {db!r}, json.loads({spec!r})\n"
            "out = {}\n"
            "def work():\n"
            "    out['runs'] = len(trainbench.run(spec, db=db).runs)\n"
            "t = threading.Thread(target=work); t.start(); t.join()\n"
            "out['created'] = trainbench._core.qt_application_created()\n"
            "out['again'] = len(trainbench.run(spec, db=db).runs)\n"
            "with trainbench.Store(db) as s:\n"
            "    out['stored'] = len(s.runs())\n"
            "print(json.dumps(out))\n")
        p = python(code)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout), {"runs": 4, "created": True, "again": 4, "stored": 8})

    def test_this_process_has_one_application(self):
        trainbench.algorithms()
        self.assertTrue(trainbench._core.qt_application_created())


if __name__ == "__main__":
    unittest.main()
