#include "ExpectedMax.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tb::stats {

std::vector<ExpectedBest> ExpectedMax::curve(const std::vector<double>& scores, const std::vector<double>& paired,
                                             int maxN, Better better)
{
    std::vector<ExpectedBest> out;
    const size_t N = scores.size();
    if (N == 0 || maxN < 1)
        return out;
    // Worst first: ascending for Higher, descending for Lower.
    std::vector<size_t> order(N);
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return better == Better::Higher ? scores[a] < scores[b] : scores[a] > scores[b];
    });
    // Runs of equal scores: the best of n draws is the run's score with the run's weight, and the
    // trial it picks is any of the run's trials alike, so its paired value is the run's mean.
    struct Tie {
        double score;
        double pairedMean;
        size_t last; ///< 1-based position of the run's last trial in the sorted order
    };
    std::vector<Tie> ties;
    for (size_t i = 0; i < N;) {
        size_t j = i;
        double sum = 0;
        while (j < N && scores[order[j]] == scores[order[i]]) {
            sum += paired.empty() ? 0.0 : paired[order[j]];
            ++j;
        }
        ties.push_back(Tie{scores[order[i]], sum / double(j - i), j});
        i = j;
    }
    for (int n = 1; n <= maxN; ++n) {
        ExpectedBest e;
        e.n = n;
        double m = 0, m2 = 0, p = 0, below = 0; // below: P(all n draws at or before the previous run)
        for (const Tie& t : ties) {
            const double upTo = std::pow(double(t.last) / double(N), n);
            const double w = upTo - below;
            below = upTo;
            m += w * t.score;
            m2 += w * t.score * t.score;
            p += w * t.pairedMean;
        }
        e.mean = m;
        e.sd = std::sqrt(std::max(0.0, m2 - m * m));
        e.pairedMean = paired.empty() ? std::nan("") : p;
        out.push_back(e);
    }
    return out;
}

} // namespace tb::stats
