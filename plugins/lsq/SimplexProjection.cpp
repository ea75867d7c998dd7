#include "SimplexProjection.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <functional>
#include <vector>

namespace tb::lsq {

void projectOntoSimplex(const Eigen::Ref<const Eigen::RowVectorXd, 0, Eigen::InnerStride<>>& v,
                        Eigen::Ref<Eigen::RowVectorXd, 0, Eigen::InnerStride<>> out)
{
    const Eigen::Index k = v.size();
    if (k == 0)
        return;
    // Duchi et al. Fig. 1: sort μ descending, ρ = max{j : μ_j − (Σ_{r≤j} μ_r − 1)/j > 0},
    // θ = (Σ_{r≤ρ} μ_r − 1)/ρ, p = max(v − θ, 0). The j = 1 term is always positive, so ρ ≥ 1.
    std::vector<double> mu(static_cast<std::size_t>(k));
    for (Eigen::Index i = 0; i < k; ++i)
        mu[std::size_t(i)] = v(i);
    std::sort(mu.begin(), mu.end(), std::greater<double>());
    double sum = 0.0, theta = mu[0] - 1.0;
    for (Eigen::Index j = 0; j < k; ++j) {
        sum += mu[std::size_t(j)];
        const double t = (sum - 1.0) / double(j + 1);
        if (mu[std::size_t(j)] - t > 0)
            theta = t;
        else
            break; // the condition holds for a prefix of the sorted entries only
    }
    for (Eigen::Index i = 0; i < k; ++i)
        out(i) = std::max(v(i) - theta, 0.0);
}

void projectRowsOntoSimplex(Eigen::Ref<Eigen::MatrixXd> m)
{
    constexpr Eigen::Index kBlock = 1024;
    const Eigen::Index rows = m.rows();
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, (rows + kBlock - 1) / kBlock, 1),
                      [&](const tbb::blocked_range<Eigen::Index>& r) {
                          for (Eigen::Index b = r.begin(); b < r.end(); ++b)
                              for (Eigen::Index i = b * kBlock; i < std::min(rows, (b + 1) * kBlock); ++i)
                                  projectOntoSimplex(m.row(i), m.row(i));
                      });
}

} // namespace tb::lsq
