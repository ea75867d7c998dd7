#pragma once
/// @file ArmijoSearch.h
/// A steepest-descent step with Armijo backtracking on any Objective: the safeguard point of
/// block-decomposition methods (Palagi & Seccia's conditions compare the L-BFGS point with it)
/// and the fallback when an L-BFGS line search fails. No Qt.

#include "Objective.h"

#include <Eigen/Core>

namespace tb::train {

/// Settings of the backtracking search. check() throws std::invalid_argument naming the field.
struct ArmijoSettings {
    /// First trial step α₀ along −∇f. Default 1, range (0, ∞).
    double initialStep = 1.0;
    /// Factor applied to α after each rejected trial. Default 0.5, range (0, 1).
    double shrink = 0.5;
    /// Sufficient-decrease constant γ: accept when f(w − α∇f) ≤ f(w) − γ·α·‖∇f‖². Default 1e-4,
    /// range (0, 1).
    double gamma = 1e-4;
    /// Most trials. Default 50, range [1, 10000].
    int maxTrials = 50;

    void check() const;
};

/// What the search found.
struct ArmijoResult {
    bool accepted = false;  ///< a step satisfied the condition
    double step = 0;        ///< α of the accepted step (0 when none)
    double value = 0;       ///< f at the accepted point (f(w) when none)
    int trials = 0;         ///< function evaluations made
    bool interrupted = false; ///< the objective was interrupted (stop request); w unchanged
};

/// One Armijo steepest-descent step from @p w, where f(w) = @p fw and ∇f(w) = @p grad. On
/// success @p w becomes the accepted point and @p grad, when @p updateGradient, its gradient
/// (one more evaluation). On failure (no acceptable step, non-finite values, an interruption)
/// @p w is unchanged. Not thread-safe.
ArmijoResult armijoStep(Objective& f, Eigen::VectorXd& w, double fw, Eigen::VectorXd& grad,
                        const ArmijoSettings& settings = {}, bool updateGradient = false);

} // namespace tb::train
