#pragma once
/// @file SpeedRatio.h
/// How many times faster one method reaches a target than another, over paired seeds.

#include <string>
#include <vector>

namespace tb::stats {

/// The ratio t_b / t_a of paired times to target: > 1 means a is faster.
struct SpeedRatioResult {
    bool valid = false;     ///< at least one pair with both times finite and positive
    int n = 0;              ///< pairs used
    int aMissed = 0;        ///< pairs where a never reached the target (NaN time)
    int bMissed = 0;        ///< pairs where b never reached it
    int zeroTime = 0;       ///< pairs left out because a time was 0 (reached before training)
    double geometricMean = 0; ///< exp(mean log ratio): the typical ratio
    double ciLow = 0;       ///< confidence interval of the geometric mean (t on the logs); NaN for n < 2
    double ciHigh = 0;
    double confidence = 0.95;
    double median = 0;
    double min = 0;
    double max = 0;
    std::vector<double> ratios; ///< per used pair, in input order
    std::string note;
};

/// Pure functions; thread-safe.
class SpeedRatio {
public:
    /// Ratios t_b[i] / t_a[i] of the pairs where both reached the target (finite, > 0 times).
    /// Ratios are summarised on the log scale (a 2× and a ½× cancel out), so the typical
    /// ratio is the geometric mean and its interval exp(mean ± t·sd/√n) of log ratios.
    static SpeedRatioResult compute(const std::vector<double>& ta, const std::vector<double>& tb,
                                    double confidence = 0.95);
};

} // namespace tb::stats
