#pragma once
/// @file CalibratedTrainer.h
/// lsq.calibrated: Algorithm 2 of Agarwal et al. 2014, calibrated least squares.

#include "LsqTrainer.h"

#include <vector>

namespace tb::lsq {

/// Calibrated least squares (unknown link). Predictions start at 0; each iteration t
///  (18) fits the residual: W_t = argmin ‖Y − Ŷ − F·W‖² + λ‖W‖² (Σ̂ factorised once), Ỹ = Ŷ + F·W_t;
///  (19) calibrates: Ŵ_t = argmin ‖Y − G(Ỹ)·Ŵ‖² with G(ỹ) = [ỹ, ỹ², …, ỹ^degree, 1] element-wise
///       over all k outputs (so each class sees every class's predictions), Ŷ = clip(G(Ỹ)·Ŵ_t),
///       clip = the Euclidean projection onto the probability simplex (classification; none for
///       regression).
/// One checkpoint per iteration. The model is the chain (W_t, Ŵ_t), t = 1 … T: prediction
/// replays it (the model is "not proper", as the paper notes).
class CalibratedTrainer final : public LsqTrainer {
public:
    explicit CalibratedTrainer(LsqConfig config);
    /// A new trainer of this configuration (read and checked once, by the plugin's create()).
    std::unique_ptr<Trainer> fresh() const override { return std::make_unique<CalibratedTrainer>(config()); }

    double modelBytes() const override;

    /// The calibration basis G(ỹ) of predictions @p y (n × k): n × (degree·k [+1]).
    static Eigen::MatrixXd basis(const Eigen::Ref<const Eigen::MatrixXd>& y, int degree, bool constant);

    /// One step of the chain.
    struct Step {
        Eigen::MatrixXd w;           ///< (p [+1]) × k, the residual fit
        Eigen::MatrixXd calibration; ///< (degree·k [+1]) × k
        /// The range of each uncalibrated output Ỹ on the training rows. A regression's prediction
        /// clamps Ỹ to it before the polynomial: outside the range the calibration was never
        /// fitted, and the chain of cubics turned a far-out prediction into 1e25 (found on a small
        /// regression set). A classifier's chain is bounded by the simplex projection, and there
        /// the clamp lost accuracy (Fashion-MNIST, 8000 features: 88.89 → 88.21 %), so it is not used.
        Eigen::RowVectorXd low, high;
    };
    const std::vector<Step>& steps() const { return m_steps; }

protected:
    void train(const DatasetView& data, const Eigen::Ref<const Eigen::MatrixXd>& z, RunContext& ctx) override;
    std::vector<train::RandomFeatures> maps() const override;
    void blockOutputs(const Eigen::Ref<const Eigen::MatrixXd>& z, const std::vector<Eigen::MatrixXd>& omega,
                      const std::vector<Eigen::VectorXd>& offset, Eigen::Ref<Eigen::MatrixXd> out) const override;
    Eigen::Index outputCount() const override { return m_steps.empty() ? 0 : m_steps.front().w.cols(); }
    Cost trainCost(const ProblemShape& shape, Eigen::Index q) const override;

private:
    Eigen::Index m_featureCount = 0;
    bool m_project = true; ///< classification: project calibrated predictions onto the simplex
    std::vector<Step> m_steps;
};

} // namespace tb::lsq
