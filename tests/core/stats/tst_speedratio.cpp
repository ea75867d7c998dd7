#include <stats/SpeedRatio.h>

#include <QtTest>
#include <cmath>

using namespace tb::stats;

class TestSpeedRatio : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void geometricMeanAndInterval()
    {
        // Ratios 2 and 8: geometric mean 4. Logs ln 2 and 3 ln 2: sd = √2·ln 2, se = ln 2,
        // so the 95 % interval is 4·2^(±t) with t = qt(0.975, 1) = 12.7062047361747 (R, and
        // tan(0.475π) exactly).
        const auto r = SpeedRatio::compute({1, 1}, {2, 8});
        QVERIFY(r.valid);
        QCOMPARE(r.n, 2);
        QVERIFY(std::fabs(r.geometricMean - 4) < 1e-12);
        const double t = std::tan(0.475 * M_PI);
        QVERIFY(std::fabs(r.ciLow / (4 * std::pow(2.0, -t)) - 1) < 1e-9);
        QVERIFY(std::fabs(r.ciHigh / (4 * std::pow(2.0, t)) - 1) < 1e-9);
        QCOMPARE(r.median, 5.0);
        QCOMPARE(r.min, 2.0);
        QCOMPARE(r.max, 8.0);
    }
    void reciprocalRatiosCancel()
    {
        // a twice as fast on one seed, half as fast on the other: typical ratio 1.
        const auto r = SpeedRatio::compute({1, 4}, {2, 2});
        QVERIFY(std::fabs(r.geometricMean - 1) < 1e-15);
    }
    void missedTargetsAreCountedNotAveraged()
    {
        const auto r = SpeedRatio::compute({1, NAN, 2, 1, 0}, {3, 1, NAN, 3, 2});
        QCOMPARE(r.n, 2);
        QCOMPARE(r.aMissed, 1);
        QCOMPARE(r.bMissed, 1);
        QCOMPARE(r.zeroTime, 1);
        QVERIFY(std::fabs(r.geometricMean - 3) < 1e-12);
        // Both ratios equal: zero-width interval.
        QVERIFY(std::fabs(r.ciLow - 3) < 1e-12 && std::fabs(r.ciHigh - 3) < 1e-12);
        const auto one = SpeedRatio::compute({1}, {5});
        QVERIFY(one.valid);
        QVERIFY(std::isnan(one.ciLow));
        QVERIFY(!SpeedRatio::compute({NAN}, {1}).valid);
    }
};

QTEST_APPLESS_MAIN(TestSpeedRatio)
#include "tst_speedratio.moc"
