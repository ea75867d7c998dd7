#pragma once
/// @file Distributions.h
/// The normal and Student t distributions the paired tests need, and the regularised
/// incomplete beta function behind the t distribution.

namespace tb::stats {

/// Pure functions; thread-safe. Accuracy: about 1e-12 relative in the p-values the tests
/// report (continued fraction to 1e-15, log-gamma from the C library).
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
};

} // namespace tb::stats
