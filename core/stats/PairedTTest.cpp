#include "PairedTTest.h"

#include "Descriptive.h"
#include "Distributions.h"

#include <cmath>
#include <limits>

namespace tb::stats {

PairedTTestResult PairedTTest::compute(const std::vector<double>& a, const std::vector<double>& b,
                                       double confidence)
{
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    PairedTTestResult r;
    r.meanDifference = r.sdDifference = r.t = r.df = r.pValue = r.ciLow = r.ciHigh = nan;
    r.confidence = confidence;
    if (a.size() != b.size()) {
        r.note = "the two samples differ in length (" + std::to_string(a.size()) + " and " +
                 std::to_string(b.size()) + ")";
        return r;
    }
    if (!(confidence > 0 && confidence < 1)) {
        r.note = "confidence must lie in (0, 1)";
        return r;
    }
    std::vector<double> d;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) || std::isnan(b[i]))
            r.dropped++;
        else
            d.push_back(a[i] - b[i]);
    }
    const Summary s = Descriptive::summarise(d);
    r.n = s.count;
    r.meanDifference = s.mean;
    if (r.n < 2) {
        r.note = "a paired t-test needs at least two pairs, got " + std::to_string(r.n);
        return r;
    }
    if (!std::isfinite(s.mean)) {
        r.note = "a difference is infinite";
        return r;
    }
    r.valid = true;
    r.sdDifference = s.std;
    r.df = r.n - 1;
    const double se = s.std / std::sqrt(double(r.n));
    if (se == 0) {
        if (s.mean == 0) {
            r.note = "every difference is zero";
        } else {
            r.t = std::copysign(std::numeric_limits<double>::infinity(), s.mean);
            r.pValue = 0;
            r.ciLow = r.ciHigh = s.mean;
            r.note = "every pair differs by the same amount: the seeds change nothing";
        }
        return r;
    }
    r.t = s.mean / se;
    r.pValue = Distributions::studentTTwoSided(r.t, r.df);
    const double q = Distributions::studentTQuantile(0.5 + confidence / 2, r.df);
    r.ciLow = s.mean - q * se;
    r.ciHigh = s.mean + q * se;
    return r;
}

} // namespace tb::stats
