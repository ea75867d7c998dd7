#pragma once
/// @file RandomMatrix.h
/// Test data shared by the unit tests: seeded Gaussian matrices, dense and sparse. (std::normal_distribution is
/// implementation-defined: the values are the same for a seed on this toolchain, which is all a
/// test that computes its own reference needs; nothing here is a stored expectation.)

#include <trainbench/SparseMatrix.h>

#include <Eigen/Core>
#include <cstdint>

namespace tb::testsupport {

/// r × c entries drawn i.i.d. from N(0, scale²) with std::mt19937_64(seed), column by column.
Eigen::MatrixXd randomMatrix(Eigen::Index r, Eigen::Index c, std::uint64_t seed, double scale = 1.0);

/// @p n × @p d sparse inputs (compressed), @p perRow ≤ d distinct columns a row, N(0, 1) values,
/// drawn with std::mt19937_64(seed) row by row: the columns first, a repeat drawn again — with
/// @p informative > 0 the first @p informativePerRow of them from [0, informative), a "word" that
/// carries planted weights, the rest from [0, d) — then the values in increasing column order.
SparseMatrix randomSparse(Eigen::Index n, Eigen::Index d, int perRow, std::uint64_t seed,
                          Eigen::Index informative = 0, int informativePerRow = 0);

} // namespace tb::testsupport
