"""trainbench.algorithms(), plugins(), the plugin search path."""

import json
import os
import unittest

import trainbench
from support import TempDirTest, python


class Algorithms(unittest.TestCase):
    def test_linear_ridge_with_its_schema(self):
        algorithms = {a["id"]: a for a in trainbench.algorithms()}
        self.assertIn("linear.ridge", algorithms)
        self.assertIn("gradient.adam", algorithms)
        ridge = algorithms["linear.ridge"]
        for key in ("name", "description", "citation", "plugin_id", "plugin_version", "plugin_file", "family",
                    "tasks", "sparse_inputs", "schema"):
            self.assertIn(key, ridge)
        self.assertEqual(ridge["plugin_id"], "linear")
        self.assertTrue(ridge["plugin_version"])
        self.assertEqual(sorted(ridge["tasks"]), ["classification", "regression"])
        self.assertTrue(os.path.isfile(ridge["plugin_file"]))
        schema = {p["key"]: p for p in ridge["schema"]}
        self.assertIn("gram_ridge", schema)
        for p in ridge["schema"]:
            self.assertTrue({"key", "label", "type", "help"} <= set(p), p)
        # The schema is `trainbench-cli list --json`'s: numbers stay numbers, integers ints.
        adam = {p["key"]: p for p in algorithms["gradient.adam"]["schema"]}
        self.assertIsInstance(adam["epochs"]["default"], int)
        self.assertIsInstance(adam["lr"]["default"], float)
        self.assertEqual(adam["hidden"]["type"], "int list")

    def test_frame(self):
        df = trainbench.algorithms_frame()
        self.assertEqual(len(df), len(trainbench.algorithms()))
        self.assertIn("linear.ridge", set(df["id"]))
        self.assertEqual(list(df.columns[:2]), ["id", "name"])

    def test_plugins_have_states(self):
        plugins = trainbench.plugins()
        self.assertTrue(plugins)
        by_id = {p["id"]: p for p in plugins if p["state"] == "loaded"}
        self.assertIn("linear", by_id)
        self.assertIn("linear.ridge", by_id["linear"]["algorithms"])
        for p in plugins:
            self.assertIn(p["state"], {"loaded", "invalid", "failed", "shadowed", "refused"})
            if p["state"] != "loaded":
                self.assertTrue(p["error"], p)  # never without a reason

    def test_search_path_starts_with_the_environment(self):
        paths = trainbench.search_paths()
        env = [os.path.normpath(p) for p in os.environ.get("TRAINBENCH_PLUGIN_PATH", "").split(":") if p]
        self.assertEqual(paths[:len(env)], env)
        # Then the build tree's plugins, relative to the module: build/python/trainbench -> build/bin/plugins.
        module_dir = os.path.dirname(trainbench._core.__file__)
        self.assertIn(os.path.normpath(os.path.join(module_dir, "..", "..", "bin", "plugins")), paths)
        folders = trainbench.plugin_folders()
        self.assertEqual([f["path"] for f in folders], paths)
        self.assertIsInstance(trainbench.plugin_notices(), list)


class PluginsOfTheModulesTree(TempDirTest):
    """Each check in a fresh interpreter: the registry is scanned once per process."""

    def test_found_without_trainbench_plugin_path(self):
        # The module finds the plugins of its own build tree, not only through the environment.
        p = python("import json, trainbench; print(json.dumps([a['id'] for a in trainbench.algorithms()]))",
                   env={"TRAINBENCH_PLUGIN_PATH": None})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("linear.ridge", json.loads(p.stdout))

    def test_broken_plugin_is_listed_with_its_reason(self):
        broken = self.path("libtrainbench-broken.so")
        with open(broken, "wb") as f:
            f.write(b"\x7fELF but not really a shared library")
        os.chmod(self.tmp, 0o755)
        code = "import json, trainbench; print(json.dumps(trainbench.plugins()))"
        p = python(code, env={"TRAINBENCH_PLUGIN_PATH": self.tmp})
        self.assertEqual(p.returncode, 0, p.stderr)
        plugins = {x["file"]: x for x in json.loads(p.stdout)}
        self.assertIn(broken, plugins)
        self.assertIn(plugins[broken]["state"], {"invalid", "failed"})
        self.assertTrue(plugins[broken]["error"])
        # The good plugins of the tree still load after it.
        self.assertTrue(any(x["id"] == "linear" and x["state"] == "loaded" for x in plugins.values()))


if __name__ == "__main__":
    unittest.main()
