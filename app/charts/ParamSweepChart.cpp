#include "ParamSweepChart.h"

#include "ChartRegistry.h"
#include <engine/Comparison.h>
#include <stats/Descriptive.h>
#include <engine/SettingLabel.h>

#include <QMap>
#include <QSet>

#include <algorithm>
#include <cmath>

namespace tb::charts {
namespace {

bool numeric(const QVariant& v)
{
    const int t = v.typeId();
    return t == QMetaType::Double || t == QMetaType::Int || t == QMetaType::LongLong || t == QMetaType::UInt ||
           t == QMetaType::ULongLong;
}

// The counterpart plotted dashed: train for a test metric.
std::optional<MetricId> trainOf(MetricId m)
{
    if (m == MetricId::TestAccuracy)
        return MetricId::TrainAccuracy;
    if (m == MetricId::TestRmse)
        return MetricId::TrainRmse;
    return std::nullopt;
}

} // namespace

ParamSweepChart::ParamSweepChart(QGraphicsItem* parent) : BandedLineChart(parent)
{
    setPointMarkers(5);
}

bool ParamSweepChart::looksLogarithmic(QList<double> values)
{
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (values.size() < 2 || !(values.first() > 0))
        return false;
    if (values.last() / values.first() >= 50)
        return true;
    if (values.size() < 3)
        return false;
    const double r = values[1] / values[0];
    if (r <= 1.5)
        return false;
    for (int i = 2; i < values.size(); ++i)
        if (std::fabs(values[i] / values[i - 1] / r - 1) > 0.01)
            return false;
    return true;
}

QStringList ParamSweepChart::numericParameters(const QList<AlgorithmCurves>& curves)
{
    QMap<QString, bool> keys; // sorted
    for (const AlgorithmCurves& c : curves)
        for (auto it = c.setting.begin(); it != c.setting.end(); ++it)
            keys[it.key()] = keys.value(it.key(), true) && numeric(it.value());
    QStringList out;
    for (auto it = keys.begin(); it != keys.end(); ++it)
        if (it.value())
            out << it.key();
    return out;
}

void ParamSweepChart::setLogX(std::optional<bool> log)
{
    m_forceLog = log;
    rebuild();
}

void ParamSweepChart::setData(const QList<AlgorithmCurves>& curves, const QString& parameter, MetricId metric)
{
    m_curves = curves;
    m_parameter = parameter;
    m_metric = metric;
    rebuild();
}

void ParamSweepChart::rebuild()
{
    const bool percent = m_metric == MetricId::TestAccuracy || m_metric == MetricId::TrainAccuracy;
    const double scale = percent ? 100.0 : 1.0;
    setTitle(QStringLiteral("Final %1 vs %2").arg(RunMetric::label(m_metric), m_parameter));
    QString yTitle = RunMetric::label(m_metric);
    if (trainOf(m_metric))
        yTitle = m_metric == MetricId::TestAccuracy ? QStringLiteral("accuracy") : QStringLiteral("RMSE");
    if (percent)
        yTitle += QStringLiteral(" (%)");
    else if (m_metric == MetricId::TrainSeconds)
        yTitle += QStringLiteral(" (s)");
    else if (m_metric == MetricId::PeakMemory)
        yTitle += QStringLiteral(" (bytes)");
    setAxisTitles(m_parameter, yTitle);
    setYLimits(percent ? 0 : (m_metric == MetricId::Loss ? NaN : 0), percent ? 100 : NaN);

    // Group label → (x → values of the test metric and of the train one).
    struct Cell {
        std::vector<double> test, train;
    };
    QStringList order;
    QMap<QString, QMap<double, Cell>> groups;
    QList<double> xs;
    for (const AlgorithmCurves& c : m_curves) {
        const QVariant xv = c.setting.value(m_parameter);
        if (!numeric(xv))
            continue;
        const double x = xv.toDouble();
        QVariantMap rest = c.setting;
        rest.remove(m_parameter);
        QString name = c.configuration.isEmpty() ? c.label : c.configuration;
        const QString suffix = QLatin1Char(' ') + settingLabel(c.setting);
        if (!c.setting.isEmpty() && name.endsWith(suffix))
            name.chop(suffix.size());
        QString label = name;
        if (!rest.isEmpty())
            label += QLatin1Char(' ') + settingLabel(rest);
        if (c.label != c.configuration && !c.configuration.isEmpty() && c.label.startsWith(c.configuration))
            label += c.label.mid(c.configuration.size()); // " · train_limit=2000"
        if (!groups.contains(label))
            order << label;
        Cell& cell = groups[label][x];
        xs << x;
        for (int r = 0; r < c.repeats.size(); ++r) {
            if (c.statuses.value(r, RunStatus::Failed) != RunStatus::Finished)
                continue;
            cell.test.push_back(RunMetric::finalValue(m_metric, c.repeats[r], c.infos.value(r)) * scale);
            if (const auto t = trainOf(m_metric))
                cell.train.push_back(RunMetric::finalValue(*t, c.repeats[r], c.infos.value(r)) * scale);
        }
    }
    setXLog(m_forceLog ? *m_forceLog : looksLogarithmic(xs));

    QVector<GroupSpec> specs;
    for (const QString& label : order) {
        const auto& byX = groups.value(label);
        bool band = false;
        for (const Cell& cell : byX)
            band = band || cell.test.size() > 1;
        const bool two = trainOf(m_metric).has_value();
        LineSpec test{two ? QStringLiteral("test") : RunMetric::label(m_metric), Qt::SolidLine, {}, {}, band};
        LineSpec train{QStringLiteral("train"), Qt::DashLine, {}, {}, band};
        for (auto it = byX.begin(); it != byX.end(); ++it) {
            const stats::Summary t = stats::Descriptive::summarise(it.value().test);
            test.mean.append(QPointF(it.key(), t.mean));
            test.std.append(t.std);
            if (two) {
                const stats::Summary tr = stats::Descriptive::summarise(it.value().train);
                train.mean.append(QPointF(it.key(), tr.mean));
                train.std.append(tr.std);
            }
        }
        GroupSpec g;
        g.label = label;
        g.lines = {test};
        if (two)
            g.lines.append(train);
        specs.append(g);
    }
    setGroups(specs);
}


// The final metric against a swept parameter: the Comparison tab's first chart (a box picks the
// parameter), and in an export one file per numeric swept parameter.
namespace {

ChartEntry paramSweepEntry()
{
    ChartEntry e;
    e.id = QStringLiteral("metric-vs-parameter");
    e.title = ChartEntry::fixedTitle(QStringLiteral("Metric vs parameter"));
    e.place = ChartPlace::Comparison;
    e.order = 110;
    e.applies = [](const ExperimentResult& r) { return !ParamSweepChart::numericParameters(r.curves).isEmpty(); };
    e.fileSuffix = QStringLiteral("parameter");
    // Not for a tuned comparison's two configurations per algorithm: its tuning charts draw the trials.
    e.exportedFor = [](const ExperimentResult& r) { return r.selection.isEmpty() && r.suiteSets.isEmpty(); };
    e.exportParameters = [](const ExperimentResult& r) { return ParamSweepChart::numericParameters(r.curves); };
    e.build = [](const ChartOptions&) {
        auto* chart = new ParamSweepChart;
        return std::make_unique<ChartPlot>(chart, [chart](const ExperimentResult& r, const ChartOptions& o) {
            if (o.parameter.isEmpty())
                return; // no numeric parameter to draw against: the chart keeps what it shows
            chart->setData(r.curves, o.parameter, o.metricFor(r));
            if (o.title)
                chart->setTitle(o.titled(chart->title()));
        });
    };
    return e;
}

const ChartRegistry::Registration registration{paramSweepEntry()};

} // namespace

} // namespace tb::charts
