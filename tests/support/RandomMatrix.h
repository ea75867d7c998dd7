#pragma once
/// @file RandomMatrix.h
/// Test data shared by the unit tests: seeded Gaussian matrices. (std::normal_distribution is
/// implementation-defined: the values are the same for a seed on this toolchain, which is all a
/// test that computes its own reference needs; nothing here is a stored expectation.)

#include <Eigen/Core>
#include <cstdint>

namespace tb::testsupport {

/// r × c entries drawn i.i.d. from N(0, scale²) with std::mt19937_64(seed), column by column.
Eigen::MatrixXd randomMatrix(Eigen::Index r, Eigen::Index c, std::uint64_t seed, double scale = 1.0);

} // namespace tb::testsupport
