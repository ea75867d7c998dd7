#pragma once
/// @file Comparison.h
/// Is the difference real? Stored runs grouped into configurations and compared over seeds:
/// Weka's result matrix, paired tests against a baseline, a param sweep's grid, time to
/// target with speed ratios, and the accuracy-versus-time Pareto front.

#include "ExperimentRunner.h"
#include "RunMetric.h"

#include <stats/Descriptive.h>
#include <stats/PairedTTest.h>
#include <stats/SpeedRatio.h>
#include <stats/WilcoxonSignedRank.h>
#include <stats/WinTieLoss.h>

#include <QList>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <cstdint>

namespace tb {

/// The finished runs of one configuration on one data set, in run order.
struct ConfigurationSample {
    QString configuration;           ///< row name: algorithm label and swept setting
    QString dataset;                 ///< column name: the data set's description
    QString algorithmId;
    QVariantMap setting;             ///< param-sweep: the swept values
    QList<std::uint64_t> seeds;      ///< one per finished run; runs pair by seed
    QList<double> values;            ///< the metric's final value per run (NaN when absent)
    QList<QVector<MetricPoint>> curves;
    QList<QJsonObject> infos;
    int excluded = 0;                ///< runs that did not finish (failed, diverged, cancelled …)
    ClockKind clock = ClockKind::Wall; ///< the clock of the curves' times (AlgorithmCurves::clock)
};

/// Which paired test decides a result-matrix marker.
enum class SignificanceTest { PairedT, Wilcoxon };

/// One cell of a result matrix: a configuration on a data set, against the baseline there.
struct MatrixCell {
    bool present = false;            ///< the configuration ran on this data set
    bool isBaseline = false;
    stats::Summary summary;          ///< of the final values
    int excluded = 0;
    int pairs = 0;                   ///< seeds shared with the baseline
    double pValue = NaN;             ///< of the chosen test, NaN when not tested
    /// +1: significantly better than the baseline (p < alpha, in the metric's direction);
    /// −1: significantly worse; 0: no significant difference or not tested.
    int marker = 0;
};

/// Weka Experimenter's result matrix: configurations × data sets.
struct ResultMatrix {
    MetricId metric = MetricId::TestAccuracy;
    QString baseline;
    double alpha = 0.05;
    SignificanceTest test = SignificanceTest::PairedT;
    QStringList rows;                ///< configurations in first-seen order
    QStringList columns;             ///< data sets in first-seen order
    QList<QList<MatrixCell>> cells;  ///< [row][column]
};

/// One configuration against the baseline on one data set, over their shared seeds.
struct PairwiseComparison {
    QString configuration;
    QString baseline;
    QString dataset;
    int pairs = 0;
    double mean = NaN;               ///< of the configuration, over the paired seeds
    double baselineMean = NaN;
    stats::PairedTTestResult tTest;  ///< of configuration − baseline
    stats::WilcoxonResult wilcoxon;
    stats::WinTieLossResult winTieLoss; ///< from the configuration's side
};

/// Training time to a target for one configuration on one data set.
struct TimeToTargetRow {
    QString configuration;
    QString dataset;
    double target = NaN;             ///< on TimeToTargetTable::selection
    QList<std::uint64_t> seeds;      ///< per finished run
    QList<double> seconds;           ///< per run: first checkpoint at the target, NaN if never
    QList<double> lastMissSeconds;   ///< per run: the checkpoint before (the time lies between)
    /// Per run: the reported metric (TimeToTargetTable::metric, e.g. test accuracy) at the
    /// checkpoint that reached the target on the selection metric; NaN if never.
    QList<double> reportedAtTarget;
    int reached = 0;
    stats::Summary summary;          ///< of the runs that reached it
    stats::Summary reportedSummary;  ///< of reportedAtTarget, over the runs that reached it
    /// Paired by seed: baseline seconds / this configuration's seconds (> 1: this one is faster).
    stats::SpeedRatioResult speedupOverBaseline;
};

/// The clocks the runs of a table were timed on (their budgets', HostBudget::timesClock): the
/// tables' words say "training seconds", "CPU seconds" or both.
enum class TimeClocks { Wall, Cpu, Mixed };

/// The clocks of @p samples' runs (those with a finished run).
TimeClocks timeClocksOf(const QList<ConfigurationSample>& samples);

struct TimeToTargetTable {
    MetricId metric = MetricId::TestAccuracy;    ///< what is reported
    TimeClocks clocks = TimeClocks::Wall;        ///< what the times are
    /// What the target is set on and reached on: the validation counterpart of @ref metric when
    /// the runs measured it (Select on validation), else @ref metric itself.
    MetricId selection = MetricId::TestAccuracy;
    QString baseline;
    QList<TimeToTargetRow> rows;
    /// True when a test metric was used to set and reach the target because the runs had no
    /// validation split: the output must say so.
    bool selectedOnTest() const { return selection == metric && RunMetric::validationOf(metric).has_value(); }
};

/// What a comparison selects on one data set: the configuration with the best mean of the
/// selection metric (validation when measured), and the reported metric (test) of that
/// configuration.
struct Selection {
    QString dataset;
    QString configuration;           ///< the selected one
    MetricId metric = MetricId::TestAccuracy;    ///< reported
    MetricId selection = MetricId::TestAccuracy; ///< selected on
    stats::Summary selected;         ///< of the selection metric's final values
    stats::Summary reported;         ///< of the reported metric's final values
    int candidates = 0;              ///< configurations compared on this data set
    bool selectedOnTest() const { return selection == metric && RunMetric::validationOf(metric).has_value(); }
};

/// Each configuration's metric at common training times: curve against curve, not each at its
/// own stop. A run's value at time t is its last checkpoint at or before t (a finished run
/// keeps its final model); NaN when its first checkpoint comes after t.
struct MatchedTimeRow {
    QString configuration;
    QString dataset;
    QList<stats::Summary> at;        ///< one per time, over the runs with a value then
    QList<int> runs;                 ///< per time: how many runs had a value
};

struct MatchedTimeTable {
    MetricId metric = MetricId::TestAccuracy;
    TimeClocks clocks = TimeClocks::Wall; ///< what the common times are
    QList<double> seconds;           ///< the common times
    QList<MatchedTimeRow> rows;
};

/// A run on the frontier chart: its training time against its final metric.
struct FrontierPoint {
    QString configuration;
    QString dataset;
    std::uint64_t seed = 0;
    double seconds = NaN;
    double value = NaN;              ///< the reported metric (test)
    /// The metric the front is decided on: the validation counterpart when measured, else value.
    double selectionValue = NaN;
    bool onFront = false;            ///< no run of the same data set is faster and at least as good (on selectionValue)
};

/// A configuration's row of a parameter grid.
struct GridRow {
    QString configuration;
    QString dataset;
    QString algorithmId;
    QVariantMap setting;
    stats::Summary metric;
    stats::Summary seconds;          ///< final training time
    stats::Summary memory;           ///< peak working memory (runs that measured it)
    int excluded = 0;
};

/// Pure functions; thread-safe.
class Comparison {
public:
    /// Groups @p curves (of one or several experiments) into configurations × data sets, keeping
    /// finished runs only (the others are counted in `excluded`). Configurations with the same
    /// name and data set are merged; a seed seen twice keeps its first run.
    static QList<ConfigurationSample> samples(const QList<AlgorithmCurves>& curves, MetricId metric);

    /// The values of @p a and @p b on the seeds they share, in @p a's order.
    static void paired(const ConfigurationSample& a, const ConfigurationSample& b, std::vector<double>* va,
                       std::vector<double>* vb);

    /// The result matrix against @p baseline (a configuration name; empty: the first row), with
    /// markers where the paired @p test gives p < @p alpha on at least two shared seeds.
    static ResultMatrix matrix(const QList<ConfigurationSample>& samples, MetricId metric, const QString& baseline = {},
                               double alpha = 0.05, SignificanceTest test = SignificanceTest::PairedT);

    /// Every configuration against @p baseline (empty: the first) on each data set they share;
    /// win/tie/loss with relative @p tieBand (default 5 %), intervals at @p confidence.
    static QList<PairwiseComparison> pairwise(const QList<ConfigurationSample>& samples, MetricId metric,
                                              const QString& baseline = {}, double tieBand = 0.05,
                                              double confidence = 0.95);

    /// Time to @p target for every configuration (metric must have a curve). The target is set
    /// and reached on the selection metric (selectionMetric(): validation when measured) and
    /// @p metric is reported at the checkpoint that reached it. A NaN target means, per data set,
    /// the best value every compared run reaches (TimeToTarget::commonTarget). A target crossed
    /// between checkpoints lies in the bracket (lastMissSeconds, seconds].
    /// Speed-ups are against @p baseline (empty: the first configuration).
    static TimeToTargetTable timeToTarget(const QList<ConfigurationSample>& samples, MetricId metric,
                                          double target = NaN, const QString& baseline = {},
                                          double confidence = 0.95);

    /// Every run as (training seconds, final metric), with each data set's Pareto front marked —
    /// decided on the validation counterpart of @p metric when the runs measured it.
    static QList<FrontierPoint> frontier(const QList<ConfigurationSample>& samples, MetricId metric);

    /// Per data set, the configuration with the best mean of @p metric's validation counterpart
    /// (of @p metric itself when the runs have no validation split: Selection::selectedOnTest()),
    /// with @p metric reported for it.
    static QList<Selection> select(const QList<ConfigurationSample>& samples, MetricId metric);

    /// @p metric of every configuration at each of @p seconds (see MatchedTimeTable).
    static MatchedTimeTable atTimes(const QList<ConfigurationSample>& samples, MetricId metric,
                                    const QList<double>& seconds, double confidence = 0.95);

    /// The metric anything is selected on when @p metric is reported: its validation
    /// counterpart when some run of @p samples measured it, else @p metric.
    static MetricId selectionMetric(const QList<ConfigurationSample>& samples, MetricId metric);

    /// One row per configuration and data set: the metric, time and memory over seeds.
    static QList<GridRow> grid(const QList<ConfigurationSample>& samples);

    /// The configuration names of @p samples in first-seen order.
    static QStringList configurations(const QList<ConfigurationSample>& samples);
};

} // namespace tb
