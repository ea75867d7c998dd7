#pragma once
/// @file RunsCommand.h
/// `trainbench-cli runs`: the stored experiments and their runs.

#include <QStringList>

namespace tb::cli {

/// Runs `trainbench-cli runs [--db FILE] [--json]` (docs/cli.md) with @p args as given to
/// QCommandLineParser (args[0] is the program and command): each experiment with its runs, their
/// status, final metrics, predicted against measured cost, and who trains a run still running.
/// Returns the CLI's exit code: 0 ok, 4 database.
int runsCommand(const QStringList& args);

} // namespace tb::cli
