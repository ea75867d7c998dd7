#pragma once
/// @file ListCommand.h
/// `trainbench-cli list`: plugins, their algorithms and parameter schemas, broken plugins.

#include <QStringList>

namespace tb::cli {

/// Runs `trainbench-cli list [--json]` (docs/cli.md) with @p args as given to QCommandLineParser
/// (args[0] is the program and command): the plugin folders and their trust, each loaded plugin's
/// algorithms with their parameters and predicted cost on the reference shape, the plugins not
/// loaded and why. Returns the CLI's exit code: 0.
int listCommand(const QStringList& args);

} // namespace tb::cli
