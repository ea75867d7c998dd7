#pragma once
/// @file MpiRootExecutor.h
/// Rank 0 of `trainbench-cli run --mpi`: hands an experiment's cells to the worker ranks as they
/// become free, writes what they send to the run store (the only writer), and keeps going when
/// a worker dies.

#include "MpiSession.h"

#include <CellExecutor.h>

#include <QStringList>
#include <functional>

namespace tb {
class PluginRegistry;
}

namespace tb::cluster {

/// The executor of rank 0. Cells go to workers in index order, each batch to the next worker that
/// is free (dynamic: a slow cell holds back only its own worker). A batch is one cell until cells
/// are seen to be short; then it holds about 50 ms of cells (at most 256, at most a share of
/// what is left), so tiny cells are not dominated by a message round trip each. A worker that sends
/// nothing — no checkpoint, no heartbeat — for Options::workerTimeoutSeconds is lost: its cell
/// fails with the reason ("rank 2 on node7 (pid 4242) stopped answering …"), its rows are
/// finished as failed, the rest of its batch goes to other workers, and it gets no more cells. Stop (the user's Ctrl-C) stops handing out
/// cells and tells the busy workers to cancel theirs; run() returns when they have answered.
///
/// Thread-safety: run() must be called on the thread that initialised MPI, once per process (the
/// workers exit when it returns).
class MpiRootExecutor final : public CellExecutor {
public:
    struct Options {
        /// Silence after which a worker counts as lost (it sends a heartbeat every second).
        double workerTimeoutSeconds = 30;
        /// Receives one line per event the user should see (a worker lost, refused, mismatched).
        std::function<void(const QString&)> notify;
    };

    MpiRootExecutor(const MpiSession& session, const PluginRegistry& registry, Options options);
    void run(CellPlan& plan) override;
    /// Tells every worker there is nothing to do, when run() was never called (rank 0 gave up
    /// before the experiment started: bad file, database error); a no-op after run().
    void release();

    /// After run(): what went wrong with workers (each also sent to Options::notify).
    QStringList problems() const { return m_problems; }
    /// After run(): cells trained by each rank (index = rank; rank 0 trains none).
    QList<int> cellsPerRank() const { return m_cellsPerRank; }

private:
    const MpiSession& m_session;
    const PluginRegistry& m_registry;
    Options m_options;
    QStringList m_problems;
    QList<int> m_cellsPerRank;
    QList<int> m_usable; ///< per rank: 1 when it may get cells (greeted and compatible)
    bool m_ran = false;
};

} // namespace tb::cluster
