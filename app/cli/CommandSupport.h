#pragma once
/// @file CommandSupport.h
/// What several trainbench-cli commands share beyond CliStreams.h: opening the run store, a line
/// to stderr from any thread, the plugin warnings said before a run, numbers as the tables show them.

#include <QString>
#include <memory>

namespace tb {
class PluginRegistry;
class RunStore;
} // namespace tb

namespace tb::cli {

/// Opens the run store at @p path (the default one when empty). Commands that only read open it
/// read-only, so that a store in a read-only folder can still be listed and exported. On failure
/// says why on stderr and returns null. @p busyTimeoutMs < 0 keeps the store's default wait.
std::unique_ptr<RunStore> openStore(const QString& path, bool readOnly = false, int busyTimeoutMs = -1);

/// Writes one line to stderr at once (the store's writer thread calls this while the main thread
/// may be drawing the progress bar).
void lineToStderr(const QString& line);

/// Plugin folders refused as unsafe, trusted anyway, and plugins that replace another of their id:
/// said on stderr before a run, where the user sees it.
void warnAboutPlugins(const PluginRegistry& reg);

/// A fraction as a percentage with two decimals ("97.25%"), "-" when not finite.
QString fmtPct(double v);

/// A number with 4 significant digits, "-" when not finite.
QString fmt(double v);

} // namespace tb::cli
