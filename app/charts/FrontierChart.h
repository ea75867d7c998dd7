#pragma once
/// @file FrontierChart.h
/// Every run of an experiment as (training time, final metric), with the Pareto front marked.

#include <engine/Comparison.h>

#include <QChart>
#include <QList>

class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;

namespace tb::charts {

/// A scatter of runs: x = training time on a log10 axis, y = the final metric (accuracy in %),
/// one colour per configuration (ChartPalette, first-appearance order), and the Pareto front —
/// the runs no other run of the same data set beats on both — joined by a black step line in
/// order of time ("Pareto front" in the legend) and drawn with larger outlined markers. Runs with
/// a time ≤ 0 or a NaN value cannot be placed on the axes and are left out (count: hiddenPoints()).
/// GUI thread only; needs a QApplication.
class FrontierChart : public QChart {
    Q_OBJECT
public:
    explicit FrontierChart(QGraphicsItem* parent = nullptr);

    /// Shows @p points (Comparison::frontier) of @p metric. Replaces what was shown.
    void setData(const QList<FrontierPoint>& points, MetricId metric);
    const QList<FrontierPoint>& data() const { return m_points; }
    /// Points of the last setData() left out (time ≤ 0 or NaN).
    int hiddenPoints() const { return m_hidden; }
    /// The front's line, for tests. Owned by the chart.
    QLineSeries* frontSeries() const { return m_front; }
    /// The scatter of configuration @p index (first-appearance order), or nullptr.
    QScatterSeries* configurationSeries(int index) const { return m_scatter.value(index); }

private:
    QList<FrontierPoint> m_points;
    QList<QScatterSeries*> m_scatter;
    QLineSeries* m_front = nullptr;
    QLogValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
    int m_hidden = 0;
};

} // namespace tb::charts
