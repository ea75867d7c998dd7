#pragma once
/// @file ExpectedMax.h
/// The expected best of n random trials (Dodge et al., "Show Your Work", EMNLP 2019): how good a
/// tuning with a budget of n trials is, read off the N trials that were run.

#include "Better.h"

#include <vector>

namespace tb::stats {

/// The expected best score of n trials and what comes with it.
struct ExpectedBest {
    int n = 0;             ///< trials drawn
    double mean = 0;       ///< E[best score of n trials]
    double sd = 0;         ///< its standard deviation over the draws of n trials
    double pairedMean = 0; ///< E[paired value of the trial the best score chooses] (e.g. its test score)
};

/// Pure functions; thread-safe.
class ExpectedMax {
public:
    /// The expected best of n = 1 … @p maxN trials drawn with replacement from the N observed
    /// trials' @p scores (better in direction @p better), the estimator of Dodge et al.: with the
    /// scores sorted from worst to best, v(1) … v(N), the best of n draws is v(i) with probability
    /// (i/N)^n − ((i−1)/N)^n, so E = Σ v(i)·[(i/N)^n − ((i−1)/N)^n] and sd² = Σ v(i)²·[…] − E².
    /// @p paired (same length as @p scores, or empty) is averaged with the same weights: the
    /// expected test score of the trial a validation score picks; trials with equal scores share
    /// their weight evenly. Non-finite scores are not allowed (the caller maps failed trials to a
    /// score, see SelectionCurves); empty @p scores gives an empty result.
    static std::vector<ExpectedBest> curve(const std::vector<double>& scores, const std::vector<double>& paired,
                                           int maxN, Better better = Better::Higher);
};

} // namespace tb::stats
