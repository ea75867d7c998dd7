#include "SparseCgLeastSquares.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace tb::linear {
namespace {

// Multiply-adds per product block (a row's bookkeeping counted as one more): a few milliseconds
// on one core, so Stop is polled often.
constexpr double kBlockWork = 4e6;

// Rows per block of a product with @p m (its rows × k): a function of the shape only.
Eigen::Index rowsPerBlock(const SparseMatrix& m, Eigen::Index k)
{
    const double perRow = (double(m.nonZeros()) / double(std::max<Eigen::Index>(m.rows(), 1)) + 1.0) *
                          double(std::max<Eigen::Index>(k, 1));
    return std::max<Eigen::Index>(64, Eigen::Index(kBlockWork / perRow));
}

// out.middleRows = m.middleRows · p, in parallel over fixed row blocks (disjoint rows: the same
// bits for any thread count). Returns false when @p stop fired.
bool blockedProduct(const SparseMatrix& m, const Eigen::Ref<const Eigen::MatrixXd>& p, Eigen::Index blockRows,
                    Eigen::MatrixXd& out, const StopToken& stop)
{
    const Eigen::Index rows = m.rows(), blocks = (rows + blockRows - 1) / blockRows;
    out.resize(rows, p.cols());
    std::atomic<bool> stopped{false};
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, blocks, 1),
                      [&](const tbb::blocked_range<Eigen::Index>& r) {
                          for (Eigen::Index blk = r.begin(); blk < r.end(); ++blk) {
                              if (stop.stopRequested()) {
                                  stopped = true;
                                  return;
                              }
                              const Eigen::Index r0 = blk * blockRows, n = std::min(blockRows, rows - r0);
                              out.middleRows(r0, n).noalias() = m.middleRows(r0, n) * p;
                          }
                      });
    return !stopped;
}

} // namespace

SparseCgLeastSquares::SparseCgLeastSquares(const SparseMatrix& x, const Eigen::Ref<const Eigen::MatrixXd>& b,
                                           bool bias, double ridge, StopToken stop)
    : m_a(x), m_bias(bias), m_ridge(ridge), m_stop(std::move(stop))
{
    if (x.rows() != b.rows())
        throw std::invalid_argument("sparse cg least squares: X has " + std::to_string(x.rows()) +
                                    " rows, B has " + std::to_string(b.rows()));
    if (!(ridge >= 0) || !std::isfinite(ridge))
        throw std::invalid_argument("sparse cg least squares: the ridge must be finite and >= 0, got " +
                                    std::to_string(ridge));
    if (!Eigen::Map<const Eigen::VectorXd>(x.valuePtr(), x.nonZeros()).allFinite() || !b.allFinite())
        throw std::invalid_argument("sparse cg least squares: the data contain NaN or Inf");
    m_at = x.transpose();
    m_at.makeCompressed();
    m_rowsPerBlock = rowsPerBlock(x, b.cols());
    m_colsPerBlock = rowsPerBlock(m_at, b.cols());
    m_x = Eigen::MatrixXd::Zero(x.cols() + (bias ? 1 : 0), b.cols());
    m_r = b;
    m_s = transposeTimes(m_r);
    if (m_stopped)
        return;
    m_p = m_s;
    m_gamma = m_s.colwise().squaredNorm().transpose();
    m_gamma0 = m_gamma;
}

Eigen::MatrixXd SparseCgLeastSquares::times(const Eigen::MatrixXd& p)
{
    const Eigen::Index d = m_a.cols();
    Eigen::MatrixXd q;
    if (!blockedProduct(m_a, p.topRows(d), m_rowsPerBlock, q, m_stop))
        m_stopped = true;
    else if (m_bias)
        q.rowwise() += p.row(d);
    return q;
}

Eigen::MatrixXd SparseCgLeastSquares::transposeTimes(const Eigen::MatrixXd& r)
{
    const Eigen::Index d = m_a.cols();
    Eigen::MatrixXd s(d + (m_bias ? 1 : 0), r.cols()), top;
    if (!blockedProduct(m_at, r, m_colsPerBlock, top, m_stop)) {
        m_stopped = true;
        return s;
    }
    s.topRows(d) = top;
    if (m_bias)
        s.row(d) = r.colwise().sum();
    return s;
}

bool SparseCgLeastSquares::iterateTo(int target)
{
    if (target < 0)
        throw std::invalid_argument("sparse cg least squares: " + std::to_string(target) + " iterations");
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

double SparseCgLeastSquares::objective() const
{
    return m_r.squaredNorm() + m_ridge * m_x.squaredNorm();
}

double SparseCgLeastSquares::relativeNormalResidual() const
{
    double worst = 0;
    for (Eigen::Index j = 0; j < m_gamma.size(); ++j)
        if (m_gamma0(j) > 0)
            worst = std::max(worst, std::sqrt(m_gamma(j) / m_gamma0(j)));
    return worst;
}

double SparseCgLeastSquares::bytes() const
{
    return double(sparseBytes(std::uint64_t(m_at.rows()), std::uint64_t(m_at.nonZeros()))) +
           8.0 * double(4 * m_x.size() + 3 * m_r.size());
}

} // namespace tb::linear
