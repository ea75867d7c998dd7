#include "Distributions.h"

#include <cmath>
#include <limits>

namespace tb::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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

} // namespace tb::stats
