#pragma once
/// @file Trainer.h
/// One training run of one algorithm.

#include "DatasetView.h"
#include "RunContext.h"

#include <Eigen/Core>
#include <QJsonObject>

namespace tb {

/// Shape of a training problem, for cost predictions before a run.
struct ProblemShape {
    Eigen::Index rows = 0;     ///< n
    Eigen::Index inputs = 0;   ///< d
    Eigen::Index outputs = 0;  ///< k
    Task task = Task::Regression;
};

/// A trainer instance is created per run with validated parameters, trained once with fit()
/// on a worker thread, then queried with predict(). Not thread-safe: the host calls it from
/// one thread at a time.
class Trainer {
public:
    virtual ~Trainer() = default;

    /// Trains on @p data. Call ctx.checkpoint() at least at every epoch end; return when it
    /// answers Stop or when ctx.stopRequested(). Throw std::exception with a clear message
    /// on failure (the host marks the run failed; it never crashes).
    virtual void fit(const DatasetView& data, RunContext& ctx) = 0;

    /// Model outputs for the rows of @p x: n×k, regression values or class scores
    /// (the host takes the arg-max for accuracy). Valid from the first checkpoint on.
    virtual Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const = 0;

    /// Optional: predicted cost for a problem of this shape, e.g.
    /// {"flops": 7.4e9, "steps": [...]} — stored with the run and shown before it starts.
    virtual QJsonObject predictCost(const ProblemShape& shape) const
    {
        Q_UNUSED(shape);
        return {};
    }
};

} // namespace tb
