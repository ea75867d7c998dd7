#pragma once
/// @file RandomMatrix.h
/// Test data shared by the unit tests: seeded Gaussian matrices. (std::normal_distribution is
/// implementation-defined: the values are the same for a seed on this toolchain, which is all a
/// test that computes its own reference needs; nothing here is a stored expectation.)

#include <Eigen/Core>
#include <cstdint>
#include <random>

namespace tb::testsupport {

/// r × c entries drawn i.i.d. from N(0, scale²) with std::mt19937_64(seed), column by column.
inline Eigen::MatrixXd randomMatrix(Eigen::Index r, Eigen::Index c, std::uint64_t seed, double scale = 1.0)
{
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> nd(0.0, scale);
    Eigen::MatrixXd m(r, c);
    for (Eigen::Index j = 0; j < c; ++j)
        for (Eigen::Index i = 0; i < r; ++i)
            m(i, j) = nd(gen);
    return m;
}

} // namespace tb::testsupport
