#pragma once
/// @file StagewiseTrainer.h
/// lsq.stagewise: Algorithm 3 of Agarwal et al. 2014, stagewise regression on blocks of
/// generated features.

#include "LsqTrainer.h"

#include <vector>

namespace tb::lsq {

/// Stagewise regression. For t = 1 … T: GEN returns block t of p features (regenerated from
/// its seed, never stored), then, by flavour,
///  - linear:     W_t = argmin ‖Y − Ŷ − F_t·W‖² + λ‖W‖², Ŷ ← Ŷ + F_t·W_t;
///  - logistic:   `inner_iterations` GLS steps with the softmax link on F_t, the running logits Ŷ
///                as a fixed offset (the paper's 50 inner loops), Ŷ ← Ŷ + F_t·W_t;
///  - calibrated: W_t = argmin ‖Y − [F_t, G(Ŷ)]·W‖² + λ‖W‖² with G(Ŷ) = Ŷ, Ŷ², …, Ŷ^degree (the
///                paper's reading: "we only use the previous predictions as features in our new
///                batch"; none at t = 1), Ŷ ← [F_t, G(Ŷ)]·W_t.
/// One checkpoint per stage. The model stores the seeds' block index and W_t per stage:
/// O(stages × block × outputs) numbers (plus the PCA basis). predict(): probabilities for the
/// logistic flavour, the outputs otherwise.
class StagewiseTrainer final : public LsqTrainer {
public:
    explicit StagewiseTrainer(LsqConfig config);

    double modelBytes() const override;

    /// One fitted stage.
    struct Stage {
        Eigen::Index block = 0; ///< the feature block (seed deriveSeed(run seed, kBlockStream + block))
        Eigen::MatrixXd w;      ///< (p [+ degree·k] [+1]) × k: features, then G(Ŷ), then bias
    };
    const std::vector<Stage>& stages() const { return m_stages; }

protected:
    void train(const DatasetView& data, const Eigen::Ref<const Eigen::MatrixXd>& z, RunContext& ctx) override;
    std::vector<train::RandomFeatures> maps() const override;
    void blockOutputs(const Eigen::Ref<const Eigen::MatrixXd>& z, const std::vector<Eigen::MatrixXd>& omega,
                      const std::vector<Eigen::VectorXd>& offset, Eigen::Ref<Eigen::MatrixXd> out) const override;
    Eigen::Index outputCount() const override { return m_stages.empty() ? 0 : m_stages.front().w.cols(); }
    Cost trainCost(const ProblemShape& shape, Eigen::Index q) const override;

private:
    /// Columns of G(Ŷ) added to the block at stage @p t (0-based) for @p k outputs.
    Eigen::Index extraColumns(std::size_t t, Eigen::Index k) const;

    std::vector<Stage> m_stages;
};

} // namespace tb::lsq
