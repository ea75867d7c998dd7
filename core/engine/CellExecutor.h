#pragma once
/// @file CellExecutor.h
/// Where an experiment's cells train: in this process's TBB arena (LocalCellExecutor), or on
/// the ranks of an MPI job (core/cluster). ExperimentRunner plans the cells and collects their
/// results; an executor only decides where and when each cell runs.

#include "Runner.h"

#include <QList>
#include <QString>
#include <functional>
#include <tbb/task_arena.h>
#include <vector>

namespace tb {

class RunLog;

/// What one cell produced: one RunResult per run it trained (a learning-curve repeat or a
/// param-sweep cell: one; a noise-sweep cell: one per algorithm, in spec order). A "cell" here is
/// the unit of work an executor hands out: a noise sweep whose algorithms train in lock step
/// (trainbench/LockstepTrainer.h) makes each unit a pack of consecutive Monte-Carlo cells of one σ
/// and returns their runs cell after cell (NoiseSweepKind.cpp).
struct CellOutput {
    QList<RunResult> runs;
};

/// One experiment's cells, as ExperimentRunner describes them to an executor. A cell's result
/// depends only on its index (its seed is derived from it), so any executor may run the cells in
/// any order, anywhere, and get the same results.
struct CellPlan {
    int count = 0;       ///< cells 0 … count−1
    int atOnce = 1;      ///< cells a local executor trains at once in @ref arena
    tbb::task_arena* arena = nullptr; ///< the experiment's arena (its `threads` workers)
    StopSource* stop = nullptr;       ///< the experiment's Stop (an MPI worker fires it when rank 0 stops)
    RunLog* log = nullptr;            ///< where runs are written (the store; may be null)
    RunObserver* observer = nullptr;  ///< progress (may be null)
    /// Cells already done (a resumed experiment): skipped. Empty: none.
    std::vector<char> skip;
    /// Trains cell i in the calling thread (inside the arena), writing its runs to @p log and
    /// reporting to @p observer (either may be null). Never throws: failures are RunResults.
    std::function<CellOutput(int cell, RunLog* log, RunObserver* observer)> work;
    /// Receives cell i's output. Thread-safe: a local executor calls it from the cell's thread.
    std::function<void(int cell, CellOutput&& output)> done;
    /// The job of a cell's single run (learning curves, param sweeps), for an executor that must
    /// report or fail a run it did not train itself; null for noise sweeps.
    std::function<RunJob(int cell)> jobOf;
    /// The output of cell i when it could not finish where it trained: every run ends with
    /// @p status (Failed: the process training it died; Interrupted: it did not answer Stop in
    /// time) and @p why; @p runIds are the rows its runs had created (finished so here; a run
    /// without one gets a row).
    std::function<CellOutput(int cell, RunStatus status, const QString& why, const QList<qint64>& runIds)> failed;
};

/// Runs a CellPlan. run() returns when every cell is done, or Stop has fired and the cells that
/// had started are done; cells never started are not passed to done() (ExperimentRunner records
/// them as not started).
class CellExecutor {
public:
    virtual ~CellExecutor() = default;
    virtual void run(CellPlan& plan) = 0;
    /// True on an MPI worker rank: the experiment's rows (experiment, noise-sweep runs, sweep
    /// points, not-started runs) are written by rank 0 only, and this process's result is not used.
    virtual bool isWorker() const { return false; }
    /// True when the cells train in other processes (MPI ranks): a kind whose cells depend on
    /// one another's timing (a tuned comparison's CPU-seconds budget) cannot run there.
    virtual bool distributes() const { return false; }
};

/// Runs the cells in this process: plan.atOnce loops in the plan's arena claim cells in index
/// order from one counter (a slow cell never holds the others back).
class LocalCellExecutor final : public CellExecutor {
public:
    void run(CellPlan& plan) override;
};

} // namespace tb
