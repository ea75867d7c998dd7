#pragma once
/// @file ComparisonTables.h
/// The comparisons of Comparison as tables for the CLI (text, CSV, Markdown, LaTeX) and the GUI.

#include "Comparison.h"
#include "TextTable.h"

namespace tb {

/// Pure functions; thread-safe.
class ComparisonTables {
public:
    /// Rows: configurations; columns: data sets; cells "mean ± std" with ▲ (significantly better
    /// than the baseline) or ▼ (worse); notes say which test, α, how many seeds, what was left out.
    static TextTable matrix(const ResultMatrix& m, const QList<ConfigurationSample>& samples);
    /// Each configuration against the baseline: mean difference with its confidence interval,
    /// paired t and Wilcoxon p-values, win/tie/loss.
    static TextTable pairwise(const QList<PairwiseComparison>& rows, MetricId metric, double tieBand, double confidence);
    /// A param sweep's grid: the swept values as columns, then the metric, time and memory.
    static TextTable grid(const QList<GridRow>& rows, MetricId metric);
    /// Time to target and the speed-up over the baseline at equal accuracy; the bracket the
    /// target was crossed in; with a validation split, the reported (test) metric at the target.
    static TextTable timeToTarget(const TimeToTargetTable& t);
    /// The configuration selected per data set (on validation, or on test — said so), with the
    /// reported metric's mean and confidence interval.
    static TextTable selection(const QList<Selection>& rows, double confidence);
    /// Each configuration's metric at common training times (mean [CI], runs with a value).
    static TextTable atTimes(const MatchedTimeTable& t, double confidence);
    /// "0.0028", "<0.0001", "0" (exact), "-" (not defined).
    static QString formatP(double p);
};

} // namespace tb
