"""The plugins the process's registry found, and their algorithms."""

import pandas as pd

from . import _core


def algorithms():
    """The algorithms of every loaded plugin, as a **list of dicts** (one per algorithm, in the
    registry's order); :func:`algorithms_frame` gives the same as a DataFrame.

    Keys: id (e.g. "linear.ridge"), name, description, citation, plugin_id, plugin_name,
    plugin_version, plugin_file, family, tasks (a list of "classification" and/or "regression"),
    sparse_inputs (whether the algorithm takes sparse data as it is), schema (the parameters, as
    ``trainbench-cli list --json`` shows them: one dict per parameter with key, label, type, help,
    default, min/max, choices, ...).

    The first call scans the plugins (see the module's docstring for where); algorithms of plugins
    that failed to load are not listed: :func:`plugins` says why they failed.
    """
    return _core.algorithms()


def algorithms_frame():
    """:func:`algorithms` as a DataFrame, one row per algorithm (the schema column holds the
    list of parameter dicts)."""
    rows = algorithms()
    columns = ["id", "name", "description", "citation", "plugin_id", "plugin_name", "plugin_version",
               "plugin_file", "family", "tasks", "sparse_inputs", "schema"]
    return pd.DataFrame(rows, columns=columns)


def plugins():
    """Every plugin file found on the search path, loaded or not, as a list of dicts.

    Keys: file, id, name, version, family, citation, description, api_version, state ("loaded",
    "invalid" — not a Trainbench plugin, wrong interface or API version, bad metadata —,
    "failed" — loading or instantiating it failed —, "shadowed" — a plugin of the same id came
    earlier on the path —, "refused" — others can write to it or its folder), error (why it is
    not loaded; empty when it is), algorithms (ids), data_sources, replaces (files of the same id
    it shadows), renamed_algorithms (former id -> current id).
    """
    return _core.plugins()


def plugin_folders():
    """The folders of the plugin search path in priority order, as a list of dicts: path, state
    ("used", "missing", "refused", "trusted"), problem (why a folder is refused or only trusted)."""
    return _core.plugin_folders()


def plugin_notices():
    """What a user must be told about the plugins (refused or trusted unsafe folders and files,
    plugins that replace others), one sentence each; usually empty."""
    return _core.plugin_notices()


def search_paths():
    """The plugin search path, in priority order: TRAINBENCH_PLUGIN_PATH's folders, the plugins
    of the build or installation this module belongs to, then the C++ registry's defaults."""
    return _core.search_paths()
