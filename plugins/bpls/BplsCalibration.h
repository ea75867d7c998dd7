#pragma once
/// @file BplsCalibration.h
/// The machine's sustained matrix-product rate, to turn BPLS's deterministic flop counts into
/// a predicted time before a run.

namespace tb::bpls {

/// Measures a GEMM rate once per process, precision and arena size.
class BplsCalibration {
public:
    /// Flop/s of C = AᵀA products (A 1024×256, one per worker) run in parallel in the CURRENT
    /// TBB arena, in float (@p floatPrecision) or double. The first call for a given
    /// precision and arena concurrency costs about 5–10 ms; later calls return the cached
    /// value. Thread-safe.
    static double rate(bool floatPrecision);
};

} // namespace tb::bpls
