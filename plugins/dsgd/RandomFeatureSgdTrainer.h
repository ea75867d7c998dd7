#pragma once
/// @file RandomFeatureSgdTrainer.h
/// The paper's random-feature baseline: a fixed number of random features trained by SGD
/// (r-SGD; r-Pegasos with the hinge loss).

#include "DsgdConfig.h"
#include "KernelExpansion.h"
#include "KernelLoss.h"

#include <trainbench/Trainbench.h>

#include <optional>

namespace tb::dsgd {

/// One run of dsgd.random_features_sgd: f(x) = wᵀφ(x) with p fixed features
/// φ_j = √(2/p)·cos(ω_jᵀx + b_j) (or cos/sin pairs; φᵀφ approximates the kernel, Rahimi &
/// Recht 2007), drawn once from deriveSeed(deriveSeed(seed, kSeedFeatures), j), and the
/// weights w (p × k, zero at the start) trained on minibatches by the training library's Optimizer on
/// the flat vector w: gradient g = Φ_Bᵀl′/|B| + νw (the rule adds νw as weight decay), step
/// γ_t = θ/(1 + t/t₀) at step t. The objective is that of the doubly stochastic methods,
/// mean loss + ν/2·‖w‖² (≈ ν/2·‖f‖²_H), so with the squared loss it converges to the ridge
/// solution on those features, (ΦᵀΦ/n + νI)w = Φᵀy/n. With the hinge loss, optimizer sgd, t₀ = 1
/// and θ = 1/ν it is Pegasos (Shalev-Shwartz et al. 2007) without its optional projection.
///
/// Minibatches, checkpoints, Stop, divergence and the facts are as in DsgdTrainer; the
/// features of each batch come from the same KernelExpansion (and its projection cache).
/// Sparse inputs as in DsgdTrainer: compressed rows throughout, the Counter draw of the same
/// kernel's features (a different draw from the dense run of the same seed), costs and memory
/// by the non-zeros. Not thread-safe.
class RandomFeatureSgdTrainer final : public SparseTrainer {
public:
    explicit RandomFeatureSgdTrainer(DsgdConfig config);
    /// A new trainer of this configuration (read and checked once, by the plugin's create()).
    std::unique_ptr<Trainer> fresh() const override { return std::make_unique<RandomFeatureSgdTrainer>(config()); }

    void fit(const DatasetView& data, RunContext& ctx) override;
    /// As DsgdTrainer::predict().
    Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const override;
    /// As DsgdTrainer::predictSparse().
    Eigen::MatrixXd predictSparse(const SparseMatrix& x) const override;
    /// {"flops", "memory_bytes", "model_bytes", "steps", "features"}; a sparse shape is costed
    /// by its non-zeros (memory an upper bound).
    QJsonObject predictCost(const ProblemShape& shape) const override;

    const DsgdConfig& config() const { return m_config; }
    /// The model (its coefficients are the weights w).
    const KernelExpansion& model() const { return m_model; }
    double bandwidth() const { return m_bandwidth; }
    double workingMemoryBytes() const { return m_peakBytes; }

private:
    DsgdConfig m_config;
    std::optional<KernelLoss> m_loss;
    KernelExpansion m_model;
    double m_bandwidth = 0;
    double m_peakBytes = 0;
    StopToken m_stop;
};

} // namespace tb::dsgd
