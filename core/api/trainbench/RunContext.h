#pragma once
/// @file RunContext.h
/// The host services a trainer may use during fit().

#include "Checkpoint.h"
#include "RunBudget.h"
#include "StopToken.h"

#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <cstdint>

namespace tb {

/// Given to Trainer::fit(). Implemented by the engine (and by test harnesses).
///
/// Threads: fit() is called inside the run's tbb::task_arena, so any TBB algorithm the
/// trainer uses (parallel_for, parallel_reduce …) runs on at most threads() workers. The
/// context's methods must be called from the thread that runs fit(), except
/// stopRequested(), which any thread may poll.
class RunContext {
public:
    virtual ~RunContext() = default;

    /// The run's seed. Derive every random stream from it by index (tb::deriveSeed), never
    /// from thread ids or time, so that the same seed and thread count give the same result.
    virtual std::uint64_t seed() const = 0;

    /// Workers available in the run's arena (≥ 1): size thread-local buffers and work
    /// partitions from this, never from the machine's core count.
    virtual int threads() const = 0;

    /// The run's stop token: it fires when the user pressed Stop or the run must end (time
    /// budget, divergence). Pass it to the training library's long kernels (core/training), which poll
    /// it between row blocks. Any thread may poll it.
    virtual StopToken stopToken() const = 0;

    /// stopToken().stopRequested(). Poll it often enough that fit() returns within 200 ms;
    /// then return normally (the host marks the run cancelled).
    bool stopRequested() const { return stopToken().stopRequested(); }

    /// Pauses the training clock, lets the host evaluate predict() on the train and test
    /// data and log the point, restarts the clock (from zero for the next point when
    /// cp.restartClock is set). predict() must be valid when this is called. Returns Stop when
    /// the trainer should return from fit() now.
    virtual CheckpointAction checkpoint(const Checkpoint& cp) = 0;

    /// Stores a named fact about the run with it (e.g. "layer_solves", a solver report).
    /// The keys of reservedFactKeys() are the host's own: recording one is an error (the
    /// host fails the run with a message naming the key; the test double throws).
    virtual void record(const QString& key, const QJsonValue& value) = 0;

    /// A line for the run's log (shown in the GUI and by the CLI with --verbose).
    virtual void log(const QString& message) = 0;

    /// True once the run's time budget is spent (the experiment's "time_budget_s" on its
    /// "time_budget_clock", RunBudget.h): the host answers Stop at the next checkpoint anyway, so
    /// a trainer need not ask. One whose checkpoints are far apart (an epoch of many minibatches,
    /// a long block solve) may poll it between steps and checkpoint as soon as it holds, so that
    /// the run ends at its budget rather than up to a checkpoint later. Cheap (a clock read);
    /// from the thread that runs fit(). Default: false (no budget).
    virtual bool budgetSpent() const { return false; }
};

/// Facts the host records with every run itself; a trainer must not record them.
///  - "predicted_cost": Trainer::predictCost() of the run's problem;
///  - "measured_seconds": the training time the prediction is compared with;
///  - "final": the final metrics; "log": the log lines; "stopped_by": why a run ended early;
///  - "peak_memory_bytes": the process's peak resident memory growth during fit();
///  - "time_budget": the run's budget and what it used ({"seconds", "clock", "used"});
///  - "clock_restarts": the checkpoints (0-based, in order) whose Checkpoint::restartClock
///    restarted the training clock; absent when none did;
///  - "plugin_replaces": the plugin's file and the files of the same plugin id it replaced, when
///    it replaced one (a copy found earlier on the search path, e.g. in TRAINBENCH_PLUGIN_PATH);
///  - "git_hash": the build of the host that trained the run (its experiment's row names the build
///    that created the experiment; a resumed experiment's later runs may come from another);
///  - "build": how that build was compiled (compiler, build type, target, vector instructions);
///  - "cpu": the CPU that trained it (model name, vendor, family, model). The same seed, thread
///    count and parameters give the same bits for the same build and CPU, and agree within
///    rounding across CPUs and builds.
inline const QStringList& reservedFactKeys()
{
    static const QStringList keys{QStringLiteral("predicted_cost"), QStringLiteral("measured_seconds"),
                                  QStringLiteral("final"),          QStringLiteral("log"),
                                  QStringLiteral("stopped_by"),     QStringLiteral("peak_memory_bytes"),
                                  QStringLiteral("time_budget"),    QStringLiteral("clock_restarts"),
                                  QStringLiteral("plugin_replaces"), QStringLiteral("git_hash"),
                                  QStringLiteral("build"),          QStringLiteral("cpu")};
    return keys;
}

} // namespace tb
