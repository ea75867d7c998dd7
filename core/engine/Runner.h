#pragma once
/// @file Runner.h
/// Runs one (algorithm, parameters, seed) on one dataset: the checkpoint clock, the stop
/// token, divergence and failure handling, and logging to the run store.

#include <store/RunTypes.h>

#include <data/Dataset.h>
#include <trainbench/RunBudget.h>
#include <trainbench/StopToken.h>

#include <QJsonObject>
#include <memory>
#include <optional>

namespace tb {

class PluginRegistry;
class RunLog;
class Trainer;
class PreparedConfiguration;
struct AlgorithmEntry;

/// One run to do.
struct RunJob {
    QString algorithmId;
    QString label;                 ///< legend label
    QVariantMap params;            ///< as given; normalised by the schema before the run
    std::uint64_t seed = 1;
    int repeat = 0;
    double sigma = NaN;            ///< noise-sweep cell's σ
    std::shared_ptr<const data::DatasetPair> data;
    QString datasetDescription;
    /// The run's time budget (none by default), checked at every checkpoint on its clock. A
    /// budget among params ("time_budget_s", "time_budget_clock": a plugin's former own time
    /// limit, upgraded) replaces it.
    RunBudget budget;
    /// The configuration (algorithmId, params) prepared once for all its runs by the kind
    /// (PluginRegistry::prepared()); null: the runner asks the registry, which keeps it.
    std::shared_ptr<const PreparedConfiguration> prepared;
    qint64 experimentId = -1;
    /// false: checkpoints only poll Stop and the host evaluates once after fit() — used by
    /// noise sweeps, which need final metrics only. Without an observer, a budget or a clock
    /// restart such a checkpoint does not stop the training clock either (no clock is read:
    /// its few counters count as training time).
    bool evaluateCheckpoints = true;
    /// Whether to create a run row and log metrics (noise-sweep cells log aggregates instead).
    bool logToStore = true;
    int threads = 1;               ///< the arena's cap, recorded with the run
    /// Measure the run's peak working memory (PeakMemory) and record it as the fact
    /// "peak_memory_bytes". Only meaningful when no other run trains in the process at the
    /// same time; false for cells that run in parallel.
    bool measureMemory = true;
    /// With measureMemory false and a stored run: why, logged with the run (empty: nothing).
    QString memoryNote;
    /// Count the process's CPU time while the run trains (checkpoints left out), recorded as the
    /// fact final.train_cpu_seconds: a tuned comparison's budget. Always on with a cpu budget.
    /// Only the run's own when no other run trains in the process at the same time.
    bool measureCpu = false;
    /// Facts the host adds to the run's info when it ends (e.g. a param-sweep cell's
    /// "sweep_cell"); they replace a trainer's facts of the same key.
    QJsonObject hostFacts;
};

/// What came of a run.
struct RunResult {
    qint64 runId = -1;
    RunStatus status = RunStatus::Failed;
    QString error;
    /// every checkpoint (or the single final point); each point's trainTime counts from the
    /// last clock restart (Checkpoint::restartClock, listed in info's "clock_restarts")
    QVector<MetricPoint> points;
    MetricPoint last;              ///< the final evaluation
    QJsonObject info;              ///< facts the trainer recorded + "stopped_by" etc.
    QVariantMap params;            ///< normalised parameters actually used
    double trainSeconds = 0;       ///< the whole run's training time, every solve of a ladder counted
    qint64 peakMemoryBytes = -1;   ///< measured peak working memory, −1 when not measured
};

/// Receives progress from runs. Called from worker threads: implementations must be
/// thread-safe and quick (queue, don't draw).
class RunObserver {
public:
    virtual ~RunObserver() = default;
    virtual void runStarted(const RunJob& job, qint64 runId) { Q_UNUSED(job); Q_UNUSED(runId); }
    /// The trainer stated its predicted cost (Trainer::predictCost()) for @p job's data: called
    /// after runStarted(), before fit(), only when the cost is not empty. A cost without
    /// "memory_bytes" carries "memory_unchecked", the sentence saying the run was not checked. A noise sweep calls it
    /// once per algorithm with the cost of one cell (@p job is then a template of its cells).
    virtual void costPredicted(const RunJob& job, qint64 runId, const QJsonObject& cost)
    {
        Q_UNUSED(job); Q_UNUSED(runId); Q_UNUSED(cost);
    }
    virtual void checkpointLogged(const RunJob& job, qint64 runId, const MetricPoint& p)
    {
        Q_UNUSED(job); Q_UNUSED(runId); Q_UNUSED(p);
    }
    /// The trained model itself, for observers that show more than metrics (the teaching view
    /// draws decision regions from it): called after checkpointLogged() at every evaluated
    /// checkpoint (@p final false), and once after fit() has returned and the last point is in
    /// (@p final true; not for diverged or failed runs). The training clock is stopped during
    /// the call, so time spent here (rendering, or pacing a demonstration) is not training time.
    /// @p trainer and @p facts (what the trainer recorded so far) are valid during the call only;
    /// call trainer.predict() only, from this thread. Returning takes the training on; an
    /// observer that waits (pause) must watch the run's stop token to keep Stop within 200 ms.
    virtual void modelReady(const RunJob& job, const Trainer& trainer, const MetricPoint& p, const QJsonObject& facts,
                            bool final)
    {
        Q_UNUSED(job); Q_UNUSED(trainer); Q_UNUSED(p); Q_UNUSED(facts); Q_UNUSED(final);
    }
    virtual void runFinished(const RunJob& job, const RunResult& r) { Q_UNUSED(job); Q_UNUSED(r); }
    /// The run's training clock started (@p running true: just before fit(), and as training
    /// resumes after a checkpoint) or stopped (false: as a checkpoint begins, before the host
    /// evaluates, and when fit() returns). Called on the training thread, outside the clock, so
    /// an observer can keep a clock of its own with the host's pauses — e.g. process CPU time
    /// (bench/support's BenchRunner). Keep it quick. After a failure a stop may come twice.
    /// A trainer's clock restart (Checkpoint::restartClock) is not signalled here: such an
    /// observer's clock counts the whole run, while the host's points count from each restart.
    virtual void trainingClock(const RunJob& job, bool running) { Q_UNUSED(job); Q_UNUSED(running); }
};

/// Executes runs. Stateless apart from its references; thread-safe: execute() may be called
/// from several threads at once (noise-sweep cells run in parallel).
class Runner {
public:
    /// @p store may be null (nothing is logged): the run store, or a proxy of it (RunLog).
    Runner(const PluginRegistry& registry, RunLog* store);

    /// Runs @p job on the calling thread. Call it inside the TBB arena the run may use.
    /// Never throws: a trainer's exception becomes a failed run with its message.
    RunResult execute(const RunJob& job, const StopSource& stop, RunObserver* observer = nullptr) const;
    /// execute() with @p trainer in place of the one the plugin's factory would create for
    /// @p job (a lock-step replica, LockstepTrainer::replica()); everything else — parameters,
    /// checks, clock, evaluation, result — as execute(). A null @p trainer is execute().
    RunResult execute(const RunJob& job, const StopSource& stop, RunObserver* observer,
                      std::unique_ptr<Trainer> trainer) const;
    /// The trainer execute() would create for @p job (parameters upgraded and normalised, a
    /// budget among them taken out), or null with @p error. @p budget (may be null) receives the
    /// run's budget.
    std::unique_ptr<Trainer> createTrainer(const RunJob& job, QString* error, RunBudget* budget = nullptr) const;

    /// The run row @p job would get (status running, started now, parameters normalised by the
    /// schema when they are valid).
    RunRecord record(const RunJob& job) const;
    /// @p job's configuration as execute() takes it (PreparedConfiguration): job.prepared, else the
    /// registry's (PluginRegistry::prepared()).
    std::shared_ptr<const PreparedConfiguration> preparedOf(const RunJob& job) const;

    /// Stores @p job as a run that never started because the experiment was stopped first:
    /// status cancelled, its seed, repeat and parameters kept (so it can be re-run), started =
    /// ended = now. Returns its id, or −1 without a store (or when !job.logToStore).
    qint64 recordNotStarted(const RunJob& job) const;

    /// The host fact of a run of @p entry whose plugin replaced others of its id
    /// (PluginSpec::replaces): {"plugin_replaces": {"file": …, "replaces": […]}}, so that the row
    /// says which code trained it; empty when nothing was replaced. record() and execute() add it.
    static QJsonObject replacementFact(const AlgorithmEntry* entry);
    /// The facts "git_hash", "build" and "cpu" of this process (BuildInfo.h): every stored run
    /// records them (a kind whose cells have no rows, the noise sweep, in its own row). Thread-safe.
    static QJsonObject machineFacts();

private:
    const PluginRegistry& m_registry;
    RunLog* m_store;
};

} // namespace tb
