#pragma once
/// @file OneHot.h
/// One-hot target matrices for the classification tests.

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace tb::testsupport {

/// One row per label: 1 in column labels[i] (0 ≤ label < k), 0 elsewhere; k columns.
Eigen::MatrixXd oneHot(const std::vector<int>& labels, int k);

/// n rows of k columns, each with its 1 in column gen() % k of std::mt19937_64(seed), drawn row
/// by row.
Eigen::MatrixXd randomOneHot(Eigen::Index n, Eigen::Index k, std::uint64_t seed);

} // namespace tb::testsupport
