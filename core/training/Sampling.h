#pragma once
/// @file Sampling.h
/// Portable shuffling, epoch orders of minibatches, and the transposed data layout the trainers
/// gather minibatches from. No Qt.

#include <Eigen/Core>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace tb::train {

/// Uniform integer in [0, @p n) from @p gen by Lemire's multiply-and-reject method: unbiased
/// and the same on every platform (std::uniform_int_distribution is implementation-defined).
/// @p n ≥ 1. Inline, with shuffle(): a lock-step toy sweep shuffles 5 rows of 66 million
/// replica-epochs a file, and the out-of-line call (a shared library's exported function is not
/// inlined even in its own file) was 8 % of it.
inline std::uint64_t boundedDraw(std::mt19937_64& gen, std::uint64_t n)
{
    __extension__ typedef unsigned __int128 U128;  // GCC/Clang; __extension__ keeps -Wpedantic quiet
    // Lemire (2019): the high word of x·n is uniform once the low word's biased zone is rejected.
    U128 p = static_cast<U128>(gen()) * n;
    auto low = static_cast<std::uint64_t>(p);
    if (low < n) {
        const std::uint64_t threshold = (0 - n) % n;
        while (low < threshold) {
            p = static_cast<U128>(gen()) * n;
            low = static_cast<std::uint64_t>(p);
        }
    }
    return static_cast<std::uint64_t>(p >> 64);
}

/// Fisher–Yates shuffle of @p v with boundedDraw(): same order for the same generator state on
/// every platform.
inline void shuffle(std::vector<Eigen::Index>& v, std::mt19937_64& gen)
{
    for (std::size_t i = v.size(); i > 1; --i) {
        const std::size_t j = std::size_t(boundedDraw(gen, i));
        std::swap(v[i - 1], v[j]);
    }
}

/// x transposed (d × n: one sample per contiguous column), copied in cache-sized tiles, in
/// parallel over tiles in the current TBB arena for large matrices. Shuffled minibatches are
/// then column copies instead of strided row gathers. @p Scalar float rounds each entry to
/// single precision (the inputs of float32 training); double copies exactly.
template <class Scalar = double>
Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> transposedCopy(const Eigen::Ref<const Eigen::MatrixXd>& x);

extern template Eigen::MatrixXd transposedCopy<double>(const Eigen::Ref<const Eigen::MatrixXd>& x);
extern template Eigen::MatrixXf transposedCopy<float>(const Eigen::Ref<const Eigen::MatrixXd>& x);

} // namespace tb::train
