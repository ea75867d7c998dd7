#pragma once
/// @file ParallelCoordinatesView.h
/// Parallel coordinates of an experiment's runs: one vertical axis per swept parameter and one for
/// the final metric, each run a polyline coloured by the metric.

#include <engine/ExperimentRunner.h>
#include <engine/RunMetric.h>

#include <QImage>
#include <QList>
#include <QStringList>
#include <QWidget>

namespace tb::charts {

/// Axes, left to right: "algorithm" (when the runs have more than one), every swept parameter
/// (ExperimentResult::variedKeys order), then the metric. A numeric axis is linear, or log10 when
/// its values look logarithmic (ParamSweepChart::looksLogarithmic); other values (choices, lists,
/// booleans) are categories spaced evenly in first-seen order. Each finished run is a polyline
/// coloured from dark blue (worst) to yellow (best) by its metric (a viridis-like ramp; the
/// colour bar on the right says which end is better). GUI thread only.
class ParallelCoordinatesView : public QWidget {
    Q_OBJECT
public:
    /// One axis: its name and, per run, the position in [0, 1] (NaN: no value) and the tick labels.
    struct Axis {
        QString name;
        bool log = false;
        QStringList categories;     ///< empty for numeric axes
        double lo = 0, hi = 1;      ///< numeric range shown
        QList<double> position;     ///< per run, 0 (bottom) … 1 (top)
    };

    explicit ParallelCoordinatesView(QWidget* parent = nullptr);

    /// Shows the finished runs of @p curves with @p metric on the last axis.
    void setData(const QList<AlgorithmCurves>& curves, MetricId metric);
    /// The axes built by the last setData() (for tests).
    const QList<Axis>& axes() const { return m_axes; }
    /// Per run, its colour position 0 (worst) … 1 (best).
    const QList<double>& shades() const { return m_shade; }
    int runCount() const { return int(m_shade.size()); }

    /// Paints the view at @p size (white background) for export.
    QImage render(QSize size) const;
    /// The ramp's colour at @p t in [0, 1] (0 worst, 1 best).
    static QColor rampColor(double t);

    QSize sizeHint() const override { return {900, 500}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void paint(QPainter& p, const QRect& area) const;

    QList<Axis> m_axes;
    QList<double> m_shade;
    QString m_metricLabel;
    QString m_title;
};

} // namespace tb::charts
