// Peak working memory per configuration: a horizontal bar per configuration, the mean of its
// finished runs' measured peak ("peak_memory_bytes", PeakMemory), beside the trainer's own
// prediction ("predicted_cost" → "memory_bytes") where it states one. The Comparison tab's chart
// of what each configuration costs in memory, and an export's OUT-memory.png. Registered below;
// nothing else names it.

#include "ChartPalette.h"
#include "ChartRegistry.h"
#include "ChartStyle.h"

#include <engine/Comparison.h>
#include <engine/CostPrediction.h>

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QGuiApplication>
#include <QHorizontalBarSeries>
#include <QLegend>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace tb::charts {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

/// One bar pair: a configuration's mean measured and mean predicted peak, in bytes (NaN: none).
struct MemoryBar {
    QString name;
    int runs = 0; ///< finished runs with a measured peak
    double measured = NAN;
    double predicted = NAN;
};

double meanOf(const QList<double>& values)
{
    double sum = 0;
    int n = 0;
    for (double v : values)
        if (std::isfinite(v)) {
            sum += v;
            ++n;
        }
    return n > 0 ? sum / n : NAN;
}

/// The configurations of @p curves that have a measured peak, in order (finished runs, one per
/// seed, as every comparison counts them); a data set's name is added when there are several.
QList<MemoryBar> barsOf(const QList<AlgorithmCurves>& curves)
{
    const QList<ConfigurationSample> samples = Comparison::samples(curves, MetricId::PeakMemory);
    QStringList datasets;
    for (const ConfigurationSample& s : samples)
        if (!datasets.contains(s.dataset))
            datasets << s.dataset;
    QList<MemoryBar> out;
    for (const ConfigurationSample& s : samples) {
        MemoryBar b;
        b.name = datasets.size() > 1 ? s.configuration + QStringLiteral(" — ") + s.dataset : s.configuration;
        QList<double> predicted;
        for (int i = 0; i < s.values.size(); ++i) {
            if (std::isfinite(s.values[i]))
                ++b.runs;
            predicted << CostPrediction::fromRunInfo(s.infos.value(i)).memoryBytes();
        }
        b.measured = meanOf(s.values);
        b.predicted = meanOf(predicted);
        if (std::isfinite(b.measured))
            out << b;
    }
    return out;
}

bool hasMeasuredPeak(const ExperimentResult& result)
{
    for (const AlgorithmCurves& c : result.curves)
        for (const QJsonObject& info : c.infos)
            if (std::isfinite(CostPrediction::measuredMemoryBytes(info)))
                return true;
    return false;
}

/// Replaces what @p chart shows by the bars of @p result.
void showMemory(QChart* chart, const ExperimentResult& result, const ChartOptions& options)
{
    chart->removeAllSeries(); // deletes the series
    for (QAbstractAxis* a : chart->axes()) {
        chart->removeAxis(a);
        delete a;
    }
    const QString what = QStringLiteral("Peak working memory per configuration");
    chart->setTitle(options.titled(what));

    const QList<MemoryBar> bars = barsOf(result.curves);
    const bool predictions =
        std::any_of(bars.begin(), bars.end(), [](const MemoryBar& b) { return std::isfinite(b.predicted); });
    auto* measured = new QBarSet(QStringLiteral("measured (mean over finished runs)"));
    measured->setColor(ChartPalette::color(0));
    measured->setBorderColor(ChartPalette::color(0));
    measured->setLabelColor(QColor(0x33, 0x33, 0x33)); // the labels sit right of the bars, on white
    auto* predicted = predictions ? new QBarSet(QStringLiteral("predicted by the trainer")) : nullptr;
    if (predicted) {
        predicted->setColor(ChartPalette::color(1));
        predicted->setBorderColor(ChartPalette::color(1));
        predicted->setLabelColor(QColor(0x33, 0x33, 0x33));
    }
    QStringList categories;
    double top = 0;
    // Horizontal bars are drawn bottom-up: the first configuration goes last, to sit on top.
    for (auto it = bars.crbegin(); it != bars.crend(); ++it) {
        categories
            << QStringLiteral("%1 (%2 run%3)").arg(it->name).arg(it->runs).arg(it->runs == 1 ? "" : "s");
        *measured << it->measured / kMiB;
        top = std::max(top, it->measured / kMiB);
        if (predicted) {
            const double p = std::isfinite(it->predicted) ? it->predicted / kMiB : 0.0;
            *predicted << p;
            top = std::max(top, p);
        }
    }
    auto* series = new QHorizontalBarSeries;
    if (predicted)
        series->append(predicted);
    series->append(measured);
    series->setLabelsVisible(true);
    series->setLabelsFormat(QStringLiteral("@value MiB"));
    series->setLabelsPrecision(4);
    series->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    chart->addSeries(series);

    auto* y = new QBarCategoryAxis;
    y->append(categories);
    y->setGridLineVisible(false);
    auto* x = new QValueAxis;
    x->setTitleText(QStringLiteral("peak working memory (MiB)"));
    x->setLabelFormat("%g");
    x->setGridLineColor(QColor(0xDD, 0xDD, 0xDD));
    x->setRange(0, top > 0 ? top * 1.2 : 1.0); // room for the labels right of the bars
    x->applyNiceNumbers();
    chart->addAxis(y, Qt::AlignLeft);
    chart->addAxis(x, Qt::AlignBottom);
    series->attachAxis(y);
    series->attachAxis(x);
    chart->legend()->setVisible(predicted != nullptr);
}

ChartEntry peakMemoryEntry()
{
    ChartEntry e;
    e.id = QStringLiteral("peak-memory");
    e.title = ChartEntry::fixedTitle(QStringLiteral("Peak memory"));
    e.toolTip =
        QStringLiteral("Each configuration's measured peak working memory (mean over its finished runs), "
                       "beside the trainer's prediction where it states one");
    e.place = ChartPlace::Comparison;
    e.order = 150;
    e.applies = hasMeasuredPeak;
    // A suite's runs come from several data sets: its export shows the sets' comparison instead.
    e.exportedFor = [](const ExperimentResult& r) { return r.suiteSets.isEmpty(); };
    e.fileSuffix = QStringLiteral("memory");
    e.build = [](const ChartOptions&) {
        auto* chart = new QChart;
        styleChart(chart);
        return std::make_unique<ChartPlot>(
            chart, [chart](const ExperimentResult& r, const ChartOptions& o) { showMemory(chart, r, o); });
    };
    return e;
}

const ChartRegistry::Registration registration{peakMemoryEntry()};

} // namespace
} // namespace tb::charts
