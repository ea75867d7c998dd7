#pragma once
/// @file MpiRootExecutor.h
/// Rank 0 of `trainbench-cli run --mpi` and `reproduce --mpi`: hands an experiment's cells to the
/// worker ranks as they become free, writes what they send to the run store (the only writer), and
/// keeps going when a worker dies.

#include "MpiProtocol.h"
#include "MpiSession.h"

#include <engine/CellExecutor.h>

#include <QStringList>
#include <functional>

namespace tb {
class PluginRegistry;
}

namespace tb::cluster {

/// The executor of rank 0. Cells go to workers in index order, each batch to the next worker that
/// is free (dynamic: a slow cell holds back only its own worker). A batch is one cell until cells
/// are seen to be short; then it holds about 50 ms of cells (at most 256, at most a share of
/// what is left), so tiny cells are not dominated by a message round trip each; a worker about to
/// finish a batch of such cells gets its next one in advance, so it never waits for rank 0, and
/// while no worker can be waiting for an answer rank 0 looks at its messages every 2 ms instead of
/// every 0.2 ms (it shares the CPU with workers on one node). A worker that sends
/// nothing — no checkpoint, no heartbeat — for Options::workerTimeoutSeconds is lost: its cell
/// fails with the reason ("rank 2 on node7 (pid 4242) stopped answering …"), its rows are
/// finished as failed, the rest of its batch goes to other workers, and it gets no more cells. Stop (the user's Ctrl-C) stops handing out
/// cells and tells the busy workers to cancel theirs; run() returns when they have answered.
///
/// One experiment per job (`run --mpi`): run() once; the workers exit when it returns (or at
/// release()). Several (`reproduce --mpi`): for each experiment setExperiment(), then the
/// experiment's runner (which calls run() when it has cells), then endExperiment(); at the end
/// quit(). A worker is told an experiment only when run() has a cell to hand out, so an experiment
/// the store already holds costs the workers nothing. A worker lost, or refused for its build, in
/// one experiment is not used in the later ones; one that refused an experiment (its data is not on
/// its node) is asked again for the next.
///
/// Thread-safety: every method must be called on the thread that initialised MPI.
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
    bool distributes() const override { return true; }
    /// Tells every worker there is nothing to do, when run() was never called (rank 0 gave up
    /// before the experiment started: bad file, database error); a no-op after run().
    void release();

    /// `reproduce --mpi`: @p experiment is what the workers are told to load when the next run()
    /// has cells to hand out (the MpiWorkerExecutor::nextExperiment() of each worker still in the
    /// job).
    void setExperiment(const ExperimentMessage& experiment);
    /// `reproduce --mpi`, after the experiment's runner returned (whether or not it called run()):
    /// waits until each worker told about it has ended it (Served), answering the run rows it still
    /// asks for with −1 and dropping its other messages, so that nothing of this experiment is read
    /// as the next one's. A worker silent for Options::workerTimeoutSeconds is lost.
    void endExperiment();
    /// `reproduce --mpi`: tells every worker still in the job that there is nothing more, and to
    /// exit with @p exitCode (rank 0's). Once; later calls do nothing.
    void quit(int exitCode);

    /// After run(): what went wrong with workers (each also sent to Options::notify).
    QStringList problems() const { return m_problems; }
    /// After run(): whether a worker was lost (then no rank may call MPI_Finalize: see
    /// MpiSession::skipFinalize; the workers are told so with their Done).
    bool lostWorkers() const { return m_lost; }
    /// After run(): cells trained by each rank (index = rank; rank 0 trains none).
    QList<int> cellsPerRank() const { return m_cellsPerRank; }

    /// What rank 0 did inside run() (summed over the experiments of `reproduce --mpi`): its message
    /// rate and CPU cost per message, which bench/mpi_handout.py scales to many ranks.
    struct Load {
        qint64 received = 0;     ///< messages from workers, every kind (heartbeats included)
        qint64 sent = 0;         ///< messages to workers (batches, row ids, Stop, Done)
        qint64 batches = 0;      ///< batches of cells handed out
        qint64 cells = 0;        ///< cells whose results arrived
        double wallSeconds = 0;  ///< time spent in run()
        double cpuSeconds = 0;   ///< this process's CPU time in run(): every thread (the loop, the database writer)
    };
    Load load() const { return m_load; }
    /// One line for the user: "rank 0: 3008 messages in, 44 out (42 batches of cells) in 2.47 s; 0.072 s of CPU,
    /// 23.6 µs a message" (CPU per message in or out). Empty before run().
    QString loadSummary() const;

private:
    class Round; ///< one run(): its cells, its workers and the steps of its loop

    /// One line for the user: kept for problems() and sent to Options::notify.
    void problem(const QString& line);

    const MpiSession& m_session;
    const PluginRegistry& m_registry;
    Options m_options;
    QStringList m_problems;
    QList<int> m_cellsPerRank;
    QList<int> m_usable; ///< per rank: 1 when it may get cells (greeted and compatible)
    Load m_load;
    bool m_ran = false;
    bool m_lost = false;

    /// Per rank, across the experiments of `reproduce --mpi`.
    enum class Membership { InJob, Excluded, Lost };
    QList<Membership> m_membership;
    QByteArray m_experiment; ///< the encoded ExperimentMessage of the next run(); empty: `run --mpi`
    QList<int> m_told;       ///< per rank: 1 when told the current experiment
    QList<int> m_served;     ///< per rank: 1 when it has said Served for it
    bool m_quit = false;
};

} // namespace tb::cluster
