#pragma once
/// @file ReproduceCommand.h
/// `trainbench-cli reproduce`: re-measures the claims of papers' claims files and writes one
/// Markdown report per file with its charts.

#include <QString>
#include <QStringList>

namespace tb {
class ExperimentRunner;
}

namespace tb::cli {

/// Runs `trainbench-cli reproduce FILE… [--out DIR] [--quick] [--resume] [--db FILE] [--check] [--mpi
/// [--worker-timeout S]] [--quiet]` (docs/cli.md) with @p args as given to QCommandLineParser (args[0]
/// is the program and command). With --mpi under mpirun, rank 0 does all of what follows and trains
/// through the MPI root executor; the other ranks serve each experiment's cells in turn and return
/// rank 0's exit code (docs/cluster.md, "Reproducing papers").
/// For each claims file: checks it whole first (nothing runs when any file is malformed), runs each
/// distinct experiment its claims need once — with --resume, only what the store does not already
/// hold (ExperimentRunner::resumable/resume) —, evaluates every claim (ClaimEvaluator) and writes
/// DIR/<paper>.md (with --quick DIR/<paper>-quick.md) and its PNG charts. A claim whose data is
/// absent (a catalogue set not fetched, a missing file) is reported inconclusive with the reason.
/// @p current is set to the runner while an experiment trains, so that Ctrl-C can stop it.
/// Returns 0 when every claim was evaluated (whatever the verdicts), 1 when runs failed or
/// diverged (with --mpi also: a worker lost, refused or not used), 2 usage, 3 a malformed claims
/// file or experiment, 4 database, 5 stopped (Ctrl-C; with --mpi also: no worker left), 6 report not
/// written.
int reproduceCommand(const QStringList& args, ExperimentRunner** current);

} // namespace tb::cli
