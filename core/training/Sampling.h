#pragma once
/// @file Sampling.h
/// Portable shuffling, epoch orders of minibatches, and the transposed data layout the trainers
/// gather minibatches from. No Qt.

#include <Eigen/Core>
#include <cstdint>
#include <random>
#include <vector>

namespace tb::train {

/// Uniform integer in [0, @p n) from @p gen by Lemire's multiply-and-reject method: unbiased
/// and the same on every platform (std::uniform_int_distribution is implementation-defined).
/// @p n ≥ 1.
std::uint64_t boundedDraw(std::mt19937_64& gen, std::uint64_t n);

/// Fisher–Yates shuffle of @p v with boundedDraw(): same order for the same generator state on
/// every platform.
void shuffle(std::vector<Eigen::Index>& v, std::mt19937_64& gen);

/// x transposed (d × n: one sample per contiguous column), copied in cache-sized tiles, in
/// parallel over tiles in the current TBB arena for large matrices. Shuffled minibatches are
/// then column copies instead of strided row gathers. @p Scalar float rounds each entry to
/// single precision (the inputs of float32 training); double copies exactly.
template <class Scalar = double>
Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> transposedCopy(const Eigen::Ref<const Eigen::MatrixXd>& x);

extern template Eigen::MatrixXd transposedCopy<double>(const Eigen::Ref<const Eigen::MatrixXd>& x);
extern template Eigen::MatrixXf transposedCopy<float>(const Eigen::Ref<const Eigen::MatrixXd>& x);

} // namespace tb::train
