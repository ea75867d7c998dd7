#pragma once
/// @file ModuleRegistry.h
/// The one plugin registry of the Python process, and where it looks for plugins.

#include <QString>
#include <QStringList>

namespace tb {
class PluginRegistry;
}

namespace tb::python {

/// The process's plugin registry: made and scanned once, on first use (trainbench.run(),
/// trainbench.algorithms(), trainbench.plugins()), never destroyed (trainers and the Python trainer
/// host's objects may live until the process ends; the plugins stay loaded as the registry
/// requires).
class ModuleRegistry {
public:
    /// The scanned registry. Creates the QCoreApplication first (QtRuntime::ensure()). Must be
    /// called WITHOUT the GIL held: a plugin may take it while it loads (the Python trainer host
    /// does), and a second caller waits here for the first one's scan. Thread-safe.
    static const PluginRegistry& get();

    /// The search path, in priority order: the folders of TRAINBENCH_PLUGIN_PATH (colon-separated),
    /// then the plugins of the tree this module belongs to, found relative to the module's own file
    /// (_core*.so): <module dir>/TB_PYMOD_BUILD_PLUGIN_DIR (build tree: build/python/trainbench →
    /// build/bin/plugins) and <module dir>/TB_PYMOD_INSTALLED_PLUGIN_DIR (installed:
    /// <prefix>/lib/python3/dist-packages/trainbench → <prefix>/lib/…/trainbench/plugins), then the
    /// rest of PluginRegistry::defaultSearchPaths() (relative to the executable — the Python
    /// interpreter —, the configured install prefix, the user's app-data folder). Folders that do
    /// not exist are listed as missing by the registry and skipped.
    static QStringList searchPaths();

    /// The absolute path of the module's shared library (dladdr on a function of it); empty if
    /// it cannot be told.
    static QString moduleFile();
};

} // namespace tb::python
