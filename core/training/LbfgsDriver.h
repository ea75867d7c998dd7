#pragma once
/// @file LbfgsDriver.h
/// Limited-memory BFGS on any Objective, built on LBFGS++ (Debian liblbfgspp-dev): its line
/// searches and its compact inverse-Hessian representation, driven here so that the run can be
/// stopped between (and during) evaluations, reports every accepted iterate, and turns a failed
/// line search into a reported outcome the caller can act on (e.g. fall back to an Armijo
/// step, see ArmijoSearch) instead of an exception. No Qt.

#include "Objective.h"
#include "StoppingRules.h"

#include <trainbench/StopToken.h>

#include <Eigen/Core>
#include <functional>
#include <string>

namespace tb::train {

/// Settings of one minimisation. Every field states its default and range; check() throws
/// std::invalid_argument naming the field.
struct LbfgsSettings {
    enum class LineSearch {
        StrongWolfe,  ///< bracketing and zoom (Nocedal & Wright, Alg. 3.5)
        Armijo        ///< backtracking until the sufficient-decrease condition holds
    };
    /// Correction pairs kept, m. Default 10, range [1, 1000].
    int memory = 10;
    /// Converged when ‖∇f‖₂ ≤ epsilon·max(1, ‖w‖₂) (gradientTest Scaled, LBFGS++'s test) or
    /// ‖∇f‖₂ ≤ epsilon (Absolute). Default 1e-6, range [0, 1] (0 = never).
    double epsilon = 1e-6;
    /// How epsilon is tested. Default Scaled.
    GradientTest gradientTest = GradientTest::Scaled;
    /// Converged when the last iteration decreased f by at most relativeDecrease·max(1, |f|).
    /// Default 0 (off), range [0, 1).
    double relativeDecrease = 0.0;
    /// Most iterations (accepted steps). Default 100, range [1, 10⁹].
    int maxIterations = 100;
    LineSearch lineSearch = LineSearch::StrongWolfe;
    /// Most function evaluations in one line search. Default 20, range [1, 1000].
    int maxLineSearch = 20;
    /// Sufficient-decrease constant c₁ of the Armijo condition. Default 1e-4, range (0, 0.5).
    double ftol = 1e-4;
    /// Curvature constant c₂ of the Wolfe condition. Default 0.9, range (ftol, 1).
    double wolfe = 0.9;

    /// Throws std::invalid_argument naming the first field out of range.
    void check() const;
};

/// How a minimisation ended.
enum class LbfgsOutcome {
    Converged,         ///< gradient norm below epsilon (possibly at the start)
    SmallDecrease,     ///< relative decrease below relativeDecrease
    IterationLimit,    ///< maxIterations accepted steps taken
    Stopped,           ///< the stop token fired; w is the last accepted point
    Halted,            ///< the iteration callback asked to stop
    LineSearchFailed,  ///< LBFGS++ could not find an acceptable step; w is the last accepted point
    NoProgress,        ///< the accepted step left w unchanged: f is at its numerical limit here
    NonFinite          ///< f or ∇f became NaN/Inf; w is the last accepted point (or the start)
};

/// "converged", "small decrease", … for logs and facts.
const char* lbfgsOutcomeName(LbfgsOutcome o);

/// What a minimisation did.
struct LbfgsReport {
    LbfgsOutcome outcome = LbfgsOutcome::IterationLimit;
    int iterations = 0;            ///< accepted steps
    /// NonFinite, LineSearchFailed: the iteration that failed (0 = the starting point).
    int failedAt = 0;
    long long evaluations = 0;     ///< calls of Objective::evaluate()
    double value = 0;              ///< f at the returned w (NaN/Inf for NonFinite at the start)
    double gradientNorm = 0;       ///< ‖∇f‖₂ at the returned w
    std::string lineSearchError;   ///< LBFGS++'s message, for LineSearchFailed
};

/// One accepted iterate, as the callback sees it.
struct LbfgsIterate {
    int iteration;                      ///< 1, 2, … (0 is the start and is not reported)
    double value;                       ///< f(w)
    const Eigen::VectorXd& w;
    const Eigen::VectorXd& gradient;
};

/// Minimises an Objective from a starting point. A correction pair whose curvature sᵀy is not
/// positive (possible with the Armijo line search) is skipped, so the inverse-Hessian
/// approximation stays positive definite (Nocedal & Wright §7.2).
///
/// Same start, settings and objective give the same iterates bit for bit (LBFGS++ is
/// deterministic; so must the objective be). Not thread-safe; reusable.
class LbfgsDriver {
public:
    /// Called after every accepted step; return false to stop (outcome Halted).
    using Callback = std::function<bool(const LbfgsIterate&)>;

    /// Throws std::invalid_argument if @p settings fail check().
    explicit LbfgsDriver(LbfgsSettings settings, StopToken stop = {});

    /// Minimises @p f from @p w (dimension f.dimension()), leaving the returned point in @p w.
    LbfgsReport minimise(Objective& f, Eigen::VectorXd& w, const Callback& onIteration = {}) const;

    const LbfgsSettings& settings() const { return m_settings; }

private:
    LbfgsSettings m_settings;
    StopToken m_stop;
};

} // namespace tb::train
