#include "RandomMatrix.h"

#include <random>
#include <set>
#include <vector>

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

SparseMatrix randomSparse(Eigen::Index n, Eigen::Index d, int perRow, std::uint64_t seed, Eigen::Index informative,
                          int informativePerRow)
{
    std::mt19937_64 g(seed);
    std::normal_distribution<double> normal;
    std::vector<Eigen::Triplet<double, int>> t;
    t.reserve(std::size_t(n) * std::size_t(perRow));
    for (Eigen::Index i = 0; i < n; ++i) {
        std::set<Eigen::Index> cols;
        while (int(cols.size()) < perRow) {
            const bool inf = informative > 0 && int(cols.size()) < informativePerRow;
            cols.insert(Eigen::Index(g() % std::uint64_t(inf ? informative : d)));
        }
        for (const Eigen::Index c : cols)
            t.emplace_back(int(i), int(c), normal(g));
    }
    SparseMatrix x(n, d);
    x.setFromTriplets(t.begin(), t.end());
    x.makeCompressed();
    return x;
}

} // namespace tb::testsupport
