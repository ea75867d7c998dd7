#pragma once
/// @file SelectionCurves.h
/// What a result's selection runs (ExperimentResult::selection: a tuned comparison's trials) say
/// about tuning: per algorithm the expected best validation score of n trials (Dodge et al.,
/// EMNLP 2019) against n and against the tuning CPU time they cost, the test score of the trial
/// that choice makes, and the trial chosen. Read by `compare`, the tuning charts and the docs.

#include "ExperimentRunner.h"
#include "RunMetric.h"
#include "TextTable.h"

#include <stats/ExpectedMax.h>

#include <QList>
#include <QString>
#include <QVariantMap>
#include <vector>

namespace tb {

/// One algorithm's tuning.
struct TuningCurve {
    QString algorithmId;
    QString label;
    MetricId selectedOn = MetricId::ValidationAccuracy; ///< validation accuracy, or validation RMSE for regression
    MetricId reported = MetricId::TestAccuracy;         ///< its test counterpart
    int trials = 0;          ///< trials that ran (finished, failed or diverged; not those Stop kept from starting)
    /// Successive halving: the highest rung any trial reached (0 without halving), and how many
    /// ran there — the trials the choice and byTrials are made of (all of them without halving).
    int topRung = 0;
    int atTopRung = 0;
    int failed = 0;          ///< of those at the top rung, failed or diverged: scored as the worst finished trial
    double cpuSeconds = 0;   ///< the training CPU time of every trial's every rung (the fact final.train_cpu_seconds)
    int bestTrial = -1;      ///< the chosen trial's number (the best validation score; the first of equals)
    QVariantMap bestSetting; ///< its drawn values
    double bestValidation = NaN;
    double bestTest = NaN;
    /// n = 1 … atTopRung: E[best validation score of n trials] ± sd, and E[test score of the trial it picks].
    std::vector<stats::ExpectedBest> byTrials;
    /// per n: the expected tuning CPU seconds of n trials (n × cpuSeconds / atTopRung: the mean
    /// trial's, or under halving a top-rung run's share of every rung's time).
    std::vector<double> cpuAt;
};

/// Pure functions; thread-safe.
class SelectionCurves {
public:
    /// The host fact a selection run carries (its phase, trial number, drawn values, the budget):
    /// "tuning".
    static const QString& factKey();
    /// One curve per entry of @p result's selection, in order; the trials ordered by number.
    static QList<TuningCurve> of(const ExperimentResult& result);
    /// Every trial of @p result's selection as a configuration of its own (one run, its drawn
    /// values as its setting, its algorithm's label as its configuration): for the views that draw
    /// configurations by their settings (parallel coordinates).
    static QList<AlgorithmCurves> candidates(const ExperimentResult& result);
    /// "30 trials each (random search, seed 7), at most 60 CPU s each": the budget the trials'
    /// facts name, empty when there are none.
    static QString budget(const ExperimentResult& result);
    /// The `compare` table: per algorithm the trials and their CPU time, the expected best
    /// validation score at a few budgets, the chosen trial's setting, validation and test score.
    static TextTable table(const ExperimentResult& result);
};

} // namespace tb
