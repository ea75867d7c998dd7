#include "RandomMatrix.h"

#include <random>

namespace tb::testsupport {

Eigen::MatrixXd randomMatrix(Eigen::Index r, Eigen::Index c, std::uint64_t seed, double scale)
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
