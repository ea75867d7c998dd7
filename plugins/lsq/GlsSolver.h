#pragma once
/// @file GlsSolver.h
/// Algorithm 1 of Agarwal et al. 2014, generalized least squares, on one design matrix:
/// Σ̂ = FᵀF/n factorised once, then W ← W − (L·Σ̂ + λI)⁻¹·∇ℓ(W) with
/// ∇ℓ = (1/n)·Fᵀ(g(O + FW) − Y) + λW. Used by lsq.gls, by the residual fits of lsq.calibrated and
/// by every stage of lsq.stagewise.

#include "LsqConfig.h"
#include "SparseDesign.h"

#include <training/DesignMatrix.h>
#include <numerics/LeastSquares.h>

#include <trainbench/StopToken.h>

#include <Eigen/Core>
#include <cstdint>
#include <functional>

namespace tb::lsq {

/// Settings of one GLS fit (see LsqConfig for the user-facing meaning).
struct GlsSettings {
    Link link = Link::Identity;
    double lipschitz = 1.0;       ///< L ≥ 0.5; the step is (L·Σ̂ + λI)⁻¹
    bool acceleration = false;    ///< Nesterov momentum with gradient restart
    Eigen::Index iterations = 1;  ///< ≥ 1
    double ridge = 0.0;           ///< λ (bias row excluded)
    double relativeRidge = 0.0;   ///< when > 0: λ = relativeRidge·trace(Σ̂)/p (features only)
    /// λ is at least ridgeFloor·trace(Σ̂)/√p (features only): directions of Σ̂ below the rounding
    /// of a float Gram are noise, and a step along them would blow up (mixed precision).
    double ridgeFloor = 0.0;
    Eigen::Index sigmaRows = 0;   ///< Σ̂ from this many seeded rows; 0 (or ≥ n) = all rows
    std::uint64_t sampleSeed = 0; ///< seed of that row sample
    bool bias = true;             ///< the design has a constant-1 column appended
    bool spectrum = false;        ///< compute the eigenvalues of Σ̂ (features part)
};

/// What a fit did.
struct GlsReport {
    num::SolveReport factor;    ///< the factorisation of L·Σ̂ + λI
    double lambda = 0.0;        ///< the absolute λ applied
    Eigen::Index sigmaRows = 0; ///< rows Σ̂ was estimated from
    int restarts = 0;           ///< momentum restarts (acceleration)
    Eigen::VectorXd spectrum;   ///< eigenvalues of Σ̂ over the features, ascending (when asked)
    double gramSeconds = 0, factorSeconds = 0, iterationSeconds = 0;
    double peakBytes = 0;       ///< the largest buffers this fit allocated at one time (own accounting)
    bool stopped = false;       ///< the stop token fired: results meaningless
};

/// Algorithm 1 on a design: prepare() estimates and factorises L·Σ̂ + λI once, then run()
/// iterates, or solveStep() takes single steps from W = 0 against changing targets (the residual
/// fits of calibrated least squares share one factorisation). fit() is prepare() then run().
///
/// The design is a train::DesignMatrix (dense) or a SparseDesign (sparse inputs): the methods are
/// templates instantiated for those two (GlsSolver.cpp), the same arithmetic on either.
///
/// Thread-safety: one fit at a time per object; the design's own methods run in parallel in
/// the current TBB arena.
class GlsSolver {
public:
    /// After each iteration t (1-based): the iterate W ((p [+1]) × k), the outputs O + F·W on the
    /// training rows (n × k, before the link) and the objective there. Return false to stop.
    using Iterate = std::function<bool(Eigen::Index t, const Eigen::MatrixXd& w, const Eigen::MatrixXd& outputs,
                                       double objective)>;

    /// Σ̂ = FᵀF/n of the design @p f (all rows, or @p settings.sigmaRows seeded rows), λ, the
    /// spectrum when asked, and the factorisation of L·Σ̂ + λI (bias excluded from λ; a singular
    /// system falls back to the pseudo-inverse, see report().factor). The design's stop token
    /// and @p stop are polled. Returns false when stopped.
    template <class Design>
    bool prepare(const Design& f, const GlsSettings& settings, StopToken stop);

    /// @p settings.iterations iterations from W = 0 on the prepared design @p f, targets @p y
    /// (n × k) and the optional fixed @p offset (n × k, e.g. the logits of earlier stages).
    /// Objective (1/n)Σℓ(O + FW; y) + (λ/2)‖W‖² (bias row excluded), ℓ = ½‖·‖² (identity) or
    /// the cross-entropy of the softmax. With acceleration the outputs O + F·W of the iterates
    /// are carried by the momentum's linear recurrence from the products at the extrapolated
    /// points (errors contract by at least ½ per step); the last iterate's are recomputed.
    /// Returns false when stopped. Throws std::invalid_argument on shape mismatches.
    template <class Design>
    bool run(const Design& f, const Eigen::Ref<const Eigen::MatrixXd>& y, const Eigen::MatrixXd* offset,
             StopToken stop, const Iterate& onIterate);

    /// One step from W = 0 against targets @p target: W = (L·Σ̂ + λI)⁻¹·Fᵀ·target/n, the ridge
    /// solution of ‖target − F·W‖² for L = 1. One pass over the rows. Returns false when stopped.
    template <class Design>
    bool solveStep(const Design& f, const Eigen::Ref<const Eigen::MatrixXd>& target, Eigen::MatrixXd& w);

    /// prepare() then run(); the identity link with one iteration and Σ̂ from all rows takes one
    /// pass for the Gram and cross products together.
    template <class Design>
    bool fit(const Design& f, const Eigen::Ref<const Eigen::MatrixXd>& y, const Eigen::MatrixXd* offset,
             const GlsSettings& settings, StopToken stop, const Iterate& onIterate);

    const GlsReport& report() const { return m_report; }

    /// The objective at outputs @p outputs (n × k, before the link) and weights @p w.
    static double objective(Link link, const Eigen::Ref<const Eigen::MatrixXd>& outputs,
                            const Eigen::Ref<const Eigen::MatrixXd>& y, const Eigen::MatrixXd& w, double lambda,
                            bool bias);

    /// Row-wise softmax in place (max-shifted: no overflow).
    static void softmaxRows(Eigen::Ref<Eigen::MatrixXd> z);

private:
    bool stopped();
    bool factorise(Eigen::MatrixXd& sigma, StopToken stop);

    GlsSettings m_settings;
    GlsReport m_report;
    num::NormalEquationsFactor m_factor;
};

} // namespace tb::lsq
