// The charts of configurations over several data sets, found through the registry: the
// critical-difference diagram (average ranks, the Nemenyi CD, the maximal cliques of
// configurations it does not tell apart) and the performance profiles of the time to a
// validation-chosen target and of the final test error (their step lines), which results they
// apply to, and their pictures.
#include <charts/ChartPalette.h>
#include <charts/ChartRegistry.h>
#include <charts/ChartRenderer.h>
#include <charts/CriticalDifferenceChart.h>

#include <QChart>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>

#include <cmath>

using namespace tb;
using namespace tb::charts;

namespace {

const QStringList kConfigurations{"Adam", "SGD", "BPLS"};
constexpr int kSets = 5;
constexpr int kSeeds = 3;

/// Mean final test accuracy of [set][configuration]: Adam best everywhere, SGD second but tied
/// with BPLS on set 4 — average ranks 1, (2+2+2+2+2.5)/5 = 2.1, (3+3+3+3+2.5)/5 = 2.9.
constexpr double kAccuracy[kSets][3] = {
    {0.90, 0.85, 0.80}, {0.91, 0.86, 0.81}, {0.92, 0.87, 0.82}, {0.93, 0.88, 0.83}, {0.94, 0.84, 0.84}};
/// Seconds behind the time to target of [set][configuration]; each seed's run takes this × 1,
/// 1.5 and 2 (median × 1.5), so the ratios to the fastest on a set are these over the smallest:
/// Adam 1 2 1 1 1.5, SGD 2 1 1 3 1, BPLS 4 1.5 8 2 1.
constexpr double kSeconds[kSets][3] = {{1, 2, 4}, {2, 1, 1.5}, {1, 1, 8}, {1, 3, 2}, {3, 2, 2}};
constexpr double kSeedFactor[kSeeds] = {1, 1.5, 2};

/// Configuration @p c on data set @p d: three finished runs, each reaching its final accuracy
/// (validation one point above it, so every run reaches the set's target) at its last checkpoint.
AlgorithmCurves cell(int c, int d)
{
    AlgorithmCurves a;
    a.algorithmId = QStringLiteral("toy.") + kConfigurations[c].toLower();
    a.label = a.configuration = kConfigurations[c];
    a.dataset = QStringLiteral("set%1").arg(d);
    a.datasetIndex = d;
    // The seeds spread around the mean by ± 0.01, the same spread for every configuration (the
    // tie on set 4 stays a tie).
    for (int s = 0; s < kSeeds; ++s) {
        const double acc = kAccuracy[d][c] + 0.01 * (s - 1);
        const double t = kSeconds[d][c] * kSeedFactor[s];
        MetricPoint first;
        first.seq = 0;
        first.epoch = 1;
        first.trainTime = t / 4;
        first.testAccuracy = first.trainAccuracy = first.validationAccuracy = 0.5;
        MetricPoint last;
        last.seq = 1;
        last.epoch = 4;
        last.trainTime = t;
        last.testAccuracy = acc;
        last.trainAccuracy = acc + 0.03;
        last.validationAccuracy = acc + 0.01;
        a.repeats << QVector<MetricPoint>{first, last};
        a.statuses << RunStatus::Finished;
        a.infos << QJsonObject();
        a.errors << QString();
        a.repeatNumbers << s;
        a.seeds << std::uint64_t(100 + s);
        a.runIds << -1;
    }
    return a;
}

ExperimentResult suite(int sets = kSets)
{
    ExperimentResult r;
    r.kind = QStringLiteral("learning-curve");
    for (int d = 0; d < sets; ++d)
        for (int c = 0; c < 3; ++c)
            r.curves << cell(c, d);
    return r;
}

QList<QLineSeries*> linesOf(QChart* chart)
{
    QList<QLineSeries*> out;
    for (QAbstractSeries* s : chart->series())
        if (auto* l = qobject_cast<QLineSeries*>(s))
            out << l;
    return out;
}

bool near(const QList<QPointF>& got, const QList<QPointF>& want)
{
    if (got.size() != want.size())
        return false;
    for (int i = 0; i < got.size(); ++i)
        if (std::fabs(got[i].x() - want[i].x()) > 1e-9 || std::fabs(got[i].y() - want[i].y()) > 1e-9)
            return false;
    return true;
}

QString toText(const QList<QPointF>& pts)
{
    QStringList s;
    for (const QPointF& p : pts)
        s << QStringLiteral("(%1, %2)").arg(p.x()).arg(p.y());
    return s.join(' ');
}

/// Pixels of @p img darker than light grey, on a grid.
int inked(const QImage& img)
{
    int n = 0;
    for (int y = 0; y < img.height(); y += 2)
        for (int x = 0; x < img.width(); x += 2)
            n += qGray(img.pixel(x, y)) < 200;
    return n;
}

} // namespace

class TestAcrossSetsCharts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void registered()
    {
        QVERIFY2(ChartRegistry::problems().isEmpty(), qPrintable(ChartRegistry::problems().join('\n')));
        const ChartEntry* cd = ChartRegistry::find("critical-difference");
        QVERIFY(cd);
        QCOMPARE(cd->title(ChartOptions()), QStringLiteral("Critical difference"));
        QCOMPARE(cd->place, ChartPlace::Comparison);
        QCOMPARE(cd->fileSuffix, QStringLiteral("cd"));
        const ChartEntry* profile = ChartRegistry::find("performance-profile");
        QVERIFY(profile);
        QCOMPARE(profile->title(ChartOptions()), QStringLiteral("Performance profile"));
        QCOMPARE(profile->place, ChartPlace::Comparison);
        QCOMPARE(profile->fileSuffix, QStringLiteral("profile"));
        const ChartEntry* error = ChartRegistry::find("error-profile");
        QVERIFY(error);
        QCOMPARE(error->fileSuffix, QStringLiteral("error-profile"));
        QVERIFY(ChartRegistry::entries(ChartPlace::Comparison).contains(cd));
    }

    void applyToSeveralDataSetsOnly()
    {
        for (const char* id : {"critical-difference", "performance-profile", "error-profile"}) {
            const ChartEntry* e = ChartRegistry::find(id);
            QVERIFY(e->applies(suite()));
            QVERIFY(e->isExportedFor(suite()));
            // One data set: nothing to rank across.
            QVERIFY2(!e->applies(suite(1)), id);
            QVERIFY(!e->isExportedFor(suite(1)));
            QVERIFY(!e->applies(ExperimentResult()));
        }
    }

    void cliquesAreMaximalWindowsOfRanks()
    {
        // 1.0, 1.2, 1.5 within 0.6 of each other; {1.2, 1.5} lies inside that; 3.0 and 3.1.
        QCOMPARE(CriticalDifferenceDiagram::cliquesOf({1.0, 1.2, 1.5, 3.0, 3.1}, 0.6),
                 (std::vector<std::vector<int>>{{0, 1, 2}, {3, 4}}));
        // Indices by ascending rank, whatever the configurations' order.
        QCOMPARE(CriticalDifferenceDiagram::cliquesOf({3.0, 1.0, 2.0}, 1.5),
                 (std::vector<std::vector<int>>{{1, 2}, {2, 0}}));
        // A difference of exactly CD is significant: no group.
        QVERIFY(CriticalDifferenceDiagram::cliquesOf({1.0, 2.0}, 1.0).empty());
        // Everything within CD: one group of all.
        QCOMPARE(CriticalDifferenceDiagram::cliquesOf({2.0, 1.5, 2.5}, 3.0), (std::vector<std::vector<int>>{{1, 0, 2}}));
        QVERIFY(CriticalDifferenceDiagram::cliquesOf({1.0, 2.0}, NAN).empty());
    }

    void diagramHoldsRanksCriticalDifferenceAndCliques()
    {
        const ChartEntry* e = ChartRegistry::find("critical-difference");
        auto plot = e->build(ChartOptions());
        plot->show(suite(), ChartOptions());
        QVERIFY(!plot->chart()); // a widget that paints itself
        auto* view = qobject_cast<CriticalDifferenceView*>(plot->view());
        QVERIFY(view);
        const CriticalDifferenceDiagram& d = view->diagram();
        QVERIFY2(d.message.isEmpty(), qPrintable(d.message));
        QCOMPARE(d.names, kConfigurations);
        QCOMPARE(int(d.ranks.size()), 3);
        QVERIFY(std::fabs(d.ranks[0] - 1.0) < 1e-12);
        QVERIFY(std::fabs(d.ranks[1] - 2.1) < 1e-12);
        QVERIFY(std::fabs(d.ranks[2] - 2.9) < 1e-12);
        // Nemenyi, k = 3, N = 5, α = 0.05: q = 2.343 (Demšar Table 5a), CD = q √(3·4 / (6·5)) = 1.482.
        const double cd = 2.343 * std::sqrt(12.0 / 30.0);
        QVERIFY2(std::fabs(d.criticalDifference - cd) < 2e-3, qPrintable(QString::number(d.criticalDifference)));
        QCOMPARE(d.alpha, 0.05);
        // Adam–SGD 1.1 < CD, SGD–BPLS 0.8 < CD, Adam–BPLS 1.9 > CD: two groups overlapping in SGD.
        QCOMPARE(d.cliques, (std::vector<std::vector<int>>{{0, 1}, {1, 2}}));
        QVERIFY2(d.subtitle.startsWith(QStringLiteral("5 data sets, Friedman p ")), qPrintable(d.subtitle));
        QVERIFY(d.subtitle.contains(QStringLiteral("Iman–Davenport p ")));
        QVERIFY(!d.subtitle.contains(QStringLiteral("left out")));
        QCOMPARE(view->title(), QStringLiteral("Critical difference diagram of the average ranks"));

        // A set where BPLS has no finished run is left out of the ranks, and the subtitle says so.
        ExperimentResult gap = suite();
        for (AlgorithmCurves& c : gap.curves)
            if (c.configuration == QLatin1String("BPLS") && c.dataset == QLatin1String("set2"))
                for (RunStatus& s : c.statuses)
                    s = RunStatus::Failed;
        plot->show(gap, ChartOptions());
        QVERIFY2(view->diagram().subtitle.startsWith(QStringLiteral("4 data sets")), qPrintable(view->diagram().subtitle));
        QVERIFY(view->diagram().subtitle.contains(QStringLiteral("1 data set left out for gaps")));

        // Nothing to rank: a message, and still a picture.
        plot->show(suite(1), ChartOptions());
        QVERIFY(!view->diagram().message.isEmpty());
        QVERIFY(!plot->render(QSize(400, 300)).isNull());
    }

    void timeProfileSteps()
    {
        const ChartEntry* e = ChartRegistry::find("performance-profile");
        auto plot = e->build(ChartOptions());
        plot->show(suite(), ChartOptions());
        QChart* chart = plot->chart();
        QVERIFY(chart);
        const QList<QLineSeries*> lines = linesOf(chart);
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0]->name(), QStringLiteral("Adam"));
        QCOMPARE(lines[2]->name(), QStringLiteral("BPLS"));
        // Ratios Adam 1 2 1 1 1.5, SGD 2 1 1 3 1, BPLS 4 1.5 8 2 1; the axis ends at 8 × 1.1.
        const double end = 8.8;
        const QList<QPointF> adam{{1, 0.6}, {1.5, 0.6}, {1.5, 0.8}, {2, 0.8}, {2, 1}, {end, 1}};
        const QList<QPointF> sgd{{1, 0.6}, {2, 0.6}, {2, 0.8}, {3, 0.8}, {3, 1}, {end, 1}};
        const QList<QPointF> bpls{{1, 0.2}, {1.5, 0.2}, {1.5, 0.4}, {2, 0.4}, {2, 0.6}, {4, 0.6},
                                  {4, 0.8}, {8, 0.8},  {8, 1},     {end, 1}};
        QVERIFY2(near(lines[0]->points(), adam), qPrintable(toText(lines[0]->points())));
        QVERIFY2(near(lines[1]->points(), sgd), qPrintable(toText(lines[1]->points())));
        QVERIFY2(near(lines[2]->points(), bpls), qPrintable(toText(lines[2]->points())));
        // The palette's colours, in the configurations' order.
        QCOMPARE(lines[1]->pen().color(), ChartPalette::color(1));

        auto* x = qobject_cast<QLogValueAxis*>(chart->axes(Qt::Horizontal).value(0));
        QVERIFY(x);
        QCOMPARE(x->base(), 2.0);
        QCOMPARE(x->min(), 1.0);
        QVERIFY(std::fabs(x->max() - end) < 1e-9);
        QCOMPARE(x->titleText(), QStringLiteral("τ (time / best time on the set)"));
        auto* y = qobject_cast<QValueAxis*>(chart->axes(Qt::Vertical).value(0));
        QVERIFY(y);
        QVERIFY(y->min() <= 0 && y->max() >= 1 && y->max() < 1.05);
        QCOMPARE(y->titleText(), QStringLiteral("fraction of data sets"));
        QVERIFY2(chart->title().contains(QStringLiteral("target: the best validation value every run reaches, per set")),
                 qPrintable(chart->title()));

        // Shown again: the chart holds the new lines only.
        plot->show(suite(), ChartOptions());
        QCOMPARE(linesOf(chart).size(), 3);
        QCOMPARE(chart->axes().size(), 2);
    }

    void errorProfileSteps()
    {
        const ChartEntry* e = ChartRegistry::find("error-profile");
        auto plot = e->build(ChartOptions());
        plot->show(suite(), ChartOptions());
        const QList<QLineSeries*> lines = linesOf(plot->chart());
        QCOMPARE(lines.size(), 3);
        // Errors 1 − accuracy: Adam is best on every set; the largest ratio is set 4's 0.16 / 0.06.
        const double end = 1.1 * (1 - 0.84) / (1 - 0.94);
        QVERIFY2(near(lines[0]->points(), (QList<QPointF>{{1, 1}, {end, 1}})), qPrintable(toText(lines[0]->points())));
        // SGD: 0.15/0.10 = 1.5, 0.14/0.09 = 1.56, 0.13/0.08 = 1.63, 0.12/0.07 = 1.71, 0.16/0.06 = 2.67.
        const QList<QPointF> sgd = lines[1]->points();
        QCOMPARE(sgd.first(), QPointF(1, 0));
        QCOMPARE(sgd.size(), 2 + 2 * 5);
        QVERIFY(std::fabs(sgd[1].x() - 1.5) < 1e-9 && std::fabs(sgd[2].y() - 0.2) < 1e-12);
        QVERIFY(std::fabs(sgd.last().y() - 1) < 1e-12);
        QVERIFY(plot->chart()->title().contains(QStringLiteral("1 − test accuracy")));
        auto* x = qobject_cast<QLogValueAxis*>(plot->chart()->axes(Qt::Horizontal).value(0));
        QVERIFY(x && std::fabs(x->max() - end) < 1e-9);
    }

    void exportedPictures()
    {
        QTemporaryDir dir;
        ChartOptions o;
        o.title = "Toy suite";
        for (const char* id : {"critical-difference", "performance-profile", "error-profile"}) {
            const ChartEntry* e = ChartRegistry::find(id);
            auto plot = e->build(o);
            plot->show(suite(), o);
            const QString path = dir.filePath(QStringLiteral("out-%1.png").arg(e->fileSuffix));
            QString error;
            QVERIFY2(plot->savePng(path, ChartRenderer::defaultSize(), &error), qPrintable(error));
            QVERIFY(QFileInfo(path).size() > 0);
            const QImage img(path);
            QCOMPARE(img.size(), ChartRenderer::defaultSize());
            QVERIFY2(inked(img) > 500, id); // something beyond the white background was drawn
        }
        auto cd = ChartRegistry::find("critical-difference")->build(o);
        cd->show(suite(), o);
        QCOMPARE(qobject_cast<CriticalDifferenceView*>(cd->view())->title(),
                 QStringLiteral("Toy suite — Critical difference diagram of the average ranks"));
    }
};

QTEST_MAIN(TestAcrossSetsCharts)
#include "tst_acrosssetscharts.moc"
