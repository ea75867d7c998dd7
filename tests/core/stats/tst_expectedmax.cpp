#include <stats/ExpectedMax.h>

#include <QtTest>
#include <cmath>
#include <vector>

using namespace tb::stats;

namespace {
// E[best of n draws with replacement] and E[paired of the chosen draw] by enumerating all N^n
// ordered draws; ties between equal scores are broken uniformly, as the estimator assumes.
std::pair<double, double> bruteForce(const std::vector<double>& s, const std::vector<double>& p, int n, Better better)
{
    const size_t N = s.size();
    size_t combos = 1;
    for (int k = 0; k < n; ++k)
        combos *= N;
    double best = 0, paired = 0;
    std::vector<size_t> idx(static_cast<size_t>(n));
    for (size_t c = 0; c < combos; ++c) {
        size_t r = c;
        for (int k = 0; k < n; ++k) {
            idx[size_t(k)] = r % N;
            r /= N;
        }
        double b = s[idx[0]];
        for (size_t i : idx)
            b = better == Better::Higher ? std::max(b, s[i]) : std::min(b, s[i]);
        // The chosen trial: any trial with the best score alike (the estimator's convention),
        // i.e. the mean paired value over all trials with that score.
        double sum = 0;
        int count = 0;
        for (size_t i = 0; i < N; ++i)
            if (s[i] == b) {
                sum += p[i];
                ++count;
            }
        best += b;
        paired += sum / count;
    }
    return {best / double(combos), paired / double(combos)};
}
} // namespace

class TestExpectedMax : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void handComputedThreeTrials()
    {
        // Validation 0.6, 0.8, 0.7 with test 0.5, 0.9, 0.1. One trial: every trial alike, so the
        // mean 0.7, sd √(1.49/3 − 0.49) = √(1/150), test 0.5. Two trials: weights 1/9, 3/9, 5/9 on
        // 0.6, 0.7, 0.8 → 6.7/9; test (0.5 + 3·0.1 + 5·0.9)/9 = 5.3/9. Many trials → the best, 0.8.
        const auto c = ExpectedMax::curve({0.6, 0.8, 0.7}, {0.5, 0.9, 0.1}, 40);
        QCOMPARE(int(c.size()), 40);
        QCOMPARE(c[0].n, 1);
        QVERIFY(std::fabs(c[0].mean - 0.7) < 1e-15);
        QVERIFY(std::fabs(c[0].sd - std::sqrt(1.0 / 150)) < 1e-12);
        QVERIFY(std::fabs(c[0].pairedMean - 0.5) < 1e-15);
        QVERIFY(std::fabs(c[1].mean - 6.7 / 9) < 1e-15);
        QVERIFY(std::fabs(c[1].sd - std::sqrt(5.03 / 9 - (6.7 / 9) * (6.7 / 9))) < 1e-12);
        QVERIFY(std::fabs(c[1].pairedMean - 5.3 / 9) < 1e-15);
        // (2/3)^40 ≈ 9e-8 of the weight is off the best: within 1e-7 of 0.8 and 0.9.
        QVERIFY(std::fabs(c[39].mean - 0.8) < 1e-7);
        QVERIFY(std::fabs(c[39].pairedMean - 0.9) < 2e-7);
        for (size_t n = 1; n < c.size(); ++n)
            QVERIFY(c[n].mean >= c[n - 1].mean - 1e-15); // more trials never hurt in expectation
    }
    void enumerationWithTiesAndBothDirections()
    {
        // Four trials, two of them tied: the closed form against every one of the 4^3 draws.
        const std::vector<double> s{0.3, 0.9, 0.5, 0.9}, p{1, 2, 3, 4};
        for (Better better : {Better::Higher, Better::Lower}) {
            const auto c = ExpectedMax::curve(s, p, 3, better);
            for (int n = 1; n <= 3; ++n) {
                const auto [best, paired] = bruteForce(s, p, n, better);
                QVERIFY2(std::fabs(c[size_t(n - 1)].mean - best) < 1e-14, qPrintable(QString::number(n)));
                QVERIFY2(std::fabs(c[size_t(n - 1)].pairedMean - paired) < 1e-14, qPrintable(QString::number(n)));
            }
        }
        // Lower is better (an RMSE): the expected best of many is the smallest.
        // (3/4)^60 ≈ 3e-8 of the weight is off the best, 0.6 away: within 1e-7.
    QVERIFY(std::fabs(ExpectedMax::curve(s, p, 60, Better::Lower)[59].mean - 0.3) < 1e-7);
    }
    void singleTrialAndEmpty()
    {
        const auto one = ExpectedMax::curve({0.42}, {}, 5);
        QCOMPARE(int(one.size()), 5);
        for (const auto& e : one) {
            QCOMPARE(e.mean, 0.42);
            QCOMPARE(e.sd, 0.0);
            QVERIFY(std::isnan(e.pairedMean));
        }
        QVERIFY(ExpectedMax::curve({}, {}, 5).empty());
        QVERIFY(ExpectedMax::curve({1.0}, {}, 0).empty());
    }
};

QTEST_APPLESS_MAIN(TestExpectedMax)
#include "tst_expectedmax.moc"
