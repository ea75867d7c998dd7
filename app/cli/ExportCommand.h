#pragma once
/// @file ExportCommand.h
/// `trainbench-cli export`: a stored experiment's charts (PNG) and runs (CSV).

#include <QStringList>

namespace tb::cli {

/// Runs `trainbench-cli export ID [--db FILE] [--plot OUT.png] [--csv OUT.csv]` (docs/cli.md) with
/// @p args as given to QCommandLineParser (args[0] is the program and command). Returns the CLI's
/// exit code: 0 ok, 2 usage (or an unknown id), 4 database, 6 a file not written.
int exportCommand(const QStringList& args);

} // namespace tb::cli
