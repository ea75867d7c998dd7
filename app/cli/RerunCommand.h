#pragma once
/// @file RerunCommand.h
/// `trainbench-cli rerun`: a stored run (or experiment) again, with its stored settings.

#include <QStringList>

namespace tb::cli {

/// Runs `trainbench-cli rerun ID [--experiment] [--db FILE] [--plot OUT.png] [--csv OUT.csv]
/// [--quiet]` (docs/cli.md) with @p args as given to QCommandLineParser (args[0] is the program and
/// command); one run re-run alone says how its numbers compare with the stored ones. Returns the
/// CLI's exit code (CliStreams.h): 2 also for an unknown id.
int rerunCommand(const QStringList& args);

} // namespace tb::cli
