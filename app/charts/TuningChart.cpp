#include "TuningChart.h"

#include "ChartRegistry.h"

#include <engine/RunMetric.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb::charts {

TuningChart::TuningChart(bool againstTime, QGraphicsItem* parent) : BandedLineChart(parent), m_againstTime(againstTime)
{
    setTitle(againstTime ? QStringLiteral("Expected best validation score vs tuning CPU time")
                         : QStringLiteral("Expected best validation score vs trials"));
    setAxisTitles(againstTime ? QStringLiteral("tuning CPU seconds (expected, n trials)") : QStringLiteral("trials"),
                  QStringLiteral("accuracy (%)"));
    setPointMarkers(3);
}

void TuningChart::setData(const QList<TuningCurve>& curves)
{
    const bool accuracy = curves.isEmpty() || curves.first().selectedOn == MetricId::ValidationAccuracy;
    const double scale = accuracy ? 100.0 : 1.0; // accuracies in %, as the learning curves show them
    setAxisTitles(m_againstTime ? QStringLiteral("tuning CPU seconds (expected, n trials)") : QStringLiteral("trials"),
                  accuracy ? QStringLiteral("accuracy (%)") : QStringLiteral("RMSE"));
    if (accuracy)
        setYLimits(0, 100);
    else
        setYLimits(0, std::numeric_limits<double>::quiet_NaN());
    int most = 0;
    QVector<GroupSpec> groups;
    for (const TuningCurve& t : curves) {
        GroupSpec g;
        g.label = t.label;
        LineSpec best{QStringLiteral("validation, expected best"), Qt::SolidLine, {}, {}, true};
        LineSpec test{QStringLiteral("test of the choice"), Qt::DashLine, {}, {}, false};
        for (size_t k = 0; k < t.byTrials.size(); ++k) {
            const double x = m_againstTime ? t.cpuAt[k] : double(t.byTrials[k].n);
            best.mean.append(QPointF(x, scale * t.byTrials[k].mean));
            best.std.append(scale * t.byTrials[k].sd);
            test.mean.append(QPointF(x, scale * t.byTrials[k].pairedMean));
        }
        most = std::max(most, int(t.byTrials.size()));
        g.lines = {best, test};
        groups.append(g);
    }
    setXLog(most >= 10);
    setGroups(groups);
}

// The tuning charts of a result with selection runs (a tuned comparison's trials): against trials
// ("-tuning.png") and against the tuning CPU time ("-tuning-time.png").
namespace {

ChartEntry tuningEntry(bool againstTime)
{
    ChartEntry e;
    e.id = againstTime ? QStringLiteral("tuning-time") : QStringLiteral("tuning");
    e.title = ChartEntry::fixedTitle(againstTime ? QStringLiteral("Tuning vs CPU time") : QStringLiteral("Tuning vs trials"));
    e.toolTip = QStringLiteral("The expected best validation score of n trials (Dodge et al. 2019) ± its sd, and the "
                               "test score of the trial it chooses");
    e.place = ChartPlace::Comparison;
    e.order = againstTime ? 161 : 160; // after the other Comparison charts (a sweep's chart stays the first tab)
    e.applies = [](const ExperimentResult& r) {
        return std::any_of(r.selection.begin(), r.selection.end(),
                           [](const AlgorithmCurves& c) { return !c.repeats.isEmpty(); });
    };
    e.exportedFor = [](const ExperimentResult& r) { return r.suiteSets.isEmpty(); }; // a suite: its sets' comparison
    e.fileSuffix = e.id;
    e.build = [againstTime](const ChartOptions&) {
        auto* chart = new TuningChart(againstTime);
        return std::make_unique<ChartPlot>(chart, [chart](const ExperimentResult& r, const ChartOptions& o) {
            chart->setData(SelectionCurves::of(r));
            if (o.title)
                chart->setTitle(o.titled(chart->againstTime() ? QStringLiteral("expected best validation score vs tuning CPU time")
                                                               : QStringLiteral("expected best validation score vs trials")));
        });
    };
    return e;
}

const ChartRegistry::Registration trials{tuningEntry(false)};
const ChartRegistry::Registration cpuTime{tuningEntry(true)};

} // namespace

} // namespace tb::charts
