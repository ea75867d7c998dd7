#include "Descriptive.h"

#include "Distributions.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb::stats {

std::vector<double> Descriptive::withoutNaN(const std::vector<double>& values)
{
    std::vector<double> out;
    out.reserve(values.size());
    for (double v : values)
        if (!std::isnan(v))
            out.push_back(v);
    return out;
}

Summary Descriptive::summarise(const std::vector<double>& values, double confidence)
{
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> v = withoutNaN(values);
    Summary s;
    s.count = int(v.size());
    if (v.empty()) {
        s.mean = s.std = s.median = s.min = s.max = s.ciLow = s.ciHigh = nan;
        return s;
    }
    if (std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); })) {
        // n·x/n need not round back to x (3 × 0.1 / 3 = 0.10000000000000002): the summary of
        // identical values is the value itself, with no spread.
        s.mean = s.median = s.min = s.max = v.front();
        s.std = 0;
        s.identical = v.size() > 1;
        s.ciLow = s.ciHigh = s.identical && confidence > 0 && confidence < 1 ? v.front() : nan;
        return s;
    }
    double sum = 0;
    for (double x : v)
        sum += x;
    s.mean = sum / double(v.size());
    double ss = 0;
    for (double x : v)
        ss += (x - s.mean) * (x - s.mean);
    s.std = v.size() > 1 ? std::sqrt(ss / double(v.size() - 1)) : 0.0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    s.min = v.front();
    s.max = v.back();
    s.ciLow = s.ciHigh = nan;
    if (n > 1 && confidence > 0 && confidence < 1) {
        const double half =
            Distributions::studentTQuantile(0.5 + confidence / 2, double(n - 1)) * s.std / std::sqrt(double(n));
        s.ciLow = s.mean - half;
        s.ciHigh = s.mean + half;
    }
    return s;
}

} // namespace tb::stats
