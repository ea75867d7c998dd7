#include "LearningCurveChart.h"

#include "CurveAggregate.h"

#include <limits>

namespace tb::charts {

LearningCurveChart::LearningCurveChart(Metric metric, XAxis x, QGraphicsItem* parent)
    : BandedLineChart(parent), m_metric(metric), m_xKind(x)
{
    applyKinds();
}

QList<CurveSeriesData> LearningCurveChart::seriesOf(const QList<AlgorithmCurves>& curves)
{
    QList<CurveSeriesData> out;
    out.reserve(curves.size());
    for (const AlgorithmCurves& c : curves)
        out.append(CurveSeriesData{c.label, c.algorithmId, c.repeats});
    return out;
}

QString LearningCurveChart::metricTitle(Metric metric)
{
    switch (metric) {
    case Metric::Accuracy:
        return QStringLiteral("accuracy (%)");
    case Metric::Loss:
        return QStringLiteral("loss");
    case Metric::Rmse:
        return QStringLiteral("RMSE");
    }
    return {};
}

QString LearningCurveChart::xTitle(XAxis x)
{
    return x == XAxis::Epoch ? QStringLiteral("epoch") : QStringLiteral("training time (s)");
}

QString LearningCurveChart::defaultTitle(Metric metric, XAxis x)
{
    const QString m = metric == Metric::Accuracy ? QStringLiteral("Accuracy")
                      : metric == Metric::Loss   ? QStringLiteral("Training loss")
                                                 : QStringLiteral("RMSE");
    const QString against = x == XAxis::Epoch ? QStringLiteral("epoch") : QStringLiteral("training time");
    return m + QStringLiteral(" vs ") + against;
}

void LearningCurveChart::applyKinds()
{
    setXLog(m_xKind == XAxis::TrainTimeLog);
    setAxisTitles(xTitle(m_xKind), metricTitle(m_metric));
    setTitle(defaultTitle(m_metric, m_xKind));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    setYLimits(0, m_metric == Metric::Accuracy ? 100.0 : nan);
}

void LearningCurveChart::setMetric(Metric metric)
{
    if (metric == m_metric)
        return;
    m_metric = metric;
    applyKinds();
    rebuild();
}

void LearningCurveChart::setXAxisKind(XAxis x)
{
    if (x == m_xKind)
        return;
    m_xKind = x;
    applyKinds();
    rebuild();
}

void LearningCurveChart::setData(const QList<CurveSeriesData>& data)
{
    m_data = data; // implicitly shared: cheap
    rebuild();
}

void LearningCurveChart::rebuild()
{
    QVector<GroupSpec> groups;
    groups.reserve(m_data.size());
    for (const CurveSeriesData& d : m_data) {
        const QVector<AggregatePoint> agg = CurveAggregate::aggregate(d.repeats);
        const bool band = d.repeats.size() > 1;
        GroupSpec g;
        g.label = d.label.isEmpty() ? d.algorithmId : d.label;

        auto line = [&](const QString& suffix, Qt::PenStyle style, MetricStat AggregatePoint::*stat,
                        double scale) {
            LineSpec l;
            l.suffix = suffix;
            l.style = style;
            l.band = band;
            l.mean.reserve(agg.size());
            l.std.reserve(agg.size());
            for (const AggregatePoint& p : agg) {
                const double x = m_xKind == XAxis::Epoch ? p.epoch : p.trainTime;
                const MetricStat& s = p.*stat;
                l.mean.append(QPointF(x, s.mean * scale));
                l.std.append(s.std * scale);
            }
            g.lines.append(l);
        };
        switch (m_metric) {
        case Metric::Accuracy:
            line(QStringLiteral("test"), Qt::SolidLine, &AggregatePoint::testAccuracy, 100.0);
            line(QStringLiteral("train"), Qt::DashLine, &AggregatePoint::trainAccuracy, 100.0);
            break;
        case Metric::Rmse:
            line(QStringLiteral("test"), Qt::SolidLine, &AggregatePoint::testRmse, 1.0);
            line(QStringLiteral("train"), Qt::DashLine, &AggregatePoint::trainRmse, 1.0);
            break;
        case Metric::Loss:
            line(QStringLiteral("loss"), Qt::SolidLine, &AggregatePoint::loss, 1.0);
            break;
        }
        groups.append(g);
    }
    setGroups(groups);
}

} // namespace tb::charts
