#include "TimeToTarget.h"

#include <cmath>
#include <limits>

namespace tb::stats {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}

TimeToTargetResult TimeToTarget::reach(const std::vector<CurvePoint>& curve, double target, Better better)
{
    TimeToTargetResult r;
    r.time = r.lastMissTime = r.best = kNaN;
    double previous = 0;
    for (size_t i = 0; i < curve.size(); ++i) {
        const CurvePoint& p = curve[i];
        if (std::isnan(p.value) || std::isnan(p.time))
            continue;
        if (std::isnan(r.best) || isBetter(p.value, r.best, better))
            r.best = p.value;
        if (!r.reached && !std::isnan(target) && (p.value == target || isBetter(p.value, target, better))) {
            r.reached = true;
            r.time = p.time;
            r.lastMissTime = previous;
            r.index = int(i);
        }
        if (!r.reached)
            previous = p.time;
    }
    return r;
}

double TimeToTarget::commonTarget(const std::vector<std::vector<CurvePoint>>& curves, Better better)
{
    if (curves.empty())
        return kNaN;
    double target = kNaN;
    for (const auto& c : curves) {
        const double best = reach(c, kNaN, better).best;
        if (!std::isfinite(best))
            return kNaN;
        if (std::isnan(target) || isBetter(target, best, better))
            target = best;
    }
    return target;
}

} // namespace tb::stats
