#pragma once
/// @file ServeExperiments.h
/// A worker rank of a job of several experiments (`reproduce --mpi`, `run --mpi` of a suite).

#ifdef TB_HAVE_MPI
namespace tb {
class ExperimentRunner;
namespace cluster {
class MpiSession;
}
} // namespace tb

namespace tb::cli {

/// Serves the cells of each experiment rank 0 names (MpiRootExecutor::setExperiment()), until rank 0
/// says there are no more; returns rank 0's exit code. No database, no output but its errors;
/// @p current is the runner Ctrl-C stops.
int serveExperiments(cluster::MpiSession& mpi, ExperimentRunner** current);

} // namespace tb::cli
#endif
