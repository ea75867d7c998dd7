#include "ChartStyle.h"

#include <QChart>
#include <QGuiApplication>
#include <QLegend>

namespace tb::charts {

void styleChart(QChart* chart)
{
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setBackgroundRoundness(0);
    chart->setBackgroundBrush(Qt::white);
    QFont title = QGuiApplication::font();
    title.setPointSizeF(title.pointSizeF() * 1.35);
    title.setBold(true);
    chart->setTitleFont(title);
    chart->legend()->setAlignment(Qt::AlignBottom);
}

} // namespace tb::charts
