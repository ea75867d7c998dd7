#pragma once
/// @file Claim.h
/// One paper claim of a claims file (resources/claims/<paper>.json): what the paper says, the
/// experiment that measures it, the statistic and the rule that turns the measurement into a
/// verdict. Plain data; ClaimsFile parses and checks it (docs/reproductions/README.md).

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <limits>

namespace tb::repro {

/// A place where the project had to interpret the paper, stated once per file and referenced
/// by the claims it affects.
struct Reading {
    QString id;   ///< unique in its file, e.g. "hidden-activation"
    QString text; ///< what the paper leaves open and what the project chose
};

/// The paper's number and its unit.
struct Figure {
    double value = std::numeric_limits<double>::quiet_NaN();
    /// "%" (an accuracy or error in percent: the measured fraction is shown × 100), "points" (a
    /// difference of accuracies or errors in percentage points, also × 100), "s"
    /// (seconds), "x" (a ratio), "wins" (a count of won seeds), "RMSE", "slope", or any other
    /// word (the measurement is shown as it is).
    QString unit;
};

/// What is computed from the experiment's stored runs. Which keys apply depends on kind.
struct ClaimStatistic {
    /// "final" (the metric at each run's last checkpoint), "at_time" (at @ref seconds of training:
    /// each run's last checkpoint at or before it), "time_to_target" (training seconds to reach
    /// @ref target), "time_ratio" (@ref against's time to @ref target over @ref algorithm's, paired
    /// by seed: > 1 means @ref algorithm is faster), "win_tie_loss" (@ref algorithm against
    /// @ref against over paired seeds, relative @ref tieBand), "difference" (paired mean difference
    /// @ref algorithm − @ref against), "slope" (per run, the least-squares slope of log metric
    /// against log @ref x over the checkpoints with x ≥ @ref from), "sweep" (a noise sweep's RMSE at
    /// σ = @ref sigma over its Monte-Carlo cells), "fact" (a numeric run fact, @ref fact, per
    /// run), "fact_ratio" and "fact_difference" (@ref fact over, or minus, @ref over — of the same
    /// run, or with @ref against of that configuration's run with the same seed).
    QString kind;
    QString algorithm; ///< the configuration measured: an algorithm's label (a param sweep: its row name)
    /// win_tie_loss, difference, time_ratio: the other configuration; fact_ratio and
    /// fact_difference: optional, the configuration whose run (same seed) gives the second fact
    QString against;
    /// fact, fact_ratio, fact_difference: a path into the run's facts (RunRecord::info), keys
    /// joined by '.', an array element by [i]: "feature_spectrum.ratio_2_1000",
    /// "layer_updates[0].updates", "final.loss" (the host's final metrics).
    QString fact;
    /// fact_ratio, fact_difference: the second fact's path (default: @ref fact itself, then
    /// @ref against is required).
    QString over;
    /// A RunMetric key ("test_accuracy", "test_rmse", …) or "test_error" / "train_error" /
    /// "validation_error" (1 − accuracy). Default: test_accuracy (sweep: test_rmse).
    QString metric = QStringLiteral("test_accuracy");
    double seconds = std::numeric_limits<double>::quiet_NaN(); ///< at_time
    double target = std::numeric_limits<double>::quiet_NaN(); ///< time_to_target, time_ratio: in the metric's
                                                              ///< own scale (accuracy 0…1)
    double tieBand = 0.05;                                    ///< win_tie_loss: relative band, [0, 1)
    QString x = QStringLiteral("epoch");                      ///< slope: "epoch" or "time"
    double from = 0; ///< slope: first x used (checkpoints before are left out), ≥ 0
    double sigma = std::numeric_limits<double>::quiet_NaN(); ///< sweep
    /// Optional: the data set (a param sweep over several): a part of its description.
    QString dataset;
};

/// How the measurement decides. Interval rules use the 95 % Student-t interval [lo, hi] of the
/// mean (a ratio's: of the geometric mean) against the paper's figure f:
///  - mean_ci_contains_or_exceeds: holds iff hi ≥ f (the paper's figure is reached or beaten);
///  - mean_ci_contains_or_below: holds iff lo ≤ f (for errors, RMSE, times);
///  - mean_ci_contains: holds iff lo ≤ f ≤ hi;
///  - mean_ci_above: holds iff lo > f, does not hold iff hi ≤ f, else inconclusive;
///  - mean_ci_below: holds iff hi < f, does not hold iff lo ≥ f, else inconclusive;
///  - ratio_at_least: holds iff lo ≥ f, does not hold iff hi < f, else inconclusive;
///  - wins_at_least: holds iff wins ≥ fraction × pairs (the count rule of win_tie_loss);
///  - wins_at_most: holds iff wins ≤ fraction × pairs (a paper that reports a method winning
///    only some seeds: "[3 ; 5]" is at most 3 of 10).
struct VerdictRule {
    QString rule;
    /// wins_at_least: in (0, 1]; wins_at_most: in [0, 1]
    double fraction = std::numeric_limits<double>::quiet_NaN();
};

/// What --quick runs instead: a declared, smaller version of the claim's experiment.
struct QuickVariant {
    bool included = false; ///< the claim is in the --quick subset
    int n = 0;             ///< seeds in quick mode (0: the claim's n)
    QJsonObject overrides; ///< applied after the claim's own overrides
    QString note;          ///< what the quick variant gives up, printed in the report
};

struct Claim {
    QString id;    ///< unique in its file
    QString quote; ///< the paper's words
    QString where; ///< e.g. "Table I", "Fig. 4"
    Figure figure;
    /// The experiment: a file (relative to the claims file's folder) or an inline object.
    QString experimentPath;       ///< absolute, when a file
    QJsonObject experimentInline; ///< when inline
    /// Keys applied to the experiment before it runs (ClaimExperiment::overrideKeys()).
    QJsonObject overrides;
    ClaimStatistic statistic;
    /// Seeds (learning curves, param sweeps: repeats) or Monte-Carlo cells (noise sweeps); ≥ 5
    /// unless @ref nReason says why not.
    int n = 0;
    QString nReason;
    VerdictRule verdict;
    QStringList readings; ///< ids of the file's readings
    /// Data the paper used that may be absent here (a catalogue set's name, …): said in the report.
    QString data;
    /// What the reader must know about the figure or the measurement (e.g. where a number that
    /// the paper only plots comes from); printed with the claim.
    QString note;
    QuickVariant quick;
    QString jsonPath; ///< "claims[3]", for messages
};

} // namespace tb::repro
