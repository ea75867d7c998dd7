#pragma once
/// @file LearningCurveChart.h
/// "Metric vs training time / epoch" chart of a learning-curve experiment, live or exported.

#include "BandedLineChart.h"
#include <engine/ExperimentRunner.h>
#include <store/RunTypes.h>

#include <QList>
#include <QString>
#include <QVector>

namespace tb::charts {

/// One algorithm's curves: every repeat's checkpoints in order (repeats may differ in length).
struct CurveSeriesData {
    QString label;       ///< legend label, e.g. "Adam" or "Adam lr=0.01"
    QString algorithmId; ///< e.g. "gradient.adam"; informational
    QList<QVector<MetricPoint>> repeats;
    /// The clock of the repeats' times (AlgorithmCurves::clock): the x axis says "CPU time" when
    /// every curve is on the CPU clock; with both clocks on one chart the CPU ones are marked.
    ClockKind clock = ClockKind::Wall;
};

/// Learning curves of several algorithms on one chart. Per algorithm (colour by position in the
/// data list, ChartPalette): test = solid line "<label> — test", train = dashed line "<label> — train",
/// each the mean over repeats (CurveAggregate) with a shaded ± std band when there is more than one
/// repeat. The Loss metric has a single solid line "<label> — loss" (the training objective).
/// X is the mean training time or mean epoch of each checkpoint index.
/// GUI thread only; needs a QApplication (also for PNG export: create one, e.g. with
/// QT_QPA_PLATFORM=offscreen).
class LearningCurveChart : public BandedLineChart {
    Q_OBJECT
public:
    enum class Metric {
        Accuracy, ///< train/test accuracy in % (MetricPoint stores fractions 0 … 1)
        Loss,     ///< training loss
        Rmse,     ///< train/test RMSE
    };
    enum class XAxis {
        TrainTime,    ///< training seconds, linear axis
        TrainTimeLog, ///< training seconds, log10 axis; checkpoints at time ≤ 0 are left out
        Epoch,        ///< epochs, linear axis
    };

    /// Empty chart for @p metric against @p x (defaults: accuracy vs linear training time).
    explicit LearningCurveChart(Metric metric = Metric::Accuracy, XAxis x = XAxis::TrainTime,
                                QGraphicsItem* parent = nullptr);

    /// Shows @p data, reusing the existing series (QXYSeries::replace) when the algorithms are the
    /// same as before, so it can be called ~20 times a second while training. Axis ranges follow
    /// the data unless the user has zoomed. Algorithms are matched by position, not by id.
    void setData(const QList<CurveSeriesData>& data);
    const QList<CurveSeriesData>& data() const { return m_data; }

    /// Changes the metric; redraws from the data last given and resets the automatic title.
    void setMetric(Metric metric);
    Metric metric() const { return m_metric; }
    /// Changes the x quantity/scale; redraws from the data last given and resets the automatic title.
    void setXAxisKind(XAxis x);
    XAxis xAxisKind() const { return m_xKind; }

    /// The chart's data for the engine's curves (ExperimentRunner, StoredRuns): label, id, repeats.
    static QList<CurveSeriesData> seriesOf(const QList<AlgorithmCurves>& curves);

    /// Axis titles: "accuracy (%)", "loss", "RMSE".
    static QString metricTitle(Metric metric);
    /// The clocks of the curves on a chart: all wall (training time), all CPU, or both.
    enum class Clocks { Wall, Cpu, Mixed };
    /// Axis titles: "training time (s)" (linear and log; "training CPU time (s)" on the CPU
    /// clock), "epoch".
    static QString xTitle(XAxis x, Clocks clocks = Clocks::Wall);
    /// Automatic chart title, e.g. "Accuracy vs training time" ("… vs training CPU time").
    static QString defaultTitle(Metric metric, XAxis x, Clocks clocks = Clocks::Wall);
    /// The clocks of @p data's curves (those with checkpoints; Wall when none has any).
    static Clocks clocksOf(const QList<CurveSeriesData>& data);
    /// defaultTitle() of what the chart shows now.
    QString currentDefaultTitle() const;

private:
    void rebuild();
    void applyKinds();

    QList<CurveSeriesData> m_data;
    Metric m_metric;
    XAxis m_xKind;
    Clocks m_clocks = Clocks::Wall;
};

} // namespace tb::charts
