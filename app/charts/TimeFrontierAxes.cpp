#include "TimeFrontierAxes.h"

#include "ChartStyle.h"

#include <QChart>
#include <QGuiApplication>
#include <QLogValueAxis>
#include <QValueAxis>

namespace tb::charts {

void setUpTimeFrontier(QChart* chart, QLogValueAxis** x, QValueAxis** y)
{
    styleChart(chart);
    *x = new QLogValueAxis;
    (*x)->setBase(10);
    (*x)->setLabelFormat("%g");
    (*x)->setTitleText(QStringLiteral("training time (s, log scale)"));
    (*x)->setMinorTickCount(8);
    (*x)->setGridLineColor(QColor(0xDD, 0xDD, 0xDD));
    (*x)->setMinorGridLineColor(QColor(0xF0, 0xF0, 0xF0));
    chart->addAxis(*x, Qt::AlignBottom);
    *y = new QValueAxis;
    (*y)->setLabelFormat("%g");
    (*y)->setGridLineColor(QColor(0xDD, 0xDD, 0xDD));
    chart->addAxis(*y, Qt::AlignLeft);
}

} // namespace tb::charts
