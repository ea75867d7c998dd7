#include <stats/PairedTTest.h>

#include <QtTest>
#include <cmath>

using namespace tb::stats;

namespace {
// Student's sleep data (Cushny & Peebles 1905, R's `sleep`): extra hours of sleep of ten
// patients under drug 1 and drug 2.
const std::vector<double> kDrug1{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
const std::vector<double> kDrug2{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
} // namespace

class TestPairedTTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sleepDataMatchesR()
    {
        // R 4.x: t.test(extra ~ group, data = sleep, paired = TRUE) (or t.test(drug1, drug2,
        // paired = TRUE)) prints t = -4.0621, df = 9, p-value = 0.002833, 95 percent
        // confidence interval -2.4598858 -0.7001142, mean difference -1.58. Tolerances are
        // half a unit of the last printed digit.
        const PairedTTestResult r = PairedTTest::compute(kDrug1, kDrug2);
        QVERIFY(r.valid);
        QCOMPARE(r.n, 10);
        QCOMPARE(r.df, 9.0);
        QVERIFY(std::fabs(r.meanDifference - -1.58) < 1e-12);
        // By hand: Σ(d − d̄)² = 13.616, sd = √(13.616/9).
        QVERIFY(std::fabs(r.sdDifference - std::sqrt(13.616 / 9)) < 1e-12);
        QVERIFY(std::fabs(r.t - -4.0621) < 0.5e-4);
        QVERIFY(std::fabs(r.pValue - 0.002833) < 0.5e-6);
        QVERIFY(std::fabs(r.ciLow - -2.4598858) < 0.5e-7);
        QVERIFY(std::fabs(r.ciHigh - -0.7001142) < 0.5e-7);
        // The same at 30 digits (mpmath: betainc for the tail, findroot for the 0.975 quantile),
        // to the 1e-12 this implementation promises.
        QVERIFY(std::fabs(r.t - -4.06212768338204) < 1e-12);
        QVERIFY(std::fabs(r.pValue / 0.00283289019738427 - 1) < 1e-11);
        QVERIFY(std::fabs(r.ciLow - -2.45988576327698) < 1e-12);
    }
    void swappingTheSamplesFlipsTheSign()
    {
        const PairedTTestResult a = PairedTTest::compute(kDrug1, kDrug2);
        const PairedTTestResult b = PairedTTest::compute(kDrug2, kDrug1);
        QVERIFY(std::fabs(a.t + b.t) < 1e-12);
        QVERIFY(std::fabs(a.pValue - b.pValue) < 1e-15);
        QVERIFY(std::fabs(a.ciLow + b.ciHigh) < 1e-12);
    }
    void otherConfidenceLevel()
    {
        // 99 %: mean ± qt(0.995, 9)·se with qt(0.995, 9) = 3.249836 (R), se = sd/√10.
        const PairedTTestResult r = PairedTTest::compute(kDrug1, kDrug2, 0.99);
        const double se = std::sqrt(13.616 / 9) / std::sqrt(10.0);
        QVERIFY(std::fabs(r.ciHigh - (-1.58 + 3.249836 * se)) < 1e-6);
    }
    void nanPairsAreDroppedAndCounted()
    {
        std::vector<double> a = kDrug1, b = kDrug2;
        a.push_back(NAN);
        b.push_back(1);
        const PairedTTestResult r = PairedTTest::compute(a, b);
        QCOMPARE(r.n, 10);
        QCOMPARE(r.dropped, 1);
        QVERIFY(std::fabs(r.t - -4.0621) < 0.5e-4);
    }
    void degenerateInputs()
    {
        // One pair: no variance estimate.
        QVERIFY(!PairedTTest::compute({1}, {2}).valid);
        // Lengths differ: refused, not truncated.
        const PairedTTestResult len = PairedTTest::compute({1, 2}, {1, 2, 3});
        QVERIFY(!len.valid);
        QVERIFY(!len.note.empty());
        // Deterministic algorithms: every seed gives the same difference.
        const PairedTTestResult same = PairedTTest::compute({0.9, 0.9, 0.9}, {0.8, 0.8, 0.8});
        QVERIFY(same.valid);
        QCOMPARE(same.pValue, 0.0);
        QVERIFY(std::isinf(same.t) && same.t > 0);
        QVERIFY(std::fabs(same.ciLow - 0.1) < 1e-12 && std::fabs(same.ciHigh - 0.1) < 1e-12);
        // Identical samples: nothing to test.
        const PairedTTestResult zero = PairedTTest::compute({1, 2, 3}, {1, 2, 3});
        QVERIFY(std::isnan(zero.pValue));
        QCOMPARE(zero.meanDifference, 0.0);
        QVERIFY(!PairedTTest::compute({1, 2}, {3, 5}, 1.5).valid);
    }
};

QTEST_APPLESS_MAIN(TestPairedTTest)
#include "tst_pairedttest.moc"
