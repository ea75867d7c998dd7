#include "CgLeastSquares.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

namespace tb::num {
namespace {

// Multiply-adds per product block: a few milliseconds on one core, so Stop is polled often.
constexpr double kBlockWork = 4e6;
// Fewest rows per block: below it a block's partial of Aᵀ·R (d×k) costs as much as its product.
constexpr Eigen::Index kMinBlockRows = 64;

} // namespace

CgLeastSquares::CgLeastSquares(const Eigen::MatrixXd& a, const Eigen::Ref<const Eigen::MatrixXd>& b, double ridge,
                               StopToken stop)
    : m_a(a), m_ridge(ridge), m_stop(std::move(stop))
{
    if (a.rows() != b.rows())
        throw std::invalid_argument("cg least squares: A has " + std::to_string(a.rows()) + " rows, B has " +
                                    std::to_string(b.rows()));
    if (!(ridge >= 0) || !std::isfinite(ridge))
        throw std::invalid_argument("cg least squares: the ridge must be finite and >= 0, got " +
                                    std::to_string(ridge));
    if (!a.allFinite() || !b.allFinite())
        throw std::invalid_argument("cg least squares: the data contain NaN or Inf");
    const double width = double(std::max<Eigen::Index>(a.cols(), 1)) * double(std::max<Eigen::Index>(b.cols(), 1));
    m_blockRows = std::max<Eigen::Index>(kMinBlockRows, Eigen::Index(kBlockWork / width));
    m_x = Eigen::MatrixXd::Zero(a.cols(), b.cols());
    m_r = b;
    m_s = transposeTimes(m_r); // Aᵀb − λ·0
    if (m_stopped)
        return;
    m_p = m_s;
    m_gamma = m_s.colwise().squaredNorm().transpose();
    m_gamma0 = m_gamma;
}

Eigen::MatrixXd CgLeastSquares::times(const Eigen::MatrixXd& p)
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
    m_stopped = m_stopped || stopped;
    return q;
}

Eigen::MatrixXd CgLeastSquares::transposeTimes(const Eigen::MatrixXd& r)
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
    m_stopped = m_stopped || stopped;
    if (s.size() == 0)
        s = Eigen::MatrixXd::Zero(d, k); // no rows
    return s;
}

bool CgLeastSquares::iterateTo(int target)
{
    if (target < 0)
        throw std::invalid_argument("cg least squares: " + std::to_string(target) + " iterations");
    if (m_stopped)
        return false;
    const Eigen::Index k = m_x.cols();
    while (m_iterations < target) {
        const Eigen::MatrixXd q = times(m_p);
        if (m_stopped)
            return false;
        for (Eigen::Index j = 0; j < k; ++j) {
            const double delta = q.col(j).squaredNorm() + m_ridge * m_p.col(j).squaredNorm();
            // A column already at its solution (γ = 0) takes no step instead of 0/0.
            const double alpha = m_gamma(j) > 0 && delta > 0 ? m_gamma(j) / delta : 0.0;
            m_x.col(j) += alpha * m_p.col(j);
            m_r.col(j) -= alpha * q.col(j);
        }
        Eigen::MatrixXd s = transposeTimes(m_r);
        if (m_stopped)
            return false;
        if (m_ridge > 0)
            s -= m_ridge * m_x;
        for (Eigen::Index j = 0; j < k; ++j) {
            const double gamma = s.col(j).squaredNorm();
            const double beta = m_gamma(j) > 0 ? gamma / m_gamma(j) : 0.0;
            m_p.col(j) = s.col(j) + beta * m_p.col(j);
            m_gamma(j) = gamma;
        }
        m_s = std::move(s);
        ++m_iterations;
    }
    return true;
}

double CgLeastSquares::objective() const
{
    return m_r.squaredNorm() + m_ridge * m_x.squaredNorm();
}

double CgLeastSquares::relativeNormalResidual() const
{
    double worst = 0;
    for (Eigen::Index j = 0; j < m_gamma.size(); ++j)
        if (m_gamma0(j) > 0)
            worst = std::max(worst, std::sqrt(m_gamma(j) / m_gamma0(j)));
    return worst;
}

} // namespace tb::num
