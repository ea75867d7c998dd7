#include "SpeedRatio.h"

#include "Descriptive.h"
#include "Distributions.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb::stats {

SpeedRatioResult SpeedRatio::compute(const std::vector<double>& ta, const std::vector<double>& tb, double confidence)
{
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    SpeedRatioResult r;
    r.geometricMean = r.ciLow = r.ciHigh = r.median = r.min = r.max = nan;
    r.confidence = confidence;
    const size_t n = std::min(ta.size(), tb.size());
    std::vector<double> logs;
    for (size_t i = 0; i < n; ++i) {
        const bool aOk = std::isfinite(ta[i]), bOk = std::isfinite(tb[i]);
        r.aMissed += !aOk;
        r.bMissed += !bOk;
        if (!aOk || !bOk)
            continue;
        if (!(ta[i] > 0) || !(tb[i] > 0)) {
            r.zeroTime++;
            continue;
        }
        r.ratios.push_back(tb[i] / ta[i]);
        logs.push_back(std::log(tb[i] / ta[i]));
    }
    r.n = int(logs.size());
    if (r.n == 0) {
        r.note = "no seed where both reached the target";
        return r;
    }
    r.valid = true;
    const Summary s = Descriptive::summarise(logs);
    const Summary raw = Descriptive::summarise(r.ratios);
    r.geometricMean = std::exp(s.mean);
    r.median = raw.median;
    r.min = raw.min;
    r.max = raw.max;
    if (r.n >= 2 && confidence > 0 && confidence < 1) {
        const double q = Distributions::studentTQuantile(0.5 + confidence / 2, r.n - 1);
        const double half = q * s.std / std::sqrt(double(r.n));
        r.ciLow = std::exp(s.mean - half);
        r.ciHigh = std::exp(s.mean + half);
    } else if (r.n < 2) {
        r.note = "one pair: no interval";
    }
    return r;
}

} // namespace tb::stats
