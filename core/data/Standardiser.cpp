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

} // namespace tb::data
