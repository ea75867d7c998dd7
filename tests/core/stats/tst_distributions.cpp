#include <stats/Distributions.h>

#include <QtTest>
#include <cmath>

using namespace tb::stats;

namespace {
bool near(double a, double b, double rel)
{
    return std::fabs(a - b) <= rel * std::max(1.0, std::fabs(b));
}
} // namespace

class TestDistributions : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void incompleteBetaClosedForms()
    {
        // I_x(1, 1) = x, I_x(a, 1) = x^a, I_x(1, b) = 1 − (1 − x)^b: exact identities, so the
        // tolerance is the continued fraction's 1e-15 plus a few roundings.
        for (double x : {0.0, 0.01, 0.3, 0.5, 0.77, 0.999, 1.0}) {
            QVERIFY(near(Distributions::incompleteBeta(1, 1, x), x, 1e-13));
            QVERIFY(near(Distributions::incompleteBeta(3.5, 1, x), std::pow(x, 3.5), 1e-13));
            QVERIFY(near(Distributions::incompleteBeta(1, 4, x), 1 - std::pow(1 - x, 4), 1e-13));
        }
        QVERIFY(std::isnan(Distributions::incompleteBeta(-1, 1, 0.5)));
        QVERIFY(std::isnan(Distributions::incompleteBeta(1, 1, 1.5)));
    }
    void studentTMatchesClosedFormsForOneAndTwoDegrees()
    {
        // ν = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/π.
        // ν = 2: F(t) = 1/2 + t / (2√(2 + t²)), quantile t = (2p − 1)/√(2p(1 − p)).
        for (double t : {-30.0, -3.0, -1.0, -0.2, 0.0, 0.5, 2.0, 12.0, 400.0}) {
            QVERIFY(near(Distributions::studentTCdf(t, 1), 0.5 + std::atan(t) / M_PI, 1e-12));
            QVERIFY(near(Distributions::studentTCdf(t, 2), 0.5 + t / (2 * std::sqrt(2 + t * t)), 1e-12));
        }
        for (double p : {0.001, 0.025, 0.3, 0.5, 0.9, 0.975, 0.9999}) {
            QVERIFY(near(Distributions::studentTQuantile(p, 2), (2 * p - 1) / std::sqrt(2 * p * (1 - p)), 1e-12));
            QVERIFY(near(Distributions::studentTQuantile(p, 1), std::tan(M_PI * (p - 0.5)), 1e-12));
        }
    }
    void studentTQuantilesMatchTables()
    {
        // R: qt(0.975, c(9, 30)), qt(0.995, 5), qt(0.95, 120) — the textbook t-table entries,
        // printed by R to 7 significant digits, hence the 1e-6 relative tolerance.
        QVERIFY(near(Distributions::studentTQuantile(0.975, 9), 2.262157, 1e-6));
        QVERIFY(near(Distributions::studentTQuantile(0.975, 30), 2.042272, 1e-6));
        QVERIFY(near(Distributions::studentTQuantile(0.995, 5), 4.032143, 1e-6));
        QVERIFY(near(Distributions::studentTQuantile(0.95, 120), 1.657651, 1e-6));
        QVERIFY(near(Distributions::studentTQuantile(0.025, 9), -2.262157, 1e-6));
        // Large ν tends to the normal: z₀.₉₇₅ = 1.959964.
        QVERIFY(near(Distributions::studentTQuantile(0.975, 1e7), 1.959964, 1e-6));
    }
    void twoSidedTailIsPrecise()
    {
        // The quantile and the tail invert each other, far into the tail (p ~ 1e-12) where
        // 1 − F(t) would have lost every digit.
        for (double df : {1.0, 3.0, 9.0, 50.0})
            for (double p : {0.05, 1e-4, 1e-12}) {
                // The lower quantile: 1 − p/2 itself would round p away at 1e-12.
                const double t = Distributions::studentTQuantile(p / 2, df);
                // Relative 1e-9: the bisection stops at 1e-14 relative in t, and dp/p ≈ ν·dt/t there.
                QVERIFY2(std::fabs(Distributions::studentTTwoSided(t, df) / p - 1) < 1e-9,
                         qPrintable(QString("df %1 p %2 got %3").arg(df).arg(p).arg(Distributions::studentTTwoSided(t, df))));
            }
        QCOMPARE(Distributions::studentTTwoSided(INFINITY, 4), 0.0);
        QCOMPARE(Distributions::studentTTwoSided(0, 4), 1.0);
        QVERIFY(std::isnan(Distributions::studentTTwoSided(1, 0)));
        QVERIFY(std::isnan(Distributions::studentTQuantile(1.5, 3)));
    }
    void normal()
    {
        // Φ(1.959963984540054) = 0.975 (the 97.5 % normal quantile to 16 digits).
        QVERIFY(near(Distributions::normalCdf(1.959963984540054), 0.975, 1e-15));
        QVERIFY(near(Distributions::normalTwoSided(-1.959963984540054), 0.05, 1e-14));
        // Far tail without cancellation: P(|Z| ≥ 10) = 1.523970e-23 (erfc(10/√2)).
        QVERIFY(near(Distributions::normalTwoSided(10) / 1.523970e-23, 1.0, 1e-6));
    }
};

QTEST_APPLESS_MAIN(TestDistributions)
#include "tst_distributions.moc"
