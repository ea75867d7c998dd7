#pragma once
/// @file KernelRidgeTrainer.h
/// Exact kernel ridge regression on a subsample: the closed-form baseline the doubly
/// stochastic gradients converge to (Dai et al. 2014, the convergence plot).

#include "DsgdConfig.h"
#include "KernelLoss.h"

#include <numerics/LeastSquares.h>
#include <trainbench/Trainbench.h>

#include <optional>

namespace tb::dsgd {

/// One run of dsgd.kernel_ridge: m = min(subsample, n) training rows drawn without replacement
/// (deriveSeed(seed, kSeedSubsample)), the exact kernel matrix K (m × m, Gaussian
/// exp(−‖x − x′‖²/(2σ²)) or Laplace exp(−‖x − x′‖₁/σ), the kernels the random features
/// approximate), and the minimiser of (1/m)Σ ½‖f(x_i) − y_i‖² + ν/2·‖f‖²_H over the RKHS:
/// f = Σ_i a_i k(x_i, ·) with (K + mν·I)a = y (tb::num::solveNormalEquations: Cholesky, or the
/// eigen pseudo-inverse when K + mνI is singular, e.g. for ν = 0; the report is the fact
/// "kernel_ridge_solve"). Classification targets are regressed one-hot (arg-max decides).
/// One checkpoint (epoch 1) with the objective's value as loss.
///
/// The model stores the subsample (m × d) and a (m × k): memory O(m·(d + k)), the baseline's
/// price. The kernel rows are computed in parallel over fixed row blocks (the same bits for
/// any thread count); Stop is polled between them and inside the factorisation, and by
/// predict() during the host's evaluation (an empty matrix when it fires). Not thread-safe.
class KernelRidgeTrainer final : public Trainer {
public:
    explicit KernelRidgeTrainer(DsgdConfig config);
    /// A new trainer of this configuration (read and checked once, by the plugin's create()).
    std::unique_ptr<Trainer> fresh() const override { return std::make_unique<KernelRidgeTrainer>(config()); }

    void fit(const DatasetView& data, RunContext& ctx) override;
    /// f(x) (rows × k); an empty matrix if the run's stop token fired while fit() runs.
    /// Throws std::logic_error before fit(), std::invalid_argument on a column mismatch.
    Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const override;
    /// {"flops", "memory_bytes", "model_bytes", "rows"}.
    QJsonObject predictCost(const ProblemShape& shape) const override;

    /// k(a_i, b_j) for the rows of @p a and @p b: a.rows() × b.rows(), for the kernel of @p kind
    /// (gaussian_cos and gaussian_cos_sin: Gaussian; laplace_cos: Laplace) and bandwidth
    /// @p sigma. Parallel over fixed blocks of rows of @p a; returns false if @p stop fired.
    static bool kernelMatrix(train::FeatureKind kind, double sigma, const Eigen::Ref<const Eigen::MatrixXd>& a,
                             const Eigen::Ref<const Eigen::MatrixXd>& b, Eigen::MatrixXd& out, StopToken stop = {});

    const DsgdConfig& config() const { return m_config; }
    double bandwidth() const { return m_bandwidth; }
    /// The subsample's rows (m × d) and the coefficients a (m × k).
    const Eigen::MatrixXd& centres() const { return m_centres; }
    const Eigen::MatrixXd& coefficients() const { return m_coefficients; }
    const num::SolveReport& report() const { return m_report; }

private:
    DsgdConfig m_config;
    double m_bandwidth = 0;
    Eigen::MatrixXd m_centres;
    Eigen::MatrixXd m_coefficients;
    num::SolveReport m_report;
    bool m_fitted = false;
    StopToken m_stop;
};

} // namespace tb::dsgd
