#pragma once
/// @file AcrossSetsTables.h
/// The tables of a comparison across data sets (AcrossSets) for `trainbench-cli compare`, `run` of a
/// suite and the workbench's Comparison tab.

#include "AcrossSets.h"
#include "TextTable.h"

namespace tb {

/// Pure functions; thread-safe.
class AcrossSetsTables {
public:
    /// One row per data set: each configuration's score (mean over seeds) and rank on the set,
    /// the set's best marked; the last row the average ranks. The gaps are notes.
    static TextTable perSet(const AcrossSetsResult& r);
    /// Average ranks, the Friedman and Iman–Davenport tests and the Nemenyi critical difference,
    /// with the groups of configurations whose average ranks lie within it.
    static TextTable ranks(const AcrossSetsResult& r);
    /// Holm's step-down procedure against the control.
    static TextTable holm(const AcrossSetsResult& r);
    /// Every configuration against the control over the data sets: the Wilcoxon signed-rank test
    /// of their scores and the Bayesian signed-rank test with a region of practical equivalence of
    /// half-width @p rope in the score's units (NaN: 0.01, one point of accuracy or 1 % of the
    /// median score of another metric). Needs one metric on every set; otherwise a note says so.
    static TextTable pairs(const AcrossSetsResult& r, double rope = NaN, std::uint64_t seed = 1);
    /// The groups of configurations (indices) whose average ranks differ by less than the critical
    /// difference, maximal ones only, ordered by their best rank: the CD diagram's bars.
    static QList<QList<int>> cliques(const AcrossSetsResult& r);
    /// The default ROPE of pairs() for @p r.
    static double defaultRope(const AcrossSetsResult& r);
};

} // namespace tb
