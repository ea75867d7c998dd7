#include "FrontierChart.h"

#include "ChartRegistry.h"
#include "TimeFrontierAxes.h"

#include "ChartPalette.h"

#include <QGuiApplication>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace tb::charts {

FrontierChart::FrontierChart(QGraphicsItem* parent) : QChart(parent)
{
    setUpTimeFrontier(this, &m_x, &m_y);
}

void FrontierChart::setData(const QList<FrontierPoint>& points, MetricId metric)
{
    m_points = points;
    removeAllSeries(); // deletes the series
    m_scatter.clear();
    m_front = nullptr;
    m_hidden = 0;
    const bool percent = metric == MetricId::TestAccuracy || metric == MetricId::TrainAccuracy;
    const double scale = percent ? 100.0 : 1.0;
    setTitle(QStringLiteral("%1 against training time, Pareto front marked").arg(RunMetric::label(metric)));
    m_y->setTitleText(RunMetric::label(metric) + (percent ? QStringLiteral(" (%)") : QString()));

    QStringList order;
    for (const FrontierPoint& p : points)
        if (!order.contains(p.configuration))
            order << p.configuration;
    for (int i = 0; i < order.size(); ++i) {
        auto* s = new QScatterSeries;
        s->setName(order[i]);
        s->setMarkerSize(9);
        s->setColor(ChartPalette::color(i));
        s->setBorderColor(ChartPalette::color(i));
        m_scatter << s;
    }
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    QList<QPointF> front;
    for (const FrontierPoint& p : points) {
        if (!(p.seconds > 0) || std::isnan(p.value) || !std::isfinite(p.seconds)) {
            m_hidden++;
            continue;
        }
        const QPointF pt(p.seconds, p.value * scale);
        m_scatter[int(order.indexOf(p.configuration))]->append(pt);
        if (p.onFront)
            front << pt;
        xlo = std::min(xlo, pt.x());
        xhi = std::max(xhi, pt.x());
        ylo = std::min(ylo, pt.y());
        yhi = std::max(yhi, pt.y());
    }
    std::sort(front.begin(), front.end(), [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
    // A staircase: from each front run, level until the next one (nothing better is reachable sooner).
    m_front = new QLineSeries;
    m_front->setName(QStringLiteral("Pareto front"));
    QPen pen(Qt::black);
    pen.setWidthF(1.5);
    m_front->setPen(pen);
    for (int i = 0; i < front.size(); ++i) {
        if (i > 0)
            m_front->append(front[i].x(), front[i - 1].y());
        m_front->append(front[i]);
    }
    for (QScatterSeries* s : m_scatter) {
        addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    addSeries(m_front);
    m_front->attachAxis(m_x);
    m_front->attachAxis(m_y);
    if (std::isfinite(xlo)) {
        // Whole decades around the data, at least one.
        const double lo = std::pow(10.0, std::floor(std::log10(xlo)));
        double hi = std::pow(10.0, std::ceil(std::log10(xhi)));
        if (hi <= lo)
            hi = lo * 10;
        m_x->setRange(lo, hi);
        const double pad = std::max(1e-9, 0.08 * (yhi - ylo));
        double y0 = ylo - pad, y1 = yhi + pad;
        if (percent) {
            y0 = std::max(0.0, y0);
            y1 = std::min(100.0, y1);
        }
        m_y->setRange(y0, y1);
        m_y->applyNiceNumbers();
    }
}


// Every run's metric against its training time with the Pareto front: the Comparison tab's
// third chart; every export of curves has it.
namespace {

ChartEntry frontierEntry()
{
    ChartEntry e;
    e.id = QStringLiteral("frontier");
    e.title = ChartEntry::fixedTitle(QStringLiteral("Frontier"));
    e.place = ChartPlace::Comparison;
    e.order = 130;
    e.applies = [](const ExperimentResult& r) { return ChartOptions::holdsCurves(r); };
    // A suite's runs come from several data sets: its export shows the sets' comparison instead.
    e.exportedFor = [](const ExperimentResult& r) { return r.suiteSets.isEmpty(); };
    e.fileSuffix = QStringLiteral("frontier");
    e.build = [](const ChartOptions&) {
        auto* chart = new FrontierChart;
        return std::make_unique<ChartPlot>(chart, [chart](const ExperimentResult& r, const ChartOptions& o) {
            const MetricId m = o.metricFor(r);
            chart->setData(Comparison::frontier(Comparison::samples(r.curves, m), m), m);
            if (o.title)
                chart->setTitle(o.titled(QStringLiteral("%1 vs training time, Pareto front").arg(RunMetric::label(m))));
        });
    };
    return e;
}

const ChartRegistry::Registration registration{frontierEntry()};

} // namespace

} // namespace tb::charts
