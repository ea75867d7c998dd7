#pragma once

#include <trainbench/Trainbench.h>

#include <LeastSquares.h>

#include <vector>

namespace tb::linear {

/// Ridge least squares W = (XᵀX + λI)⁻¹XᵀY with an optional bias column; regression outputs
/// or one-hot class scores. Parameters (see LinearPlugin::algorithms()): ridge, relative_ridge,
/// bias, cg_ladder.
///
/// Without a ladder (the default): the closed form (tb::num::solveLeastSquares: Gram matrix,
/// Cholesky or the eigen fallback), one checkpoint at epoch 1.
///
/// With "cg_ladder" = [m₁ < m₂ < …]: an anytime curve of the same problem. The closed form has
/// no intermediate model, and re-solving it on fewer rows would answer another question (less
/// data), so the problem is solved by conjugate gradients on the normal equations
/// (tb::num::CgLeastSquares, CGLS: never forms XᵀX) from W = 0, with a checkpoint after mᵢ
/// iterations at epoch mᵢ, loss (‖AW − Y‖² + λ‖W‖²)/n. CG's iterate m does not depend on the
/// iterations after it, so the run goes on from one checkpoint to the next instead of solving
/// again from scratch: the training clock up to checkpoint i is exactly what a run of mᵢ
/// iterations costs (the copy of X with its bias column included), and the clock is never
/// restarted (Checkpoint::restartClock stays false). The iterates tend to the closed form's
/// solution (the minimum-norm one when λ = 0 and X is rank-deficient).
///
/// Facts: "solver" (the closed form's report, or the CG settings), "gram_seconds" and
/// "solve_seconds" (closed form); "ridge_used" and "cg_relative_residuals" (per checkpoint,
/// max over outputs of ‖Aᵀ(y − Aw) − λw‖ / ‖Aᵀy‖) with a ladder.
///
/// Not thread-safe (one run, one thread), as Trainer requires.
class RidgeTrainer final : public Trainer {
public:
    /// Throws std::invalid_argument naming "cg_ladder" when it is not strictly increasing or
    /// holds a count outside [1, maxCgIterations] (the schema checks the count of values).
    explicit RidgeTrainer(const QVariantMap& params);

    /// Most CG iterations a ladder may ask for.
    static constexpr int maxCgIterations = 1000000;
    /// Most rungs of a ladder.
    static constexpr int maxCgRungs = 64;

    void fit(const DatasetView& data, RunContext& ctx) override;
    Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const override;
    QJsonObject predictCost(const ProblemShape& shape) const override;

    const Eigen::MatrixXd& weights() const { return m_w; }

private:
    void fitClosedForm(const Eigen::MatrixXd& a, const DatasetView& data, RunContext& ctx);
    void fitCg(const Eigen::MatrixXd& a, const DatasetView& data, RunContext& ctx);

    double m_ridge;
    double m_relativeRidge;
    bool m_bias;
    std::vector<int> m_cgLadder; ///< CG iteration counts at the checkpoints; empty = closed form
    Eigen::MatrixXd m_w;  ///< (d [+1]) × k
};

} // namespace tb::linear
