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
/// With random_features = raw_gradient, block t is the p input columns with the largest gradient
/// ‖Xᵀ(Y − Ŷ)‖ (softmax(Ŷ) − Y for logistic), recomputed every stage (the paper's Table 2 on text:
/// "we ordered the features by the magnitude of the gradient"); the columns are stored with the
/// stage. Sparse inputs: raw_subset and raw_gradient, each block a sparse n × p SparseDesign
/// whose Gram is formed from its non-zeros.
/// One checkpoint per stage. The model stores the seeds' block index and W_t per stage:
/// O(stages × block × outputs) numbers (plus the PCA basis). predict(): probabilities for the
/// logistic flavour, the outputs otherwise.
class StagewiseTrainer final : public LsqTrainer {
public:
    explicit StagewiseTrainer(LsqConfig config);
    /// A new trainer of this configuration (read and checked once, by the plugin's create()).
    std::unique_ptr<Trainer> fresh() const override { return std::make_unique<StagewiseTrainer>(config()); }

    double modelBytes() const override;

    /// One fitted stage.
    struct Stage {
        Eigen::Index block = 0; ///< the feature block (seed deriveSeed(run seed, kBlockStream + block))
        Eigen::MatrixXd w;      ///< (p [+ degree·k] [+1]) × k: features, then G(Ŷ), then bias
        /// raw_gradient: the block's input columns (increasing), the model itself; empty for
        /// the generated kinds (regenerated from the seed).
        std::vector<Eigen::Index> columns;
    };

    /// The @p p rows of @p gradient (d × k) with the largest Euclidean norm (ties to the lower
    /// index; all d when p ≥ d), in increasing order: raw_gradient's block.
    static std::vector<Eigen::Index> gradientColumns(const Eigen::MatrixXd& gradient, Eigen::Index p);
    const std::vector<Stage>& stages() const { return m_stages; }

protected:
    void train(const DatasetView& data, const Eigen::Ref<const Eigen::MatrixXd>& z, RunContext& ctx) override;
    std::vector<train::RandomFeatures> maps() const override;
    void blockOutputs(const Eigen::Ref<const Eigen::MatrixXd>& z, const std::vector<Eigen::MatrixXd>& omega,
                      const std::vector<Eigen::VectorXd>& offset, Eigen::Ref<Eigen::MatrixXd> out) const override;
    Eigen::Index outputCount() const override { return m_stages.empty() ? 0 : m_stages.front().w.cols(); }
    Cost trainCost(const ProblemShape& shape, Eigen::Index q) const override;
    void trainSparse(const DatasetView& data, RunContext& ctx) override;
    Eigen::MatrixXd sparseOutputs(const SparseMatrix& x) const override;
    Cost sparseTrainCost(const ProblemShape& shape) const override;

private:
    /// The stages on any design: @p makeStage(t, Ŷ, G(Ŷ) or null, fit) builds stage t's design
    /// and calls fit(design, its bytes, its stored columns); false = stopped. @p fixedBytes: the
    /// trainer's buffers besides (a PCA projection).
    template <class MakeStage>
    void runStages(const DatasetView& data, RunContext& ctx, double fixedBytes, const MakeStage& makeStage);
    /// What raw_gradient orders the columns by: Y − Ŷ, or softmax(Ŷ) − Y for the logistic flavour.
    Eigen::MatrixXd orderingResidual(const Eigen::Ref<const Eigen::MatrixXd>& y, const Eigen::MatrixXd& outputs) const;

    /// Columns of G(Ŷ) added to the block at stage @p t (0-based) for @p k outputs.
    Eigen::Index extraColumns(std::size_t t, Eigen::Index k) const;

    std::vector<Stage> m_stages;
};

} // namespace tb::lsq
