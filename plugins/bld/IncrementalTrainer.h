#pragma once
/// @file IncrementalTrainer.h
/// Minibatch methods of Palagi & Seccia (2019): BLInG (block-layer incremental gradient,
/// Algorithm 5) and its non-decomposed counterpart IG.

#include "BldConfig.h"
#include "LayerStats.h"

#include <numerics/Mlp.h>
#include <trainbench/Trainbench.h>
#include <trainbench/toolkit/NetworkTrainer.h>

#include <QJsonArray>
#include <vector>

namespace tb::bld {

/// The training rows are split once into a seeded random partition of minibatches of
/// batch_size rows, visited in the same order every epoch (the paper's incremental rule).
/// For minibatch h, f_h(w) = Σ_{p∈B_h} ‖y_p − net(x_p)‖² + |B_h|·(ρ/P)·‖w‖², so that
/// Σ_h f_h = P·f.
///  - BLInG: the layers are updated one after another (backward order by default), each from
///    the gradient of f_h at the current weights: d_l = −∇_l f_h,
///    W_l ← W_l + α·d_l / max(floor, min(ceiling, ‖d_l‖)). Only the layers a change affects
///    are recomputed (LayerwisePass).
///  - IG: one gradient of f_h for all layers, the same normalised step on the whole vector.
/// After every minibatch α ← α(1 − εα) (train::DiminishingStep; ε = diminishing_decay), α₀ = lr
/// or the paper's (IG 0.5, BLInG 0.5 / max(1, L − 2)).
///
/// fit() is the minibatch step: the training library's TrainingLoop runs the epochs. A checkpoint ends
/// every epoch with f(w) over the whole training set (one forward pass,
/// in parallel, counted as training time). Stop and the time limit (the host's budget,
/// RunContext::budgetSpent()) are checked after every minibatch; at the limit a checkpoint ends
/// the run at the fractional epoch reached. Minibatch passes run on the calling thread (a sequential chain of small
/// updates); the same seed gives the same bits for any thread count.
class IncrementalTrainer final : public NetworkTrainer {
public:
    /// Throws std::invalid_argument unless @p config is for Algorithm::Bling or Algorithm::Ig.
    explicit IncrementalTrainer(BldConfig config);
    /// A new trainer of this configuration (read and checked once, by the plugin's create()).
    std::unique_ptr<Trainer> fresh() const override { return std::make_unique<IncrementalTrainer>(m_config); }

    void fit(const DatasetView& data, RunContext& ctx) override;
    /// The first epoch: "flops" (scope "first epoch", measured as "first_epoch_seconds"),
    /// "memory_bytes", "model_bytes".
    QJsonObject predictCost(const ProblemShape& shape) const override;

    /// Steps per layer (BLInG) as the fact "layer_updates".
    QJsonArray layerUpdates() const;
    /// α after the last minibatch.
    double step() const { return m_step; }

private:
    BldConfig m_config;
    std::vector<LayerStats> m_stats;
    double m_step = 0;
};

} // namespace tb::bld
