#pragma once

#include <trainbench/SparseTrainer.h>
#include <trainbench/Trainbench.h>

#include <numerics/LeastSquares.h>

#include <vector>

namespace tb::linear {

/// Ridge least squares W = (XᵀX + λI)⁻¹XᵀY with an optional bias column; regression outputs
/// or one-hot class scores. Parameters (see LinearPlugin::algorithms()): ridge, gram_ridge, relative_ridge,
/// bias, iteration_ladder, and for wide sparse inputs cg_tolerance and iterations.
///
/// Without a ladder (the default): the closed form (tb::num::solveLeastSquares: Gram matrix,
/// Cholesky or the eigen fallback), one checkpoint at epoch 1.
///
/// With "iteration_ladder" = [m₁ < m₂ < …]: an anytime curve of the same problem. The closed form has
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
/// Sparse inputs (DatasetView::xSparse, a SparseTrainer): never a dense copy of X, the bias an
/// implicit constant column (the same objective as the dense design [X 1], nothing centred):
///  - with a ladder: the same anytime curve by CGLS on the sparse rows (SparseCgLeastSquares);
///  - without one, when d [+1] ≤ kNormalEquationsMaxWidth: the closed form, its Gram matrix
///    accumulated from the sparse rows (Σᵢ nnzᵢ²/2 multiply-adds, a dense (d+1)² matrix of at
///    most 128 MiB) and factorised as on dense data, one checkpoint at epoch 1;
///  - without one, when wider and n ≤ kNormalEquationsMaxWidth with n² ≤ d [+1] (far fewer rows
///    than columns: 40 documents of a 67-million-word vocabulary): the dual normal equations
///    (AAᵀ + λI)·α = Y, W = Aᵀα — exact, an n×n matrix no larger than one vector of the width
///    (CGLS would hold four), the Gram from the non-zeros sorted by column; the same W as the
///    primal (the minimum-norm one for λ = 0); one checkpoint at epoch 1, facts "solver",
///    "ridge_used", "gram_seconds", "solve_seconds";
///  - without one, when wider otherwise: CGLS from 0 until the relative normal-equation residual is at
///    most cg_tolerance or iterations are done, a checkpoint every kCgCheckpointEvery
///    iterations at epoch = iterations done (Stop is answered there and between row blocks).
///    Facts "solver", "ridge_used", "cg_iterations", "cg_relative_residual", "cg_converged",
///    "cg_first_checkpoint_seconds" (what predictCost()'s "scope" covers: the iteration count is
///    not known beforehand).
///
/// Not thread-safe (one run, one thread), as Trainer requires.
class RidgeTrainer final : public SparseTrainer {
public:
    /// Throws std::invalid_argument naming "iteration_ladder" when it is not strictly increasing or
    /// holds a count outside [1, maxCgIterations] (the schema checks the count of values).
    explicit RidgeTrainer(const QVariantMap& params);
    /// A new trainer of this configuration: the parameters read and checked once (the
    /// constructor), the weights not copied.
    std::unique_ptr<Trainer> fresh() const override
    {
        auto t = std::make_unique<RidgeTrainer>(*this);
        t->m_w = Eigen::MatrixXd();
        return t;
    }

    /// Most CG iterations a ladder may ask for.
    static constexpr int maxCgIterations = 1000000;
    /// Most rungs of a ladder.
    static constexpr int maxCgRungs = 64;
    /// Widest sparse design [X 1] solved by the normal equations: its Gram matrix is at most
    /// 4096² doubles (128 MiB; with the factor and the fallback's workspace ≈ 5× that at most)
    /// and its factorisation 4096³/3 ≈ 2·10¹⁰ flops, seconds; wider sparse inputs take CGLS,
    /// whose memory grows with the non-zeros and d·k only.
    static constexpr Eigen::Index kNormalEquationsMaxWidth = 4096;
    /// Whether a sparse design of @p rows × @p width (bias included), wider than
    /// kNormalEquationsMaxWidth, is solved in the dual form (no ladder): when its n×n Gram is
    /// small (n ≤ kNormalEquationsMaxWidth) and no larger than one vector of the width (n² ≤ width).
    static bool usesDualForm(Eigen::Index rows, Eigen::Index width)
    {
        return rows <= kNormalEquationsMaxWidth && double(rows) * double(rows) <= double(width);
    }
    /// CG iterations between two checkpoints on the sparse iterative path.
    static constexpr int kCgCheckpointEvery = 10;

    void fit(const DatasetView& data, RunContext& ctx) override;
    Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const override;
    Eigen::MatrixXd predictSparse(const SparseMatrix& x) const override;
    QJsonObject predictCost(const ProblemShape& shape) const override;

    const Eigen::MatrixXd& weights() const { return m_w; }

private:
    void fitClosedForm(const Eigen::MatrixXd& a, const DatasetView& data, RunContext& ctx);
    void fitCg(const Eigen::MatrixXd& a, const DatasetView& data, RunContext& ctx);
    void fitSparse(const DatasetView& data, RunContext& ctx);
    void fitSparseClosedForm(const DatasetView& data, RunContext& ctx);
    void fitSparseDual(const DatasetView& data, double squaredNorm, RunContext& ctx);
    void fitSparseCg(const DatasetView& data, double squaredNorm, RunContext& ctx);

    double m_commonRidge;    ///< "ridge": r of mean ½ loss + r‖w‖²
    double m_gramRidge;      ///< "gram_ridge": λ on the Gram diagonal, when given
    double m_ridge = 0;      ///< the Gram-diagonal λ of this fit's rows (fit() sets it)
    double m_relativeRidge;
    bool m_bias;
    std::vector<int> m_cgLadder; ///< CG iteration counts at the checkpoints; empty = closed form
    double m_cgTolerance = 1e-8;    ///< sparse iterative path: stop at this relative residual
    int m_cgMaxIterations = 2000;   ///< sparse iterative path: at most this many iterations
    Eigen::MatrixXd m_w;  ///< (d [+1]) × k
};

} // namespace tb::linear
