#pragma once
/// @file ExperimentContext.h
/// What an experiment kind's run() may use of the runner: the plugins, the store, where cells
/// train, Stop, the rows of an experiment being resumed, and the bookkeeping every kind shares
/// (a run per cell, runs that never started, runs whose process died, store failures).

#include "CellExecutor.h"
#include "ExperimentRunner.h"
#include "MemoryCheck.h"
#include <store/RunTypes.h>

#include <data/DataSource.h>
#include <data/Dataset.h>

#include <QList>
#include <QString>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace tb {

class PluginRegistry;
class RunStore;

/// The runner's services for one experiment. Owned by ExperimentRunner; valid during run().
class ExperimentContext {
public:
    ExperimentContext(const PluginRegistry& registry, RunStore* store, CellExecutor& executor, StopSource& stop);

    const PluginRegistry& registry() const { return m_registry; }
    /// The store, or null (nothing is recorded).
    RunStore* store() const { return m_store; }
    CellExecutor& executor() const { return m_executor; }
    StopSource& stop() const { return m_stop; }

    /// True when the experiment resumes stored experiment rows (see resumeRuns()).
    bool resuming() const { return m_resuming; }
    /// The stored runs of the experiment being resumed.
    const QList<RunRecord>& resumeRuns() const { return m_resumeRuns; }
    /// Whether this process writes the experiment's own rows (not an MPI worker).
    bool writesExperiment() const { return m_store && !m_executor.isWorker(); }

    /// The first write failure of the store during the experiment, empty if none.
    QString storeFailure() const;
    /// A run cancelled because the store failed (not by the user) becomes Failed with that cause.
    void blameStoreFailure(RunResult& rr) const;
    /// Before any run starts: false, with the refusal in @p result's error, when a configuration's
    /// predicted working memory does not fit in what this process may use (MemoryCheck), checked
    /// in an arena of @p threads.
    bool refuseOverMemory(const QList<MemoryCheck::Demand>& demands, int threads, ExperimentResult& result) const;

    /// Loads @p dataset (relative paths against @p baseDir, seed from @p overrides); on failure
    /// returns null with @p error set (to @p outOfMemory when memory ran out).
    static std::shared_ptr<const data::DatasetPair> loadData(const QJsonObject& dataset, const QString& baseDir,
                                                             const data::DataOverrides& overrides,
                                                             const QString& outOfMemory, QString* error);
    /// The legend labels of @p spec's algorithms (their own label, else the algorithm's name).
    QStringList labels(const ExperimentSpec& spec) const;

    /// A plan whose cells are one stored run each (learning curves, param sweeps): job i run by
    /// Runner, failures through failedRun(); the caller adds `done`.
    CellPlan runPerCell(int count, int atOnce, tbb::task_arena& arena, ExperimentObserver* obs,
                        const std::vector<char>& skip, const std::function<RunJob(int)>& jobOf);
    /// Cells of a resumed experiment whose cells are one run each: finished stored runs into
    /// @p results (marked in @p ran) by their cell number (@p cellOf: −1 = not this
    /// experiment's), other rows of those cells deleted. False with @p error when the store
    /// cannot be read.
    bool takeFinishedRuns(int cells, const std::function<int(const RunRecord&)>& cellOf, std::vector<RunResult>& results,
                          std::vector<char>& ran, QString* error);
    /// A cell's run that could not end where it trained (its process died, or did not answer
    /// Stop): @p status with @p why, in its row @p runId (finished here) or, when the run never
    /// reached the store, in a new row.
    RunResult failedRun(const RunJob& job, RunStatus status, const QString& why, qint64 runId) const;

    /// Puts one cell's run into its configuration's curves.
    static void appendRun(AlgorithmCurves& c, const RunResult& rr, int repeat, std::uint64_t seed);
    /// A run Stop kept from starting: still part of the experiment, cancelled without
    /// checkpoints (its row @p runId holds its seed and parameters, so it can be re-run). The
    /// caller has appended its repeat number and seed.
    static void appendNotStarted(AlgorithmCurves& c, qint64 runId);
    /// Counts a finished run's status into @p result.
    static void count(ExperimentResult& result, RunStatus status);

private:
    friend class ExperimentRunner;
    /// Starts an experiment: no failure seen, the resumed rows (if any).
    void begin(bool resuming, QList<RunRecord> resumeRuns);
    /// The store reported a failed write (called from its writer thread).
    void storeFailed(const QString& message);

    const PluginRegistry& m_registry;
    RunStore* m_store;
    CellExecutor& m_executor;
    StopSource& m_stop;
    mutable std::mutex m_failureMutex;
    QString m_storeFailure;
    QList<RunRecord> m_resumeRuns;
    bool m_resuming = false;
};

} // namespace tb
