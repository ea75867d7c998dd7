#pragma once
/// @file DsgdConfig.h
/// The parameters of the dsgd plugin's algorithms: ids, schemas, parsing and checks.

#include "KernelLoss.h"

#include <training/DesignMatrix.h>
#include <training/LearningRateSchedule.h>
#include <training/Optimizer.h>
#include <training/RandomFeatures.h>
#include <trainbench/Trainbench.h>
#include <trainbench/toolkit/OptimizerParams.h>
#include <trainbench/toolkit/RandomFeatureParams.h>
#include <trainbench/toolkit/StoppingParams.h>

#include <QString>
#include <QStringList>
#include <optional>

namespace tb::dsgd {

/// The algorithms of the plugin (ids "dsgd.<name>"):
enum class Algorithm {
    Doubly,            ///< dsgd.doubly_stochastic — Algorithm 1/2, r features per step, 1/r factor
    Preconditioned,    ///< dsgd.preconditioned — a block of features fitted with its covariance
    RandomFeatureSgd,  ///< dsgd.random_features_sgd — a fixed set of features trained by SGD (r-SGD, r-Pegasos)
    KernelRidge        ///< dsgd.kernel_ridge — exact kernel ridge regression on a subsample
};

/// How the kernel's bandwidth σ is chosen ("bandwidth_rule" of the random-features block).
enum class BandwidthRule {
    Median,  ///< σ = "bandwidth" × the median pairwise distance of "median_sample" training rows
    Fixed    ///< σ = "bandwidth"
};

/// Stream indices for tb::deriveSeed(run seed, index): every random stream of a run.
enum SeedStream : std::uint64_t {
    kSeedFeatures = 0,   ///< the random features: feature j from deriveSeed(deriveSeed(seed, 0), j)
    kSeedOrder = 1,      ///< the order in which the training rows are visited
    kSeedMedian = 2,     ///< the rows of the median trick
    kSeedSubsample = 3   ///< the subsample of exact kernel ridge regression
};

/// The complete, checked parameters of one run. Build with fromParams().
struct DsgdConfig {
    Algorithm algorithm = Algorithm::Doubly;

    // Kernel (every algorithm): the random-features block ("random_features", or "kernel" for
    // the exact solution; "bandwidth_rule", "bandwidth", "median_sample").
    train::FeatureKind kernel = train::FeatureKind::GaussianCos;
    BandwidthRule bandwidthRule = BandwidthRule::Median;
    double bandwidth = 1.0;       ///< σ with BandwidthRule::Fixed
    double bandwidthScale = 1.0;  ///< the median's multiple with BandwidthRule::Median
    Eigen::Index medianRows = 1000;
    /// ν ≥ 0 ("ridge"): the objective is mean loss + ν/2·‖f‖²_H (Dai et al., eq. 1).
    double nu = 0.0;

    // Stochastic methods (every algorithm but kernel_ridge).
    std::optional<LossKind> loss;  ///< nullopt = auto (multinomial for classification, else squared)
    double theta = 1.0;            ///< θ ("lr") of γ_t = θ/(1 + t/t₀)
    double inverseDecay = 1.0;     ///< 1/t₀ ≥ 0 ("inverse_decay"), per step
    Eigen::Index batchSize = 32;
    double epochs = 1.0;           ///< passes over the training rows (fractions allowed)
    double cacheMiB = 256.0;       ///< projection cache budget (0 = regenerate always)
    /// "precision": Double, or Mixed (the products x·ω in float; dense inputs only).
    train::Precision precision = train::Precision::Double;
    Eigen::Index checkpointEvery = 0;  ///< steps; 0 = automatic (log-spaced and epoch ends)

    // Doubly stochastic variants.
    Eigen::Index featuresPerStep = 1;  ///< r
    Eigen::Index maxFeatures = 0;      ///< 0 = no limit
    double preconditionRidge = 1e-7;   ///< ε of the preconditioner cov + (ν + ε)I

    // Random-feature SGD.
    Eigen::Index features = 256;       ///< p, fixed ("feature_count")
    train::OptimizerSettings optimizer;

    // Exact kernel ridge regression.
    Eigen::Index subsample = 2000;

    /// "dsgd.doubly_stochastic", "dsgd.preconditioned", "dsgd.random_features_sgd", "dsgd.kernel_ridge".
    static QStringList algorithmIds();
    static QString idOf(Algorithm a);
    static std::optional<Algorithm> fromId(const QString& id);

    /// The parameter schema of an algorithm (every default, range and help text): the shared
    /// random-features, optimizer (step size) and stopping blocks. Parameters of plugin versions
    /// before 1.1.0 ("theta", "t0", "nu", "kernel", "bandwidth_scale", "median_rows",
    /// "features", "method") are upgraded with a note.
    static ParamSchema schema(Algorithm a);

    /// Reads parameters normalised by schema(a). Throws std::invalid_argument naming the
    /// parameters for values or combinations the schema cannot express: θ ("lr") ≤ 0, θ·ν ≥ 1
    /// (the shrink factor 1 − γν would reach 0), an odd number of cos/sin features,
    /// max_features below features_per_step.
    static DsgdConfig fromParams(Algorithm a, const QVariantMap& params);
    /// The one check of those combinations (fromParams() calls it); throws
    /// std::invalid_argument naming the parameters and values.
    void check() const;

    /// The loss for @p task: the chosen one, or auto's choice.
    LossKind resolveLoss(Task task) const;
    /// γ_t = θ/(1 + inverseDecay·t) for t = steps done (LearningRateSchedule::Kind::Inverse).
    train::LearningRateSchedule schedule() const;
    /// Projection cache budget in bytes.
    double cacheBytes() const { return cacheMiB * 1048576.0; }
};

} // namespace tb::dsgd
