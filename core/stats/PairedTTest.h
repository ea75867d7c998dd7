#pragma once
/// @file PairedTTest.h
/// Student's paired t-test and the confidence interval of the mean difference.

#include <string>
#include <vector>

namespace tb::stats {

/// Outcome of a paired t-test of a − b. Fields are NaN when not defined (see valid, note).
struct PairedTTestResult {
    bool valid = false;      ///< false when fewer than two pairs remain
    int n = 0;               ///< pairs used (pairs with a NaN are left out)
    int dropped = 0;         ///< pairs left out because a or b was NaN
    double meanDifference = 0; ///< mean of a_i − b_i
    double sdDifference = 0;   ///< sample standard deviation of a_i − b_i (n − 1)
    double t = 0;            ///< mean / (sd / √n); ±∞ when sd = 0 and mean ≠ 0
    double df = 0;           ///< n − 1
    double pValue = 0;       ///< two-sided
    double confidence = 0.95;
    double ciLow = 0;        ///< confidence interval of the mean difference
    double ciHigh = 0;
    std::string note;        ///< why the result is not valid, or what is special about it
};

/// Pure functions; thread-safe.
class PairedTTest {
public:
    /// Tests H0: E[a − b] = 0 against the two-sided alternative, pairing a[i] with b[i]
    /// (the same seed). @p a and @p b must have the same length (else valid = false).
    /// @p confidence in (0, 1), default 0.95. When every difference is the same number c the
    /// test degenerates: c ≠ 0 gives t = ±∞, p = 0 and the interval [c, c] (the seeds change
    /// nothing, so the difference is exact); c = 0 gives t and p NaN. Matches R's
    /// t.test(a, b, paired = TRUE) and SciPy's ttest_rel.
    static PairedTTestResult compute(const std::vector<double>& a, const std::vector<double>& b,
                                     double confidence = 0.95);
};

} // namespace tb::stats
