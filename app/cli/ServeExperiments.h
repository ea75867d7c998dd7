#pragma once
/// @file ServeExperiments.h
/// The CLI's parts of an MPI job: a worker rank of a job of several experiments (`reproduce --mpi`,
/// `run --mpi` of a suite), and rank 0's account of the job.

#ifdef TB_HAVE_MPI
namespace tb {
class ExperimentRunner;
namespace cluster {
class MpiRootExecutor;
class MpiSession;
} // namespace cluster
} // namespace tb

namespace tb::cli {

/// Serves the cells of each experiment rank 0 names (MpiRootExecutor::setExperiment()), until rank 0
/// says there are no more; returns rank 0's exit code. No database, no output but its errors;
/// @p current is the runner Ctrl-C stops.
int serveExperiments(cluster::MpiSession& mpi, ExperimentRunner** current);

/// Rank 0, after the job: the cells each worker rank trained and rank 0's message load, on standard
/// output — nothing when no cell was handed out (an experiment that never started).
void printRankLoad(const cluster::MpiRootExecutor& root);

} // namespace tb::cli
#endif
