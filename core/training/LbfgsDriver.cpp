#include "LbfgsDriver.h"

#include <LBFGS.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tb::train {
namespace {

// Thrown out of LBFGS++'s line search when Stop fires mid-search; never leaves this file.
struct StopSignal {};

// f(w) and ∇f(w) in the form LBFGS++'s line searches call, counting evaluations and turning an
// interrupted evaluation (or a fired stop token) into StopSignal.
class Adapter {
public:
    Adapter(Objective& f, StopToken stop) : m_f(f), m_stop(stop) {}

    double operator()(const Eigen::VectorXd& w, Eigen::VectorXd& grad)
    {
        if (m_stop.stopRequested())
            throw StopSignal{};
        const double v = m_f.evaluate(w, grad);
        ++m_evaluations;
        if (m_f.interrupted() || m_stop.stopRequested())
            throw StopSignal{};
        return v;
    }
    long long evaluations() const { return m_evaluations; }

private:
    Objective& m_f;
    StopToken m_stop;
    long long m_evaluations = 0;
};

void require(bool ok, const char* field, const std::string& range)
{
    if (!ok)
        throw std::invalid_argument(std::string("L-BFGS setting ") + field + " outside " + range);
}

} // namespace

const char* lbfgsOutcomeName(LbfgsOutcome o)
{
    switch (o) {
    case LbfgsOutcome::Converged: return "converged";
    case LbfgsOutcome::SmallDecrease: return "small decrease";
    case LbfgsOutcome::IterationLimit: return "iteration limit";
    case LbfgsOutcome::Stopped: return "stopped";
    case LbfgsOutcome::Halted: return "halted";
    case LbfgsOutcome::LineSearchFailed: return "line search failed";
    case LbfgsOutcome::NoProgress: return "no progress";
    case LbfgsOutcome::NonFinite: return "non-finite";
    }
    return "?";
}

void LbfgsSettings::check() const
{
    require(memory >= 1 && memory <= 1000, "memory", "[1, 1000]");
    require(epsilon >= 0 && epsilon <= 1, "epsilon", "[0, 1]");
    require(relativeDecrease >= 0 && relativeDecrease < 1, "relativeDecrease", "[0, 1)");
    require(maxIterations >= 1, "maxIterations", "[1, 1e9]");
    require(maxLineSearch >= 1 && maxLineSearch <= 1000, "maxLineSearch", "[1, 1000]");
    require(ftol > 0 && ftol < 0.5, "ftol", "(0, 0.5)");
    require(wolfe > ftol && wolfe < 1, "wolfe", "(ftol, 1)");
}

LbfgsDriver::LbfgsDriver(LbfgsSettings settings, StopToken stop) : m_settings(settings), m_stop(stop)
{
    m_settings.check();
}

LbfgsReport LbfgsDriver::minimise(Objective& objective, Eigen::VectorXd& x, const Callback& onIteration) const
{
    const LbfgsSettings& s = m_settings;
    const Eigen::Index p = objective.dimension();
    if (x.size() != p)
        throw std::invalid_argument("L-BFGS: the start has " + std::to_string(x.size()) + " entries, the objective " +
                                    std::to_string(p));
    LBFGSpp::LBFGSParam<double> param;
    param.m = s.memory;
    param.epsilon = s.epsilon;
    param.max_iterations = s.maxIterations;
    param.max_linesearch = s.maxLineSearch;
    param.ftol = s.ftol;
    param.wolfe = s.wolfe;
    param.linesearch = s.lineSearch == LbfgsSettings::LineSearch::StrongWolfe
                           ? LBFGSpp::LBFGS_LINESEARCH_BACKTRACKING_STRONG_WOLFE
                           : LBFGSpp::LBFGS_LINESEARCH_BACKTRACKING_ARMIJO;
    param.check_param();

    Adapter f(objective, m_stop);
    LbfgsReport report;
    auto done = [&](LbfgsOutcome outcome, double fx, const Eigen::VectorXd& g) {
        report.outcome = outcome;
        report.value = fx;
        report.gradientNorm = g.size() ? g.norm() : 0.0;
        report.evaluations = f.evaluations();
        return report;
    };
    auto converged = [&](const Eigen::VectorXd& g, const Eigen::VectorXd& w) {
        return g.norm() <= s.epsilon * (s.gradientTest == GradientTest::Scaled ? std::max(1.0, w.norm()) : 1.0);
    };

    LBFGSpp::BFGSMat<double> bfgs;
    bfgs.reset(int(p), s.memory);
    Eigen::VectorXd grad(p), xp(p), gradp(p), drt(p);
    double fx = 0;
    try {
        fx = f(x, grad);
    } catch (const StopSignal&) {
        return done(LbfgsOutcome::Stopped, std::numeric_limits<double>::quiet_NaN(), Eigen::VectorXd());
    }
    if (!std::isfinite(fx) || !grad.allFinite()) {
        report.failedAt = 0;
        return done(LbfgsOutcome::NonFinite, fx, grad);
    }
    if (converged(grad, x))
        return done(LbfgsOutcome::Converged, fx, grad);

    drt = -grad;
    double step = 1.0 / drt.norm();
    for (int k = 1; k <= s.maxIterations; ++k) {
        xp = x;
        gradp = grad;
        const double fxp = fx;
        std::string failure;
        try {
            if (s.lineSearch == LbfgsSettings::LineSearch::StrongWolfe)
                LBFGSpp::LineSearchNocedalWright<double>::LineSearch(f, fx, x, grad, step, drt, xp, param);
            else
                LBFGSpp::LineSearchBacktracking<double>::LineSearch(f, fx, x, grad, step, drt, xp, param);
        } catch (const StopSignal&) {
            x = xp;
            return done(LbfgsOutcome::Stopped, fxp, gradp);
        } catch (const std::exception& e) {
            failure = e.what();  // LBFGS++ throws std::runtime_error / std::logic_error
        }
        if (failure.empty() && (!std::isfinite(fx) || !grad.allFinite())) {
            x = xp;
            report.iterations = k - 1;
            report.failedAt = k;
            return done(LbfgsOutcome::NonFinite, fx, gradp);
        }
        if (failure.empty() && !(fx <= fxp))
            failure = "no decrease along the search direction";
        if (!failure.empty()) {
            // Nothing better than the previous point was found: keep it, say why.
            x = xp;
            report.iterations = k - 1;
            report.failedAt = k;
            report.lineSearchError = failure;
            return done(LbfgsOutcome::LineSearchFailed, fxp, gradp);
        }
        report.iterations = k;
        if (onIteration && !onIteration(LbfgsIterate{k, fx, x, grad}))
            return done(LbfgsOutcome::Halted, fx, grad);
        if (converged(grad, x))
            return done(LbfgsOutcome::Converged, fx, grad);
        if (s.relativeDecrease > 0 && fxp - fx <= s.relativeDecrease * std::max(1.0, std::abs(fx)))
            return done(LbfgsOutcome::SmallDecrease, fx, grad);
        const Eigen::VectorXd sk = x - xp, yk = grad - gradp;
        if (sk.squaredNorm() == 0)
            return done(LbfgsOutcome::NoProgress, fx, grad);
        if (sk.dot(yk) > 0)
            bfgs.add_correction(sk, yk);
        bfgs.apply_Hv(grad, -1.0, drt);
        step = 1.0;
    }
    return done(LbfgsOutcome::IterationLimit, fx, grad);
}

} // namespace tb::train
