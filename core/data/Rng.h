#pragma once
/// @file Rng.h
/// Portable random numbers for data generation: identical on every platform and compiler.

#include <Eigen/Core>
#include <cstdint>
#include <random>
#include <vector>

namespace tb::data {

/// A std::mt19937_64 seeded with tb::deriveSeed(seed, stream), with uniform and normal draws
/// computed here from raw 64-bit outputs. std::uniform_real_distribution and
/// std::normal_distribution are implementation-defined, so they would give different data on
/// different standard libraries; this class does not use them.
/// Not thread-safe: one instance per thread or stream.
class Rng {
public:
    /// Stream numbers used inside tb::data, so that generation, splitting and subsetting draw
    /// independent sequences from one user seed.
    enum Stream : std::uint64_t { Generate = 0, Split = 1, TrainSubset = 2, TestSubset = 3, Noise = 4, Validation = 5 };

    Rng(std::uint64_t seed, std::uint64_t stream);

    /// Raw 64-bit output of the engine.
    std::uint64_t next() { return m_engine(); }
    /// Uniform in [0, 1) with 53 random bits.
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }
    /// Uniform in [a, b).
    double uniform(double a, double b) { return a + (b - a) * uniform(); }
    /// Standard normal N(0, 1) by the Box–Muller transform (pairs; the second value is cached).
    double normal();
    /// Uniform integer in [0, n) without modulo bias; n must be > 0.
    std::uint64_t below(std::uint64_t n);
    /// Fisher–Yates shuffle driven by below().
    void shuffle(std::vector<Eigen::Index>& v);
    /// @p m distinct indices drawn uniformly from [0, n), returned in increasing order
    /// (so a subset keeps the source's row order). Requires 0 <= m <= n.
    std::vector<Eigen::Index> sampleIndices(Eigen::Index n, Eigen::Index m);

private:
    std::mt19937_64 m_engine;
    double m_cached = 0;
    bool m_hasCached = false;
};

} // namespace tb::data
