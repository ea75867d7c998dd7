#include "WilcoxonSignedRank.h"

#include "Distributions.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

namespace tb::stats {

std::vector<double> WilcoxonSignedRank::midRanks(const std::vector<double>& values)
{
    std::vector<size_t> order(values.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) { return values[i] < values[j]; });
    std::vector<double> ranks(values.size());
    for (size_t i = 0; i < order.size();) {
        size_t j = i;
        while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]])
            ++j;
        const double mid = 0.5 * double(i + 1 + j + 1);
        for (size_t k = i; k <= j; ++k)
            ranks[order[k]] = mid;
        i = j + 1;
    }
    return ranks;
}

WilcoxonResult WilcoxonSignedRank::compute(const std::vector<double>& a, const std::vector<double>& b,
                                           bool continuityCorrection)
{
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    WilcoxonResult r;
    r.z = r.pValue = r.statistic = nan;
    if (a.size() != b.size()) {
        r.note = "the two samples differ in length (" + std::to_string(a.size()) + " and " +
                 std::to_string(b.size()) + ")";
        return r;
    }
    std::vector<double> d;
    for (size_t i = 0; i < a.size(); ++i) {
        if (std::isnan(a[i]) || std::isnan(b[i])) {
            r.dropped++;
            continue;
        }
        const double di = a[i] - b[i];
        if (std::isnan(di)) { // ∞ − ∞
            r.dropped++;
            continue;
        }
        if (di == 0)
            r.zeros++;
        else
            d.push_back(di);
    }
    r.n = int(d.size());
    if (r.n == 0) {
        r.note = r.zeros > 0 ? "every difference is zero" : "no pairs";
        return r;
    }
    std::vector<double> absD(d.size());
    for (size_t i = 0; i < d.size(); ++i)
        absD[i] = std::fabs(d[i]);
    const std::vector<double> rank = midRanks(absD);
    for (size_t i = 0; i < d.size(); ++i)
        (d[i] > 0 ? r.wPlus : r.wMinus) += rank[i];
    r.statistic = std::min(r.wPlus, r.wMinus);

    // Tie groups of |d| for the variance correction.
    std::vector<double> sorted = absD;
    std::sort(sorted.begin(), sorted.end());
    double tieTerm = 0;
    for (size_t i = 0; i < sorted.size();) {
        size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[i])
            ++j;
        const double t = double(j - i + 1);
        if (t > 1) {
            r.ties = true;
            tieTerm += t * t * t - t;
        }
        i = j + 1;
    }
    r.valid = true;
    const double n = r.n;
    const double mean = n * (n + 1) / 4;
    if (r.n <= 50 && !r.ties && r.zeros == 0) {
        r.method = WilcoxonResult::Method::Exact;
        // counts[s] = number of subsets of {1..n} whose ranks sum to s (≤ 2^50: exact in uint64).
        const int maxSum = r.n * (r.n + 1) / 2;
        std::vector<std::uint64_t> counts(size_t(maxSum) + 1, 0);
        counts[0] = 1;
        for (int k = 1; k <= r.n; ++k)
            for (int s = maxSum; s >= k; --s)
                counts[size_t(s)] += counts[size_t(s - k)];
        const int w = int(std::lround(r.wPlus));
        const double total = std::ldexp(1.0, r.n);
        double tail = 0;
        if (r.wPlus > mean) {
            for (int s = w; s <= maxSum; ++s)
                tail += double(counts[size_t(s)]);
        } else {
            for (int s = 0; s <= w; ++s)
                tail += double(counts[size_t(s)]);
        }
        r.pValue = std::min(1.0, 2 * tail / total);
        if (r.wPlus == mean)
            r.pValue = 1;
        return r;
    }
    r.method = WilcoxonResult::Method::Normal;
    const double var = n * (n + 1) * (2 * n + 1) / 24 - tieTerm / 48;
    if (!(var > 0)) {
        r.valid = false;
        r.note = "the normal approximation has zero variance";
        return r;
    }
    const double diff = r.statistic - mean; // ≤ 0
    const double corrected = continuityCorrection ? std::min(0.0, diff + 0.5) : diff;
    r.z = corrected / std::sqrt(var);
    r.pValue = std::min(1.0, Distributions::normalTwoSided(r.z));
    if (r.zeros > 0)
        r.note = std::to_string(r.zeros) + " zero difference(s) discarded; normal approximation";
    else if (r.ties)
        r.note = "tied differences: normal approximation";
    return r;
}

} // namespace tb::stats
