#pragma once
/// @file LsqTrainer.h
/// What the three Least Squares Revisited trainers share: input checks, the feature map, the
/// designs built from it, prediction in fixed row blocks, memory accounting and cost prediction.

#include "GlsSolver.h"
#include "LsqConfig.h"

#include <training/DesignMatrix.h>
#include <training/FeatureMap.h>
#include <training/RandomFeatures.h>

#include <trainbench/SparseTrainer.h>
#include <trainbench/Trainbench.h>

#include <QJsonArray>
#include <QJsonObject>

#include <vector>

namespace tb::lsq {

/// Base of GlsTrainer, CalibratedTrainer and StagewiseTrainer.
///
/// fit() checks the data (finite, not empty, the task the configuration needs), fits the
/// feature map (PCA, bandwidth), then calls train(). predict() projects the rows and asks the
/// subclass for the outputs of fixed blocks of kPredictBlock rows, in parallel: every row's result
/// is computed the same way for any thread count. During fit(), predict() on the training matrix
/// itself (the same memory, as the host passes it at checkpoints) returns the training outputs
/// the algorithm maintains (publishTrainingOutputs()) instead of regenerating every feature of
/// every row: the same model, computed from the stored training features (in float with mixed
/// precision: equal to a fresh prediction up to that rounding).
///
/// Sparse inputs (DatasetView::xSparse): the raw inputs and raw column subsets only — lsq.gls
/// with random_features = raw (its Gram matrix formed from the sparse rows, d + 1 ≤
/// kSparseGramMaxWidth), lsq.stagewise with raw_subset or raw_gradient (each stage a sparse
/// n × block_size block of columns, its Gram from the non-zeros) — through SparseDesign, never a
/// dense copy. A PCA or a random projection (gaussian_cos …) is refused with a message naming
/// what works: X·Ω needs every one of Ω's d × p entries regenerated for each stage and each
/// prediction (10⁹ normal draws, ≈ 26 s here, a stage for d = 10⁶, p = 1000), and the paper uses
/// raw features on text (docs/lsq.md, "Sparse inputs"). predictSparse() on the training rows
/// during fit() returns the maintained training outputs, as predict() does.
///
/// Not thread-safe (one run per instance, as the Trainer contract says); predict() is const and
/// may run concurrently with itself.
class LsqTrainer : public SparseTrainer {
public:
    explicit LsqTrainer(LsqConfig config);

    /// Widest design [X 1] lsq.gls forms the Gram matrix of on sparse raw inputs (8192² doubles,
    /// 512 MiB; its factor as much again).
    static constexpr Eigen::Index kSparseGramMaxWidth = 8192;

    void fit(const DatasetView& data, RunContext& ctx) final;
    Eigen::MatrixXd predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const final;
    /// Throws std::invalid_argument when the model was not trained on inputs it can take sparse
    /// (random projections) or @p x has the wrong width.
    Eigen::MatrixXd predictSparse(const SparseMatrix& x) const final;
    /// {"flops", "memory_bytes" (predicted peak working memory), "model_bytes" (the stored
    /// model), "steps": the flops of each part}.
    QJsonObject predictCost(const ProblemShape& shape) const final;

    const LsqConfig& config() const { return m_config; }
    const train::FeatureMap& featureMap() const { return m_map; }
    /// The peak of the trainer's own accounting of its large buffers during the last fit()
    /// (recorded as the fact "working_memory_bytes").
    double workingMemoryBytes() const { return m_peakBytes; }
    /// Bytes of the stored model: the PCA basis, the seeds and the weights — never a random
    /// projection.
    virtual double modelBytes() const = 0;

    /// Rows per block of predict().
    static constexpr Eigen::Index kPredictBlock = 512;

protected:
    /// Predicted flops and memory of a fit on @p shape (see predictCost()).
    struct Cost {
        double flops = 0;
        double memoryBytes = 0;
        double modelBytes = 0;
        QJsonObject steps;
    };

    /// The training proper. @p z: the projected training inputs (data.x without a PCA).
    virtual void train(const DatasetView& data, const Eigen::Ref<const Eigen::MatrixXd>& z, RunContext& ctx) = 0;
    /// The random-feature maps predict() needs (their projections are regenerated once per
    /// call and handed to blockOutputs() in this order); empty for raw features.
    virtual std::vector<train::RandomFeatures> maps() const = 0;
    /// The model's outputs for one block of projected rows @p z, given the regenerated
    /// projections of maps() (omega[i], offset[i]); @p out is z.rows() × outputs.
    virtual void blockOutputs(const Eigen::Ref<const Eigen::MatrixXd>& z, const std::vector<Eigen::MatrixXd>& omega,
                              const std::vector<Eigen::VectorXd>& offset, Eigen::Ref<Eigen::MatrixXd> out) const = 0;
    /// Outputs of the model (k); 0 before the first checkpoint.
    virtual Eigen::Index outputCount() const = 0;
    /// Cost of the training proper for @p shape with q projected inputs.
    virtual Cost trainCost(const ProblemShape& shape, Eigen::Index q) const = 0;

    /// The training proper on sparse inputs (data.xSparse; the map is fitted, raw or raw_subset,
    /// no PCA). The default refuses, naming the algorithms that take sparse inputs.
    virtual void trainSparse(const DatasetView& data, RunContext& ctx);
    /// The model's outputs for sparse rows @p x (n × outputs, after the link), x of the training
    /// width. The default refuses.
    virtual Eigen::MatrixXd sparseOutputs(const SparseMatrix& x) const;
    /// Cost of trainSparse() for a sparse @p shape (ProblemShape::nonZeros > 0): from the
    /// non-zeros and the block actually formed, never n·d. The default: trainCost() of a dense
    /// shape (what a densified run costs).
    virtual Cost sparseTrainCost(const ProblemShape& shape) const;

    /// The design of rows @p z: block features of @p map (or z itself when null), then the
    /// columns of @p extra (n × e, may be null). Double precision with neither map nor extra
    /// references z without a copy. Polls @p stop (check design.stopped()).
    train::DesignMatrix makeDesign(const Eigen::Ref<const Eigen::MatrixXd>& z, const train::RandomFeatures* map,
                                   const Eigen::MatrixXd* extra, StopToken stop) const;
    /// Flops of makeDesign() for n rows, q inputs and p features of the configured generator.
    double featureFlops(double n, double q, double p) const;

    /// The outputs predict() returns on the training matrix until the next call (n × k, after
    /// the link: probabilities for softmax models).
    void publishTrainingOutputs(const Eigen::MatrixXd& outputs) { m_trainingOutputs = outputs; }
    /// Notes that @p bytes of working memory are in use now; the peak is kept.
    void noteMemory(double bytes) { m_peakBytes = std::max(m_peakBytes, bytes); }
    /// The parameter holding the feature count ("feature_count" or "block_size").
    std::string countKey() const;
    /// GlsSettings from the configuration, for @p link and @p iterations.
    GlsSettings glsSettings(Link link, Eigen::Index iterations, std::uint64_t sampleSeed) const;
    /// The fact "feature_spectrum" from the eigenvalues of Σ̂ (ascending, as symmetricEigen()):
    /// {"features": p, "eigenvalues": descending, "singular_values": √ of them (the data matrix's
    /// singular values over √n), "ratio_2_p" and "ratio_2_1000": σ₂/σ_p and σ₂/σ₁₀₀₀ of the
    /// singular values (null when infinite or p < 1000), "eigen_ratio_2_p": λ₂/λ_p,
    /// "normalised_spectrum": the fraction of the sum of the top min(p, 1000) singular values
    /// captured by the top x, x = 1 … (paper Fig. 1b)}.
    static QJsonObject spectrumFact(const Eigen::VectorXd& ascending);
    /// Records a GLS fit's factorisation in @p facts under @p key (method, rank, condition
    /// estimate, λ, rows, fallback reason) and logs a fallback with what to do about it.
    void reportSolve(const GlsReport& report, const QString& what, RunContext& ctx, QJsonObject* fact) const;

    LsqConfig m_config;
    train::FeatureMap m_map;
    QJsonObject m_facts;     ///< facts of the feature map, recorded with the first checkpoint
    bool m_classification = false;

private:
    void fitSparse(const DatasetView& data, RunContext& ctx);

    // The training matrix of the fit() in progress (predict() shortcut), null otherwise.
    const double* m_trainData = nullptr;
    const SparseMatrix* m_trainSparse = nullptr; // the same for predictSparse()
    Eigen::Index m_trainRows = 0, m_trainCols = 0, m_trainStride = 0;
    Eigen::MatrixXd m_trainingOutputs;
    double m_peakBytes = 0;
};

} // namespace tb::lsq
