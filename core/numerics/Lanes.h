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

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace tb::num {

/// Replicas one Lanes value holds: 8, one AVX-512 register of doubles.
inline constexpr int kLanes = 8;

/// Doubles per register of the build's widest vector unit: 8 (AVX-512), 4 (AVX) or 2 (SSE2).
/// A Lanes value is kLanes / kLaneWidth such registers. (Declared as one 64-byte GCC vector, a
/// value was copied through the stack in 16-byte pieces around every operation on an AVX2
/// machine, and sqrt went lane by lane; vectors of the machine's own width stay in registers.)
inline constexpr int kLaneWidth =
#if defined(__AVX512F__)
    8;
#elif defined(__AVX__)
    4;
#else
    2;
#endif
inline constexpr int kLaneParts = kLanes / kLaneWidth;

/// What one Lanes operation compiles to in this build: "avx512" (one register), "avx2" (two AVX
/// registers, with AVX2 and FMA), "avx" or "generic" (four SSE2 registers; fma lane by lane). The
/// results are the same on every path. A noise sweep's stored run names it beside its lock-step
/// width, so a benchmark says which path it took.
inline constexpr const char* kLanesInstructionSet =
#if defined(__AVX512F__)
    "avx512";
#elif defined(__AVX2__) && defined(__FMA__)
    "avx2";
#elif defined(__AVX__)
    "avx";
#else
    "generic";
#endif

/// kLanes doubles with lane-wise arithmetic (GCC/Clang vector extensions, kLaneParts registers of
/// kLaneWidth doubles). Implicitly made from a double (every lane that value), so that scalar
/// constants in shared code broadcast.
struct Lanes {
    using Part = double __attribute__((vector_size(kLaneWidth * sizeof(double))));
    Part p[kLaneParts];

    Lanes() = default;
    Lanes(double s) // NOLINT: implicit on purpose (broadcast)
    {
        Part b;
        for (int i = 0; i < kLaneWidth; ++i)
            b[i] = s;
        for (Part& x : p)
            x = b;
    }

    double operator[](int i) const { return p[i / kLaneWidth][i % kLaneWidth]; }
    void set(int i, double x) { p[i / kLaneWidth][i % kLaneWidth] = x; }

    /// f(part) for every register: the one loop every operation below is written with.
    template <class F>
    static Lanes eachPart(F f)
    {
        Lanes r;
        for (int k = 0; k < kLaneParts; ++k)
            r.p[k] = f(k);
        return r;
    }

    Lanes operator-() const { return eachPart([&](int k) { return -p[k]; }); }
    Lanes& operator+=(Lanes b) { for (int k = 0; k < kLaneParts; ++k) p[k] += b.p[k]; return *this; }
    Lanes& operator-=(Lanes b) { for (int k = 0; k < kLaneParts; ++k) p[k] -= b.p[k]; return *this; }
    Lanes& operator*=(Lanes b) { for (int k = 0; k < kLaneParts; ++k) p[k] *= b.p[k]; return *this; }
    Lanes& operator/=(Lanes b) { for (int k = 0; k < kLaneParts; ++k) p[k] /= b.p[k]; return *this; }
};
static_assert(sizeof(Lanes) == kLanes * sizeof(double));

inline Lanes operator+(Lanes a, Lanes b) { return a += b; }
inline Lanes operator-(Lanes a, Lanes b) { return a -= b; }
inline Lanes operator*(Lanes a, Lanes b) { return a *= b; }
inline Lanes operator/(Lanes a, Lanes b) { return a /= b; }

/// a·b + c rounded once in every lane (std::fma lane by lane).
inline Lanes fma(Lanes a, Lanes b, Lanes c)
{
#if defined(__AVX512F__)
    return Lanes::eachPart([&](int k) { return Lanes::Part(_mm512_fmadd_pd(a.p[k], b.p[k], c.p[k])); });
#elif defined(__AVX__) && defined(__FMA__)
    return Lanes::eachPart([&](int k) { return Lanes::Part(_mm256_fmadd_pd(a.p[k], b.p[k], c.p[k])); });
#else
    Lanes r;
    for (int i = 0; i < kLanes; ++i)
        r.set(i, std::fma(a[i], b[i], c[i]));
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

/// √a in every lane (correctly rounded, as std::sqrt: IEEE's square root in every instruction set).
inline Lanes sqrt(Lanes a)
{
#if defined(__AVX512F__)
    return Lanes::eachPart([&](int k) { return Lanes::Part(_mm512_sqrt_pd(a.p[k])); });
#elif defined(__AVX__)
    return Lanes::eachPart([&](int k) { return Lanes::Part(_mm256_sqrt_pd(a.p[k])); });
#elif defined(__SSE2__)
    return Lanes::eachPart([&](int k) { return Lanes::Part(_mm_sqrt_pd(a.p[k])); });
#else
    Lanes r;
    for (int i = 0; i < kLanes; ++i)
        r.set(i, std::sqrt(a[i]));
    return r;
#endif
}

/// f(a) lane by lane with the scalar function @p f (libm's exp, tanh …: the scalar bits).
template <class F>
inline Lanes eachLane(Lanes a, F f)
{
    Lanes r;
    for (int i = 0; i < kLanes; ++i)
        r.set(i, f(a[i]));
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
