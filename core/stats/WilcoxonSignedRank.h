#pragma once
/// @file WilcoxonSignedRank.h
/// The Wilcoxon signed-rank test of paired samples.

#include <string>
#include <vector>

namespace tb::stats {

/// Outcome of a Wilcoxon signed-rank test of a − b.
struct WilcoxonResult {
    enum class Method { Exact, Normal };
    bool valid = false;    ///< false when no non-zero difference remains
    int n = 0;             ///< non-zero differences ranked
    int zeros = 0;         ///< zero differences, discarded before ranking
    int dropped = 0;       ///< pairs left out because a or b was NaN
    bool ties = false;     ///< some |differences| were equal (mid-ranks used)
    double wPlus = 0;      ///< sum of the ranks of positive differences
    double wMinus = 0;     ///< sum of the ranks of negative differences
    double statistic = 0;  ///< min(W+, W−), what SciPy reports for the two-sided test
    double z = 0;          ///< normal approximation's z (NaN for the exact method)
    double pValue = 0;     ///< two-sided
    Method method = Method::Exact;
    std::string note;
};

/// Pure functions; thread-safe.
///
/// The variant, fixed and documented because implementations differ:
///  - zeros (a_i = b_i) are discarded before ranking ("wilcox" zero method);
///  - tied |differences| get mid-ranks;
///  - the p-value is exact (the null distribution of W+ counted over all 2ⁿ sign patterns)
///    when n ≤ 50 and there are neither ties nor zeros; otherwise it comes from the normal
///    approximation with the tie-corrected variance n(n+1)(2n+1)/24 − Σ(t³ − t)/48, without
///    a continuity correction unless asked for;
///  - two-sided: p = min(1, 2·P(W+ ≤ w or W+ ≥ w on the side w lies)).
/// These are SciPy's defaults for scipy.stats.wilcoxon(x, y) (zero_method="wilcox",
/// correction=False, method="auto"). R's wilcox.test(x, y, paired = TRUE) differs only by
/// applying the continuity correction in the normal approximation (continuityCorrection = true).
class WilcoxonSignedRank {
public:
    static WilcoxonResult compute(const std::vector<double>& a, const std::vector<double>& b,
                                  bool continuityCorrection = false);
    /// Mid-ranks (1-based) of @p values: ties share the mean of the ranks they span.
    static std::vector<double> midRanks(const std::vector<double>& values);
};

} // namespace tb::stats
