#pragma once
/// @file RunContext.h
/// The host services a trainer may use during fit().

#include "Checkpoint.h"

#include <QJsonValue>
#include <QString>
#include <atomic>
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

    /// Workers available in the run's arena (≥ 1).
    virtual int threads() const = 0;

    /// True once the user pressed Stop or the run must end. Poll it often enough that
    /// fit() returns within 200 ms; then return normally (the host marks the run cancelled).
    virtual bool stopRequested() const = 0;

    /// Pauses the training clock, lets the host evaluate predict() on the train and test
    /// data and log the point, restarts the clock. predict() must be valid when this is
    /// called. Returns Stop when the trainer should return from fit() now.
    virtual CheckpointAction checkpoint(const Checkpoint& cp) = 0;

    /// Stores a named fact about the run with it (e.g. "predicted_flops", a solver report).
    virtual void record(const QString& key, const QJsonValue& value) = 0;

    /// A line for the run's log (shown in the GUI and by the CLI with --verbose).
    virtual void log(const QString& message) = 0;
};

} // namespace tb
