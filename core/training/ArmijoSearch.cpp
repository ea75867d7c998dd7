#include "ArmijoSearch.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace tb::train {

void ArmijoSettings::check() const
{
    auto require = [](bool ok, const char* field, const char* range) {
        if (!ok)
            throw std::invalid_argument(std::string("Armijo setting ") + field + " outside " + range);
    };
    require(initialStep > 0 && std::isfinite(initialStep), "initialStep", "(0, ∞)");
    require(shrink > 0 && shrink < 1, "shrink", "(0, 1)");
    require(gamma > 0 && gamma < 1, "gamma", "(0, 1)");
    require(maxTrials >= 1 && maxTrials <= 10000, "maxTrials", "[1, 10000]");
}

ArmijoResult armijoStep(Objective& f, Eigen::VectorXd& w, double fw, Eigen::VectorXd& grad,
                        const ArmijoSettings& s, bool updateGradient)
{
    s.check();
    ArmijoResult r;
    r.value = fw;
    const double g2 = grad.squaredNorm();
    if (!(g2 > 0) || !std::isfinite(g2) || !std::isfinite(fw))
        return r;
    Eigen::VectorXd trial(w.size());
    double alpha = s.initialStep;
    for (int t = 0; t < s.maxTrials; ++t, alpha *= s.shrink) {
        trial = w - alpha * grad;
        const double ft = f.value(trial);
        ++r.trials;
        if (f.interrupted()) {
            r.interrupted = true;
            return r;
        }
        if (std::isfinite(ft) && ft <= fw - s.gamma * alpha * g2) {
            r.accepted = true;
            r.step = alpha;
            r.value = ft;
            w = trial;
            if (updateGradient) {
                r.value = f.evaluate(w, grad);
                ++r.trials;
                r.interrupted = f.interrupted();
            }
            return r;
        }
    }
    return r;
}

} // namespace tb::train
