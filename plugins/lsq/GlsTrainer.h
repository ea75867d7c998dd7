#pragma once
/// @file GlsTrainer.h
/// lsq.gls: Algorithm 1 of Agarwal et al. 2014 on one set of features.

#include "LsqTrainer.h"

namespace tb::lsq {

/// Generalized least squares: the features F of the inputs (raw, or p random features), Σ̂ =
/// FᵀF/n factorised once, then `iterations` steps W ← W − (L·Σ̂ + λI)⁻¹·∇ℓ, one checkpoint each.
/// The identity link with L = 1 is least squares (the first iterate is the ridge solution); the
/// softmax link is multinomial logistic regression. predict(): probabilities for softmax.
/// Sparse inputs: random_features = raw only, F = [X 1] from the sparse rows (SparseDesign), its
/// Gram matrix of at most kSparseGramMaxWidth columns; wider inputs are refused with a message
/// naming lsq.stagewise's raw_gradient and linear.ridge.
class GlsTrainer final : public LsqTrainer {
public:
    explicit GlsTrainer(LsqConfig config);
    /// A new trainer of this configuration (read and checked once, by the plugin's create()).
    std::unique_ptr<Trainer> fresh() const override { return std::make_unique<GlsTrainer>(config()); }

    double modelBytes() const override;
    /// The link of the last fit (auto resolved by the task).
    Link link() const { return m_link; }
    /// The weights ((p [+1]) × k) of the last checkpoint.
    const Eigen::MatrixXd& weights() const { return m_w; }
    /// The last fit's solver report.
    const GlsReport& report() const { return m_report; }

protected:
    void train(const DatasetView& data, const Eigen::Ref<const Eigen::MatrixXd>& z, RunContext& ctx) override;
    std::vector<train::RandomFeatures> maps() const override;
    void blockOutputs(const Eigen::Ref<const Eigen::MatrixXd>& z, const std::vector<Eigen::MatrixXd>& omega,
                      const std::vector<Eigen::VectorXd>& offset, Eigen::Ref<Eigen::MatrixXd> out) const override;
    Eigen::Index outputCount() const override { return m_w.cols(); }
    Cost trainCost(const ProblemShape& shape, Eigen::Index q) const override;
    void trainSparse(const DatasetView& data, RunContext& ctx) override;
    Eigen::MatrixXd sparseOutputs(const SparseMatrix& x) const override;
    Cost sparseTrainCost(const ProblemShape& shape) const override;

private:
    /// Algorithm 1 on @p design (a train::DesignMatrix or a SparseDesign) of @p designBytes
    /// (the trainer's own copies), one checkpoint per iteration.
    template <class Design>
    void fitDesign(const Design& design, double designBytes, const DatasetView& data, RunContext& ctx);

    Link m_link = Link::Identity;
    Eigen::Index m_featureCount = 0; ///< p of the last fit
    Eigen::MatrixXd m_w;
    GlsReport m_report;
};

} // namespace tb::lsq
