#pragma once
/// @file Distributions.h
/// The normal and Student t distributions the paired tests need, the regularised incomplete
/// beta function behind the t and F distributions, the regularised incomplete gamma function
/// behind the chi-square distribution, and the Studentized range distribution with infinite
/// degrees of freedom behind the Nemenyi test (RankStatistics.h).

namespace tb::stats {

/// Pure functions; thread-safe. Accuracy: about 1e-12 relative in the p-values the tests
/// report (continued fractions and series to 1e-15, log-gamma from the C library), unless a
/// function says otherwise.
class Distributions {
public:
    /// Φ(z), the standard normal CDF. Φ(±∞) = 1 or 0; NaN for NaN.
    static double normalCdf(double z);
    /// P(|Z| ≥ |z|) for a standard normal Z, computed without cancellation for large |z|.
    static double normalTwoSided(double z);

    /// P(T ≤ t) for Student's t with @p df > 0 degrees of freedom (df need not be an
    /// integer). NaN when df ≤ 0 or either argument is NaN.
    static double studentTCdf(double t, double df);
    /// P(|T| ≥ |t|) for Student's t with @p df > 0: the two-sided p-value of a t statistic.
    /// 0 for t = ±∞; NaN when df ≤ 0 or either argument is NaN.
    static double studentTTwoSided(double t, double df);
    /// The p-quantile of Student's t with @p df > 0: t such that P(T ≤ t) = p, for
    /// 0 < p < 1 (±∞ at p = 1 or 0, NaN outside [0, 1]). Bisection to 1e-14 relative.
    static double studentTQuantile(double p, double df);

    /// I_x(a, b), the regularised incomplete beta function, for a, b > 0 and 0 ≤ x ≤ 1
    /// (NaN otherwise). Lentz's continued fraction (Numerical Recipes §6.4).
    static double incompleteBeta(double a, double b, double x);

    /// P(a, x) = γ(a, x)/Γ(a), the regularised lower incomplete gamma function, for a > 0 and
    /// x ≥ 0 (1 at x = +∞; NaN otherwise). The series for x < a + 1, Lentz's continued fraction
    /// of Q otherwise (Numerical Recipes §6.2), each to 1e-15; the prefactor x^a e^{−x}/Γ(a)
    /// from the C library's lgamma, whence about 1e-13 relative for a up to a few hundred.
    static double incompleteGammaP(double a, double x);
    /// Q(a, x) = 1 − P(a, x), the regularised upper incomplete gamma function, computed
    /// directly where it is the smaller (no cancellation in the far tail). Domain as for P.
    static double incompleteGammaQ(double a, double x);
    /// P(X ≥ @p x) for X chi-square with @p df > 0 degrees of freedom (df need not be an
    /// integer): Q(df/2, x/2). 1 for x ≤ 0, 0 for x = +∞; NaN when df ≤ 0 or either is NaN.
    static double chiSquareUpperTail(double x, double df);
    /// P(F ≥ @p f) for F with @p d1, @p d2 > 0 degrees of freedom: I_{d2/(d2 + d1·f)}(d2/2, d1/2),
    /// with 1 − x passed exactly as d1·f/(d2 + d1·f). 1 for f ≤ 0, 0 for f = +∞; NaN when a
    /// degree of freedom is not > 0 or an argument is NaN. Accuracy as incompleteBeta's.
    static double fUpperTail(double f, double d1, double d2);

    /// P(R ≤ @p q) for R the range of @p k ≥ 2 independent standard normals divided by a
    /// standard deviation known exactly (the Studentized range with infinite degrees of
    /// freedom): k ∫ φ(z) [Φ(z) − Φ(z − q)]^{k−1} dz, by composite 20-point Gauss–Legendre on
    /// panels of width 1/2 over z ∈ [−9, q + 9] (the integrand is below 1e-18 outside). 0 for
    /// q ≤ 0, 1 for q = +∞; NaN for k < 2 or q NaN. About 1e-13 absolute for 2 ≤ k ≤ 50
    /// (checked against a 30-digit quadrature and SciPy), k = 2 being erf(q/2) exactly.
    static double studentizedRangeCdf(double q, int k);
    /// P(R ≥ @p q) = 1 − studentizedRangeCdf(q, k), integrated directly as
    /// k ∫ φ(z) {Φ(z)^{k−1} − [Φ(z) − Φ(z − q)]^{k−1}} dz (each difference formed without
    /// cancellation), so that it keeps about 1e-12 relative accuracy far into the tail.
    static double studentizedRangeUpperTail(double q, int k);
    /// The p-quantile of the Studentized range with infinite degrees of freedom: q with
    /// P(R ≤ q) = @p p, for 0 < p < 1 (0 at p = 0, +∞ at p = 1, NaN outside [0, 1] or k < 2).
    /// Bisection to 1e-14 relative, on the upper tail for p ≥ 1/2.
    static double studentizedRangeQuantile(double p, int k);
    /// The upper @p alpha point: q with P(R ≥ q) = α, for 0 < α < 1 — what a critical value
    /// needs without forming 1 − α (Demšar's q_α is this divided by √2). +∞ at α = 0, 0 at
    /// α = 1, NaN outside [0, 1] or k < 2. Bisection to 1e-14 relative.
    static double studentizedRangeUpperQuantile(double alpha, int k);
};

} // namespace tb::stats
