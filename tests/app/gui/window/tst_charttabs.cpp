// The workbench's chart views read the chart registry: a chart registered by a file the views
// never name gets its tab — in the Charts tab (ChartTabs) or the Comparison tab
// (SweepResultView) as its place says, at its order, with its title — shows the data, and in the
// Comparison tab is enabled only while it applies. The shipped tabs keep their order and titles.
#include "window/ChartTabs.h"
#include "comparison/SweepResultView.h"

#include <charts/ChartRegistry.h>

#include <QChart>
#include <QTabWidget>
#include <QtTest>

using namespace tb;
using namespace tb::charts;
using namespace tb::gui;

namespace {

int g_shown = 0;                 ///< show() calls of the test charts
QList<qsizetype> g_curveCounts;  ///< the number of curves each call saw

/// A chart of curves that only counts what it is shown; applies to results with curves, at least
/// @p minCurves of them.
ChartEntry countingEntry(const QString& id, ChartPlace place, int order, int minCurves)
{
    ChartEntry e;
    e.id = id;
    e.title = [](const ChartOptions& o) {
        return o.classification.value_or(true) ? QStringLiteral("Test (accuracy)") : QStringLiteral("Test (RMSE)");
    };
    e.toolTip = QStringLiteral("A test chart");
    e.place = place;
    e.order = order;
    e.applies = [minCurves](const ExperimentResult& r) {
        return r.kind != QStringLiteral("noise-sweep") && r.curves.size() >= minCurves;
    };
    e.build = [](const ChartOptions&) {
        auto* chart = new QChart;
        return std::make_unique<ChartPlot>(chart, [](const ExperimentResult& r, const ChartOptions&) {
            ++g_shown;
            g_curveCounts << r.curves.size();
        });
    };
    return e;
}

// Registered like a chart's own file does, before any view exists.
const ChartRegistry::Registration curvesChart{countingEntry("test-curves", ChartPlace::Curves, 25, 0)};
const ChartRegistry::Registration comparisonChart{countingEntry("test-comparison", ChartPlace::Comparison, 1000, 2)};

CurveSeriesData series(const QString& label)
{
    MetricPoint p;
    p.trainTime = 1;
    p.epoch = 1;
    p.testAccuracy = 0.9;
    return CurveSeriesData{label, "gradient.adam", {QVector<MetricPoint>{p}}};
}

AlgorithmCurves configuration(const QString& label)
{
    AlgorithmCurves c;
    c.algorithmId = "gradient.adam";
    c.label = c.configuration = label;
    c.dataset = "moons";
    MetricPoint p;
    p.trainTime = 1;
    p.testAccuracy = 0.9;
    c.repeats << QVector<MetricPoint>{p};
    c.statuses << RunStatus::Finished;
    c.infos << QJsonObject();
    c.seeds << 1;
    c.repeatNumbers << 0;
    return c;
}

QStringList tabTitles(QTabWidget* tabs)
{
    QStringList out;
    for (int i = 0; i < tabs->count(); ++i)
        out << tabs->tabText(i);
    return out;
}

} // namespace

class TestChartTabs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        g_shown = 0;
        g_curveCounts.clear();
    }

    void theChartsTabHasATabPerRegisteredCurveChart()
    {
        ChartTabs tabs;
        // The shipped charts as always, the registered one at its order (25: after the loss).
        QCOMPARE(tabTitles(tabs.tabs()), (QStringList{"Accuracy vs time", "Accuracy vs epoch", "Test (accuracy)",
                                                      "Loss vs time", "RMSE vs noise σ"}));
        QCOMPARE(tabs.indexOf("test-curves"), 2);
        QCOMPARE(tabs.tabs()->tabToolTip(2), QStringLiteral("A test chart"));
        QVERIFY(tabs.timeChart() && tabs.epochChart() && tabs.lossChart() && tabs.summaryChart());
        QCOMPARE(tabs.indexOf("rmse-summary"), 4);
        QCOMPARE(tabs.indexOf("no-such-chart"), -1);

        // Data reach it when its tab is in view (live updates rebuild only the chart shown).
        tabs.setCurves({series("Adam"), series("SGD")});
        QCOMPARE(g_shown, 0);
        tabs.tabs()->setCurrentIndex(2);
        QCOMPARE(g_shown, 1);
        QCOMPARE(g_curveCounts.last(), qsizetype(2));
        tabs.setCurves({series("Adam")});
        QCOMPARE(g_curveCounts.last(), qsizetype(1));
        // Its title follows the task, as the metric's tabs do.
        tabs.setTask(false);
        QCOMPARE(tabs.tabs()->tabText(2), QStringLiteral("Test (RMSE)"));
        QCOMPARE(tabs.tabs()->tabText(0), QStringLiteral("RMSE vs time"));
        // The tabs are never disabled: they fill while an experiment runs.
        for (int i = 0; i < tabs.tabs()->count(); ++i)
            QVERIFY(tabs.tabs()->isTabEnabled(i));
        // A noise sweep brings its own tab forward; a learning curve leaves a tab that applies to
        // it in view.
        tabs.showKind(QStringLiteral("noise-sweep"));
        QCOMPARE(tabs.tabs()->currentIndex(), tabs.indexOf("rmse-summary"));
        tabs.showKind(QStringLiteral("learning-curve"));
        QCOMPARE(tabs.tabs()->currentIndex(), tabs.indexOf("learning-curve-time"));
        tabs.tabs()->setCurrentIndex(2);
        tabs.showKind(QStringLiteral("param-sweep"));
        QCOMPARE(tabs.tabs()->currentIndex(), 2);
    }

    void theComparisonTabEnablesWhatApplies()
    {
        SweepResultView view;
        const QStringList titles = tabTitles(view.tabs());
        QCOMPARE(titles.mid(0, 4), (QStringList{"Metric vs parameter", "Parallel coordinates", "Frontier", "Features"}));
        const int mine = view.indexOf("test-comparison");
        QCOMPARE(mine, view.tabs()->count() - 1); // order 1000: last
        QVERIFY(view.parameterChart() && view.parallelView() && view.frontierChart() && view.featuresChart());

        // One configuration: it does not apply (it wants two) and stays disabled.
        view.setCurves({configuration("Adam")});
        QVERIFY(!view.tabs()->isTabEnabled(mine));
        // Two: enabled, and shown the runs when opened.
        view.setCurves({configuration("Adam"), configuration("SGD")});
        QVERIFY(view.tabs()->isTabEnabled(mine));
        view.tabs()->setCurrentIndex(mine);
        QCOMPARE(g_curveCounts.value(g_curveCounts.size() - 1), qsizetype(2));
        // Back to one while in view: disabled, the view falls back to the frontier.
        view.setCurves({configuration("Adam")});
        QVERIFY(!view.tabs()->isTabEnabled(mine));
        QCOMPARE(view.tabs()->currentIndex(), view.indexOf("frontier"));
    }
};

QTEST_MAIN(TestChartTabs)
#include "tst_charttabs.moc"
