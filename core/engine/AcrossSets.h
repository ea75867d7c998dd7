#pragma once
/// @file AcrossSets.h
/// Configurations compared over several data sets (a suite's, or several experiments'): one score
/// per (data set, configuration) — the mean over seeds of the final metric — ranked per set, with
/// the Friedman test, the Nemenyi critical difference, Holm against a control, and performance
/// profiles of the time to a validation-chosen target and of the final test error
/// (stats/RankStatistics.h; Demšar 2006, Dolan & Moré 2002).

#include "Comparison.h"

#include <stats/RankStatistics.h>

#include <QList>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace tb {

/// One data set of the comparison: what its scores are and the target its times are to.
struct AcrossSetsColumn {
    QString dataset;                 ///< the data set's description (ConfigurationSample::dataset)
    MetricId metric = MetricId::TestAccuracy;    ///< the score on this set (its task's default unless one was asked for)
    MetricId selection = MetricId::TestAccuracy; ///< what the time target is set and reached on (validation when measured)
    double target = NaN;             ///< the time target on `selection` (the best value every run reaches), NaN: none
};

/// Everything across data sets, for `compare` and the charts (CD diagram, performance profiles).
struct AcrossSetsResult {
    QStringList configurations;      ///< the columns of the statistics, in first-seen order
    QList<AcrossSetsColumn> sets;    ///< the rows, in first-seen order
    /// [set][configuration]: mean over the finished seeds of the set's metric; NaN where the
    /// configuration has no finished run on the set (a gap, named in `gaps`).
    std::vector<std::vector<double>> scores;
    std::vector<std::vector<int>> runs;          ///< [set][configuration]: finished runs behind the score
    /// [set][configuration]: median over seeds of the training seconds to the set's target
    /// (+∞ when half or more of the runs never reach it; NaN: a gap).
    std::vector<std::vector<double>> secondsToTarget;
    /// [set][configuration]: the final test error behind the score: 1 − accuracy, or the RMSE.
    std::vector<std::vector<double>> error;
    /// Per set, the index of the best score (ties: every configuration at the best, lowest index
    /// first); empty for a set without scores.
    std::vector<std::vector<int>> winners;
    /// [set][configuration]: the rank on the set among the configurations that ran there (1 =
    /// best, ties the mean of their ranks); NaN for a gap.
    std::vector<std::vector<double>> setRanks;
    stats::FriedmanResult friedman;  ///< over the sets every configuration ran on
    double alpha = 0.05;
    double criticalDifference = NaN; ///< Nemenyi's, at alpha, for friedman's k and N
    int control = 0;                 ///< Holm's control (index into configurations)
    std::vector<stats::HolmRow> holm;
    stats::PerformanceProfile timeProfile;   ///< of secondsToTarget
    stats::PerformanceProfile errorProfile;  ///< of error
    QStringList gaps;                ///< "LIBLINEAR on friedman1 (regression): no run", one per gap
    bool selectedOnTest = false;     ///< some set's target was set on test data (no validation split)
};

/// Pure functions; thread-safe.
class AcrossSets {
public:
    /// The comparison of @p samples' configurations over their data sets. @p metric: the score of
    /// every set (nullopt: each set's own default, test accuracy for classification and test RMSE
    /// for regression, so that a suite may mix tasks: ranks are per set). @p control: Holm's control
    /// by name (empty: the configuration with the best average rank).
    static AcrossSetsResult compute(const QList<ConfigurationSample>& samples, std::optional<MetricId> metric = std::nullopt,
                                    const QString& control = {}, double alpha = 0.05);
    /// The samples of @p curves for compute(): each curve's own data set's metric when @p metric
    /// is nullopt (samples of a suite may mix tasks).
    static QList<ConfigurationSample> samples(const QList<AlgorithmCurves>& curves, std::optional<MetricId> metric = std::nullopt);
    /// Whether @p result spans enough to rank: at least 2 data sets and 2 configurations.
    static bool applies(const ExperimentResult& result);
};

} // namespace tb
