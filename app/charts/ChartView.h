#pragma once
/// @file ChartView.h
/// QChartView with rubber-band zoom, wheel zoom, zoom reset and hover tooltips, for the GUI.

#include <QChartView>

namespace tb::charts {

class ChartHover;

/// Chart view for live Trainbench charts. Drag a rectangle to zoom in, right-click to zoom out,
/// wheel to zoom around the centre (on by default), double-click or resetZoom() to show all data
/// again. While zoomed, BandedLineChart::setData() leaves the axis ranges alone. Hovering a data point
/// shows its exact values (ChartHover). Antialiased; every update repaints the whole view (Qt Charts
/// draws point marks beyond the area it repaints, which left stale marks). GUI thread only.
class ChartView : public QChartView {
    Q_OBJECT
public:
    /// Shows @p chart (the view takes ownership, as QChartView does); nullptr gives an empty chart.
    explicit ChartView(QChart* chart = nullptr, QWidget* parent = nullptr);

    /// Wheel zoom (factor 1.25 per notch around the plot centre). Default on.
    void setWheelZoomEnabled(bool on) { m_wheelZoom = on; }
    bool isWheelZoomEnabled() const { return m_wheelZoom; }

    /// The tooltip helper (owned by the view).
    ChartHover* hover() const { return m_hover; }

public Q_SLOTS:
    /// Undoes every zoom and fits the axes to the current data (BandedLineChart::fitToData()).
    void resetZoom();

protected:
    void wheelEvent(QWheelEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    ChartHover* m_hover;
    bool m_wheelZoom = true;
};

} // namespace tb::charts
