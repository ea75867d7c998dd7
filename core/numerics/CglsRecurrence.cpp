#include "CglsRecurrence.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace tb::num {

void CglsRecurrence::checkProblem(const std::string& what, const char* matrix, Eigen::Index matrixRows,
                                  const Eigen::Ref<const Eigen::MatrixXd>& b, double ridge, bool matrixFinite)
{
    if (matrixRows != b.rows())
        throw std::invalid_argument(what + ": " + matrix + " has " + std::to_string(matrixRows) + " rows, B has " +
                                    std::to_string(b.rows()));
    if (!(ridge >= 0) || !std::isfinite(ridge))
        throw std::invalid_argument(what + ": the ridge must be finite and >= 0, got " + std::to_string(ridge));
    if (!matrixFinite || !b.allFinite())
        throw std::invalid_argument(what + ": the data contain NaN or Inf");
}

CglsRecurrence::CglsRecurrence(CglsOperator& op, const Eigen::Ref<const Eigen::MatrixXd>& b, Eigen::Index unknowns,
                               double ridge, std::string what)
    : m_op(op), m_ridge(ridge), m_what(std::move(what))
{
    m_x = Eigen::MatrixXd::Zero(unknowns, b.cols());
    m_r = b;
    if (!m_op.transposeTimes(m_r, m_s)) { // Aᵀb − λ·0
        m_stopped = true;
        return;
    }
    m_p = m_s;
    m_gamma = m_s.colwise().squaredNorm().transpose();
    m_gamma0 = m_gamma;
}

bool CglsRecurrence::iterateTo(int target)
{
    if (target < 0)
        throw std::invalid_argument(m_what + ": " + std::to_string(target) + " iterations");
    if (m_stopped)
        return false;
    const Eigen::Index k = m_x.cols();
    // The products write into the members' storage (the same shapes every iteration): no d×k
    // temporary beside W, P and S, whose width is what a wide sparse problem's memory is made of.
    Eigen::MatrixXd& q = m_q;
    Eigen::MatrixXd& s = m_s; // S of the last iteration is not needed once the new one is formed
    while (m_iterations < target) {
        if (!m_op.times(m_p, q)) {
            m_stopped = true;
            return false;
        }
        for (Eigen::Index j = 0; j < k; ++j) {
            const double delta = q.col(j).squaredNorm() + m_ridge * m_p.col(j).squaredNorm();
            // A column already at its solution (γ = 0) takes no step instead of 0/0.
            const double alpha = m_gamma(j) > 0 && delta > 0 ? m_gamma(j) / delta : 0.0;
            m_x.col(j) += alpha * m_p.col(j);
            m_r.col(j) -= alpha * q.col(j);
        }
        if (!m_op.transposeTimes(m_r, s)) {
            m_stopped = true;
            return false;
        }
        if (m_ridge > 0)
            s -= m_ridge * m_x;
        for (Eigen::Index j = 0; j < k; ++j) {
            const double gamma = s.col(j).squaredNorm();
            const double beta = m_gamma(j) > 0 ? gamma / m_gamma(j) : 0.0;
            m_p.col(j) = s.col(j) + beta * m_p.col(j);
            m_gamma(j) = gamma;
        }
        ++m_iterations;
    }
    return true;
}

double CglsRecurrence::objective() const
{
    return m_r.squaredNorm() + m_ridge * m_x.squaredNorm();
}

double CglsRecurrence::relativeNormalResidual() const
{
    double worst = 0;
    for (Eigen::Index j = 0; j < m_gamma.size(); ++j)
        if (m_gamma0(j) > 0)
            worst = std::max(worst, std::sqrt(m_gamma(j) / m_gamma0(j)));
    return worst;
}

} // namespace tb::num
