#include "Distributions.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

namespace tb::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The continued fraction of I_x(a, b), valid (fast convergence) for x < (a + 1) / (a + b + 2).
double betaFraction(double a, double b, double x)
{
    constexpr double tiny = 1e-300;
    constexpr double eps = 1e-15;
    const double qab = a + b, qap = a + 1, qam = a - 1;
    double c = 1, d = 1 - qab * x / qap;
    if (std::fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 10000; ++m) {
        const int m2 = 2 * m;
        double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1 + aa * d;
        if (std::fabs(d) < tiny)
            d = tiny;
        c = 1 + aa / c;
        if (std::fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1 + aa * d;
        if (std::fabs(d) < tiny)
            d = tiny;
        c = 1 + aa / c;
        if (std::fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        const double del = d * c;
        h *= del;
        if (std::fabs(del - 1) < eps)
            break;
    }
    return h;
}

// I_x(a, b) given x and y = 1 − x separately, so that callers who know y exactly (the t
// distribution: y = t²/(ν + t²)) lose nothing to the subtraction.
double incompleteBetaXY(double a, double b, double x, double y)
{
    if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1) || std::isnan(y))
        return kNaN;
    if (x == 0)
        return 0;
    if (y == 0)
        return 1;
    const double lnFront = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log(y);
    const double front = std::exp(lnFront);
    if (x < (a + 1) / (a + b + 2))
        return front * betaFraction(a, b, x) / a;
    return 1 - front * betaFraction(b, a, y) / b;
}

// P(a, x) by its series, for x < a + 1 (Numerical Recipes' gser).
double gammaSeries(double a, double x)
{
    double ap = a, del = 1 / a, sum = del;
    for (int n = 0; n < 100000; ++n) {
        ap += 1;
        del *= x / ap;
        sum += del;
        if (std::fabs(del) < std::fabs(sum) * 1e-16)
            break;
    }
    return sum * std::exp(-x + a * std::log(x) - std::lgamma(a));
}

// Q(a, x) by Lentz's continued fraction, for x ≥ a + 1 (Numerical Recipes' gcf).
double gammaFraction(double a, double x)
{
    constexpr double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i <= 100000; ++i) {
        const double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (std::fabs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (std::fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        const double del = d * c;
        h *= del;
        if (std::fabs(del - 1) < 1e-16)
            break;
    }
    return std::exp(-x + a * std::log(x) - std::lgamma(a)) * h;
}

// P (lower = true) or Q of the regularised incomplete gamma function.
double incompleteGamma(double a, double x, bool lower)
{
    if (!(a > 0) || std::isinf(a) || !(x >= 0))
        return kNaN;
    if (x == 0)
        return lower ? 0 : 1;
    if (std::isinf(x))
        return lower ? 1 : 0;
    if (x < a + 1) {
        const double p = gammaSeries(a, x);
        return lower ? p : 1 - p;
    }
    const double q = gammaFraction(a, x);
    return lower ? 1 - q : q;
}

// Φ(z) and 1 − Φ(z), each without cancellation in its own tail.
double phiLower(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
double phiUpper(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// The nodes and weights of n-point Gauss–Legendre on [−1, 1], by Newton's method on P_n from
// the Chebyshev-like first guesses (Numerical Recipes' gauleg); to the last bit for n = 20.
template <int N>
struct GaussLegendre {
    std::array<double, N> x{}, w{};
    GaussLegendre()
    {
        for (int i = 0; i < (N + 1) / 2; ++i) {
            double z = std::cos(std::numbers::pi * (i + 0.75) / (N + 0.5)), dp = 0;
            for (int it = 0; it < 100; ++it) {
                double p1 = 1, p2 = 0;
                for (int j = 1; j <= N; ++j) {
                    const double p3 = p2;
                    p2 = p1;
                    p1 = ((2.0 * j - 1) * z * p2 - (j - 1.0) * p3) / j;
                }
                dp = N * (z * p1 - p2) / (z * z - 1);
                const double z1 = z;
                z = z1 - p1 / dp;
                if (std::fabs(z - z1) < 1e-16)
                    break;
            }
            x[i] = -z;
            x[N - 1 - i] = z;
            w[i] = w[N - 1 - i] = 2 / ((1 - z * z) * dp * dp);
        }
    }
};

// ∫ f(z) dz over [−9, q + 9] for the Studentized range: composite 20-point Gauss–Legendre on
// panels of width 1/2. Outside that range both integrands are below φ(9) ≈ 1e-18 times k.
template <class F>
double integrateRange(double q, F f)
{
    static const GaussLegendre<20> gl;
    constexpr double lo = -9, width = 0.5;
    const int panels = int(std::ceil((q + 18) / width));
    double total = 0;
    for (int p = 0; p < panels; ++p) {
        const double centre = lo + (p + 0.5) * width, half = width / 2;
        double s = 0;
        for (int i = 0; i < 20; ++i)
            s += gl.w[i] * f(centre + half * gl.x[i]);
        total += half * s;
    }
    return total;
}

// Φ(z) − Φ(z − q) for q > 0, formed from the tail that keeps its digits.
double normalMass(double z, double q)
{
    return z - q >= 0 ? phiUpper(z - q) - phiUpper(z) : phiLower(z) - phiLower(z - q);
}

double normalDensity(double z)
{
    return std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
}

// Bisection for the x in [0, ∞) at which the decreasing function tail(x) falls to target
// (tail(0) ≥ target assumed): to 1e-14 relative.
template <class F>
double bisectDecreasing(F tail, double target)
{
    double lo = 0, hi = 1;
    while (tail(hi) > target && hi < 1e6)
        hi *= 2;
    for (int i = 0; i < 2000 && hi - lo > 1e-14 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        (tail(mid) > target ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

} // namespace

double Distributions::incompleteBeta(double a, double b, double x)
{
    return incompleteBetaXY(a, b, x, 1 - x);
}

double Distributions::normalCdf(double z)
{
    return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

double Distributions::normalTwoSided(double z)
{
    return std::erfc(std::fabs(z) / std::sqrt(2.0));
}

double Distributions::studentTTwoSided(double t, double df)
{
    if (std::isnan(t) || !(df > 0))
        return kNaN;
    if (std::isinf(t))
        return 0;
    const double t2 = t * t;
    // P(|T| ≥ |t|) = I_{ν/(ν+t²)}(ν/2, 1/2).
    return incompleteBetaXY(df / 2, 0.5, df / (df + t2), t2 / (df + t2));
}

double Distributions::studentTCdf(double t, double df)
{
    if (std::isnan(t) || !(df > 0))
        return kNaN;
    const double tail = 0.5 * studentTTwoSided(t, df); // P(T ≥ |t|)
    return t > 0 ? 1 - tail : tail;
}

double Distributions::studentTQuantile(double p, double df)
{
    if (std::isnan(p) || !(df > 0) || p < 0 || p > 1)
        return kNaN;
    if (p == 0)
        return -std::numeric_limits<double>::infinity();
    if (p == 1)
        return std::numeric_limits<double>::infinity();
    if (p == 0.5)
        return 0;
    // Solve P(T ≥ t) = q for t > 0 on the upper tail (no cancellation for p near 1).
    const double q = p > 0.5 ? 1 - p : p;
    auto upperTail = [&](double t) { return 0.5 * studentTTwoSided(t, df); };
    double lo = 0, hi = 1;
    while (upperTail(hi) > q && hi < 1e300)
        hi *= 2;
    for (int i = 0; i < 2000 && hi - lo > 1e-14 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        (upperTail(mid) > q ? lo : hi) = mid;
    }
    const double t = 0.5 * (lo + hi);
    return p > 0.5 ? t : -t;
}

double Distributions::incompleteGammaP(double a, double x)
{
    return incompleteGamma(a, x, true);
}

double Distributions::incompleteGammaQ(double a, double x)
{
    return incompleteGamma(a, x, false);
}

double Distributions::chiSquareUpperTail(double x, double df)
{
    if (std::isnan(x) || !(df > 0) || std::isinf(df))
        return kNaN;
    if (x <= 0)
        return 1;
    return incompleteGamma(df / 2, x / 2, false);
}

double Distributions::fUpperTail(double f, double d1, double d2)
{
    if (std::isnan(f) || !(d1 > 0) || !(d2 > 0) || std::isinf(d1) || std::isinf(d2))
        return kNaN;
    if (f <= 0)
        return 1;
    if (std::isinf(f))
        return 0;
    const double denominator = d2 + d1 * f;
    return incompleteBetaXY(d2 / 2, d1 / 2, d2 / denominator, d1 * f / denominator);
}

double Distributions::studentizedRangeCdf(double q, int k)
{
    if (std::isnan(q) || k < 2)
        return kNaN;
    if (q <= 0)
        return 0;
    if (std::isinf(q))
        return 1;
    const int m = k - 1;
    const double cdf = integrateRange(q, [&](double z) {
        return k * normalDensity(z) * std::pow(normalMass(z, q), m);
    });
    if (cdf > 0.5)
        return 1 - studentizedRangeUpperTail(q, k); // the upper tail keeps the digits there
    return cdf;
}

double Distributions::studentizedRangeUpperTail(double q, int k)
{
    if (std::isnan(q) || k < 2)
        return kNaN;
    if (q <= 0)
        return 1;
    if (std::isinf(q))
        return 0;
    const int m = k - 1;
    // Φ(z)^m − (Φ(z) − Φ(z − q))^m = Φ(z)^m (1 − r^m), r = 1 − Φ(z − q)/Φ(z), with
    // 1 − r^m = −expm1(m log r) and log r from log1p while Φ(z − q) is the small one.
    const double tail = integrateRange(q, [&](double z) {
        const double a = phiLower(z), b = phiLower(z - q);
        if (a <= 0)
            return 0.0;
        const double ratio = b / a;
        const double logR = ratio < 0.5 ? std::log1p(-ratio) : std::log(normalMass(z, q) / a);
        return k * normalDensity(z) * std::pow(a, m) * -std::expm1(m * logR);
    });
    return std::min(1.0, std::max(0.0, tail));
}

double Distributions::studentizedRangeUpperQuantile(double alpha, int k)
{
    if (std::isnan(alpha) || k < 2 || alpha < 0 || alpha > 1)
        return kNaN;
    if (alpha == 0)
        return kInf;
    if (alpha == 1)
        return 0;
    return bisectDecreasing([&](double q) { return studentizedRangeUpperTail(q, k); }, alpha);
}

double Distributions::studentizedRangeQuantile(double p, int k)
{
    if (std::isnan(p) || k < 2 || p < 0 || p > 1)
        return kNaN;
    if (p == 0)
        return 0;
    if (p == 1)
        return kInf;
    if (p >= 0.5)
        return studentizedRangeUpperQuantile(1 - p, k);
    // The lower quantile: 1 − CDF is decreasing, and at the root CDF = p.
    return bisectDecreasing([&](double q) { return -studentizedRangeCdf(q, k); }, -p);
}

} // namespace tb::stats
