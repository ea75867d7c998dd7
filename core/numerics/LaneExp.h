#pragma once
/// @file LaneExp.h
/// exp of num::Lanes with the bits of the process's scalar std::exp, eight at a time.

#include "Lanes.h"

namespace tb::num {

/// e^x in every lane, each lane exactly std::exp(x[i]) of this process's libm.
///
/// glibc's exp (since 2.28; ARM's optimized-routines algorithm: a 128-entry table of 2^(k/128)
/// and a degree-5 polynomial, compiled with fused multiply-adds on x86-64 with FMA) is a fixed
/// sequence of correctly rounded operations on its main range 2^−54 ≤ |x| < 512; laneExp()
/// performs that sequence in AVX-512 (same constants, same table, an fma exactly where
/// glibc's __exp_fma has one) and hands every other lane (0, tiny, huge, ±inf, NaN) to
/// std::exp. Whether the vector form reproduces this process's std::exp is checked once, on
/// first use, on inputs that reach every table entry and both ends of the range; if any differs
/// (another libm, a build without AVX-512) every lane goes to std::exp. tst_smallmlpkernel
/// compares it with std::exp on millions of inputs. Thread-safe.
Lanes laneExp(Lanes x);

/// True when laneExp() takes the vector form (the check passed on this machine).
bool laneExpVectorised();

} // namespace tb::num
