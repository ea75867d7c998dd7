#include "NoiseSweepChart.h"

#include "ChartRegistry.h"
#include <QHash>

#include <algorithm>
#include <limits>

namespace tb::charts {

NoiseSweepChart::NoiseSweepChart(QGraphicsItem* parent) : BandedLineChart(parent)
{
    setTitle(QStringLiteral("RMSE vs noise level σ"));
    setAxisTitles(QStringLiteral("noise σ"), QStringLiteral("RMSE"));
    setYLimits(0, std::numeric_limits<double>::quiet_NaN());
    setPointMarkers(4);
}

void NoiseSweepChart::setData(const QList<SweepPoint>& points)
{
    m_data = points;

    QList<QString> order;
    QHash<QString, QList<SweepPoint>> byAlgorithm;
    for (const SweepPoint& p : points) {
        if (!byAlgorithm.contains(p.algorithmId))
            order.append(p.algorithmId);
        byAlgorithm[p.algorithmId].append(p);
    }

    QVector<GroupSpec> groups;
    for (const QString& id : order) {
        QList<SweepPoint> pts = byAlgorithm.value(id);
        std::stable_sort(pts.begin(), pts.end(),
                         [](const SweepPoint& a, const SweepPoint& b) { return a.sigma < b.sigma; });
        GroupSpec g;
        g.label = pts.first().algorithmName.isEmpty() ? id : pts.first().algorithmName;
        const bool band =
            std::any_of(pts.begin(), pts.end(), [](const SweepPoint& p) { return p.monteCarlo > 1; });
        LineSpec test{QStringLiteral("test"), Qt::SolidLine, {}, {}, band};
        LineSpec train{QStringLiteral("train"), Qt::DashLine, {}, {}, band};
        for (const SweepPoint& p : pts) {
            test.mean.append(QPointF(p.sigma, p.testRmseMean));
            test.std.append(p.testRmseStd);
            train.mean.append(QPointF(p.sigma, p.trainRmseMean));
            train.std.append(p.trainRmseStd);
        }
        g.lines = {test, train};
        groups.append(g);
    }
    setGroups(groups);
}


// A noise sweep's RMSE against σ: the Charts tab's fourth chart, and a noise sweep's export.
namespace {

ChartEntry noiseSweepEntry()
{
    ChartEntry e;
    e.id = QStringLiteral("noise-sweep");
    e.title = ChartEntry::fixedTitle(QStringLiteral("RMSE vs σ"));
    e.place = ChartPlace::Curves;
    e.order = 40;
    e.applies = [](const ExperimentResult& r) { return r.kind == kinds::NoiseSweep; };
    e.exportedFor = [](const ExperimentResult&) { return true; };
    e.fileSuffix = QStringLiteral("sigma");
    e.build = [](const ChartOptions&) {
        auto* chart = new NoiseSweepChart;
        return std::make_unique<ChartPlot>(chart, [chart](const ExperimentResult& r, const ChartOptions& o) {
            chart->setData(r.sweep);
            if (o.title)
                chart->setTitle(o.titled(QStringLiteral("RMSE vs noise σ")));
        });
    };
    return e;
}

const ChartRegistry::Registration registration{noiseSweepEntry()};

} // namespace

} // namespace tb::charts
