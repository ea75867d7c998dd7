#pragma once

#include <trainbench/Trainbench.h>

#include <LeastSquares.h>

namespace tb::linear {

/// Ridge least squares W = (XᵀX + λI)⁻¹XᵀY with an optional bias column; regression outputs
/// or one-hot class scores. Parameters (see LinearPlugin::algorithms()): ridge, relative_ridge,
/// bias.
class RidgeTrainer final : public Trainer {
public:
    explicit RidgeTrainer(const QVariantMap& params);

    void fit(const DatasetView& data, RunContext& ctx) override;
    Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const override;
    QJsonObject predictCost(const ProblemShape& shape) const override;

    const Eigen::MatrixXd& weights() const { return m_w; }

private:
    double m_ridge;
    double m_relativeRidge;
    bool m_bias;
    Eigen::MatrixXd m_w;  ///< (d [+1]) × k
};

} // namespace tb::linear
