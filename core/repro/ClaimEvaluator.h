#pragma once
/// @file ClaimEvaluator.h
/// A claim's statistic computed from its experiment's results with the compare machinery
/// (Comparison: samples paired by seed, time to target, win/tie/loss, speed ratios) and decided
/// by its verdict rule.

#include "Claim.h"
#include "ClaimOutcome.h"

#include <engine/ExperimentRunner.h>

namespace tb::repro {

/// Pure functions; thread-safe.
class ClaimEvaluator {
public:
    /// Evaluates @p claim on @p result (its experiment, run or read back from the store) with
    /// @p planned seeds asked for. Intervals are 95 % Student-t intervals of the mean
    /// (stats::Descriptive, stats::PairedTTest; a ratio's on the log scale, stats::SpeedRatio).
    /// A statistic with fewer than two values has no interval: the interval rules then say
    /// inconclusive. A configuration the result does not hold, or a fact that none of its runs
    /// recorded, sets ClaimOutcome::error; a fact that only some runs lack makes the verdict
    /// inconclusive, as does a ratio of facts with a value ≤ 0.
    static ClaimOutcome evaluate(const Claim& claim, const ExperimentResult& result, int planned);

    /// The verdict of @p rule for a mean with interval [@p low, @p high] against the paper's
    /// @p figure (ClaimOutcome::reason says why, the values in @p unit as formatValue() writes
    /// them); the count rules (wins_at_least, wins_at_most) are decided in evaluate().
    ///
    /// @p point: the interval is degenerate — two or more identical values (low = high = the
    /// value), so it has no sampling width and its ends are one computed number, exact only to
    /// its rounding. Such a point equal to the figure within kPointTolerance (relative) is
    /// decided as the figure itself ("equals"), so that −0.9999999999999999 for a slope of
    /// exactly −1 is not a miss that depends on the CPU's rounding; the reason says that the
    /// values were identical.
    static Verdict decide(const QString& rule, double low, double high, double figure, QString* reason,
                          const QString& unit = {}, bool point = false);

    /// The relative tolerance of a degenerate interval against the figure: far above the
    /// rounding of any statistic computed here (a mean, a log-log slope over a few hundred
    /// points, a ratio: ~1e-13 at worst), far below the precision of any paper's figure (at most
    /// six significant digits).
    static constexpr double kPointTolerance = 1e-9;

    /// The rule in words for the report: "holds if the 95 % interval of the mean contains or
    /// exceeds 87.73 %".
    static QString describeRule(const VerdictRule& rule, const Figure& figure);

    /// @p v as the report shows a value in unit @p unit ("87.73 %", "12.5 s", "3.2×").
    static QString formatValue(double v, const QString& unit);
};

} // namespace tb::repro
