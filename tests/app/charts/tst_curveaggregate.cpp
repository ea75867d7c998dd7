#include <engine/CurveAggregate.h>

#include <QtTest>

#include <cmath>

using namespace tb;

namespace {

MetricPoint pt(double epoch, double time, double loss, double trainAcc, double testAcc)
{
    MetricPoint p;
    p.epoch = epoch;
    p.trainTime = time;
    p.loss = loss;
    p.trainAccuracy = trainAcc;
    p.testAccuracy = testAcc;
    return p; // RMSEs stay NaN, as for a classifier
}

// Sums of a handful of doubles: a few ulps of error at most.
constexpr double kTol = 1e-12;

} // namespace

class TestCurveAggregate : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void knownAnswersWithRaggedRepeatsAndNaN()
    {
        const QList<QVector<MetricPoint>> repeats = {
            {pt(1, 1.0, 2, 0.5, 0.4), pt(2, 2.0, 1, 0.6, 0.5), pt(3, 3.0, 0.5, 0.8, 0.7)},
            {pt(1, 1.2, 4, 0.7, NaN), pt(2, 2.2, 3, 0.8, 0.7)},
            {pt(1, 1.4, 6, 0.9, 0.6)},
        };
        const QVector<AggregatePoint> a = CurveAggregate::aggregate(repeats);
        QCOMPARE(a.size(), 3); // as long as the longest repeat

        QCOMPARE(a[0].index, 0);
        QCOMPARE(a[0].count, 3);
        QVERIFY(std::abs(a[0].epoch - 1) < kTol);
        QVERIFY(std::abs(a[0].trainTime - 1.2) < kTol);
        QVERIFY(std::abs(a[0].loss.mean - 4) < kTol);
        QVERIFY(std::abs(a[0].loss.std - 2) < kTol); // sqrt((4 + 0 + 4) / 2): sample std
        QCOMPARE(a[0].loss.count, 3);
        QVERIFY(std::abs(a[0].trainAccuracy.mean - 0.7) < kTol);
        QVERIFY(std::abs(a[0].trainAccuracy.std - 0.2) < kTol);
        // The NaN test accuracy of repeat 1 is skipped: statistics over 0.4 and 0.6.
        QCOMPARE(a[0].testAccuracy.count, 2);
        QVERIFY(std::abs(a[0].testAccuracy.mean - 0.5) < kTol);
        QVERIFY(std::abs(a[0].testAccuracy.std - std::sqrt(0.02)) < kTol);
        // All NaN: NaN mean and std, count 0.
        QVERIFY(std::isnan(a[0].trainRmse.mean));
        QVERIFY(std::isnan(a[0].testRmse.std));
        QCOMPARE(a[0].testRmse.count, 0);

        QCOMPARE(a[1].count, 2); // repeat 2 stopped after one checkpoint
        QVERIFY(std::abs(a[1].trainTime - 2.1) < kTol);
        QVERIFY(std::abs(a[1].loss.mean - 2) < kTol);
        QVERIFY(std::abs(a[1].loss.std - std::sqrt(2.0)) < kTol);
        QVERIFY(std::abs(a[1].testAccuracy.mean - 0.6) < kTol);

        QCOMPARE(a[2].index, 2);
        QCOMPARE(a[2].count, 1);
        QCOMPARE(a[2].loss.mean, 0.5);
        QCOMPARE(a[2].loss.std, 0.0); // one repeat: std 0, not NaN
        QCOMPARE(a[2].epoch, 3.0);
    }
    void emptyInputGivesEmptyOutput()
    {
        QVERIFY(CurveAggregate::aggregate({}).isEmpty());
        QVERIFY(CurveAggregate::aggregate({{}, {}}).isEmpty());
    }
    void statIsStableForLargeOffsets()
    {
        // A one-pass sum of squares would lose all digits here; two passes keep them.
        const MetricStat s = CurveAggregate::stat({1e9 + 1, 1e9 + 2, 1e9 + 3, NaN});
        QCOMPARE(s.count, 3);
        QCOMPARE(s.mean, 1e9 + 2);
        QVERIFY(std::abs(s.std - 1) < 1e-6); // inputs carry ~1e-7 absolute rounding at 1e9
        const MetricStat none = CurveAggregate::stat({NaN, NaN});
        QCOMPARE(none.count, 0);
        QVERIFY(std::isnan(none.mean) && std::isnan(none.std));
    }
};

QTEST_APPLESS_MAIN(TestCurveAggregate)
#include "tst_curveaggregate.moc"
