// The charts of a comparison: final metric against a swept parameter, the frontier with its
// Pareto front, parallel coordinates.
#include <charts/FrontierChart.h>
#include <charts/ParallelCoordinatesView.h>
#include <charts/ParamSweepChart.h>

#include <QAreaSeries>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QtTest>

using namespace tb;
using namespace tb::charts;

namespace {
// Configuration "Adam lr=<lr>" with one finished run per accuracy, ending at 1 s·(index + 1).
AlgorithmCurves sweepCell(double lr, const QList<double>& accuracies, const QString& rule = {})
{
    AlgorithmCurves c;
    c.algorithmId = "gradient.adam";
    c.setting = {{"lr", lr}};
    if (!rule.isEmpty())
        c.setting.insert("rule", rule);
    QStringList parts;
    for (auto it = c.setting.begin(); it != c.setting.end(); ++it)
        parts << it.key() + "=" + (it.value().typeId() == QMetaType::Double ? QString::number(it.value().toDouble(), 'g', 12)
                                                                             : it.value().toString());
    c.configuration = c.label = "Adam " + parts.join(", ");
    c.dataset = "moons";
    for (int i = 0; i < accuracies.size(); ++i) {
        MetricPoint p;
        p.trainTime = (i + 1) * lr * 10;
        p.testAccuracy = accuracies[i];
        p.trainAccuracy = accuracies[i] + 0.05;
        c.repeats << QVector<MetricPoint>{p};
        c.statuses << RunStatus::Finished;
        c.infos << QJsonObject();
        c.seeds << std::uint64_t(i);
        c.repeatNumbers << i;
    }
    return c;
}
} // namespace

class TestComparisonCharts : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void finalMetricAgainstALogParameter()
    {
        ParamSweepChart chart;
        chart.setData({sweepCell(0.001, {0.70, 0.74}), sweepCell(0.01, {0.80, 0.84}), sweepCell(0.1, {0.90, 0.92})}, "lr");
        QCOMPARE(chart.groupCount(), 1);
        QCOMPARE(chart.lineCount(0), 2); // test and train
        QVERIFY(chart.isXLog());         // 0.001 … 0.1 is two decades
        QVERIFY(qobject_cast<QLogValueAxis*>(chart.xAxis()));
        const QList<QPointF> test = chart.lineSeries(0, 0)->points();
        QCOMPARE(test.size(), 3);
        QCOMPARE(test[1].x(), 0.01);
        QVERIFY(std::fabs(test[1].y() - 82.0) < 1e-9); // mean of 80 % and 84 %, in percent
        QVERIFY(chart.bandSeries(0, 0)); // two seeds per point: a ± std band
        // The band is mean ± sample std: 82 ± 2√2.
        const QList<QPointF> upper = chart.bandSeries(0, 0)->upperSeries()->points();
        QVERIFY(std::fabs(upper[1].y() - (82 + 2 * std::sqrt(2.0))) < 1e-9);
        QCOMPARE(chart.xAxis()->titleText(), QStringLiteral("lr"));

        // A second swept parameter splits the lines into groups; a linear range stays linear.
        chart.setData({sweepCell(1, {0.5}, "a"), sweepCell(2, {0.6}, "a"), sweepCell(3, {0.7}, "a"),
                       sweepCell(1, {0.4}, "b"), sweepCell(2, {0.45}, "b")},
                      "lr");
        QCOMPARE(chart.groupCount(), 2);
        QVERIFY(!chart.isXLog());
        QVERIFY(chart.lineSeries(0, 0)->name().startsWith("Adam rule=a"));
        QVERIFY(!chart.bandSeries(0, 0)); // one seed: no band
        QCOMPARE(ParamSweepChart::numericParameters({sweepCell(1, {0.5}, "a")}), QStringList{"lr"});
    }

    void logarithmicValuesAreRecognised()
    {
        QVERIFY(ParamSweepChart::looksLogarithmic({1e-4, 1e-3, 1e-2}));
        QVERIFY(ParamSweepChart::looksLogarithmic({32, 64, 128, 256})); // constant ratio 2
        QVERIFY(ParamSweepChart::looksLogarithmic({1, 100}));
        QVERIFY(!ParamSweepChart::looksLogarithmic({0.1, 0.2, 0.3, 0.4}));
        QVERIFY(!ParamSweepChart::looksLogarithmic({0, 1, 10, 100})); // 0 has no logarithm
        QVERIFY(!ParamSweepChart::looksLogarithmic({5}));
    }

    void frontierMarksTheParetoFront()
    {
        // configuration, data set, seed, seconds, value (test), selection value, on the front
        QList<FrontierPoint> pts{{"fast", "d", 1, 0.5, 0.80, 0.80, true},
                                 {"fast", "d", 2, 0.6, 0.78, 0.78, false},
                                 {"slow", "d", 1, 20, 0.90, 0.90, true},
                                 {"broken", "d", 1, 0, 0.95, 0.95, false}};
        FrontierChart chart;
        chart.setData(pts, MetricId::TestAccuracy);
        QCOMPARE(chart.hiddenPoints(), 1); // time 0 has no place on a log axis
        QCOMPARE(chart.configurationSeries(0)->count(), 2);
        QCOMPARE(chart.configurationSeries(1)->count(), 1);
        // Staircase through (0.5, 80) and (20, 90): level at 80 until 20 s, then up.
        const QList<QPointF> front = chart.frontSeries()->points();
        QCOMPARE(front, (QList<QPointF>{{0.5, 80}, {20, 80}, {20, 90}}));
        QCOMPARE(chart.frontSeries()->name(), QStringLiteral("Pareto front"));
    }

    void parallelCoordinatesColourByMetric()
    {
        ParallelCoordinatesView view;
        view.setData({sweepCell(0.001, {0.70}, "a"), sweepCell(0.1, {0.90}, "b"), sweepCell(0.01, {0.80}, "a")},
                     MetricId::TestAccuracy);
        QCOMPARE(view.runCount(), 3);
        QCOMPARE(view.axes().size(), 3); // lr, rule, test accuracy (one algorithm: no algorithm axis)
        QCOMPARE(view.axes()[0].name, QStringLiteral("lr"));
        QVERIFY(view.axes()[0].log);
        QCOMPARE(view.axes()[0].position, (QList<double>{0.0, 1.0, 0.5}));
        QCOMPARE(view.axes()[1].categories, (QStringList{"a", "b"}));
        QCOMPARE(view.shades(), (QList<double>{0.0, 1.0, 0.5})); // best is 1
        // Lower is better: RMSE's best run gets the bright end.
        view.setData({sweepCell(0.001, {0.70}), sweepCell(0.1, {0.90})}, MetricId::TrainSeconds);
        QCOMPARE(view.shades(), (QList<double>{1.0, 0.0}));
        QCOMPARE(ParallelCoordinatesView::rampColor(1.0), QColor(0xFD, 0xE7, 0x25));
        const QImage img = view.render(QSize(600, 300));
        QCOMPARE(img.size(), QSize(600, 300));
        // Something other than the white background was drawn.
        int dark = 0;
        for (int y = 0; y < img.height(); y += 3)
            for (int x = 0; x < img.width(); x += 3)
                dark += qGray(img.pixel(x, y)) < 200;
        QVERIFY(dark > 100);
    }
};

QTEST_MAIN(TestComparisonCharts)
#include "tst_comparisoncharts.moc"
