#include "ChartView.h"

#include "BandedLineChart.h"
#include "ChartHover.h"

#include <QWheelEvent>

#include <cmath>

namespace tb::charts {

ChartView::ChartView(QChart* chart, QWidget* parent)
    : QChartView(chart ? chart : new QChart, parent), m_hover(new ChartHover(this))
{
    setRenderHint(QPainter::Antialiasing);
    setRubberBand(QChartView::RectangleRubberBand);
    // Qt Charts paints a line's point marks (a run's single checkpoint, a noise sweep's σ points)
    // outside the area its item reports, so a partial repaint never erased marks that moved: a
    // live run left them at the plot's top and bottom edges. Every update repaints the whole
    // view — the data change moves every series at once anyway.
    setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
}

void ChartView::resetZoom()
{
    QChart* c = chart();
    if (!c)
        return;
    c->zoomReset();
    if (auto* banded = qobject_cast<BandedLineChart*>(c))
        banded->fitToData(); // data may have grown since the zoom started
}

void ChartView::wheelEvent(QWheelEvent* event)
{
    if (!m_wheelZoom || !chart()) {
        QChartView::wheelEvent(event);
        return;
    }
    const double notches = event->angleDelta().y() / 120.0;
    if (notches != 0) {
        const double factor = std::pow(1.25, notches);
        auto* banded = qobject_cast<BandedLineChart*>(chart());
        if (banded && factor < 1)
            banded->retick(1 / factor); // coarser ticks before the range widens
        chart()->zoom(factor);
        if (banded && factor >= 1)
            banded->retick();
    }
    event->accept();
}

void ChartView::mouseReleaseEvent(QMouseEvent* event)
{
    auto* banded = qobject_cast<BandedLineChart*>(chart());
    // QChartView zooms out by 2 on a right click and in on a rubber band's release.
    if (banded && event->button() == Qt::RightButton)
        banded->retick(2);
    QChartView::mouseReleaseEvent(event);
    if (banded && event->button() == Qt::LeftButton)
        banded->retick();
}

void ChartView::mouseDoubleClickEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        resetZoom();
        event->accept();
        return;
    }
    QChartView::mouseDoubleClickEvent(event);
}

} // namespace tb::charts
