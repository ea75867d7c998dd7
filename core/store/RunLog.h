#pragma once
/// @file RunLog.h
/// Where one run's row, checkpoints and end are written: the run store itself, or (on an MPI
/// worker) a proxy that sends them to the rank that owns the store (core/cluster).

#include "RunTypes.h"

#include <QJsonObject>
#include <QString>

namespace tb {

/// The writes a run makes while it trains (tb::Runner's only use of a store). Implementations
/// must be thread-safe: runs of one experiment may train on several threads at once.
class RunLog {
public:
    virtual ~RunLog() = default;
    /// Inserts the run's row and returns its id, −1 on failure.
    virtual qint64 createRun(const RunRecord& r) = 0;
    /// One checkpoint of @p runId; may return before it is on disk.
    virtual void appendMetric(qint64 runId, const MetricPoint& p) = 0;
    /// The end of the run: status, error message and @p info merged into the run's info.
    virtual void finishRun(qint64 runId, RunStatus status, const QString& error = {}, const QJsonObject& info = {}) = 0;
};

} // namespace tb
