// Each configuration's score on each data set of a comparison across sets (AcrossSets): grouped
// bars, one group per set, one bar per configuration — the mean over seeds of the set's metric when
// every set has the same one (test accuracy, say), else the rank on the set (1 = best), since the
// scores of a classification set and a regression set share no axis (the per-set table names the
// best of each set). The first chart a suite's
// export writes (OUT.png), before the critical-difference diagram and the profiles. Registered
// below; nothing else names it.

#include "ChartPalette.h"
#include "ChartRegistry.h"
#include "ChartStyle.h"

#include <engine/AcrossSets.h>

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QGuiApplication>
#include <QLegend>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace tb::charts {
namespace {

/// Whether every set of @p r is scored on one metric.
bool oneMetric(const AcrossSetsResult& r)
{
    return std::all_of(r.sets.begin(), r.sets.end(),
                       [&](const AcrossSetsColumn& c) { return c.metric == r.sets.first().metric; });
}

bool isAccuracy(MetricId m)
{
    return m == MetricId::TestAccuracy || m == MetricId::TrainAccuracy || m == MetricId::ValidationAccuracy;
}

/// Replaces what @p chart shows by the sets' scores of @p result.
void showScores(QChart* chart, const ExperimentResult& result, const ChartOptions& options)
{
    chart->removeAllSeries();
    for (QAbstractAxis* a : chart->axes()) {
        chart->removeAxis(a);
        delete a;
    }
    const AcrossSetsResult r = AcrossSets::compute(AcrossSets::samples(result.curves));
    const bool scores = !r.sets.isEmpty() && oneMetric(r);
    const MetricId metric = r.sets.isEmpty() ? MetricId::TestAccuracy : r.sets.first().metric;
    const double scale = scores && isAccuracy(metric) ? 100.0 : 1.0;
    chart->setTitle(options.titled(scores ? QStringLiteral("%1 on each data set").arg(RunMetric::label(metric))
                                          : QStringLiteral("Rank on each data set")));
    auto* series = new QBarSeries;
    double top = 0, bottom = 0;
    for (int j = 0; j < r.configurations.size(); ++j) {
        auto* set = new QBarSet(r.configurations[j]);
        set->setColor(ChartPalette::color(j));
        set->setBorderColor(ChartPalette::color(j));
        for (size_t d = 0; d < r.scores.size(); ++d) {
            const double v = scores ? r.scores[d][size_t(j)] : r.setRanks[d][size_t(j)];
            // A gap is an empty slot (0 draws no bar): the per-set table names it.
            *set << (std::isfinite(v) ? v * scale : 0.0);
            if (std::isfinite(v)) {
                top = std::max(top, v * scale);
                bottom = std::min(bottom, v * scale);
            }
        }
        series->append(set);
    }
    chart->addSeries(series);
    QStringList categories;
    for (const AcrossSetsColumn& c : r.sets)
        categories << (c.dataset.size() > 28 ? c.dataset.left(27) + QStringLiteral("…") : c.dataset);
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    x->setGridLineVisible(false);
    auto* y = new QValueAxis;
    y->setTitleText(scores ? (scale == 100.0 ? RunMetric::label(metric) + QStringLiteral(" (%)") : RunMetric::label(metric))
                           : QStringLiteral("rank on the set (1 = best)"));
    y->setLabelFormat("%g");
    y->setGridLineColor(QColor(0xDD, 0xDD, 0xDD));
    if (scale == 100.0) {
        y->setRange(0, 100);
        y->setTickCount(11);
    } else {
        y->setRange(bottom, top > 0 ? top * 1.05 : 1.0);
        y->applyNiceNumbers();
    }
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    chart->legend()->setVisible(true);
}

ChartEntry setScoresEntry()
{
    ChartEntry e;
    e.id = QStringLiteral("set-scores");
    e.title = ChartEntry::fixedTitle(QStringLiteral("Scores per set"));
    e.toolTip = QStringLiteral("Each configuration's mean score on each data set (its rank there when the sets' metrics "
                               "differ)");
    e.place = ChartPlace::Comparison;
    e.order = 151; // before the critical-difference diagram: a suite's export's first file
    e.applies = [](const ExperimentResult& r) { return AcrossSets::applies(r); };
    e.exportedFor = [](const ExperimentResult& r) { return AcrossSets::applies(r); };
    e.fileSuffix = QStringLiteral("scores");
    e.build = [](const ChartOptions&) {
        auto* chart = new QChart;
        styleChart(chart);
        return std::make_unique<ChartPlot>(
            chart, [chart](const ExperimentResult& r, const ChartOptions& o) { showScores(chart, r, o); });
    };
    return e;
}

const ChartRegistry::Registration registration{setScoresEntry()};

} // namespace
} // namespace tb::charts
