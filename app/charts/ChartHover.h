#pragma once
/// @file ChartHover.h
/// Tooltips with the exact data point under the mouse, for any QChartView.

#include <QObject>
#include <QPoint>
#include <QString>

class QChartView;

namespace tb::charts {

/// Shows a tooltip "<series name>\n<x title> = x\n<y title> = y" for the data point nearest to the
/// mouse (within maxDistance() pixels) among the chart's visible line/scatter series; bands
/// (QAreaSeries) are ignored. Works by watching the view's mouse moves, so series added later
/// (new algorithms during a run) are covered without reconnecting. Parented to the view.
/// GUI thread only.
class ChartHover : public QObject {
    Q_OBJECT
public:
    /// Attaches to @p view (turns on its mouse tracking). The helper is deleted with the view.
    explicit ChartHover(QChartView* view);

    /// Largest distance in pixels from the mouse to a data point that still shows it. Default 12, ≥ 1.
    void setMaxDistance(int pixels);
    int maxDistance() const { return m_maxDistance; }

    /// The tooltip text for the mouse at @p viewportPos (viewport coordinates), or an empty string
    /// when no data point is within maxDistance(). Numbers use 6 significant digits.
    QString textAt(const QPoint& viewportPos) const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    QChartView* m_view;
    int m_maxDistance = 12;
};

} // namespace tb::charts
