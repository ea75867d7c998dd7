// FeatureFrontierChart: which checkpoints become points (one per stage with "feature_counts",
// the last one with "features"), their placement in % and seconds, marker sizes growing with
// the number of features, points that cannot be placed, and PNG export.
#include <charts/ChartRenderer.h>
#include <charts/FeatureFrontierChart.h>

#include <QJsonArray>
#include <QLineSeries>
#include <QScatterSeries>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace tb;
using namespace tb::charts;

namespace {

MetricPoint point(double seconds, double accuracy, double rmse = NAN)
{
    MetricPoint p;
    p.trainTime = seconds;
    p.testAccuracy = accuracy;
    p.testRmse = rmse;
    return p;
}

/// A stagewise run (three stages of 1024 features), a GLS run with 4000 features and a run
/// without a feature count (e.g. gradient descent in the same experiment).
QList<AlgorithmCurves> mixedExperiment()
{
    AlgorithmCurves stagewise;
    stagewise.algorithmId = "lsq.stagewise";
    stagewise.label = "stagewise";
    stagewise.repeats = {{point(1.0, 0.80), point(2.0, 0.85), point(3.0, 0.88)}};
    stagewise.infos = {QJsonObject{{"feature_counts", QJsonArray{1024, 2048, 3072}}, {"features", 3072}}};
    AlgorithmCurves gls;
    gls.algorithmId = "lsq.gls";
    gls.label = "GLS";
    gls.repeats = {{point(0.5, 0.70), point(4.0, 0.87)}};
    gls.infos = {QJsonObject{{"features", 4000}}};
    AlgorithmCurves other;
    other.algorithmId = "gradient.adam";
    other.label = "Adam";
    other.repeats = {{point(1.0, 0.9)}};
    other.infos = {QJsonObject{}};
    return {stagewise, gls, other};
}

} // namespace

class TestFeatureFrontierChart : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pointsPerStageOrPerRun()
    {
        const QList<AlgorithmCurves> curves = mixedExperiment();
        QVERIFY(FeatureFrontierChart::hasFeatureCounts(curves));
        QVERIFY(!FeatureFrontierChart::hasFeatureCounts({curves[2]}));
        const QList<FeaturePoint> pts = FeatureFrontierChart::points(curves, false);
        QCOMPARE(pts.size(), 4); // three stages, GLS's last checkpoint, nothing for Adam
        QCOMPARE(pts[0].features, 1024.0);
        QCOMPARE(pts[2].features, 3072.0);
        QCOMPARE(pts[2].value, 0.88);
        QCOMPARE(pts[3].curve, 1);
        QCOMPARE(pts[3].seconds, 4.0); // the last checkpoint, not the first
        QCOMPARE(pts[3].features, 4000.0);
    }

    void markerGrowsWithFeatures()
    {
        QCOMPARE(FeatureFrontierChart::markerSize(100, 100, 10000), 7.0);
        QCOMPARE(FeatureFrontierChart::markerSize(10000, 100, 10000), 30.0);
        // √ scale, 6 levels: 2500 is 40/90 of the way from √100 = 10 to √10000 = 100, level
        // round(0.444·5) = 2, i.e. 7 + 23·2/5 (linear in features it would be level 1).
        QCOMPARE(FeatureFrontierChart::markerSize(2500, 100, 10000), 7.0 + 23.0 * 2.0 / 5.0);
        QVERIFY(FeatureFrontierChart::markerSize(5000, 100, 10000) > FeatureFrontierChart::markerSize(2500, 100, 10000));
        // A single count (or none) cannot be scaled: the middle size, never a crash or NaN.
        QCOMPARE(FeatureFrontierChart::markerSize(500, 500, 500), 18.5);
        QCOMPARE(FeatureFrontierChart::markerSize(NAN, 1, 2), 18.5);
    }

    void showsPointsInPercentWithSizes()
    {
        FeatureFrontierChart chart;
        chart.setData(mixedExperiment(), false);
        QCOMPARE(chart.shownPoints().size(), 4);
        QCOMPARE(chart.hiddenPoints(), 0);
        // Stagewise: 1024, 2048 and 3072 features of a 1024…4000 range are three sizes, three
        // series (Qt 6.4 misdraws per-point sizes), in increasing size.
        const QList<QScatterSeries*> s = chart.curveSeries(0);
        QCOMPARE(s.size(), 3);
        QCOMPARE(s[0]->count(), 1);
        QCOMPARE(s[0]->at(0), QPointF(1.0, 80.0));
        QCOMPARE(s[0]->markerSize(), 7.0); // 1024 is the smallest count of the experiment
        QCOMPARE(s[2]->at(0), QPointF(3.0, 88.0));
        QVERIFY(s[2]->markerSize() > s[1]->markerSize() && s[1]->markerSize() > s[0]->markerSize());
        QCOMPARE(chart.curveSeries(1).size(), 1);
        QCOMPARE(chart.curveSeries(1)[0]->markerSize(), 30.0); // GLS: 4000, the largest
        QVERIFY(chart.curveSeries(2).isEmpty()); // Adam recorded no feature count
        QVERIFY(chart.title().contains("1024 to 4000"));
    }

    void unplaceablePointsAreCountedNotShown()
    {
        // Time 0 cannot sit on a log axis; a stage with no test metric has no height.
        QList<AlgorithmCurves> curves = mixedExperiment();
        curves[0].repeats[0][0].trainTime = 0.0;
        curves[0].repeats[0][1].testAccuracy = NAN;
        FeatureFrontierChart chart;
        chart.setData(curves, false);
        QCOMPARE(chart.shownPoints().size(), 2);
        QCOMPARE(chart.hiddenPoints(), 2);
    }

    void regressionShowsRmse()
    {
        AlgorithmCurves c;
        c.label = "stagewise linear";
        c.repeats = {{point(1.0, NAN, 0.5), point(2.0, NAN, 0.25)}};
        c.infos = {QJsonObject{{"feature_counts", QJsonArray{100, 200}}}};
        FeatureFrontierChart chart;
        chart.setData({c}, true);
        QCOMPARE(chart.shownPoints().size(), 2);
        QCOMPARE(chart.curveSeries(0).last()->at(0), QPointF(2.0, 0.25)); // RMSE as is, not × 100
        QVERIFY(chart.title().startsWith("Test RMSE"));
    }

    void exportsPng()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        FeatureFrontierChart chart;
        chart.setData(mixedExperiment(), false);
        const QString path = dir.filePath("features.png");
        QString error;
        QVERIFY2(ChartRenderer::savePng(&chart, path, ChartRenderer::defaultSize(), &error), qPrintable(error));
        const QImage img(path);
        QCOMPARE(img.size(), ChartRenderer::defaultSize());
    }
};

QTEST_MAIN(TestFeatureFrontierChart)
#include "tst_featurefrontierchart.moc"
