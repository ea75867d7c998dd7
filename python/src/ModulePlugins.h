#pragma once
/// @file ModulePlugins.h
/// trainbench.algorithms(), trainbench.plugins(), trainbench.plugin_folders(): what the process's
/// registry (ModuleRegistry) found.

#include "PyConvert.h"

namespace tb::python {

/// The registry's plugins and algorithms as Python lists of dicts. Each function scans the
/// registry on first use (without the GIL) and then converts with the GIL held.
class ModulePlugins {
public:
    /// One dict per algorithm of a loaded plugin, in the registry's order: id, name, description,
    /// citation (the algorithm's, else its plugin's), plugin_id, plugin_name, plugin_version,
    /// plugin_file, family, tasks (list of "classification" / "regression"), sparse_inputs (bool),
    /// schema (ParamSchema::toJson() as Python objects: one dict per parameter with key, label,
    /// type, help, default, min, max, choices …).
    static py::list algorithms();
    /// One dict per plugin file found, loaded or not: file, id, name, version, family, citation,
    /// description, api_version, state ("loaded", "invalid", "failed", "shadowed", "refused"),
    /// error (why it is not loaded; empty when it is), algorithms (ids), data_sources, replaces,
    /// renamed_algorithms (former id → current id).
    static py::list plugins();
    /// One dict per folder of the search path, in priority order: path, state ("used", "missing",
    /// "refused", "trusted"), problem.
    static py::list folders();
    /// What a user must be told about the plugins (PluginRegistry::notices()): refused folders or
    /// files, trusted unsafe ones, plugins that replace others.
    static py::list notices();
};

} // namespace tb::python
