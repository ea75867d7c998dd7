#include "Sampling.h"

#include <tbb/blocked_range2d.h>
#include <tbb/parallel_for.h>

namespace tb::train {
template <class Scalar>
Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> transposedCopy(const Eigen::Ref<const Eigen::MatrixXd>& x)
{
    Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic> xt(x.cols(), x.rows());
    constexpr Eigen::Index kTile = 64;  // 64×64 doubles = 32 KiB: a source and a target tile fit L1/L2
    if (x.size() < 1 << 16) {
        xt = x.transpose().template cast<Scalar>();
        return xt;
    }
    tbb::parallel_for(tbb::blocked_range2d<Eigen::Index>(0, x.rows(), kTile, 0, x.cols(), kTile),
                      [&](const tbb::blocked_range2d<Eigen::Index>& r) {
                          const Eigen::Index i0 = r.rows().begin(), j0 = r.cols().begin();
                          const Eigen::Index ni = r.rows().size(), nj = r.cols().size();
                          xt.block(j0, i0, nj, ni) = x.block(i0, j0, ni, nj).transpose().template cast<Scalar>();
                      });
    return xt;
}

template Eigen::MatrixXd transposedCopy<double>(const Eigen::Ref<const Eigen::MatrixXd>& x);
template Eigen::MatrixXf transposedCopy<float>(const Eigen::Ref<const Eigen::MatrixXd>& x);

} // namespace tb::train
