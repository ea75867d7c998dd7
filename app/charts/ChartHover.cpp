#include "ChartHover.h"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <QXYSeries>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb::charts {

namespace {

QString axisTitle(QAbstractSeries* s, Qt::Orientation o, const QString& fallback)
{
    for (QAbstractAxis* a : s->attachedAxes())
        if (a->orientation() == o && !a->titleText().isEmpty())
            return a->titleText();
    return fallback;
}

} // namespace

ChartHover::ChartHover(QChartView* view) : QObject(view), m_view(view)
{
    view->setMouseTracking(true);
    view->viewport()->setMouseTracking(true);
    view->viewport()->installEventFilter(this);
}

void ChartHover::setMaxDistance(int pixels)
{
    m_maxDistance = std::max(1, pixels);
}

QString ChartHover::textAt(const QPoint& viewportPos) const
{
    QChart* chart = m_view->chart();
    if (!chart)
        return {};
    const QPointF chartPos = chart->mapFromScene(m_view->mapToScene(viewportPos));
    if (!chart->plotArea()
             .adjusted(-m_maxDistance, -m_maxDistance, m_maxDistance, m_maxDistance)
             .contains(chartPos))
        return {};

    double best = double(m_maxDistance) * m_maxDistance;
    QXYSeries* bestSeries = nullptr;
    QPointF bestPoint;
    for (QAbstractSeries* s : chart->series()) {
        auto* xy = qobject_cast<QXYSeries*>(s);
        if (!xy || !xy->isVisible() || xy->attachedAxes().isEmpty())
            continue;
        for (const QPointF& p : xy->points()) {
            const QPointF at = chart->mapToPosition(p, xy);
            const double dx = at.x() - chartPos.x(), dy = at.y() - chartPos.y();
            const double d2 = dx * dx + dy * dy;
            if (d2 <= best) {
                best = d2;
                bestSeries = xy;
                bestPoint = p;
            }
        }
    }
    if (!bestSeries)
        return {};
    return QStringLiteral("%1\n%2 = %3\n%4 = %5")
        .arg(bestSeries->name(), axisTitle(bestSeries, Qt::Horizontal, QStringLiteral("x")),
             QString::number(bestPoint.x(), 'g', 6), axisTitle(bestSeries, Qt::Vertical, QStringLiteral("y")),
             QString::number(bestPoint.y(), 'g', 6));
}

bool ChartHover::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_view->viewport()) {
        if (event->type() == QEvent::MouseMove) {
            auto* me = static_cast<QMouseEvent*>(event);
            if (me->buttons() == Qt::NoButton) { // not while dragging a zoom rectangle
                const QString text = textAt(me->position().toPoint());
                if (text.isEmpty())
                    QToolTip::hideText();
                else
                    QToolTip::showText(me->globalPosition().toPoint(), text, m_view->viewport());
            }
        } else if (event->type() == QEvent::Leave) {
            QToolTip::hideText();
        }
    }
    return QObject::eventFilter(watched, event);
}

} // namespace tb::charts
