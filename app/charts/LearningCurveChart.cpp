#include "LearningCurveChart.h"

#include "ChartRegistry.h"
#include "ParamSweepChart.h"
#include <engine/CurveAggregate.h>

#include <limits>

#include <algorithm>
#include <cmath>

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
        out.append(CurveSeriesData{c.label, c.algorithmId, c.repeats, c.clock});
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

namespace {
QString timeName(LearningCurveChart::Clocks clocks)
{
    switch (clocks) {
    case LearningCurveChart::Clocks::Wall:
        return QStringLiteral("training time");
    case LearningCurveChart::Clocks::Cpu:
        return QStringLiteral("training CPU time");
    case LearningCurveChart::Clocks::Mixed:
        return QStringLiteral("training time (wall, or CPU where marked)");
    }
    return {};
}
} // namespace

QString LearningCurveChart::xTitle(XAxis x, Clocks clocks)
{
    if (x == XAxis::Epoch)
        return QStringLiteral("epoch");
    return clocks == Clocks::Mixed ? QStringLiteral("training time (s; wall, or CPU where marked)")
                                   : timeName(clocks) + QStringLiteral(" (s)");
}

QString LearningCurveChart::defaultTitle(Metric metric, XAxis x, Clocks clocks)
{
    const QString m = metric == Metric::Accuracy ? QStringLiteral("Accuracy")
                      : metric == Metric::Loss   ? QStringLiteral("Training loss")
                                                 : QStringLiteral("RMSE");
    const QString against = x == XAxis::Epoch ? QStringLiteral("epoch") : timeName(clocks);
    return m + QStringLiteral(" vs ") + against;
}

LearningCurveChart::Clocks LearningCurveChart::clocksOf(const QList<CurveSeriesData>& data)
{
    bool wall = false, cpu = false;
    for (const CurveSeriesData& d : data) {
        if (std::none_of(d.repeats.begin(), d.repeats.end(), [](const auto& r) { return !r.isEmpty(); }))
            continue;
        (d.clock == ClockKind::Cpu ? cpu : wall) = true;
    }
    return cpu && wall ? Clocks::Mixed : cpu ? Clocks::Cpu : Clocks::Wall;
}

QString LearningCurveChart::currentDefaultTitle() const
{
    return defaultTitle(m_metric, m_xKind, m_clocks);
}

void LearningCurveChart::applyKinds()
{
    setXLog(m_xKind == XAxis::TrainTimeLog);
    setAxisTitles(xTitle(m_xKind, m_clocks), metricTitle(m_metric));
    setTitle(currentDefaultTitle());
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
    if (const Clocks clocks = clocksOf(m_data); clocks != m_clocks) {
        m_clocks = clocks;
        applyKinds();
    }
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
        if (m_clocks == Clocks::Mixed && d.clock == ClockKind::Cpu && m_xKind != XAxis::Epoch)
            g.label += QStringLiteral(" (CPU time)");

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
        // The validation curve, dotted, only for data sets with a validation split.
        auto measured = [&](MetricStat AggregatePoint::*stat) {
            return std::any_of(agg.begin(), agg.end(), [&](const AggregatePoint& p) { return std::isfinite((p.*stat).mean); });
        };
        switch (m_metric) {
        case Metric::Accuracy:
            line(QStringLiteral("test"), Qt::SolidLine, &AggregatePoint::testAccuracy, 100.0);
            line(QStringLiteral("train"), Qt::DashLine, &AggregatePoint::trainAccuracy, 100.0);
            if (measured(&AggregatePoint::validationAccuracy))
                line(QStringLiteral("validation"), Qt::DotLine, &AggregatePoint::validationAccuracy, 100.0);
            break;
        case Metric::Rmse:
            line(QStringLiteral("test"), Qt::SolidLine, &AggregatePoint::testRmse, 1.0);
            line(QStringLiteral("train"), Qt::DashLine, &AggregatePoint::trainRmse, 1.0);
            if (measured(&AggregatePoint::validationRmse))
                line(QStringLiteral("validation"), Qt::DotLine, &AggregatePoint::validationRmse, 1.0);
            break;
        case Metric::Loss:
            line(QStringLiteral("loss"), Qt::SolidLine, &AggregatePoint::loss, 1.0);
            break;
        }
        groups.append(g);
    }
    setGroups(groups);
}


// The Charts tab's learning curves: the metric against training time and against epoch, the
// training loss against time. Exports write the first two for learning curves and for param
// sweeps without a numeric swept parameter (those with one are drawn against it instead).
namespace {

using Metric = LearningCurveChart::Metric;
using XAxis = LearningCurveChart::XAxis;

bool hasCurves(const ExperimentResult& r)
{
    return ChartOptions::holdsCurves(r);
}

bool noParameterAxis(const ExperimentResult& r)
{
    // A tuned comparison's configurations vary their tuned parameters, but its point is the curves
    // of the chosen and the default configurations (its trials have their own charts). A suite's
    // curves come from several data sets: its export shows the sets' comparison instead.
    if (!r.suiteSets.isEmpty())
        return false;
    return ParamSweepChart::numericParameters(r.curves).isEmpty() || !r.selection.isEmpty();
}

/// A learning-curve chart of @p metric (unset: accuracy or RMSE as the options say) against
/// epoch or training time (log10 when the options ask, or, unasked, when the times span more
/// than two decades).
ChartEntry curveEntry(const QString& id, int order, std::optional<Metric> metric, bool epoch)
{
    auto metricOf = [metric](const ChartOptions& o, const ExperimentResult* r) {
        if (metric)
            return *metric;
        const bool classification = r ? o.isClassification(*r) : o.classification.value_or(true);
        return classification ? Metric::Accuracy : Metric::Rmse;
    };
    auto xOf = [epoch](const ChartOptions& o, const ExperimentResult* r) {
        if (epoch)
            return XAxis::Epoch;
        return (r ? o.logTimeFor(*r) : o.logTime.value_or(false)) ? XAxis::TrainTimeLog : XAxis::TrainTime;
    };
    ChartEntry e;
    e.id = id;
    e.place = ChartPlace::Curves;
    e.order = order;
    e.title = [metricOf, epoch](const ChartOptions& o) {
        const Metric m = metricOf(o, nullptr);
        const QString what = m == Metric::Loss ? QStringLiteral("Loss") : m == Metric::Accuracy ? QStringLiteral("Accuracy")
                                                                                               : QStringLiteral("RMSE");
        return what + (epoch ? QStringLiteral(" vs epoch") : QStringLiteral(" vs time"));
    };
    e.applies = hasCurves;
    e.build = [metricOf, xOf](const ChartOptions& o) {
        auto* chart = new LearningCurveChart(metricOf(o, nullptr), xOf(o, nullptr));
        return std::make_unique<ChartPlot>(chart, [chart, metricOf, xOf](const ExperimentResult& r, const ChartOptions& o) {
            const Metric m = metricOf(o, &r);
            const XAxis x = xOf(o, &r);
            if (chart->metric() != m)
                chart->setMetric(m);
            if (chart->xAxisKind() != x)
                chart->setXAxisKind(x);
            chart->setData(LearningCurveChart::seriesOf(r.curves));
            if (o.title)
                chart->setTitle(o.titled(chart->currentDefaultTitle()));
        });
    };
    return e;
}

ChartEntry exported(ChartEntry e, const QString& fileSuffix)
{
    e.fileSuffix = fileSuffix;
    e.exportedFor = noParameterAxis;
    return e;
}

const ChartRegistry::Registration timeChart{exported(curveEntry(QStringLiteral("learning-curve-time"), 10, {}, false),
                                                     QStringLiteral("time"))};
const ChartRegistry::Registration epochChart{exported(curveEntry(QStringLiteral("learning-curve-epoch"), 20, {}, true),
                                                      QStringLiteral("epoch"))};
// The training objective: not exported (its scale is each trainer's own).
const ChartRegistry::Registration lossChart{curveEntry(QStringLiteral("loss-time"), 30, Metric::Loss, false)};

} // namespace

} // namespace tb::charts
