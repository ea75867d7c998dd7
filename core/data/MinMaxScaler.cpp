#include "MinMaxScaler.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace tb::data {

void MinMaxScaler::fit(const Eigen::Ref<const Eigen::MatrixXd>& x)
{
    if (x.rows() < 1 || x.cols() < 1)
        throw std::invalid_argument("min-max scaling: cannot fit an empty matrix");
    if (!x.allFinite())
        throw std::invalid_argument("min-max scaling: the data contain NaN or Inf");
    m_min = x.colwise().minCoeff();
    const Eigen::RowVectorXd max = x.colwise().maxCoeff();
    m_range.resize(x.cols());
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
        const double r = max(j) - m_min(j);
        m_range(j) = r > 1e-12 * std::max(1.0, std::abs(m_min(j))) ? r : 1.0;
    }
    m_fitted = true;
}

void MinMaxScaler::check(Eigen::Index cols) const
{
    if (!m_fitted)
        throw std::logic_error("min-max scaling: apply() before fit()");
    if (cols != m_min.size())
        throw std::invalid_argument("min-max scaling: fitted on " + std::to_string(m_min.size()) +
                                    " columns, applied to " + std::to_string(cols));
}

Eigen::MatrixXd MinMaxScaler::apply(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    Eigen::MatrixXd out = x;
    applyInPlace(out);
    return out;
}

void MinMaxScaler::applyInPlace(Eigen::MatrixXd& x) const
{
    check(x.cols());
    x.rowwise() -= m_min;
    x.array().rowwise() /= m_range.array();
}

void scaleMinMax(DatasetPair& pair, bool targets)
{
    MinMaxScaler sx;
    sx.fit(pair.train.x);
    sx.applyInPlace(pair.train.x);
    for (Dataset* d : {&pair.test, &pair.validation})
        if (d->rows() > 0)
            sx.applyInPlace(d->x);
    if (!targets || pair.train.isClassification())
        return;
    MinMaxScaler sy;
    sy.fit(pair.train.y);
    sy.applyInPlace(pair.train.y);
    for (Dataset* d : {&pair.test, &pair.validation})
        if (d->rows() > 0)
            sy.applyInPlace(d->y);
}

} // namespace tb::data
