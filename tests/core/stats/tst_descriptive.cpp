#include <stats/Descriptive.h>

#include <QtTest>
#include <cmath>

using namespace tb::stats;

class TestDescriptive : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void summaryOfKnownSample()
    {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, Σ(x − 5)² = 32, sample sd √(32/7), median 4.5.
        const Summary s = Descriptive::summarise({2, 4, 4, 4, 5, 5, 7, 9});
        QCOMPARE(s.count, 8);
        QCOMPARE(s.mean, 5.0);
        QVERIFY(std::fabs(s.std - std::sqrt(32.0 / 7.0)) < 1e-15);
        QCOMPARE(s.median, 4.5);
        QCOMPARE(s.min, 2.0);
        QCOMPARE(s.max, 9.0);
    }
    void nanValuesAreLeftOut()
    {
        const Summary s = Descriptive::summarise({1, NAN, 3});
        QCOMPARE(s.count, 2);
        QCOMPARE(s.mean, 2.0);
        QCOMPARE(s.median, 2.0);
        QVERIFY(std::isnan(Descriptive::summarise({NAN}).mean));
        QCOMPARE(Descriptive::summarise({7}).std, 0.0);
    }
    void identicalValuesAreExact()
    {
        // 0.1 + 0.1 + 0.1 = 0.30000000000000004, / 3 = 0.10000000000000002: the mean of identical
        // values must be the value, with no spread and a point interval (issue 43).
        const Summary s = Descriptive::summarise({0.1, 0.1, 0.1});
        QCOMPARE(s.mean, 0.1);
        QCOMPARE(s.std, 0.0);
        QVERIFY(s.identical);
        QCOMPARE(s.ciLow, 0.1);
        QCOMPARE(s.ciHigh, 0.1);
        QVERIFY(!Descriptive::summarise({0.1}).identical);  // one value: no interval at all
        QVERIFY(std::isnan(Descriptive::summarise({0.1}).ciLow));
        QVERIFY(!Descriptive::summarise({0.1, 0.2}).identical);
        QVERIFY(Descriptive::summarise({2.0, NAN, 2.0}).identical);
    }
    void largeOffsetKeepsPrecision()
    {
        // Accuracies near 1e9 + small spread: a one-pass Σx² − n·mean² would lose every digit.
        const Summary s = Descriptive::summarise({1e9 + 1, 1e9 + 2, 1e9 + 3});
        QVERIFY(std::fabs(s.std - 1.0) < 1e-6);
    }
};

QTEST_APPLESS_MAIN(TestDescriptive)
#include "tst_descriptive.moc"
