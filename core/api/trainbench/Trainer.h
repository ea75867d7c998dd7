#pragma once
/// @file Trainer.h
/// One training run of one algorithm.

#include "DatasetView.h"
#include "RunContext.h"

#include <Eigen/Core>
#include <QJsonObject>
#include <memory>

namespace tb {

/// Shape of a training problem, for cost predictions before a run.
struct ProblemShape {
    Eigen::Index rows = 0;     ///< n
    Eigen::Index inputs = 0;   ///< d
    Eigen::Index outputs = 0;  ///< k
    Task task = Task::Regression;
    /// Sparse inputs: their number of non-zeros (the data a SparseTrainer gets); 0 when the
    /// inputs are dense. Appended last: plugins built before it read the fields above only.
    Eigen::Index nonZeros = 0;

    bool isSparse() const { return nonZeros > 0; }
};

/// A trainer instance is created per run with validated parameters, trained once with fit()
/// on a worker thread, then queried with predict(). Not thread-safe: the host calls it from
/// one thread at a time.
///
/// The host makes one trainer per configuration with TrainerFactory::create() — where the plugin
/// reads its parameters into its typed configuration and checks them, once — and asks that
/// prototype for each run's own trainer with fresh(). The prototype itself is never trained.
class Trainer {
public:
    virtual ~Trainer() = default;

    /// A new, untrained trainer with this one's configuration (its parameters already read and
    /// checked: no parsing again), for one run. Thread-safe with respect to other const calls.
    /// Default: null, and the host calls create() with the parameters again for each run; every
    /// plugin of this tree implements it (tst_conformance).
    virtual std::unique_ptr<Trainer> fresh() const { return nullptr; }

    /// Trains on @p data. Call ctx.checkpoint() at least at every epoch end; return when it
    /// answers Stop or when ctx.stopRequested(). Throw std::exception with a clear message
    /// on failure (the host marks the run failed; it never crashes).
    virtual void fit(const DatasetView& data, RunContext& ctx) = 0;

    /// Model outputs for the rows of @p x: n×k, regression values or class scores
    /// (the host takes the arg-max for accuracy). Valid from the first checkpoint on.
    virtual Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const = 0;

    /// Optional: predicted cost for a problem of this shape, e.g.
    /// {"flops": 7.4e9, "steps": [...]} — stored with the run as the fact "predicted_cost"
    /// and shown before it starts (`trainbench-cli list` asks for Fashion-MNIST's shape,
    /// 60000×784 → 10). The hosts read these keys, all optional; any other key is stored:
    ///  - "flops": floating-point operations of what the prediction covers;
    ///  - "predicted_seconds": the time that takes, if the trainer can tell (e.g. from a
    ///    calibrated rate); the host shows it next to the measured time after the run;
    ///  - "scope": a few words naming what is covered when it is not the whole of fit(),
    ///    e.g. "first sweep";
    ///  - "scope_measured_key": with "scope", the fact (RunContext::record) in which fit()
    ///    records the measured seconds of that part; otherwise the host compares with the
    ///    run's training time (the fact "measured_seconds", which the host records).
    /// Called on the thread and in the TBB arena the run will use, before fit(), outside the
    /// training clock. The default states nothing.
    virtual QJsonObject predictCost(const ProblemShape& shape) const
    {
        Q_UNUSED(shape);
        return {};
    }
};

} // namespace tb
