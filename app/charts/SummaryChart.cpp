#include "SummaryChart.h"

#include "ChartRegistry.h"

#include <engine/ExperimentKind.h>

#include <QHash>

#include <algorithm>
#include <limits>

namespace tb::charts {

SummaryChart::SummaryChart(QGraphicsItem* parent) : BandedLineChart(parent)
{
    setAxis(QStringLiteral("x"));
    setYLimits(0, std::numeric_limits<double>::quiet_NaN());
    setPointMarkers(4);
}

void SummaryChart::setAxis(const QString& axis)
{
    setTitle(QStringLiteral("RMSE vs %1").arg(axis));
    setAxisTitles(axis, QStringLiteral("RMSE"));
}

void SummaryChart::setData(const QList<SummaryPoint>& points)
{
    m_data = points;

    QList<QString> order;
    QHash<QString, QList<SummaryPoint>> byAlgorithm;
    for (const SummaryPoint& p : points) {
        if (!byAlgorithm.contains(p.algorithmId))
            order.append(p.algorithmId);
        byAlgorithm[p.algorithmId].append(p);
    }

    QVector<GroupSpec> groups;
    for (const QString& id : order) {
        QList<SummaryPoint> pts = byAlgorithm.value(id);
        std::stable_sort(pts.begin(), pts.end(),
                         [](const SummaryPoint& a, const SummaryPoint& b) { return a.x < b.x; });
        GroupSpec g;
        g.label = pts.first().algorithmName.isEmpty() ? id : pts.first().algorithmName;
        const bool band =
            std::any_of(pts.begin(), pts.end(), [](const SummaryPoint& p) { return p.count > 1; });
        LineSpec test{QStringLiteral("test"), Qt::SolidLine, {}, {}, band};
        LineSpec train{QStringLiteral("train"), Qt::DashLine, {}, {}, band};
        for (const SummaryPoint& p : pts) {
            test.mean.append(QPointF(p.x, p.testRmseMean));
            test.std.append(p.testRmseStd);
            train.mean.append(QPointF(p.x, p.trainRmseMean));
            train.std.append(p.trainRmseStd);
        }
        g.lines = {test, train};
        groups.append(g);
    }
    setGroups(groups);
}


// RMSE against the axis of a kind's summary points (a noise sweep's σ): the Charts tab's fourth
// chart, and the export of a result that holds summary points.
namespace {

// The axis of @p r's kind, "x" for a result of no kind or of several.
QString axisOf(const ExperimentResult& r)
{
    const ExperimentKind* kind = ExperimentKinds::find(r.kind);
    return kind && !kind->summaryAxis().isEmpty() ? kind->summaryAxis() : QStringLiteral("x");
}

ChartEntry summaryEntry()
{
    ChartEntry e;
    e.id = QStringLiteral("rmse-summary");
    // The tab's title before any result: the axis when one kind keeps summary points (today's).
    e.title = [](const ChartOptions&) {
        QStringList axes;
        for (const ExperimentKind* k : ExperimentKinds::all())
            if (!k->summaryAxis().isEmpty() && !axes.contains(k->summaryAxis()))
                axes << k->summaryAxis();
        return axes.size() == 1 ? QStringLiteral("RMSE vs %1").arg(axes.first()) : QStringLiteral("RMSE summary");
    };
    e.place = ChartPlace::Curves;
    e.order = 40;
    e.applies = [](const ExperimentResult& r) { return !r.summary.isEmpty(); };
    e.exportedFor = [](const ExperimentResult&) { return true; };
    e.fileSuffix = QStringLiteral("sigma");
    e.build = [](const ChartOptions&) {
        auto* chart = new SummaryChart;
        return std::make_unique<ChartPlot>(chart, [chart](const ExperimentResult& r, const ChartOptions& o) {
            const QString axis = axisOf(r);
            chart->setAxis(axis);
            chart->setData(r.summary);
            if (o.title)
                chart->setTitle(o.titled(QStringLiteral("RMSE vs %1").arg(axis)));
        });
    };
    return e;
}

const ChartRegistry::Registration registration{summaryEntry()};

} // namespace

} // namespace tb::charts
