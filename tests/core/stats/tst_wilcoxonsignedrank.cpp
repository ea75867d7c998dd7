#include <stats/WilcoxonSignedRank.h>

#include <QtTest>
#include <cmath>

using namespace tb::stats;

class TestWilcoxonSignedRank : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void exactWithoutTies()
    {
        // Hollander & Wolfe (1973, p. 29), the example of R's ?wilcox.test: Hamilton depression
        // scale before (x) and after (y) a tranquilizer. Differences x − y rank 1..9 with the
        // negatives at ranks 2 and 3, so W+ = 40 and W− = 5. R prints V = 40, p-value = 0.01953
        // for alternative = "greater"; the exact two-sided p is 2·#{subsets of 1..9 with sum ≤ 5}/2⁹
        // = 2·10/512 = 0.0390625 (sums 0,1,2: one each; 3: {3},{1,2}; 4: {4},{1,3};
        // 5: {5},{1,4},{2,3}). SciPy's wilcoxon(x, y) gives statistic 5, p 0.0390625.
        const std::vector<double> x{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
        const std::vector<double> y{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
        const WilcoxonResult r = WilcoxonSignedRank::compute(x, y);
        QVERIFY(r.valid);
        QCOMPARE(r.method, WilcoxonResult::Method::Exact);
        QCOMPARE(r.n, 9);
        QCOMPARE(r.wPlus, 40.0);
        QCOMPARE(r.wMinus, 5.0);
        QCOMPARE(r.statistic, 5.0);
        QVERIFY(std::fabs(r.pValue - 0.0390625) < 1e-15);
    }
    void exactSmallestP()
    {
        // n = 5, all positive: only the all-plus pattern reaches W+ = 15, p = 2/32.
        const WilcoxonResult r = WilcoxonSignedRank::compute({2, 3, 4, 5, 6}, {1, 1, 1, 1, 1});
        QCOMPARE(r.method, WilcoxonResult::Method::Exact);
        QCOMPARE(r.pValue, 0.0625);
        // W+ at the centre of the distribution: p = 1.
        // d = +1, −2, −3, +4 → W+ = 5 = n(n+1)/4.
        QCOMPARE(WilcoxonSignedRank::compute({1, -2, -3, 4}, {0, 0, 0, 0}).pValue, 1.0);
    }
    void tiesAndZerosUseTheNormalApproximation()
    {
        // Student's sleep data: differences −1.2 −2.4 −1.3 −1.3 0 −1.0 −1.8 −0.8 −4.6 −1.4.
        // The zero is dropped (n = 9); |d| = 1.3 is tied (ranks 4, 5 → 4.5); all negative, so
        // W+ = 0, W− = 45. Mean n(n+1)/4 = 22.5; variance 9·10·19/24 − (2³ − 2)/48 = 71.125.
        // R: wilcox.test(extra ~ group, data = sleep, paired = TRUE) prints V = 0,
        // p-value = 0.009091 (with its continuity correction: z = (0 − 22.5 + 0.5)/√71.125).
        // Without the correction (SciPy's default) z = −22.5/√71.125 = −2.66791, p = 0.0076324416
        // (mpmath erfc at 30 digits: 0.00763244164820553).
        const std::vector<double> drug1{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
        const std::vector<double> drug2{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
        const WilcoxonResult scipy = WilcoxonSignedRank::compute(drug1, drug2);
        QVERIFY(scipy.valid);
        QCOMPARE(scipy.method, WilcoxonResult::Method::Normal);
        QCOMPARE(scipy.n, 9);
        QCOMPARE(scipy.zeros, 1);
        QVERIFY(scipy.ties);
        QCOMPARE(scipy.wPlus, 0.0);
        QCOMPARE(scipy.wMinus, 45.0);
        QVERIFY(std::fabs(scipy.z - -22.5 / std::sqrt(71.125)) < 1e-12);
        QVERIFY(std::fabs(scipy.pValue - std::erfc(22.5 / std::sqrt(71.125) / std::sqrt(2.0))) < 1e-15);
        QVERIFY(std::fabs(scipy.pValue - 0.00763244164820553) < 1e-14);
        const WilcoxonResult r = WilcoxonSignedRank::compute(drug1, drug2, true);
        QVERIFY(std::fabs(r.pValue - 0.009091) < 0.5e-6); // R's printed value, 4 significant digits
    }
    void largeSamplesUseTheNormalApproximation()
    {
        // d = −1..−10, +11..+60 (n = 60 > 50): W− = 55, W+ = 1775; mean 915, variance
        // 60·61·121/24 = 18452.5, no ties.
        std::vector<double> a, b(60, 0.0);
        for (int i = 1; i <= 60; ++i)
            a.push_back(i <= 10 ? -i : i);
        const WilcoxonResult r = WilcoxonSignedRank::compute(a, b);
        QCOMPARE(r.method, WilcoxonResult::Method::Normal);
        QCOMPARE(r.wMinus, 55.0);
        QVERIFY(std::fabs(r.z - (55 - 915) / std::sqrt(18452.5)) < 1e-12);
        QVERIFY(std::fabs(r.pValue / std::erfc(860 / std::sqrt(18452.5) / std::sqrt(2.0)) - 1) < 1e-12);
    }
    void midRanks()
    {
        const std::vector<double> r = WilcoxonSignedRank::midRanks({3, 1, 3, 2, 3});
        QCOMPARE(r, (std::vector<double>{4, 1, 4, 2, 4}));
    }
    void degenerateInputs()
    {
        const WilcoxonResult zeros = WilcoxonSignedRank::compute({1, 2, 3}, {1, 2, 3});
        QVERIFY(!zeros.valid);
        QCOMPARE(zeros.zeros, 3);
        QVERIFY(std::isnan(zeros.pValue));
        QVERIFY(!WilcoxonSignedRank::compute({1, 2}, {1}).valid);
        const WilcoxonResult nan = WilcoxonSignedRank::compute({1, NAN, 3, 4, 5}, {0, 0, 0, 0, 0});
        QCOMPARE(nan.dropped, 1);
        QCOMPARE(nan.n, 4);
        QCOMPARE(nan.pValue, 0.125); // 4 positives: 2/16
    }
};

QTEST_APPLESS_MAIN(TestWilcoxonSignedRank)
#include "tst_wilcoxonsignedrank.moc"
