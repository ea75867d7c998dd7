#pragma once
/// @file RunCommand.h
/// `trainbench-cli run`: an experiment file, in this process or (`--mpi`) on the ranks of an MPI job.

#include <QStringList>

namespace tb::cli {

/// Runs `trainbench-cli run SPEC.json [options]` (docs/cli.md) with @p args as given to
/// QCommandLineParser (args[0] is the program and command): checks the options, upgrades former
/// parameter spellings with a note, opens the database (or --resume's stored experiment) and runs
/// it (runSpec). With --mpi rank 0 does that through an MPI root executor and the other ranks serve
/// it cells (docs/cluster.md). Returns the CLI's exit code (CliStreams.h).
int runCommand(const QStringList& args);

} // namespace tb::cli
