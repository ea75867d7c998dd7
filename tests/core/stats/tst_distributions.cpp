#include <stats/Distributions.h>

#include <QtTest>
#include <cmath>

using namespace tb::stats;

namespace {
bool near(double a, double b, double rel)
{
    return std::fabs(a - b) <= rel * std::max(1.0, std::fabs(b));
}
// Relative agreement, for values that may be far below 1 (tails).
bool rel(double got, double want, double tolerance)
{
    return std::fabs(got - want) <= tolerance * std::fabs(want);
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
    void incompleteGammaClosedForms()
    {
        // P(1, x) = 1 − e^{−x}, Q(1, x) = e^{−x}, Q(2, x) = (1 + x) e^{−x}, P(½, x) = erf(√x),
        // Q(½, x) = erfc(√x): identities, so the tolerance is the series' and fraction's 1e-15
        // and lgamma's rounding, relative.
        for (double x : {0.001, 0.3, 1.0, 2.5, 7.0, 30.0, 200.0}) {
            QVERIFY(rel(Distributions::incompleteGammaP(1, x), -std::expm1(-x), 1e-13));
            QVERIFY(rel(Distributions::incompleteGammaQ(1, x), std::exp(-x), 1e-13));
            QVERIFY(rel(Distributions::incompleteGammaQ(2, x), (1 + x) * std::exp(-x), 1e-13));
            QVERIFY(rel(Distributions::incompleteGammaP(0.5, x), std::erf(std::sqrt(x)), 1e-13));
            QVERIFY(rel(Distributions::incompleteGammaQ(0.5, x), std::erfc(std::sqrt(x)), 1e-13));
        }
        QCOMPARE(Distributions::incompleteGammaP(3, 0), 0.0);
        QCOMPARE(Distributions::incompleteGammaQ(3, 0), 1.0);
        QCOMPARE(Distributions::incompleteGammaQ(3, INFINITY), 0.0);
        QVERIFY(std::isnan(Distributions::incompleteGammaP(0, 1)));
        QVERIFY(std::isnan(Distributions::incompleteGammaQ(1, -1)));
    }
    void chiSquareUpperTail()
    {
        // Two degrees of freedom: P(χ²₂ ≥ x) = e^{−x/2}.
        for (double x : {0.1, 1.0, 5.991464547107979, 40.0})
            QVERIFY(rel(Distributions::chiSquareUpperTail(x, 2), std::exp(-x / 2), 1e-13));
        QVERIFY(rel(Distributions::chiSquareUpperTail(5.991464547107979, 2), 0.05, 1e-13)); // qchisq(0.95, 2)
        // mpmath.gammainc(df/2, x/2, mpmath.inf, regularized=True) at mp.dps = 30 (SciPy's
        // chi2.sf agrees to ~1e-14): 1e-12 relative, the class's stated accuracy, out to 1e-37
        // and to 1000 degrees of freedom (where lgamma's rounding dominates).
        struct Case { double x, df, p; };
        const Case cases[] = {
            {9.278571428571429, 3, 0.025807496707063270456}, // Demšar's χ²_F
            {0.5, 1, 0.47950012218695346232},
            {3.3, 4, 0.50893225784499843088},
            {12.0, 7, 0.10055886850835884234},
            {30.0, 5, 0.000014748581038443052281},
            {200.0, 10, 1.613930533697730479e-37},
            {1000.0, 1000, 0.49405285382923964195},
            {1100.0, 1000, 0.014614408126295194045},
            {0.01, 0.5, 0.70691910527898041424},
        };
        for (const Case& c : cases)
            QVERIFY2(rel(Distributions::chiSquareUpperTail(c.x, c.df), c.p, 1e-12),
                     qPrintable(QString("x %1 df %2: %3").arg(c.x).arg(c.df).arg(Distributions::chiSquareUpperTail(c.x, c.df), 0, 'g', 17)));
        QCOMPARE(Distributions::chiSquareUpperTail(0, 3), 1.0);
        QCOMPARE(Distributions::chiSquareUpperTail(-1, 3), 1.0);
        QCOMPARE(Distributions::chiSquareUpperTail(INFINITY, 3), 0.0);
        QVERIFY(std::isnan(Distributions::chiSquareUpperTail(1, 0)));
        QVERIFY(std::isnan(Distributions::chiSquareUpperTail(NAN, 3)));
    }
    void fUpperTail()
    {
        // F(1, ν) is t² with ν degrees of freedom; F(2, ν) has P(F ≥ f) = (1 + 2f/ν)^{−ν/2}.
        for (double t : {0.3, 1.0, 2.5, 9.0})
            for (double df : {1.0, 4.0, 39.0}) {
                QVERIFY(rel(Distributions::fUpperTail(t * t, 1, df), Distributions::studentTTwoSided(t, df), 1e-13));
                QVERIFY(rel(Distributions::fUpperTail(t, 2, df), std::pow(1 + 2 * t / df, -df / 2), 1e-12));
            }
        // mpmath.betainc(d2/2, d1/2, 0, d2/(d2 + d1·f), regularized=True) at mp.dps = 30 (SciPy's
        // f.sf agrees to ~1e-15); F(3, 39) at 2.85 is Demšar's critical value (p just under 0.05).
        struct Case { double f, d1, d2, p; };
        const Case cases[] = {
            {3.686331, 3, 39, 0.019822620860061027702},
            {2.85, 3, 39, 0.049725404210694286349},
            {1.5, 5, 12, 0.26111676568253912758},
            {40.0, 4, 20, 2.8361056353391919654e-9},
            {0.3, 10, 3, 0.93550089044187037534},
        };
        for (const Case& c : cases)
            QVERIFY2(rel(Distributions::fUpperTail(c.f, c.d1, c.d2), c.p, 1e-12),
                     qPrintable(QString("f %1: %2").arg(c.f).arg(Distributions::fUpperTail(c.f, c.d1, c.d2), 0, 'g', 17)));
        QCOMPARE(Distributions::fUpperTail(0, 3, 39), 1.0);
        QCOMPARE(Distributions::fUpperTail(INFINITY, 3, 39), 0.0);
        QVERIFY(std::isnan(Distributions::fUpperTail(1, 0, 39)));
        QVERIFY(std::isnan(Distributions::fUpperTail(1, 3, -1)));
        QVERIFY(std::isnan(Distributions::fUpperTail(NAN, 3, 39)));
    }
    void studentizedRangeClosedFormForTwo()
    {
        // The range of two standard normals is |X − Y| with X − Y ~ N(0, 2):
        // P(R ≤ q) = erf(q/2), P(R ≥ q) = erfc(q/2) — the tail relative, far out.
        for (double q : {0.01, 0.5, 1.0, 2.77, 5.0, 12.0, 20.0}) {
            QVERIFY(std::fabs(Distributions::studentizedRangeCdf(q, 2) - std::erf(q / 2)) < 1e-14);
            QVERIFY2(rel(Distributions::studentizedRangeUpperTail(q, 2), std::erfc(q / 2), 1e-12),
                     qPrintable(QString("q %1: %2 vs %3").arg(q).arg(Distributions::studentizedRangeUpperTail(q, 2)).arg(std::erfc(q / 2))));
        }
        // Its upper 5 % point is √2·z₀.₉₇₅ = 2.7718076486993576 (√2 · scipy.stats.norm.isf(0.025)).
        QVERIFY(rel(Distributions::studentizedRangeUpperQuantile(0.05, 2), 2.7718076486993576, 1e-13));
        QVERIFY(rel(Distributions::studentizedRangeQuantile(0.95, 2), 2.7718076486993576, 1e-13));
    }
    void studentizedRangeMatchesQuadrature()
    {
        // The defining integrals evaluated by mpmath.quad at mp.dps = 30 over [−∞, −5, 0, q/2, q,
        // q + 5, ∞] (cdf: k·npdf(z)·(ncdf(z) − ncdf(z − q))^{k−1}; upper: k·npdf(z)·(ncdf(z)^{k−1}
        // − (ncdf(z) − ncdf(z − q))^{k−1})). scipy.stats.studentized_range.sf(q, k, np.inf) agrees
        // to 1e-14 where the tail is not small, but is off by 1e-11 relative at (50, 8) and by 14 %
        // at (4, 12): the quadrature is the reference. Tolerances: 1e-13 absolute on the CDF
        // (the quadrature's panels converge to the last few bits), 1e-12 relative on the tail.
        struct Case { int k; double q, cdf, upper; };
        const Case cases[] = {
            {3, 1.0, 0.24071264122933877408, 0.75928735877066122592},
            {3, 3.0, 0.91445742834504199696, 0.085542571654958003039},
            {4, 3.63, 0.94970271485953845063, 0.050297285140461549371},
            {10, 3.0, 0.48781592602919338484, 0.51218407397080661516},
            {10, 5.0, 0.98514256211221629357, 0.014857437887783706431},
            {50, 5.0, 0.78985462128237881814, 0.21014537871762118186},
            {50, 8.0, 0.99998171833866295838, 0.000018281661337041617342},
            {4, 12.0, 0.99999999999999987088, 1.2911823485653215586e-16},
        };
        for (const Case& c : cases) {
            const double cdf = Distributions::studentizedRangeCdf(c.q, c.k);
            const double upper = Distributions::studentizedRangeUpperTail(c.q, c.k);
            QVERIFY2(std::fabs(cdf - c.cdf) < 1e-13, qPrintable(QString("k %1 q %2 cdf %3").arg(c.k).arg(c.q).arg(cdf, 0, 'g', 17)));
            QVERIFY2(rel(upper, c.upper, 1e-12), qPrintable(QString("k %1 q %2 upper %3").arg(c.k).arg(c.q).arg(upper, 0, 'g', 17)));
        }
        // mpmath.findroot of upper(q, k) = α from those integrals (mp.dps = 30).
        QVERIFY(rel(Distributions::studentizedRangeUpperQuantile(0.05, 4), 3.6331595749026290195, 1e-13));
        QVERIFY(rel(Distributions::studentizedRangeUpperQuantile(0.05, 50), 5.646026026380533541, 1e-13));
        QVERIFY(rel(Distributions::studentizedRangeUpperQuantile(1e-6, 20), 8.2548596577422090988, 1e-12));
        QVERIFY(rel(Distributions::studentizedRangeQuantile(0.9, 10), 4.1293463982368724273, 1e-13));
    }
    void studentizedRangeQuantileInvertsTheCdf()
    {
        // Round trips, on both sides of the median and far into the upper tail. The bisection
        // stops at 1e-14 relative in q; dP/P ≈ (q·density/P)·dq/q stays below ~1e-12 here.
        for (int k : {2, 3, 7, 25, 50})
            for (double p : {0.001, 0.2, 0.5, 0.9, 0.99}) {
                const double q = Distributions::studentizedRangeQuantile(p, k);
                QVERIFY2(rel(Distributions::studentizedRangeCdf(q, k), p, 1e-11),
                         qPrintable(QString("k %1 p %2: q %3").arg(k).arg(p).arg(q)));
            }
        for (int k : {2, 5, 50})
            for (double alpha : {1e-3, 1e-9, 1e-15}) {
                const double q = Distributions::studentizedRangeUpperQuantile(alpha, k);
                QVERIFY2(rel(Distributions::studentizedRangeUpperTail(q, k), alpha, 1e-11),
                         qPrintable(QString("k %1 alpha %2: q %3").arg(k).arg(alpha).arg(q)));
            }
        QCOMPARE(Distributions::studentizedRangeCdf(0, 4), 0.0);
        QCOMPARE(Distributions::studentizedRangeUpperTail(0, 4), 1.0);
        QCOMPARE(Distributions::studentizedRangeCdf(INFINITY, 4), 1.0);
        QCOMPARE(Distributions::studentizedRangeQuantile(0, 4), 0.0);
        QCOMPARE(Distributions::studentizedRangeQuantile(1, 4), double(INFINITY));
        QCOMPARE(Distributions::studentizedRangeUpperQuantile(1, 4), 0.0);
        QVERIFY(std::isnan(Distributions::studentizedRangeCdf(1, 1)));
        QVERIFY(std::isnan(Distributions::studentizedRangeUpperTail(NAN, 3)));
        QVERIFY(std::isnan(Distributions::studentizedRangeQuantile(1.5, 3)));
        QVERIFY(std::isnan(Distributions::studentizedRangeUpperQuantile(-0.1, 3)));
    }
};

QTEST_APPLESS_MAIN(TestDistributions)
#include "tst_distributions.moc"
