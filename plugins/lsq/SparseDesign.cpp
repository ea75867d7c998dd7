#include "SparseDesign.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tb::lsq {

SparseDesign::SparseDesign(const SparseMatrix& s, const Eigen::MatrixXd* extra) : m_ref(&s)
{
    if (extra) {
        if (extra->rows() != s.rows())
            throw std::invalid_argument("lsq: extra design columns of the wrong height");
        m_extra = *extra;
    }
}

SparseDesign::SparseDesign(SparseMatrix&& s, const Eigen::MatrixXd* extra) : m_own(std::move(s)), m_owns(true)
{
    m_own.makeCompressed();
    if (extra) {
        if (extra->rows() != m_own.rows())
            throw std::invalid_argument("lsq: extra design columns of the wrong height");
        m_extra = *extra;
    }
}

SparseDesign::SparseDesign(SparseDesign&& o) noexcept
    : m_ref(o.m_ref), m_own(std::move(o.m_own)), m_owns(o.m_owns), m_extra(std::move(o.m_extra)),
      m_stop(std::move(o.m_stop)), m_stopped(o.m_stopped.load())
{
}

SparseMatrix SparseDesign::selectColumns(const SparseMatrix& x, const std::vector<Eigen::Index>& columns)
{
    const Eigen::Index d = x.cols(), p = Eigen::Index(columns.size());
    std::vector<int> position(static_cast<std::size_t>(d), -1);
    for (Eigen::Index j = 0; j < p; ++j) {
        const Eigen::Index c = columns[std::size_t(j)];
        if (c < 0 || c >= d)
            throw std::out_of_range("lsq: column " + std::to_string(c) + " outside the " + std::to_string(d) +
                                    " inputs");
        if (position[std::size_t(c)] >= 0)
            throw std::invalid_argument("lsq: column " + std::to_string(c) + " selected twice");
        position[std::size_t(c)] = int(j);
    }
    // Two passes over the non-zeros: the row counts, then the entries (sorted by their new column)
    // written straight into a matrix of the exact size — no growing vectors beside it, so the
    // block costs its own 12 bytes a non-zero at its peak (what predictCost() states).
    const int* outer = x.outerIndexPtr();
    const int* inner = x.innerIndexPtr();
    const double* value = x.valuePtr();
    SparseMatrix out(x.rows(), p);
    int* offsets = out.outerIndexPtr();
    offsets[0] = 0;
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        int count = 0;
        for (int q = outer[i]; q < outer[i + 1]; ++q)
            count += position[std::size_t(inner[q])] >= 0 ? 1 : 0;
        offsets[i + 1] = offsets[i] + count;
    }
    out.resizeNonZeros(Eigen::Index(offsets[x.rows()]));
    std::vector<std::pair<int, double>> row;
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        row.clear();
        for (int q = outer[i]; q < outer[i + 1]; ++q)
            if (const int j = position[std::size_t(inner[q])]; j >= 0)
                row.emplace_back(j, value[q]);
        std::sort(row.begin(), row.end());
        int e = out.outerIndexPtr()[i];
        for (const auto& [j, v] : row) {
            out.innerIndexPtr()[e] = j;
            out.valuePtr()[e] = v;
            ++e;
        }
    }
    return out;
}

bool SparseDesign::pollStop() const
{
    if (m_stop.stopRequested())
        m_stopped = true;
    return m_stopped.load();
}

void SparseDesign::checkWeights(const Eigen::MatrixXd& w, bool bias) const
{
    if (w.rows() != cols() + (bias ? 1 : 0))
        throw std::invalid_argument("lsq: sparse design: weights have " + std::to_string(w.rows()) +
                                    " rows, expected " + std::to_string(cols() + (bias ? 1 : 0)));
}

SparseDesign SparseDesign::subset(const std::vector<Eigen::Index>& rows) const
{
    const SparseMatrix& s = sparse();
    std::vector<Eigen::Triplet<double, int>> t;
    Eigen::MatrixXd extra(Eigen::Index(rows.size()), m_extra.cols());
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const Eigen::Index i = rows[r];
        if (i < 0 || i >= s.rows())
            throw std::out_of_range("lsq: row " + std::to_string(i) + " outside the design");
        for (SparseMatrix::InnerIterator it(s, i); it; ++it)
            t.emplace_back(int(r), int(it.col()), it.value());
        if (m_extra.cols() > 0)
            extra.row(Eigen::Index(r)) = m_extra.row(i);
    }
    SparseMatrix sub(Eigen::Index(rows.size()), s.cols());
    sub.setFromTriplets(t.begin(), t.end());
    SparseDesign out(std::move(sub), m_extra.cols() > 0 ? &extra : nullptr);
    out.setStopToken(m_stop);
    return out;
}

Eigen::MatrixXd SparseDesign::gram(bool bias) const
{
    const SparseMatrix& s = sparse();
    const Eigen::Index n = s.rows(), p = s.cols(), e = m_extra.cols(), pe = p + e, pb = pe + (bias ? 1 : 0);
    Eigen::MatrixXd g = Eigen::MatrixXd::Zero(pb, pb);
    const int* outer = s.outerIndexPtr();
    const int* inner = s.innerIndexPtr();
    const double* value = s.valuePtr();
    Eigen::RowVectorXd sums = Eigen::RowVectorXd::Zero(p);
    for (Eigen::Index r0 = 0; r0 < n; r0 += kBlockRows) {
        if (pollStop())
            return g;
        const Eigen::Index m = std::min(kBlockRows, n - r0);
        // SᵀS, lower triangle: columns increase within a row, so inner[q] ≥ inner[a] for q ≥ a.
        for (Eigen::Index i = r0; i < r0 + m; ++i) {
            const int end = outer[i + 1];
            for (int a = outer[i]; a < end; ++a) {
                const double v = value[a];
                double* column = g.col(inner[a]).data();
                for (int q = a; q < end; ++q)
                    column[inner[q]] += v * value[q];
                sums(inner[a]) += v;
            }
        }
        if (e > 0) // EᵀS into the rows below SᵀS
            g.block(p, 0, e, p).noalias() +=
                (s.middleRows(r0, m).transpose() * m_extra.middleRows(r0, m)).transpose();
    }
    if (e > 0)
        g.block(p, p, e, e).noalias() = m_extra.transpose() * m_extra;
    if (bias) {
        g.row(pe).head(p) = sums;
        if (e > 0)
            g.row(pe).segment(p, e) = m_extra.colwise().sum();
        g(pe, pe) = double(n);
    }
    g.triangularView<Eigen::StrictlyUpper>() = g.transpose();
    return g;
}

Eigen::MatrixXd SparseDesign::cross(const Eigen::Ref<const Eigen::MatrixXd>& b, bool bias) const
{
    const SparseMatrix& s = sparse();
    const Eigen::Index n = s.rows(), p = s.cols(), e = m_extra.cols(), k = b.cols();
    if (b.rows() != n)
        throw std::invalid_argument("lsq: sparse design: targets of the wrong height");
    Eigen::MatrixXd c = Eigen::MatrixXd::Zero(p + e + (bias ? 1 : 0), k);
    for (Eigen::Index r0 = 0; r0 < n; r0 += kBlockRows) {
        if (pollStop())
            return c;
        const Eigen::Index m = std::min(kBlockRows, n - r0);
        c.topRows(p).noalias() += s.middleRows(r0, m).transpose() * b.middleRows(r0, m);
    }
    if (e > 0)
        c.middleRows(p, e).noalias() = m_extra.transpose() * b;
    if (bias)
        c.row(p + e) = b.colwise().sum();
    return c;
}

void SparseDesign::normalEquations(const Eigen::Ref<const Eigen::MatrixXd>& b, bool bias, Eigen::MatrixXd& g,
                                   Eigen::MatrixXd& c) const
{
    g = gram(bias);
    c = cross(b, bias);
}

void SparseDesign::product(const Eigen::MatrixXd& w, bool bias, Eigen::MatrixXd& z) const
{
    checkWeights(w, bias);
    const SparseMatrix& s = sparse();
    const Eigen::Index n = s.rows(), p = s.cols(), e = m_extra.cols();
    if (z.rows() != n || z.cols() != w.cols())
        z.resize(n, w.cols());
    for (Eigen::Index r0 = 0; r0 < n; r0 += kBlockRows) {
        if (pollStop())
            return;
        const Eigen::Index m = std::min(kBlockRows, n - r0);
        auto zb = z.middleRows(r0, m);
        zb.noalias() = s.middleRows(r0, m) * w.topRows(p);
        if (e > 0)
            zb.noalias() += m_extra.middleRows(r0, m) * w.middleRows(p, e);
        if (bias)
            zb.rowwise() += w.row(p + e);
    }
}

Eigen::MatrixXd SparseDesign::productCross(const Eigen::MatrixXd& w, bool bias, const BlockLink& link,
                                           double* linkSum) const
{
    checkWeights(w, bias);
    const SparseMatrix& s = sparse();
    const Eigen::Index n = s.rows(), p = s.cols(), e = m_extra.cols(), k = w.cols();
    Eigen::MatrixXd c = Eigen::MatrixXd::Zero(p + e + (bias ? 1 : 0), k), z;
    double sum = 0;
    for (Eigen::Index r0 = 0; r0 < n; r0 += kBlockRows) {
        if (pollStop())
            return c;
        const Eigen::Index m = std::min(kBlockRows, n - r0);
        const auto sb = s.middleRows(r0, m);
        z.noalias() = sb * w.topRows(p);
        if (e > 0)
            z.noalias() += m_extra.middleRows(r0, m) * w.middleRows(p, e);
        if (bias)
            z.rowwise() += w.row(p + e);
        sum += link(r0, z);
        c.topRows(p).noalias() += sb.transpose() * z;
        if (e > 0)
            c.middleRows(p, e).noalias() += m_extra.middleRows(r0, m).transpose() * z;
        if (bias)
            c.row(p + e) += z.colwise().sum();
    }
    if (linkSum)
        *linkSum = sum;
    return c;
}

double SparseDesign::storedBytes() const
{
    const double own =
        m_owns ? double(sparseBytes(std::uint64_t(m_own.rows()), std::uint64_t(m_own.nonZeros()))) : 0.0;
    return own + 8.0 * double(m_extra.size());
}

} // namespace tb::lsq
