#pragma once
/// @file CompareCommand.h
/// `trainbench-cli compare`: is the difference real? Tables of stored experiments.

#include <engine/ExperimentRunner.h>

#include <QString>
#include <QStringList>

namespace tb::cli {

/// Runs `trainbench-cli compare ID [ID …] [options]` (docs/cli.md) with @p args as given to
/// QCommandLineParser (args[0] is the program). Prints the result matrix, the pairwise tests
/// against the baseline, a param sweep's grid and the time-to-target table in text, CSV,
/// Markdown or LaTeX. Returns the CLI's exit code: 0 ok, 2 usage (unknown id, metric,
/// baseline), 3 nothing to compare, 4 database, 6 output not written.
int compareCommand(const QStringList& args);

/// The grid table of a param-sweep result as text (what `run` prints after a sweep).
QString gridSummary(const ExperimentResult& result);

} // namespace tb::cli
