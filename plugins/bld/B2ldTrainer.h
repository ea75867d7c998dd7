#pragma once
/// @file B2ldTrainer.h
/// Batch block-layer decomposition with L-BFGS per layer (Palagi & Seccia 2019, Algorithm 3).

#include "BldConfig.h"
#include "LayerStats.h"

#include <numerics/Mlp.h>
#include <trainbench/Trainbench.h>
#include <trainbench/toolkit/NetworkTrainer.h>

#include <QJsonArray>
#include <vector>

namespace tb::train {
class MlpObjective;
}

namespace tb::bld {

/// Minimises f(w) = (1/P)Σ_p‖y_p − net(x_p)‖² + ρ‖w‖² one layer at a time. A sweep visits the
/// layers in the configured order (backward by default); a visit of layer l
///  1. selects W_l as the block of the training library's MlpObjective, which runs the layers before l
///     once and caches their output: every evaluation passes through layers l … L−1 only;
///  2. skips the layer when ‖∇_l f‖₂ ≤ ε already, or when it is settled: its last update
///     decreased f by at most relative_decrease (relative to max(f, 1)) and no other layer
///     has decreased f by more than that since (a real change elsewhere wakes it);
///  3. computes the Armijo point w_a = w_l − α∇_l f (armijoStep: α = a, a/2, …);
///  4. runs L-BFGS on the block (LbfgsDriver, LBFGS++'s line search) for at most
///     inner_iterations iterations or until ‖∇_l f‖₂ ≤ ε;
///  5. takes the L-BFGS point w* when f(w*) ≤ f(w_a) (condition 4) and
///     f(w_l) − f(w*) ≥ (γ/a)‖w* − w_l‖² (condition 5; the Armijo point itself satisfies it),
///     else the Armijo point. When LBFGS++ cannot finish a line search the driver returns its
///     last accepted point, which the same two conditions judge (none when the first line
///     search failed: then the Armijo point); the failure is counted.
/// With output_solve = closed_form the output layer is instead the ridge least-squares
/// minimiser (H'H + Pρ I)W = H'Y over the last hidden layer's outputs H.
/// After a sweep ε ← δε. The run ends when ‖∇f‖₂ ≤ gradient_tolerance after a sweep, when
/// no visit of a sweep decreased f by more than relative_decrease (the paper's criterion ii
/// "with respect to each block"; a layer skipped by its gradient test does not count as
/// quiet, since ε shrinks until it is worked on), at the time limit — the host's budget
/// (RunContext::budgetSpent(), polled after every L-BFGS iteration) — or after `sweeps` sweeps.
///
/// A checkpoint follows every block visit that changed weights (epoch = sweeps done + the
/// fraction of this sweep's layers visited) and one comes first at epoch 0; "layer_updates"
/// (LayerStats per layer) is recorded before each. Stop is polled inside every evaluation
/// (row blocks of MlpObjective) and the forward cache, so it takes effect within a fraction of
/// one evaluation. Evaluations run in parallel in the run's arena over fixed row chunks:
/// the same seed and thread count give the same bits.
class B2ldTrainer final : public NetworkTrainer {
public:
    /// Throws std::invalid_argument unless @p config is for Algorithm::B2ld.
    explicit B2ldTrainer(BldConfig config);
    /// A new trainer of this configuration (read and checked once, by the plugin's create()).
    std::unique_ptr<Trainer> fresh() const override { return std::make_unique<B2ldTrainer>(m_config); }
    ~B2ldTrainer() override;

    void fit(const DatasetView& data, RunContext& ctx) override;
    /// "flops" and "predicted_seconds"-free estimate of the first sweep (scope "first sweep",
    /// measured as the fact "first_sweep_seconds"), "memory_bytes", "model_bytes".
    QJsonObject predictCost(const ProblemShape& shape) const override;

    /// Per weight layer, after fit().
    const std::vector<LayerStats>& layerStats() const { return m_stats; }
    /// LayerStats as the fact "layer_updates".
    QJsonArray layerUpdates() const;
    /// Why the last fit() ended: "gradient", "relative decrease", "time limit", "sweeps",
    /// "stopped" (Stop or the host's budget).
    const QString& endReason() const { return m_endReason; }
    /// f at the last accepted point.
    double objective() const { return m_objective; }

    /// The working memory of a run on @p shape, in bytes: the transposed inputs, the forward
    /// cache, the chunked evaluation buffers, the L-BFGS memory, the closed-form buffers.
    double workingMemory(const ProblemShape& shape) const;

private:
    enum class Visit { Updated, Unchanged, Skipped, Stopped };
    Visit visit(train::MlpObjective& f, int layer, double epsilon, const DatasetView& data, RunContext& ctx);
    Visit closedForm(train::MlpObjective& f, const DatasetView& data, RunContext& ctx);

    BldConfig m_config;
    std::vector<LayerStats> m_stats;
    std::vector<bool> m_settled;
    double m_objective = 0;
    double m_rho = 0;
    QString m_endReason;
};

} // namespace tb::bld
