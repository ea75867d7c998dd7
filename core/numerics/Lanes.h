#pragma once
/// @file Lanes.h
/// kLanes doubles side by side — one value of kLanes independent replicas of a computation (the
/// Monte-Carlo cells of a noise sweep trained in lock step). Every operation acts lane by lane
/// with the rounding of the same scalar operation, so a computation written once for a scalar
/// type T gives, instantiated with T = Lanes, in each lane the very bits it gives with
/// T = double — provided every multiply-add is written as madd() in a file compiled with
/// -ffp-contract=off (so that no compiler, for no CPU, fuses a sum of the one type and not of the
/// other) and functions without a correctly rounded vector form (exp, tanh) are called per lane
/// from libm.
/// No Qt.

#include <cmath>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace tb::num {

/// Replicas one Lanes value holds: 8, one AVX-512 register of doubles (on narrower targets GCC
/// splits the vector; the results are the same).
inline constexpr int kLanes = 8;

/// What one Lanes operation compiles to in this build: "avx512" (one register) or "generic" (GCC
/// splits it into narrower vectors; the same results, more instructions). A noise sweep's stored
/// run names it beside its lock-step width, so a benchmark says which path it took.
inline constexpr const char* kLanesInstructionSet =
#if defined(__AVX512F__)
    "avx512";
#else
    "generic";
#endif

/// kLanes doubles with lane-wise arithmetic (GCC/Clang vector extensions). Implicitly made
/// from a double (every lane that value), so that scalar constants in shared code broadcast.
struct Lanes {
    using Vector = double __attribute__((vector_size(kLanes * sizeof(double))));
    Vector v;

    Lanes() = default;
    Lanes(double s) : v{s, s, s, s, s, s, s, s} {} // NOLINT: implicit on purpose (broadcast)
    explicit Lanes(Vector x) : v(x) {}

    double operator[](int i) const { return v[i]; }
    void set(int i, double x) { v[i] = x; }

    Lanes operator-() const { return Lanes(-v); }
    Lanes& operator+=(Lanes b) { v += b.v; return *this; }
    Lanes& operator-=(Lanes b) { v -= b.v; return *this; }
    Lanes& operator*=(Lanes b) { v *= b.v; return *this; }
    Lanes& operator/=(Lanes b) { v /= b.v; return *this; }
};
static_assert(sizeof(Lanes) == kLanes * sizeof(double));

inline Lanes operator+(Lanes a, Lanes b) { return Lanes(a.v + b.v); }
inline Lanes operator-(Lanes a, Lanes b) { return Lanes(a.v - b.v); }
inline Lanes operator*(Lanes a, Lanes b) { return Lanes(a.v * b.v); }
inline Lanes operator/(Lanes a, Lanes b) { return Lanes(a.v / b.v); }

/// a·b + c rounded once in every lane (std::fma lane by lane).
inline Lanes fma(Lanes a, Lanes b, Lanes c)
{
#if defined(__AVX512F__)
    return Lanes(Lanes::Vector(_mm512_fmadd_pd(a.v, b.v, c.v)));
#else
    Lanes r;
    for (int i = 0; i < kLanes; ++i)
        r.v[i] = std::fma(a.v[i], b.v[i], c.v[i]);
    return r;
#endif
}

/// The house's multiply-add, a·b + c, for double, float and Lanes alike: one rounding (a fused
/// multiply-add) when the build targets FMA, two (the product, then the sum) otherwise — never
/// left to the compiler. Code whose results two paths must share to the bit (SmallMlpKernel and
/// its lanes, Optimizer and LaneOptimizer) is compiled with -ffp-contract=off and writes every
/// multiply-add as madd(), so its order of roundings is fixed in the source, the same on every
/// CPU a build runs on and under every -mtune, instead of being chosen by the vectoriser
/// (issue 43: GCC's -march=native on an AMD EPYC contracted other sums than on an Intel Xeon).
inline double madd(double a, double b, double c)
{
#if defined(__FMA__)
    return std::fma(a, b, c);
#else
    return a * b + c;
#endif
}

inline float madd(float a, float b, float c)
{
#if defined(__FMA__)
    return std::fma(a, b, c);
#else
    return a * b + c;
#endif
}

/// √a in every lane (correctly rounded, as std::sqrt).
inline Lanes sqrt(Lanes a)
{
#if defined(__AVX512F__)
    return Lanes(Lanes::Vector(_mm512_sqrt_pd(a.v)));
#else
    Lanes r;
    for (int i = 0; i < kLanes; ++i)
        r.v[i] = std::sqrt(a.v[i]);
    return r;
#endif
}

/// f(a) lane by lane with the scalar function @p f (libm's exp, tanh …: the scalar bits).
template <class F>
inline Lanes eachLane(Lanes a, F f)
{
    Lanes r;
    for (int i = 0; i < kLanes; ++i)
        r.v[i] = f(a.v[i]);
    return r;
}

/// madd() in every lane: fma() when the build targets FMA, a·b + c rounded twice otherwise.
inline Lanes madd(Lanes a, Lanes b, Lanes c)
{
#if defined(__FMA__)
    return fma(a, b, c);
#else
    return a * b + c;
#endif
}

/// libm's exp in every lane (glibc's scalar exp: the bits of std::exp).
inline Lanes exp(Lanes a)
{
    return eachLane(a, [](double x) { return std::exp(x); });
}

} // namespace tb::num
