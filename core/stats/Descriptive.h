#pragma once
/// @file Descriptive.h
/// Mean, sample standard deviation and median of a handful of values (one per seed).

#include <vector>

namespace tb::stats {

/// Summary of a sample. Values that are NaN are left out (count says how many went in).
struct Summary {
    int count = 0;
    double mean = 0;   ///< NaN when count is 0
    double std = 0;    ///< sample standard deviation (n − 1); 0 for one value; NaN for none
    double median = 0; ///< NaN when count is 0
    double min = 0;    ///< NaN when count is 0
    double max = 0;    ///< NaN when count is 0
    /// Student-t confidence interval of the mean at the level summarise() was asked for
    /// (mean ± t·std/√n); NaN for fewer than two values.
    double ciLow = 0;
    double ciHigh = 0;
    /// Two or more values, all the same (e.g. a deterministic algorithm whose seed changes
    /// nothing): then mean, median, min and max are that value exactly, std is 0 and the
    /// interval is the point [value, value] — a degenerate interval, which a decision must treat
    /// as a point measured with rounding, not as a sample's spread (ClaimEvaluator does).
    bool identical = false;
};

/// Pure functions; thread-safe.
class Descriptive {
public:
    /// Summary of @p values without their NaNs. Two-pass mean and variance (no cancellation
    /// for values with a large common offset, such as accuracies near 0.9).
    /// @p confidence (default 0.95) is the level of the mean's interval. Identical values are
    /// summarised exactly (Summary::identical), not through a sum that may round.
    static Summary summarise(const std::vector<double>& values, double confidence = 0.95);
    /// The values of @p values that are not NaN, in order.
    static std::vector<double> withoutNaN(const std::vector<double>& values);
};

} // namespace tb::stats
