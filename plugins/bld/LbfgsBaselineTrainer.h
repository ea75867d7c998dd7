#pragma once
/// @file LbfgsBaselineTrainer.h
/// The batch baseline of Palagi & Seccia (2019): L-BFGS on all weights at once, with the same
/// objective, L-BFGS settings and stopping criteria as B2LD.

#include "BldConfig.h"

#include <numerics/Mlp.h>
#include <trainbench/Trainbench.h>
#include <trainbench/toolkit/NetworkTrainer.h>

namespace tb::bld {

/// Minimises f(w) = (1/P)Σ‖y − net(x)‖² + ρ‖w‖² over every weight with the toolkit's
/// LbfgsDriver (LBFGS++ line searches). Ends when ‖∇f‖₂ ≤ gradient_tolerance (criterion i),
/// when f decreased by at most relative_decrease·max(f, 1) over the last decrease_window
/// iterations (criterion ii; the paper's, per iteration, is window 1, the default), at the
/// time limit (the host's budget, RunContext::budgetSpent(), polled after every iteration),
/// after `iterations` iterations, or when the
/// line search cannot decrease f any more (the last accepted point is kept; recorded as
/// "line_search"). A checkpoint follows every checkpoint_every iterations (epoch =
/// iterations) and the last one; one comes first at epoch 0.
///
/// Evaluations run in parallel in the run's arena over fixed row chunks (BatchGradient):
/// the same seed and thread count give the same bits. Stop is polled between row blocks.
class LbfgsBaselineTrainer final : public NetworkTrainer {
public:
    /// Throws std::invalid_argument unless @p config is for Algorithm::Lbfgs.
    explicit LbfgsBaselineTrainer(BldConfig config);
    /// A new trainer of this configuration (read and checked once, by the plugin's create()).
    std::unique_ptr<Trainer> fresh() const override { return std::make_unique<LbfgsBaselineTrainer>(m_config); }

    void fit(const DatasetView& data, RunContext& ctx) override;
    /// The first decrease window: "flops" (scope "first window", measured as
    /// "first_window_seconds"), "memory_bytes", "model_bytes".
    QJsonObject predictCost(const ProblemShape& shape) const override;

    /// Why the last fit() ended: "gradient", "relative decrease", "time limit", "iterations",
    /// "line search", "no progress", "stopped".
    const QString& endReason() const { return m_endReason; }
    double objective() const { return m_objective; }

private:
    BldConfig m_config;
    QString m_endReason;
    double m_objective = 0;
};

} // namespace tb::bld
