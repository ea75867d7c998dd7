#pragma once
/// @file ClaimOutcome.h
/// What a claim came to: the measurement, its interval, n and the verdict.

#include <QString>
#include <limits>

namespace tb::repro {

enum class Verdict { Holds, DoesNotHold, Inconclusive };

/// "holds", "does not hold", "inconclusive".
inline QString verdictName(Verdict v)
{
    switch (v) {
    case Verdict::Holds:
        return QStringLiteral("holds");
    case Verdict::DoesNotHold:
        return QStringLiteral("does not hold");
    case Verdict::Inconclusive:
        break;
    }
    return QStringLiteral("inconclusive");
}

struct ClaimOutcome {
    QString claimId;
    Verdict verdict = Verdict::Inconclusive;
    /// Why the verdict is what it is: the comparison made, or why nothing could be decided
    /// ("not run: data absent: …", "fewer than two values: no interval").
    QString reason;
    bool measured = false; ///< a value was computed
    /// In the figure's unit (an accuracy with unit "%" is × 100); NaN when not measured.
    double mean = std::numeric_limits<double>::quiet_NaN();
    double ciLow = std::numeric_limits<double>::quiet_NaN(); ///< 95 % Student-t interval of the mean
    double ciHigh = std::numeric_limits<double>::quiet_NaN();
    int n = 0;          ///< values behind the statistic (runs, pairs, Monte-Carlo cells)
    int planned = 0;    ///< seeds (or cells) the experiment was asked for
    int failedRuns = 0; ///< runs of the configurations involved that did not finish
    /// Count rules (wins_at_least, wins_at_most): the wins the verdict needed, or allowed, at
    /// @ref n pairs — the paper's count scaled by the rule's fraction (10 of 10 → 3 of 3 at n = 3);
    /// −1 otherwise.
    int countBound = -1;
    QString detail;        ///< e.g. "wins 4, ties 1, losses 0 of 5 pairs", "reached by 4 of 5 runs"
    QString statisticText; ///< what was measured, in words
    QString ruleText;      ///< the verdict rule, in words, with the paper's figure
    /// A problem with the claims file found only against the results (a configuration that is
    /// not in the experiment): the claim could not be evaluated, and the command fails.
    QString error;
};

} // namespace tb::repro
