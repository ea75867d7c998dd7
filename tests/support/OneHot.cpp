#include "OneHot.h"

#include <random>

namespace tb::testsupport {

Eigen::MatrixXd oneHot(const std::vector<int>& labels, int k)
{
    Eigen::MatrixXd y = Eigen::MatrixXd::Zero(Eigen::Index(labels.size()), k);
    for (std::size_t i = 0; i < labels.size(); ++i)
        y(Eigen::Index(i), labels[i]) = 1.0;
    return y;
}

Eigen::MatrixXd randomOneHot(Eigen::Index n, Eigen::Index k, std::uint64_t seed)
{
    std::mt19937_64 gen(seed);
    Eigen::MatrixXd y = Eigen::MatrixXd::Zero(n, k);
    for (Eigen::Index i = 0; i < n; ++i)
        y(i, Eigen::Index(gen() % std::uint64_t(k))) = 1.0;
    return y;
}

} // namespace tb::testsupport
