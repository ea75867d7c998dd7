#pragma once
/// @file LsqConfig.h
/// Every option of the three Least Squares Revisited algorithms (Agarwal et al. 2014;
/// ALGORITHMS.md §2), their parameter schemas and their parsing.

#include <trainbench/ParamSchema.h>

#include <training/DesignMatrix.h>
#include <training/FeatureMap.h>
#include <training/RandomFeatures.h>

#include <QVariantMap>

namespace tb::lsq {

/// The three algorithms of the plugin.
enum class Algorithm {
    Gls,        ///< lsq.gls: Algorithm 1, generalized least squares
    Calibrated, ///< lsq.calibrated: Algorithm 2, calibrated least squares
    Stagewise   ///< lsq.stagewise: Algorithm 3, stagewise regression on blocks of features
};

/// The link g of E[y|x] = g(Wx) in generalized least squares.
enum class Link {
    Identity, ///< least squares; one iteration with L = 1 is the (ridge) solution
    Softmax   ///< multinomial logistic regression (classification only)
};

/// What each stage of stagewise regression fits on its block of features.
enum class Flavour {
    Linear,    ///< least squares against the residual Y − Ŷ (paper: "linear regression")
    Logistic,  ///< GLS with the softmax link, the running logits as an offset (classification only)
    Calibrated ///< least squares of Y on [block, G(Ŷ)]: the previous predictions as extra features
};

using train::BandwidthRule;

/// The feature generator GEN, shared by the three algorithms: the settings of the shared
/// tb::train::FeatureMap (count: features of GLS and calibrated, per block for stagewise) and
/// the plugin's own bias feature.
struct FeatureConfig : train::FeatureMapConfig {
    bool bias = true;                         ///< a constant-1 feature (never penalised by the ridge)
    /// random_features = raw_gradient (lsq.stagewise): each stage's block is the block_size
    /// input columns with the largest gradient ‖Xᵀ·R‖ (R the residual of the running
    /// predictions), recomputed every stage — the paper's Table 2 setting for text. kind is
    /// then RawSubset (the same checks: block_size ≤ the inputs).
    bool gradientOrder = false;
};

/// Parsed options of one algorithm.
struct LsqConfig {
    Algorithm algorithm = Algorithm::Gls;
    FeatureConfig features;
    train::Precision precision = train::Precision::Mixed;
    double ridge = 0.0;          ///< λ = 2·"ridge" of (1/n)Σℓ + (λ/2)‖W‖² (bias row excluded)
    double relativeRidge = 0.0;  ///< when > 0, λ = relative_ridge · trace(Σ̂)/p instead
    // Generalized least squares (lsq.gls, and the inner iterations of logistic stages).
    bool autoLink = true;        ///< identity for regression, softmax for classification
    Link link = Link::Softmax;
    double lipschitz = 1.0;      ///< L: the step is (L·Σ̂ + λI)⁻¹
    bool acceleration = false;   ///< Nesterov's momentum with adaptive restart
    Eigen::Index iterations = 50; ///< GLS / calibrated iterations; stagewise: inner iterations
    Eigen::Index sigmaRows = 0;  ///< Σ̂ from a seeded sample of this many rows; 0 = all rows
    bool recordSpectrum = false; ///< record the eigenvalues of Σ̂ (stagewise: of the first block)
    // Calibrated least squares and calibrated stages.
    int calibrationDegree = 3;   ///< G(ỹ) = ỹ, ỹ², …, ỹ^degree element-wise
    bool calibrationConstant = true; ///< … and a constant
    // Stagewise regression.
    Flavour flavour = Flavour::Linear;
    Eigen::Index stages = 10;

    /// The parameter schema of @p algorithm; every help states its default and range.
    static ParamSchema schema(Algorithm algorithm);
    /// A config from parameters already normalised by schema(@p algorithm).
    static LsqConfig fromParams(const QVariantMap& params, Algorithm algorithm);
    /// The one check of the combinations the schema cannot express (fromParams() calls it): a
    /// non-positive bandwidth or feature count, an odd count of cos/sin features. Throws
    /// std::invalid_argument naming the parameter and value.
    void check() const;

};

/// "gaussian_cos" … for a FeatureKind, "raw" for the inputs themselves.
QString featuresName(const FeatureConfig& f);

} // namespace tb::lsq
