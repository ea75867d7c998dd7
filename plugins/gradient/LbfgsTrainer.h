#pragma once
/// @file LbfgsTrainer.h
/// Full-batch L-BFGS on the flattened weights of the shared network (LBFGS++).

#include "GradientConfig.h"

#include <numerics/Mlp.h>
#include <trainbench/Trainbench.h>
#include <trainbench/toolkit/NetworkTrainer.h>

namespace tb::gradient {

/// The quasi-Newton reference: minimises f(w) = (1/n) Σ_i ℓ_i(w) + λ/2‖w‖² over all weights
/// at once with L-BFGS (LBFGS++'s BFGSMat and line searches, driven by our own loop so that
/// every iteration is a checkpoint). Each iteration = one "epoch" in the curves; the full-batch
/// gradient runs in parallel over fixed row chunks (BatchGradient), deterministic for any
/// thread count.
///
/// Ends after `iterations` iterations, when the gradient passes gradient_test with
/// gradient_tolerance (default ‖∇f‖ ≤ gradient_tolerance·max(1, ‖w‖); recorded as
/// "converged_at_iteration"), or when the line search cannot decrease f any further (logged
/// and recorded as "line_search"; the last accepted weights are kept). A non-finite f is
/// reported like the first-order trainers report divergence. Stop is polled between row
/// blocks of every gradient evaluation.
class LbfgsTrainer final : public NetworkTrainer {
public:
    explicit LbfgsTrainer(GradientConfig config);
    /// A new trainer of this configuration (read and checked once, by the plugin's create()).
    std::unique_ptr<Trainer> fresh() const override { return std::make_unique<LbfgsTrainer>(m_config); }

    void fit(const DatasetView& data, RunContext& ctx) override;
    /// {"flops_per_evaluation": one full-batch gradient (6·P·n)}, iterations take one or more;
    /// "memory_bytes": GradientConfig::workingMemoryBytes().
    QJsonObject predictCost(const ProblemShape& shape) const override;

private:
    GradientConfig m_config;
};

} // namespace tb::gradient
