#pragma once
/// @file LaneExp.h
/// exp of num::Lanes with the bits of the process's scalar std::exp, eight at a time.

#include "Lanes.h"

#include <atomic>
#include <cmath>
#include <cstdint>

namespace tb::num {

/// e^x in every lane, each lane exactly std::exp(x[i]) of this process's libm.
///
/// glibc's exp (since 2.28; ARM's optimized-routines algorithm: a 128-entry table of 2^(k/128)
/// and a degree-5 polynomial, compiled with fused multiply-adds on x86-64 with FMA) is a fixed
/// sequence of correctly rounded operations on its main range 2^−54 ≤ |x| < 512; laneExp()
/// performs that sequence in AVX-512, or in two AVX2 registers (same constants, same table, an
/// fma exactly where glibc's __exp_fma has one) and hands every other lane (0, tiny, huge, ±inf,
/// NaN) to std::exp. Whether the vector form reproduces this process's std::exp is checked once,
/// on first use, on inputs that reach every table entry and both ends of the range;
/// if any differs (another libm, a build without AVX2 and FMA) every lane goes to std::exp.
/// tst_smallmlpkernel compares it with std::exp on millions of inputs. Thread-safe.
///
/// Inline, so that the kernel that calls it per element keeps its values in registers (called
/// out of line, every call passed and returned its 64 bytes through the stack: a third of the
/// toy nonlinear sweep's time on an AVX2 machine). Only intrinsics: no compiler may fuse its
/// operations into other ones, whatever -ffp-contract the including file has.
inline Lanes laneExp(Lanes x);

/// True when laneExp() takes the vector form (the check passed on this machine).
bool laneExpVectorised();

/// Which form laneExp() takes here: "avx512" or "avx2" (vectorised), "std::exp" (lane by lane) —
/// a noise sweep's stored fact "lock_step_exp".
const char* laneExpPath();

namespace detail {

// The constants and table of glibc's exp (sysdeps/ieee754/dbl-64/e_exp_data.c, from Arm's
// optimized-routines, MIT / Apache-2.0 with LLVM exception; the same in musl's exp_data.c):
// N = 128, tab[2k] the tail of 2^(k/N) and tab[2k+1] its bits minus k << 45.
inline constexpr double kInvLn2N = 0x1.71547652b82fep0 * 128;
inline constexpr double kShift = 0x1.8p52;
inline constexpr double kNegLn2HiN = -0x1.62e42fefa0000p-8;
inline constexpr double kNegLn2LoN = -0x1.cf79abc9e3b3ap-47;
inline constexpr double kC2 = 0x1.ffffffffffdbdp-2;
inline constexpr double kC3 = 0x1.555555555543cp-3;
inline constexpr double kC4 = 0x1.55555cf172b91p-5;
inline constexpr double kC5 = 0x1.1111167a4d017p-7;

extern const std::uint64_t kExpTable[256];

/// Whether the vector form passed its check here: 1 yes, −1 no, 0 not checked yet (the first
/// laneExp() checks, through laneExpFirst(); no process pays for the check that never uses it).
extern std::atomic<int> gLaneExpVector;

/// laneExp() before the check: runs it once (thread-safe), then computes @p x by its verdict.
Lanes laneExpFirst(Lanes x);

#if defined(__AVX512F__) && defined(__FMA__)
#define TB_LANE_EXP_VECTOR 1
// GCC 12's AVX-512 shift and gather intrinsics start from _mm512_undefined_*(), which its
// -Wuninitialized reports (GCC bug 105593, fixed in 13): not a use of an uninitialised value.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// One register (all eight lanes) of glibc's __exp_fma; bit i of *outside set where lane i lies
// outside the main range (std::exp's there).
inline __m512d vectorExpPart(__m512d x, unsigned* outside)
{
    const __m512i ix = _mm512_castpd_si512(x);
    // The main range: top12(|x|) − top12(2^−54) < top12(512) − top12(2^−54), unsigned.
    const __m512i abstop = _mm512_and_si512(_mm512_srli_epi64(ix, 52), _mm512_set1_epi64(0x7ff));
    const __mmask8 main = _mm512_cmplt_epu64_mask(_mm512_sub_epi64(abstop, _mm512_set1_epi64(0x3c9)),
                                                  _mm512_set1_epi64(0x3f));
    *outside = ~unsigned(main) & 0xffu;
    // kd = x·N/ln2 + shift (fused); ki its bits; r = x − kd·ln2/N in two fused steps.
    __m512d kd = _mm512_fmadd_pd(x, _mm512_set1_pd(kInvLn2N), _mm512_set1_pd(kShift));
    const __m512i ki = _mm512_castpd_si512(kd);
    kd = _mm512_sub_pd(kd, _mm512_set1_pd(kShift));
    __m512d r = _mm512_fmadd_pd(kd, _mm512_set1_pd(kNegLn2HiN), x);
    r = _mm512_fmadd_pd(kd, _mm512_set1_pd(kNegLn2LoN), r);
    const __m512i idx = _mm512_slli_epi64(_mm512_and_si512(ki, _mm512_set1_epi64(127)), 1);
    const __m512i top = _mm512_slli_epi64(ki, 45);
    const __m512d tail = _mm512_i64gather_pd(idx, reinterpret_cast<const double*>(kExpTable), 8);
    const __m512i sbits = _mm512_add_epi64(_mm512_i64gather_epi64(idx, reinterpret_cast<const long long*>(kExpTable + 1), 8), top);
    // tmp = tail + r + r²·(C2 + r·C3) + r⁴·(C4 + r·C5), as __exp_fma evaluates it.
    const __m512d r2 = _mm512_mul_pd(r, r);
    const __m512d p23 = _mm512_fmadd_pd(r, _mm512_set1_pd(kC3), _mm512_set1_pd(kC2));
    const __m512d t = _mm512_add_pd(r, tail);
    const __m512d p45 = _mm512_fmadd_pd(r, _mm512_set1_pd(kC5), _mm512_set1_pd(kC4));
    const __m512d a = _mm512_fmadd_pd(p23, r2, t);
    const __m512d tmp = _mm512_fmadd_pd(_mm512_mul_pd(r2, r2), p45, a);
    const __m512d scale = _mm512_castsi512_pd(sbits);
    return _mm512_fmadd_pd(scale, tmp, scale);
}
#pragma GCC diagnostic pop
#elif defined(__AVX2__) && defined(__FMA__)
#define TB_LANE_EXP_VECTOR 1
// One AVX register (four lanes) of glibc's __exp_fma: the AVX-512 form's operations, four wide.
// AVX2 has no unsigned 64-bit compare; the range test is the same as two signed ones.
inline __m256d vectorExpPart(__m256d x, unsigned* outside)
{
    const __m256i ix = _mm256_castpd_si256(x);
    // The main range: 0 ≤ top12(|x|) − top12(2^−54) < top12(512) − top12(2^−54).
    const __m256i d = _mm256_sub_epi64(_mm256_and_si256(_mm256_srli_epi64(ix, 52), _mm256_set1_epi64x(0x7ff)),
                                       _mm256_set1_epi64x(0x3c9));
    const __m256i main = _mm256_and_si256(_mm256_cmpgt_epi64(d, _mm256_set1_epi64x(-1)),
                                          _mm256_cmpgt_epi64(_mm256_set1_epi64x(0x3f), d));
    *outside = ~unsigned(_mm256_movemask_pd(_mm256_castsi256_pd(main))) & 0xfu;
    __m256d kd = _mm256_fmadd_pd(x, _mm256_set1_pd(kInvLn2N), _mm256_set1_pd(kShift));
    const __m256i ki = _mm256_castpd_si256(kd);
    kd = _mm256_sub_pd(kd, _mm256_set1_pd(kShift));
    __m256d r = _mm256_fmadd_pd(kd, _mm256_set1_pd(kNegLn2HiN), x);
    r = _mm256_fmadd_pd(kd, _mm256_set1_pd(kNegLn2LoN), r);
    const __m256i idx = _mm256_slli_epi64(_mm256_and_si256(ki, _mm256_set1_epi64x(127)), 1);
    const __m256i top = _mm256_slli_epi64(ki, 45);
    // The table's pairs by four 16-byte loads: AVX2's two gathers were slower on a Zen 4 (the toy
    // nonlinear sweep 6.35 s with them, 5.87 s without).
    alignas(32) long long at[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(at), idx);
    const double* table = reinterpret_cast<const double*>(kExpTable);
    const __m256d p01 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_load_pd(table + at[0])), _mm_load_pd(table + at[1]), 1);
    const __m256d p23 = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_load_pd(table + at[2])), _mm_load_pd(table + at[3]), 1);
    // p01 = (tail0, bits0, tail1, bits1), p23 likewise: tails and bits apart, in lane order.
    const __m256d tail = _mm256_permute4x64_pd(_mm256_unpacklo_pd(p01, p23), 0xd8);
    const __m256i sbits = _mm256_add_epi64(_mm256_castpd_si256(_mm256_permute4x64_pd(_mm256_unpackhi_pd(p01, p23), 0xd8)), top);
    const __m256d r2 = _mm256_mul_pd(r, r);
    const __m256d c23 = _mm256_fmadd_pd(r, _mm256_set1_pd(kC3), _mm256_set1_pd(kC2));
    const __m256d t = _mm256_add_pd(r, tail);
    const __m256d p45 = _mm256_fmadd_pd(r, _mm256_set1_pd(kC5), _mm256_set1_pd(kC4));
    const __m256d a = _mm256_fmadd_pd(c23, r2, t);
    const __m256d tmp = _mm256_fmadd_pd(_mm256_mul_pd(r2, r2), p45, a);
    const __m256d scale = _mm256_castsi256_pd(sbits);
    return _mm256_fmadd_pd(scale, tmp, scale);
}
#endif

#if defined(TB_LANE_EXP_VECTOR)
/// laneExp()'s vector form: every register through vectorExpPart(), std::exp in the lanes
/// outside the main range.
inline Lanes vectorExp(Lanes in)
{
    unsigned outside = 0;
    Lanes out = Lanes::eachPart([&](int k) {
        unsigned o = 0;
        const Lanes::Part e = vectorExpPart(in.p[k], &o);
        outside |= o << (k * kLaneWidth);
        return e;
    });
    if (outside != 0)
        for (int i = 0; i < kLanes; ++i)
            if (outside >> i & 1)
                out.set(i, std::exp(in[i]));
    return out;
}
#endif

} // namespace detail

inline Lanes laneExp(Lanes x)
{
    const int verdict = detail::gLaneExpVector.load(std::memory_order_relaxed);
#if defined(TB_LANE_EXP_VECTOR)
    if (verdict > 0)
        return detail::vectorExp(x);
#endif
    if (verdict == 0)
        return detail::laneExpFirst(x);
    return eachLane(x, [](double v) { return std::exp(v); });
}

} // namespace tb::num
