#include "Standardiser.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace tb::data {

void Standardiser::fit(const Eigen::Ref<const Eigen::MatrixXd>& x)
{
    if (x.rows() == 0 || x.cols() == 0)
        throw std::invalid_argument("Standardiser::fit: empty matrix");
    const double n = double(x.rows());
    m_mean = x.colwise().sum() / n;
    m_scale.resize(x.cols());
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
        // Two-pass variance: exact for a constant column, no cancellation for large means.
        const double var = (x.col(j).array() - m_mean(j)).square().sum() / n;
        const double sd = std::sqrt(var);
        m_scale(j) = sd <= 1e-12 * std::max(1.0, std::abs(m_mean(j))) ? 1.0 : sd;
    }
    m_fitted = true;
}

void Standardiser::check(Eigen::Index cols) const
{
    if (!m_fitted)
        throw std::logic_error("Standardiser::apply: fit() was not called");
    if (cols != m_mean.size())
        throw std::invalid_argument("Standardiser::apply: " + std::to_string(cols) + " columns, fitted on " +
                                    std::to_string(m_mean.size()));
}

Eigen::MatrixXd Standardiser::apply(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    check(x.cols());
    return (x.rowwise() - m_mean).array().rowwise() / m_scale.array();
}

void Standardiser::applyInPlace(Eigen::MatrixXd& x) const
{
    check(x.cols());
    x.rowwise() -= m_mean;
    x.array().rowwise() /= m_scale.array();
}

void Standardiser::fitSparse(const SparseMatrix& x)
{
    if (x.rows() == 0 || x.cols() == 0)
        throw std::invalid_argument("Standardiser::fitSparse: empty matrix");
    const double n = double(x.rows());
    Eigen::RowVectorXd mean = Eigen::RowVectorXd::Zero(x.cols());
    Eigen::RowVectorXd count = Eigen::RowVectorXd::Zero(x.cols());
    for (Eigen::Index i = 0; i < x.outerSize(); ++i)
        for (SparseMatrix::InnerIterator it(x, i); it; ++it) {
            mean(it.col()) += it.value();
            count(it.col()) += 1;
        }
    mean /= n;
    // Two-pass variance over all n rows: the stored values, then the (n − count) zeros.
    Eigen::RowVectorXd sumSq = Eigen::RowVectorXd::Zero(x.cols());
    for (Eigen::Index i = 0; i < x.outerSize(); ++i)
        for (SparseMatrix::InnerIterator it(x, i); it; ++it) {
            const double dev = it.value() - mean(it.col());
            sumSq(it.col()) += dev * dev;
        }
    m_scale.resize(x.cols());
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
        const double var = (sumSq(j) + (n - count(j)) * mean(j) * mean(j)) / n;
        const double sd = std::sqrt(var);
        m_scale(j) = sd <= 1e-12 * std::max(1.0, std::abs(mean(j))) ? 1.0 : sd;
    }
    m_mean = Eigen::RowVectorXd::Zero(x.cols());
    m_fitted = true;
}

void Standardiser::applyInPlace(SparseMatrix& x) const
{
    check(x.cols());
    if (!m_mean.isZero(0))
        throw std::logic_error("Standardiser::applyInPlace: a centring fit applied to sparse inputs (use fitSparse())");
    for (Eigen::Index i = 0; i < x.outerSize(); ++i)
        for (SparseMatrix::InnerIterator it(x, i); it; ++it)
            it.valueRef() /= m_scale(it.col());
}

} // namespace tb::data
