// The chart registry: every chart of app/charts registered by its own file under a stable id,
// found by id and by place in order; entries that are malformed or take an id twice refused with
// a message; which charts an export writes for each kind of result (the rule trainbench-cli
// --plot follows); and plots that show a result, render and write PNGs.
#include <charts/ChartRegistry.h>
#include <engine/ExperimentKind.h>
#include <charts/ChartRenderer.h>
#include <charts/LearningCurveChart.h>
#include <charts/SummaryChart.h>

#include <QChart>
#include <QImage>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;
using namespace tb::charts;

namespace {

MetricPoint point(double seconds, double accuracy, double rmse = NAN)
{
    MetricPoint p;
    p.epoch = seconds;
    p.trainTime = seconds;
    p.testAccuracy = accuracy;
    p.trainAccuracy = accuracy;
    p.testRmse = rmse;
    p.trainRmse = rmse;
    return p;
}

AlgorithmCurves configuration(const QString& label, QVariantMap setting = {}, QJsonObject info = {})
{
    AlgorithmCurves c;
    c.algorithmId = "gradient.adam";
    c.label = c.configuration = label;
    c.dataset = "moons";
    c.setting = setting;
    for (int r = 0; r < 2; ++r) {
        c.repeats << QVector<MetricPoint>{point(0.5, 0.7 + 0.01 * r), point(1.0 + r, 0.8 + 0.01 * r)};
        c.statuses << RunStatus::Finished;
        c.infos << info;
        c.seeds << std::uint64_t(r);
        c.repeatNumbers << r;
        c.runIds << -1;
    }
    return c;
}

ExperimentResult learningCurve()
{
    ExperimentResult r;
    r.kind = QStringLiteral("learning-curve");
    r.curves = {configuration("Adam"), configuration("SGD")};
    return r;
}

ExperimentResult paramSweep(const QVariantList& values, const QString& key = "lr")
{
    ExperimentResult r;
    r.kind = QStringLiteral("param-sweep");
    for (const QVariant& v : values)
        r.curves << configuration("Adam " + key + "=" + v.toString(), {{key, v}});
    r.variedKeys = {key};
    return r;
}

ExperimentResult noiseSweep()
{
    ExperimentResult r;
    r.kind = QStringLiteral("noise-sweep");
    for (double sigma : {0.0, 0.5, 1.0}) {
        SummaryPoint p;
        p.algorithmId = "linear.ridge";
        p.algorithmName = "LS";
        p.x = sigma;
        p.count = 3;
        p.testRmseMean = 0.1 + sigma;
        p.testRmseStd = 0.01;
        p.trainRmseMean = 0.1 + 0.9 * sigma;
        p.trainRmseStd = 0.01;
        r.summary << p;
    }
    return r;
}

QStringList exported(const ExperimentResult& r)
{
    QStringList ids;
    for (const ChartEntry* e : ChartRegistry::entries())
        if (e->isExportedFor(r))
            ids << e->id;
    return ids;
}

/// Whether @p ids holds @p expected in this relative order (other charts may sit in between).
bool inOrder(const QStringList& ids, const QStringList& expected)
{
    qsizetype at = -1;
    for (const QString& id : expected) {
        const qsizetype i = ids.indexOf(id);
        if (i <= at)
            return false;
        at = i;
    }
    return true;
}

ChartEntry validEntry(const QString& id)
{
    ChartEntry e;
    e.id = id;
    e.title = ChartEntry::fixedTitle("Test chart");
    e.applies = [](const ExperimentResult&) { return true; };
    e.build = [](const ChartOptions&) {
        auto* c = new QChart;
        return std::make_unique<ChartPlot>(c, [](const ExperimentResult&, const ChartOptions&) {});
    };
    return e;
}

} // namespace

class TestChartRegistry : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyKindsChartsAreRegistered()
    {
        // An experiment kind names the charts of its results by id: each must be a chart here.
        for (const ExperimentKind* k : ExperimentKinds::all())
            for (const QString& id : k->charts())
                QVERIFY2(ChartRegistry::find(id), qPrintable(k->id() + ": " + id));
    }

    void everyShippedChartRegisteredItself()
    {
        QVERIFY2(ChartRegistry::problems().isEmpty(), qPrintable(ChartRegistry::problems().join('\n')));
        const QStringList ids = ChartRegistry::ids();
        for (const char* id : {"learning-curve-time", "learning-curve-epoch", "loss-time", "rmse-summary",
                               "metric-vs-parameter", "parallel-coordinates", "frontier", "feature-frontier"}) {
            const ChartEntry* e = ChartRegistry::find(id);
            QVERIFY2(e, id);
            QCOMPARE(e->id, QString(id));
            QVERIFY(ids.contains(id));
        }
        QCOMPARE(QSet<QString>(ids.begin(), ids.end()).size(), ids.size()); // unique
        QVERIFY(!ChartRegistry::find("no-such-chart"));
        QVERIFY(!ChartRegistry::find(QString()));
    }

    void placesKeepTheTabsOrder()
    {
        QStringList curves, comparison;
        for (const ChartEntry* e : ChartRegistry::entries(ChartPlace::Curves))
            curves << e->id;
        for (const ChartEntry* e : ChartRegistry::entries(ChartPlace::Comparison))
            comparison << e->id;
        // The Charts tab: time, epoch, loss, σ; the Comparison tab: parameter, parallel,
        // frontier, features — the workbench's tabs as they always were.
        QVERIFY2(inOrder(curves, {"learning-curve-time", "learning-curve-epoch", "loss-time", "rmse-summary"}),
                 qPrintable(curves.join(", ")));
        QVERIFY2(inOrder(comparison, {"metric-vs-parameter", "parallel-coordinates", "frontier", "feature-frontier"}),
                 qPrintable(comparison.join(", ")));
        QVERIFY(!curves.contains("frontier"));
        QVERIFY(!comparison.contains("rmse-summary"));
        QCOMPARE(curves.first(), QStringLiteral("learning-curve-time"));
        QCOMPARE(comparison.first(), QStringLiteral("metric-vs-parameter"));
    }

    void titlesFollowTheOptions()
    {
        ChartOptions regression;
        regression.classification = false;
        const ChartEntry* time = ChartRegistry::find("learning-curve-time");
        QCOMPARE(time->title(ChartOptions()), QStringLiteral("Accuracy vs time"));
        QCOMPARE(time->title(regression), QStringLiteral("RMSE vs time"));
        QCOMPARE(ChartRegistry::find("learning-curve-epoch")->title(regression), QStringLiteral("RMSE vs epoch"));
        QCOMPARE(ChartRegistry::find("loss-time")->title(regression), QStringLiteral("Loss vs time"));
        QCOMPARE(ChartRegistry::find("rmse-summary")->title(ChartOptions()), QStringLiteral("RMSE vs noise σ"));
        QCOMPARE(ChartRegistry::find("frontier")->title(ChartOptions()), QStringLiteral("Frontier"));
    }

    void malformedEntriesAreRefusedWithTheirFault()
    {
        const int before = int(ChartRegistry::entries().size());
        QString error;
        ChartEntry e = validEntry(QString());
        QVERIFY(!ChartRegistry::add(e, &error));
        QVERIFY2(error.contains("the id is empty"), qPrintable(error));

        e = validEntry("Bad Id");
        QVERIFY(!ChartRegistry::add(e, &error));
        QVERIFY2(error.contains("\"Bad Id\"") && error.contains("lower-case"), qPrintable(error));

        e = validEntry("frontier");
        QVERIFY(!ChartRegistry::add(e, &error));
        QVERIFY2(error.contains("\"frontier\"") && error.contains("taken") && error.contains("Frontier"), qPrintable(error));

        e = validEntry("no-title");
        e.title = nullptr;
        QVERIFY(!ChartRegistry::add(e, &error));
        QVERIFY2(error.contains("no title"), qPrintable(error));

        e = validEntry("no-test");
        e.applies = nullptr;
        QVERIFY(!ChartRegistry::add(e, &error));
        QVERIFY2(error.contains("applies"), qPrintable(error));

        e = validEntry("no-build");
        e.build = nullptr;
        QVERIFY(!ChartRegistry::add(e, &error));
        QVERIFY2(error.contains("no build function"), qPrintable(error));

        e = validEntry("no-suffix");
        e.exportedFor = [](const ExperimentResult&) { return true; };
        QVERIFY(!ChartRegistry::add(e, &error));
        QVERIFY2(error.contains("file suffix"), qPrintable(error));
        e.fileSuffix = "../x";
        QVERIFY(!ChartRegistry::add(e, &error));

        QCOMPARE(int(ChartRegistry::entries().size()), before); // nothing was added
        QVERIFY(!ChartRegistry::find("no-suffix"));
    }

    void aNewEntryIsFoundAndPlacedByItsOrder()
    {
        ChartEntry e = validEntry("test-between");
        e.place = ChartPlace::Curves;
        e.order = 15; // between the metric against time (10) and against epoch (20)
        QString error;
        QVERIFY2(ChartRegistry::add(e, &error), qPrintable(error));
        QCOMPARE(ChartRegistry::find("test-between")->title(ChartOptions()), QStringLiteral("Test chart"));
        QStringList curves;
        for (const ChartEntry* c : ChartRegistry::entries(ChartPlace::Curves))
            curves << c->id;
        QVERIFY2(inOrder(curves, {"learning-curve-time", "test-between", "learning-curve-epoch"}), qPrintable(curves.join(", ")));
        // Without exportedFor it is a chart of the workbench only.
        QVERIFY(!ChartRegistry::find("test-between")->isExportedFor(learningCurve()));
        // A second registration under the same id is refused.
        QVERIFY(!ChartRegistry::add(validEntry("test-between"), &error));
    }

    void exportsChooseByKind()
    {
        // A noise sweep: its RMSE vs σ alone.
        QCOMPARE(exported(noiseSweep()), QStringList{"rmse-summary"});

        // A learning curve: the metric against time and epoch, then the frontier; never the
        // loss, the σ chart or the param-sweep charts.
        const QStringList lc = exported(learningCurve());
        QVERIFY2(inOrder(lc, {"learning-curve-time", "learning-curve-epoch", "frontier"}), qPrintable(lc.join(", ")));
        QCOMPARE(lc.first(), QStringLiteral("learning-curve-time")); // OUT.png
        for (const char* id : {"loss-time", "rmse-summary", "metric-vs-parameter", "parallel-coordinates", "feature-frontier"})
            QVERIFY2(!lc.contains(id), id);

        // Runs that record their features add the feature frontier.
        ExperimentResult lsq = learningCurve();
        lsq.curves[0].infos = {QJsonObject{{"features", 300}}, QJsonObject{{"features", 300}}};
        QVERIFY(exported(lsq).contains("feature-frontier"));

        // A param sweep over a number: the metric against it first (OUT.png, one file per
        // parameter), parallel coordinates and the frontier; its curves give way.
        const ExperimentResult lr = paramSweep({0.001, 0.01, 0.1});
        const QStringList ps = exported(lr);
        QVERIFY2(inOrder(ps, {"metric-vs-parameter", "parallel-coordinates", "frontier"}), qPrintable(ps.join(", ")));
        QCOMPARE(ps.first(), QStringLiteral("metric-vs-parameter"));
        QVERIFY(!ps.contains("learning-curve-time") && !ps.contains("learning-curve-epoch"));
        QCOMPARE(ChartRegistry::find("metric-vs-parameter")->exportParameters(lr), QStringList{"lr"});
        ExperimentResult lrLsq = lr;
        lrLsq.curves[0].infos = {QJsonObject{{"features", 300}}, QJsonObject{{"features", 300}}};
        QVERIFY(!exported(lrLsq).contains("feature-frontier")); // as exports always chose

        // A param sweep over choices: its learning curves, parallel coordinates, the frontier.
        const QStringList choices = exported(paramSweep({"per_neuron", "joint"}, "rule"));
        QVERIFY2(inOrder(choices, {"learning-curve-time", "learning-curve-epoch", "parallel-coordinates", "frontier"}),
                 qPrintable(choices.join(", ")));
        QVERIFY(!choices.contains("metric-vs-parameter"));

        // A sweep of data sets only sweeps no parameter: no parallel coordinates.
        ExperimentResult datasets = paramSweep({});
        datasets.curves = {configuration("Adam")};
        datasets.variedKeys.clear();
        QVERIFY(!exported(datasets).contains("parallel-coordinates"));
    }

    void theComparisonViewEnablesWhatApplies()
    {
        // The Comparison tab shows learning curves too: parallel coordinates and the frontier
        // apply, the metric against a parameter only with a numeric swept parameter.
        const ExperimentResult lc = learningCurve();
        QVERIFY(ChartRegistry::find("parallel-coordinates")->applies(lc));
        QVERIFY(ChartRegistry::find("frontier")->applies(lc));
        QVERIFY(!ChartRegistry::find("metric-vs-parameter")->applies(lc));
        QVERIFY(ChartRegistry::find("metric-vs-parameter")->applies(paramSweep({1, 2})));
        QVERIFY(!ChartRegistry::find("feature-frontier")->applies(lc));
        // The Charts tab's kinds: the σ chart for noise sweeps, the curves for the others.
        QVERIFY(ChartRegistry::find("rmse-summary")->applies(noiseSweep()));
        QVERIFY(!ChartRegistry::find("rmse-summary")->applies(lc));
        QVERIFY(!ChartRegistry::find("learning-curve-time")->applies(noiseSweep()));
    }

    void everyPlotShowsRendersAndWrites()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ExperimentResult lr = paramSweep({0.001, 0.01, 0.1});
        for (const ChartEntry* e : ChartRegistry::entries()) {
            const ExperimentResult r = e->id == "rmse-summary" ? noiseSweep() : lr;
            ChartOptions o;
            o.title = "Run";
            if (e->exportParameters)
                o.parameter = e->exportParameters(r).value(0);
            const std::unique_ptr<ChartPlot> plot = e->build(o);
            QVERIFY2(plot, qPrintable(e->id));
            plot->show(r, o);
            const QImage img = plot->render(ChartRenderer::defaultSize());
            QCOMPARE(img.size(), ChartRenderer::defaultSize());
            const QString path = dir.filePath(e->id + ".png");
            QString error;
            QVERIFY2(plot->savePng(path, ChartRenderer::defaultSize(), &error), qPrintable(error));
            QCOMPARE(QImage(path).size(), ChartRenderer::defaultSize());
            // A file that cannot be written is named in the message, never a crash.
            const QString bad = dir.filePath("missing/folder/" + e->id + ".png");
            QVERIFY(!plot->savePng(bad, ChartRenderer::defaultSize(), &error));
            QVERIFY2(error.contains(bad), qPrintable(error));
        }
    }

    void exportTitlesSayWhatTheChartShows()
    {
        ChartOptions o;
        o.classification = true;
        o.title = "Toy";
        auto plot = ChartRegistry::find("learning-curve-time")->build(o);
        plot->show(learningCurve(), o);
        QCOMPARE(plot->chart()->title(), QStringLiteral("Toy — Accuracy vs training time"));
        QVERIFY(qobject_cast<LearningCurveChart*>(plot->chart()));
        // The workbench (no title given) keeps the chart's own.
        auto live = ChartRegistry::find("rmse-summary")->build(ChartOptions());
        live->show(noiseSweep(), ChartOptions());
        QCOMPARE(live->chart()->title(), QStringLiteral("RMSE vs noise σ"));  // the kind's axis
        QCOMPARE(qobject_cast<SummaryChart*>(live->chart())->data().size(), 3);
        o.title = QString(); // an export without a name: what it shows, alone
        auto sweep = ChartRegistry::find("rmse-summary")->build(o);
        sweep->show(noiseSweep(), o);
        QCOMPARE(sweep->chart()->title(), QStringLiteral("RMSE vs noise σ"));
    }

    void optionsFollowTheData()
    {
        ExperimentResult r = learningCurve();
        QVERIFY(ChartOptions::hasAccuracy(r));
        QVERIFY(ChartOptions().isClassification(r));
        for (AlgorithmCurves& c : r.curves)
            for (QVector<MetricPoint>& rep : c.repeats)
                for (MetricPoint& p : rep) {
                    p.testAccuracy = p.trainAccuracy = NAN;
                    p.testRmse = 0.5;
                }
        QVERIFY(!ChartOptions().isClassification(r));
        QCOMPARE(ChartOptions().metricFor(r), MetricId::TestRmse);
        ChartOptions chosen;
        chosen.classification = true;
        chosen.metric = MetricId::Loss;
        QVERIFY(chosen.isClassification(r));
        QCOMPARE(chosen.metricFor(r), MetricId::Loss);
        QCOMPARE(chosen.titled("x"), QStringLiteral("x"));
        chosen.title = "Exp";
        QCOMPARE(chosen.titled("x"), QStringLiteral("Exp — x"));
    }
};

QTEST_MAIN(TestChartRegistry)
#include "tst_chartregistry.moc"
