#pragma once
/// @file BplsConfig.h
/// Every option of the two BPLS algorithms, its parameter schema and its parsing.

#include <trainbench/NetworkParams.h>
#include <trainbench/ParamSchema.h>

#include <numerics/Activation.h>
#include <training/DesignMatrix.h>

#include <QVariantMap>
#include <vector>

namespace tb::bpls {

/// How desired values of a hidden layer are derived from the layer above (ALGORITHMS.md §1, 3c).
enum class TargetRule {
    /// Paper eq. (5), one neuron at a time with the others held at their current values,
    /// combined over the outputs j by least squares: n̂_i = n_i + Σ_j w_ij r_j / Σ_j w_ij²,
    /// r = B − [N 1]W the layer's residual. Reduces to eq. (5) for one output.
    PerNeuron,
    /// All neurons jointly, minimum norm: N̂ = (B − 1·bᵀ)·W_h⁺ (our addition, for comparison).
    Joint,
    /// All neurons jointly as a minimum-norm CORRECTION of the current values: N̂ = N + R·W_h⁺
    /// (our addition: the joint analogue of PerNeuron).
    JointDelta
};

/// How one-hot classification targets become output pre-activation targets.
/// For one-hot Y every encoding is an affine map a·Y + c of Y, so with a bias column all
/// three give the same predictions up to rounding and the ridge's scale.
enum class TargetEncoding {
    SmoothedLog, ///< log of 1−ε for the class and ε/(k−1) elsewhere (ALGORITHMS.md)
    ClippedLog,  ///< log clip(y, ε, 1): 0 for the class, log ε elsewhere
    OneHot       ///< the 0/1 targets themselves (a linear output layer in disguise)
};

/// How the refinement loop mixes the weights fitted on the misclassified rows into the net.
enum class Blend {
    MissRatio, ///< paper line 20: W ← (1−r)W + r·W_miss, r = #misses / #data
    Replace,   ///< W ← W_miss (r = 1)
    Search     ///< r from a fixed grid, the one with most correct TRAINING rows (never test data)
};

/// Precision ("precision") of the Gram matrix and cross products of the FIRST layer (the only
/// large ones).
using GramPrecision = train::Precision;

/// Parsed options of bpls.regress (classify = false) or bpls.classify (classify = true).
struct BplsConfig {
    bool classify = false;                       ///< Algorithm 2 (with refinement) instead of 1
    std::vector<Eigen::Index> hidden{3};         ///< hidden widths; empty = a linear model
    num::Activation hiddenActivation = num::Activation::Sigmoid;
    num::Activation outputActivation = num::Activation::Identity;
    double initLow = -1.0;                       ///< U[initLow, initHigh] initial weights
    double initHigh = 1.0;
    bool bias = true;                            ///< constant-1 input column of the first layer
    bool hiddenBias = true;                      ///< constant-1 column after every hidden layer
    double ridge = 0.0;                          ///< "ridge": r of mean ½ loss + r‖w‖² (λ = 2n·r)
    double gramRidge = 0.0;                      ///< "gram_ridge": λ on every Gram diagonal, when > 0
    double relativeRidge = 0.0;                  ///< λ = relativeRidge·trace(G)/dim when > 0
    TargetRule targetRule = TargetRule::PerNeuron;
    double epsilon = 1e-3;                       ///< clipping of desired values and targets (classify: 0.05)
    TargetEncoding encoding = TargetEncoding::SmoothedLog;
    bool resolve = false;                        ///< Alg. 2 lines 8–9: re-solve from desired values
    int tauMax = 0;                              ///< refinement iterations (classify)
    bool stopWhenNoGain = true;                  ///< end refinement when misses stop falling
    Blend blend = Blend::MissRatio;
    bool standardise = false;                    ///< z-score inputs inside the trainer (classify: true)
    GramPrecision gramPrecision = GramPrecision::Double;

    /// Parameter schema of bpls.regress or bpls.classify; defaults documented in each help.
    static ParamSchema schema(bool classify);
    /// Builds a config from parameters already normalised by schema(classify). Throws
    /// std::invalid_argument naming the parameter for combinations the schema cannot express
    /// (init_low > init_high).
    static BplsConfig fromParams(const QVariantMap& params, bool classify);
    /// The one check of what the schema cannot express (fromParams() calls it): choices outside
    /// their lists, which only an unnormalised map holds. Throws std::invalid_argument naming
    /// the parameters. (init_low > init_high is the shared network block's parse.)
    void check() const;
};

} // namespace tb::bpls
