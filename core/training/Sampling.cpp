#include "Sampling.h"

#include <tbb/blocked_range2d.h>
#include <tbb/parallel_for.h>

#include <utility>

namespace tb::train {
namespace {
__extension__ typedef unsigned __int128 U128;  // GCC/Clang; __extension__ keeps -Wpedantic quiet
} // namespace

std::uint64_t boundedDraw(std::mt19937_64& gen, std::uint64_t n)
{
    // Lemire (2019): the high word of x·n is uniform once the low word's biased zone is rejected.
    U128 p = static_cast<U128>(gen()) * n;
    auto low = static_cast<std::uint64_t>(p);
    if (low < n) {
        const std::uint64_t threshold = (0 - n) % n;
        while (low < threshold) {
            p = static_cast<U128>(gen()) * n;
            low = static_cast<std::uint64_t>(p);
        }
    }
    return static_cast<std::uint64_t>(p >> 64);
}

void shuffle(std::vector<Eigen::Index>& v, std::mt19937_64& gen)
{
    for (std::size_t i = v.size(); i > 1; --i) {
        const std::size_t j = std::size_t(boundedDraw(gen, i));
        std::swap(v[i - 1], v[j]);
    }
}

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
