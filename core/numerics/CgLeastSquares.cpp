#include "CgLeastSquares.h"

#include <algorithm>
#include <atomic>
#include <utility>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

namespace tb::num {
namespace {

// Multiply-adds per product block: a few milliseconds on one core, so Stop is polled often.
constexpr double kBlockWork = 4e6;
// Fewest rows per block: below it a block's partial of Aᵀ·R (d×k) costs as much as its product.
constexpr Eigen::Index kMinBlockRows = 64;

// Throws for a bad problem before the products are set up; returns @p a.
const Eigen::MatrixXd& checked(const Eigen::MatrixXd& a, const Eigen::Ref<const Eigen::MatrixXd>& b, double ridge)
{
    CglsRecurrence::checkProblem("cg least squares", "A", a.rows(), b, ridge, a.allFinite());
    return a;
}

} // namespace

CgLeastSquares::CgLeastSquares(const Eigen::MatrixXd& a, const Eigen::Ref<const Eigen::MatrixXd>& b, double ridge,
                               StopToken stop)
    : m_products(checked(a, b, ridge), b.cols(), std::move(stop)),
      m_cg(m_products, b, a.cols(), ridge, "cg least squares")
{
}

CgLeastSquares::Products::Products(const Eigen::MatrixXd& a, Eigen::Index k, StopToken stop)
    : m_a(a), m_stop(std::move(stop))
{
    const double width = double(std::max<Eigen::Index>(a.cols(), 1)) * double(std::max<Eigen::Index>(k, 1));
    m_blockRows = std::max<Eigen::Index>(kMinBlockRows, Eigen::Index(kBlockWork / width));
}

bool CgLeastSquares::Products::times(const Eigen::MatrixXd& p, Eigen::MatrixXd& out)
{
    const Eigen::Index n = m_a.rows(), blocks = (n + m_blockRows - 1) / m_blockRows;
    Eigen::MatrixXd q(n, p.cols());
    std::atomic<bool> stopped{false};
    // Every block writes rows of its own: the result does not depend on the scheduling.
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, blocks, 1), [&](const tbb::blocked_range<Eigen::Index>& r) {
        for (Eigen::Index blk = r.begin(); blk < r.end(); ++blk) {
            if (m_stop.stopRequested()) {
                stopped = true;
                return;
            }
            const Eigen::Index r0 = blk * m_blockRows, rows = std::min(m_blockRows, n - r0);
            q.middleRows(r0, rows).noalias() = m_a.middleRows(r0, rows) * p;
        }
    });
    out = std::move(q);
    return !stopped;
}

bool CgLeastSquares::Products::transposeTimes(const Eigen::MatrixXd& r, Eigen::MatrixXd& out)
{
    const Eigen::Index n = m_a.rows(), d = m_a.cols(), k = r.cols();
    const Eigen::Index blocks = (n + m_blockRows - 1) / m_blockRows;
    std::atomic<bool> stopped{false};
    // One partial per block, joined in a tree fixed by the block count alone: the same bits for
    // any number of threads.
    Eigen::MatrixXd s = tbb::parallel_deterministic_reduce(
        tbb::blocked_range<Eigen::Index>(0, blocks, 1), Eigen::MatrixXd(),
        [&](const tbb::blocked_range<Eigen::Index>& range, Eigen::MatrixXd acc) {
            for (Eigen::Index blk = range.begin(); blk < range.end(); ++blk) {
                if (m_stop.stopRequested()) {
                    stopped = true;
                    break;
                }
                const Eigen::Index r0 = blk * m_blockRows, rows = std::min(m_blockRows, n - r0);
                if (acc.size() == 0)
                    acc.noalias() = m_a.middleRows(r0, rows).transpose() * r.middleRows(r0, rows);
                else
                    acc.noalias() += m_a.middleRows(r0, rows).transpose() * r.middleRows(r0, rows);
            }
            return acc;
        },
        [](Eigen::MatrixXd left, const Eigen::MatrixXd& right) {
            if (left.size() == 0)
                return right;
            if (right.size() > 0)
                left += right;
            return left;
        });
    if (s.size() == 0)
        s = Eigen::MatrixXd::Zero(d, k); // no rows
    out = std::move(s);
    return !stopped;
}

} // namespace tb::num
