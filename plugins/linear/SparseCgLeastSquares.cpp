#include "SparseCgLeastSquares.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <utility>
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

// out = m · p (@p out already m.rows() × p.cols(), written in place: on a wide problem a d×k
// temporary would be one more vector of the width), in parallel over fixed row blocks (disjoint
// rows: the same bits for any thread count). Returns false when @p stop fired.
bool blockedProduct(const SparseMatrix& m, const Eigen::Ref<const Eigen::MatrixXd>& p, Eigen::Index blockRows,
                    Eigen::Ref<Eigen::MatrixXd> out, const StopToken& stop)
{
    const Eigen::Index rows = m.rows(), blocks = (rows + blockRows - 1) / blockRows;
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

// Throws for a bad problem before the transposed copy is made; returns @p x.
const SparseMatrix& checked(const SparseMatrix& x, const Eigen::Ref<const Eigen::MatrixXd>& b, double ridge)
{
    num::CglsRecurrence::checkProblem("sparse cg least squares", "X", x.rows(), b, ridge,
                                      Eigen::Map<const Eigen::VectorXd>(x.valuePtr(), x.nonZeros()).allFinite());
    return x;
}

} // namespace

SparseCgLeastSquares::SparseCgLeastSquares(const SparseMatrix& x, const Eigen::Ref<const Eigen::MatrixXd>& b,
                                           bool bias, double ridge, StopToken stop)
    : m_products(checked(x, b, ridge), b.cols(), bias, std::move(stop)),
      m_cg(m_products, b, x.cols() + (bias ? 1 : 0), ridge, "sparse cg least squares")
{
}

SparseCgLeastSquares::Products::Products(const SparseMatrix& x, Eigen::Index k, bool bias, StopToken stop)
    : m_a(x), m_bias(bias), m_stop(std::move(stop))
{
    m_at = x.transpose();
    m_at.makeCompressed();
    m_rowsPerBlock = rowsPerBlock(x, k);
    m_colsPerBlock = rowsPerBlock(m_at, k);
}

bool SparseCgLeastSquares::Products::times(const Eigen::MatrixXd& p, Eigen::MatrixXd& out)
{
    const Eigen::Index d = m_a.cols();
    out.resize(m_a.rows(), p.cols());
    if (!blockedProduct(m_a, p.topRows(d), m_rowsPerBlock, out, m_stop))
        return false;
    if (m_bias)
        out.rowwise() += p.row(d);
    return true;
}

bool SparseCgLeastSquares::Products::transposeTimes(const Eigen::MatrixXd& r, Eigen::MatrixXd& out)
{
    const Eigen::Index d = m_a.cols();
    out.resize(d + (m_bias ? 1 : 0), r.cols());
    if (!blockedProduct(m_at, r, m_colsPerBlock, out.topRows(d), m_stop))
        return false;
    if (m_bias)
        out.row(d) = r.colwise().sum();
    return true;
}

double SparseCgLeastSquares::bytes() const
{
    const SparseMatrix& at = m_products.transposed();
    return double(sparseBytes(std::uint64_t(at.rows()), std::uint64_t(at.nonZeros()))) +
           8.0 * double(4 * m_cg.solution().size() + 3 * m_cg.residual().size());
}

} // namespace tb::linear
