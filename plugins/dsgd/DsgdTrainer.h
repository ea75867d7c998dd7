#pragma once
/// @file DsgdTrainer.h
/// Doubly stochastic gradients (Dai et al. 2014): Algorithm 1 with blocks of features, and the
/// block-preconditioned variant of the authors' code.

#include "DsgdConfig.h"
#include "KernelExpansion.h"
#include "KernelLoss.h"

#include <trainbench/Trainbench.h>

#include <QJsonArray>
#include <optional>

namespace tb::train {
struct LoopPosition;
struct StepResult;
} // namespace tb::train

namespace tb::dsgd {

/// One run of dsgd.doubly_stochastic or dsgd.preconditioned.
///
/// Step t (from 0) of both: take the next minibatch B of |B| rows (BatchSchedule); predict
/// f(x_b) for them with every feature so far, regenerating each ω_j from its seed (or reading
/// it from the projection cache; KernelExpansion, Algorithm 2); take the loss derivatives
/// l′_b = ∂l/∂f(x_b); draw the r new features T … T+r−1 (seeds deriveSeed(feature seed, j));
/// set γ = θ/(1 + t/t₀) (lr = θ, inverse_decay = 1/t₀); shrink every earlier coefficient by (1 − γν); append the new block's
/// coefficients (r × k, k = model outputs):
///  - dsgd.doubly_stochastic (Algorithm 1): α_j = −γ/(r·|B|) · Σ_b l′_b φ_j(x_b) with
///    φ_j = √2·cos(ω_jᵀx + b_j) (or √2·cos/√2·sin pairs): the mean over the batch of the
///    doubly stochastic functional gradient, its r features each weighted 1/r so that the
///    estimate of the kernel stays unbiased. r = 1, |B| = 1 is Algorithm 1 verbatim.
///  - dsgd.preconditioned (zixu1986/Doubly_Stochastic_Gradients, doubly_sgd_pcd_lr_8m.m):
///    with Z = Φ/√r (the authors' normalised block features) the block's weights are
///    −γ·(ZᵀZ/|B| + (ν + ε)I)⁻¹ Zᵀl′/|B|, i.e. on the √2-scaled features
///    α = −γ·(ΦᵀΦ/|B| + r(ν + ε)I)⁻¹ Φᵀl′/|B|: one preconditioned step on the block's
///    coefficients, the preconditioner being the block's feature covariance on the batch
///    (a Cholesky solve through tb::num::solveNormalEquations; for the squared loss and γ = 1 it
///    is the ridge least-squares fit of the residual on the new block).
///
/// fit() is that step: the training library's TrainingLoop runs the steps (Stop, the cadence,
/// divergence). Checkpoints (BatchSchedule::checkpointDue): Checkpoint::epoch = rows visited / n, loss =
/// the mean minibatch loss (before each update) since the previous checkpoint. Facts: the
/// bandwidth, the plan (steps, features, batch), "checkpoint_features" (T at each
/// checkpoint), "working_memory_bytes" (the largest buffers this trainer held: model, cache,
/// remembered sums, batch and solve buffers, evaluation temporaries), and for the
/// preconditioned variant "precondition_fallbacks" (solves that left Cholesky).
///
/// Stop is polled before every step, between feature chunks of every prediction and inside
/// the Gram and Cholesky kernels. predict() polls the run's stop token while fit() runs
/// (i.e. during the host's checkpoint evaluations) and returns an empty matrix when it fires.
/// A non-finite minibatch loss ends the run as diverged (checkpoint with an infinite loss).
/// Sparse inputs (DatasetView::xSparse): the same steps on compressed rows, never densified;
/// the model's projections are then the Counter draw (FeatureDraw, SparseFeatures), so each
/// step costs the batch's non-zeros × features instead of its width × features, and the model
/// differs from the dense run of the same seed (another draw of the same kernel's features).
/// The median trick takes its distances from the non-zeros. predictSparse() evaluates sparse
/// rows; predict() on dense rows of a sparse-trained model goes through their non-zeros.
///
/// Not thread-safe; fit() and predict() parallelise in the caller's TBB arena, with results
/// that depend only on the seed and the thread count.
class DsgdTrainer final : public SparseTrainer {
public:
    explicit DsgdTrainer(DsgdConfig config);
    /// A new trainer of this configuration (read and checked once, by the plugin's create()).
    std::unique_ptr<Trainer> fresh() const override { return std::make_unique<DsgdTrainer>(config()); }

    /// Throws std::invalid_argument for bad data (KernelSetup::checkData), a loss that does
    /// not fit the task (naming "loss"), a failed median trick, or a run whose planned memory
    /// is not available.
    void fit(const DatasetView& data, RunContext& ctx) override;
    /// Scores for the host (KernelLoss::scores); an empty matrix if the run's stop token fired
    /// during a checkpoint's evaluation. Throws std::logic_error before fit(),
    /// std::invalid_argument on a column mismatch.
    Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const override;
    /// predict() for sparse rows (the same scores as predict() of the rows made dense, up to
    /// rounding). Same errors and Stop behaviour as predict().
    Eigen::MatrixXd predictSparse(const SparseMatrix& x) const override;
    /// {"flops", "memory_bytes" (predicted peak working memory), "model_bytes", "steps",
    /// "features"} for a problem of this shape; a sparse shape (nonZeros > 0) is costed by its
    /// non-zeros, never rows × inputs, and its memory is an upper bound.
    QJsonObject predictCost(const ProblemShape& shape) const override;

    /// The planned run on @p rows training rows.
    struct Plan {
        Eigen::Index batch = 0;     ///< |B| (batch_size clamped to the rows)
        Eigen::Index steps = 0;     ///< minibatch steps (epochs, or max_features / r)
        Eigen::Index perStep = 0;   ///< r
        Eigen::Index features = 0;  ///< T at the end
    };
    static Plan plan(const DsgdConfig& c, Eigen::Index rows);

    const DsgdConfig& config() const { return m_config; }
    /// The model (empty before fit()).
    const KernelExpansion& model() const { return m_model; }
    /// The kernel bandwidth σ used by the last fit().
    double bandwidth() const { return m_bandwidth; }
    /// The largest working memory the last fit() held, in bytes (see the class comment).
    double workingMemoryBytes() const { return m_peakBytes; }

private:
    struct Steps; ///< one fit's steps: what they read, their buffers (DsgdTrainer.cpp)

    // The steps of fit(): the memory the plan needs, the model (bandwidth, feature map), then the
    // training loop's minibatch steps.
    /// Checks the planned memory against what is available (KernelSetup::checkMemory) and sets
    /// m_evalBytes; returns the bytes of one step's batch.
    double checkPlannedMemory(const DatasetView& data, const Plan& p, Eigen::Index k, int threads);
    void setUpModel(const DatasetView& data, const Plan& p, Eigen::Index k, std::uint64_t seed,
                    RunContext& ctx);
    /// One minibatch step: its loss, a block of new features and their coefficients.
    train::StepResult step(Steps& s, const train::LoopPosition& at, RunContext& ctx);
    /// The preconditioned step's coefficients in s.alpha (a ridge solve on the block's features);
    /// false when stopped.
    bool preconditionedStep(Steps& s, Eigen::Index m, double gamma, Eigen::Index step, RunContext& ctx);
    void account(double batchBytes);
    QJsonObject predictSparseCost(const ProblemShape& shape) const;

    DsgdConfig m_config;
    std::optional<KernelLoss> m_loss;
    KernelExpansion m_model;
    double m_bandwidth = 0;
    double m_peakBytes = 0;
    double m_evalBytes = 0;
    StopToken m_stop;  ///< the run's token while fit() runs; default (never stops) otherwise
};

} // namespace tb::dsgd
