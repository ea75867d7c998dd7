#pragma once
/// @file NetworkTrainer.h
/// The base of every trainer whose model is one feed-forward network (tb::num::Mlp): BPLS, the
/// gradient methods, L-BFGS, block-layer decomposition. It owns the network and gives the parts
/// those trainers used to write each: predict() (the network's outputs, checked), network(),
/// the training-set checks and the facts "network" and "weights". A subclass's fit() builds
/// m_net and trains it — its own algorithm only.
///
/// Part of the SDK's bridge to the training library (trainbench/toolkit/): header-only, for
/// plugins, which link tb::numerics and tb::training.

#include <trainbench/RunContext.h>
#include <trainbench/toolkit/DataChecks.h>
#include <trainbench/Trainer.h>

#include <numerics/Mlp.h>

#include <QString>
#include <stdexcept>
#include <string>

namespace tb {

/// A Trainer with a num::Mlp model. Not thread-safe (as Trainer); predict() is const and may run
/// concurrently with itself.
class NetworkTrainer : public Trainer {
public:
    /// The network's outputs for the rows of @p x (regression values or class scores). Throws
    /// std::logic_error before fit() has built the network, std::invalid_argument when @p x has
    /// another number of columns than the network has inputs.
    Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const override
    {
        if (m_net.layerCount() == 0)
            throw std::logic_error(m_family + ": predict() called before fit()");
        if (x.cols() != m_net.inputs())
            throw std::invalid_argument(m_family + ": predict() got " + std::to_string(x.cols()) +
                                        " inputs, the network has " + std::to_string(m_net.inputs()));
        return m_net.predict(x);
    }

    /// The trained network (empty before fit()).
    const num::Mlp& network() const { return m_net; }

protected:
    /// @p family prefixes every message, e.g. "gradient".
    explicit NetworkTrainer(std::string family) : m_family(std::move(family)) {}

    /// Throws std::invalid_argument naming the family for an empty training set, targets whose
    /// rows do not match the inputs', and — with @p requireFinite — NaN or Inf in either, named by
    /// row and column (toolkit::requireFinite()).
    void checkTrainingData(const DatasetView& data, bool requireFinite) const
    {
        if (data.rows() < 1)
            throw std::invalid_argument(m_family + ": the training set is empty");
        if (data.y.rows() != data.rows())
            throw std::invalid_argument(m_family + ": " + std::to_string(data.rows()) + " input rows but " +
                                        std::to_string(data.y.rows()) + " target rows");
        if (requireFinite) {
            toolkit::requireFinite(data.x, m_family, "inputs");
            toolkit::requireFinite(data.y, m_family, "targets");
        }
    }

    /// Records the facts "network" (its description) and "weights" (their number).
    void recordNetwork(RunContext& ctx) const
    {
        ctx.record(QStringLiteral("network"), QString::fromStdString(m_net.describe()));
        ctx.record(QStringLiteral("weights"), double(m_net.parameterCount()));
    }

    num::Mlp m_net;       ///< the model; empty (no layers) until fit() builds it
    std::string m_family; ///< message prefix
};

} // namespace tb
