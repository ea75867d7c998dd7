#include "KernelLoss.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace tb::dsgd {
namespace {

// log(1 + exp(z)) without overflow.
double softplus(double z)
{
    return z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z));
}

// 1 / (1 + exp(−z)) without overflow.
double sigmoid(double z)
{
    if (z >= 0)
        return 1.0 / (1.0 + std::exp(-z));
    const double e = std::exp(z);
    return e / (1.0 + e);
}

} // namespace

const char* KernelLoss::name(LossKind kind)
{
    switch (kind) {
    case LossKind::Squared: return "squared";
    case LossKind::Hinge: return "hinge";
    case LossKind::Logistic: return "logistic";
    case LossKind::Multinomial: return "cross_entropy";
    }
    return "?";
}

KernelLoss::KernelLoss(LossKind kind, Task task, Eigen::Index outputs, const QStringList& classNames)
    : m_kind(kind), m_hostOutputs(outputs)
{
    const std::string loss = std::string("parameter \"loss\": ") + name(kind);
    if (outputs < 1)
        throw std::invalid_argument("dsgd: the data have no target column");
    switch (kind) {
    case LossKind::Squared:
        m_modelOutputs = outputs;
        return;
    case LossKind::Multinomial:
        if (task != Task::Classification)
            throw std::invalid_argument(loss + " needs a classification data set; this one is regression (use "
                                               "\"squared\")");
        m_modelOutputs = outputs;
        return;
    case LossKind::Hinge:
    case LossKind::Logistic:
        if (task != Task::Classification)
            throw std::invalid_argument(loss + " needs a classification data set with two classes; this one is "
                                               "regression (use \"squared\")");
        if (outputs != 2) {
            std::string names;
            for (int i = 0; i < classNames.size() && i < 12; ++i)
                names += (i ? ", " : " (") + classNames[i].toStdString();
            if (!names.empty())
                names += classNames.size() > 12 ? ", …)" : ")";
            throw std::invalid_argument(loss + " is a binary loss and needs two classes; the data have " +
                                        std::to_string(outputs) + " classes" + names +
                                        " (use \"cross_entropy\")");
        }
        m_modelOutputs = 1;
        return;
    }
}

Eigen::MatrixXd KernelLoss::targets(const Eigen::Ref<const Eigen::MatrixXd>& y) const
{
    if (y.cols() != m_hostOutputs)
        throw std::invalid_argument("dsgd: targets have " + std::to_string(y.cols()) + " columns, expected " +
                                    std::to_string(m_hostOutputs));
    if (m_kind == LossKind::Hinge || m_kind == LossKind::Logistic) {
        // One-hot rows: the second class is +1, the first −1.
        Eigen::MatrixXd t(y.rows(), 1);
        for (Eigen::Index i = 0; i < y.rows(); ++i)
            t(i, 0) = y(i, 1) > y(i, 0) ? 1.0 : -1.0;
        return t;
    }
    return y;
}

double KernelLoss::evaluate(const Eigen::Ref<const Eigen::MatrixXd>& f, const Eigen::Ref<const Eigen::MatrixXd>& t,
                            Eigen::MatrixXd& dl) const
{
    if (f.rows() != t.rows() || f.cols() != m_modelOutputs || t.cols() != m_modelOutputs)
        throw std::invalid_argument("dsgd: loss of a " + std::to_string(f.rows()) + "x" + std::to_string(f.cols()) +
                                    " prediction against " + std::to_string(t.rows()) + "x" + std::to_string(t.cols()) +
                                    " targets");
    dl.resize(f.rows(), f.cols());
    if (!f.allFinite()) {
        // A diverged model: the caller sees a non-finite loss and stops.
        dl.setConstant(std::numeric_limits<double>::quiet_NaN());
        return std::numeric_limits<double>::quiet_NaN();
    }
    double sum = 0;
    switch (m_kind) {
    case LossKind::Squared:
        dl = f - t;
        return 0.5 * dl.squaredNorm();
    case LossKind::Hinge:
        for (Eigen::Index i = 0; i < f.rows(); ++i) {
            const double margin = t(i, 0) * f(i, 0);
            sum += std::max(0.0, 1.0 - margin);
            dl(i, 0) = margin < 1.0 ? -t(i, 0) : 0.0;
        }
        return sum;
    case LossKind::Logistic:
        for (Eigen::Index i = 0; i < f.rows(); ++i) {
            const double margin = t(i, 0) * f(i, 0);
            sum += softplus(-margin);
            dl(i, 0) = -t(i, 0) * sigmoid(-margin);
        }
        return sum;
    case LossKind::Multinomial:
        for (Eigen::Index i = 0; i < f.rows(); ++i) {
            const double top = f.row(i).maxCoeff();
            const Eigen::RowVectorXd e = (f.row(i).array() - top).exp().matrix();
            const double z = e.sum();
            // −Σ_c t_c log p_c with Σ t = 1: log Σ exp(f) − Σ_c t_c f_c.
            sum += top + std::log(z) - f.row(i).dot(t.row(i));
            dl.row(i) = e / z - t.row(i);
        }
        return sum;
    }
    return sum;
}

Eigen::MatrixXd KernelLoss::scores(const Eigen::Ref<const Eigen::MatrixXd>& f) const
{
    switch (m_kind) {
    case LossKind::Squared:
        return f;
    case LossKind::Hinge: {
        Eigen::MatrixXd s(f.rows(), 2);
        s.col(0) = -f.col(0);
        s.col(1) = f.col(0);
        return s;
    }
    case LossKind::Logistic: {
        Eigen::MatrixXd s(f.rows(), 2);
        for (Eigen::Index i = 0; i < f.rows(); ++i) {
            // σ(f) and σ(−f) separately: 1 − σ(f) would lose the small probabilities.
            s(i, 1) = sigmoid(f(i, 0));
            s(i, 0) = sigmoid(-f(i, 0));
            if (std::isnan(f(i, 0)))
                s(i, 0) = s(i, 1) = f(i, 0);
        }
        return s;
    }
    case LossKind::Multinomial: {
        Eigen::MatrixXd s(f.rows(), f.cols());
        for (Eigen::Index i = 0; i < f.rows(); ++i) {
            const double top = f.row(i).maxCoeff();
            s.row(i) = (f.row(i).array() - top).exp().matrix();
            s.row(i) /= s.row(i).sum();
            if (!std::isfinite(top))
                s.row(i).setConstant(std::numeric_limits<double>::quiet_NaN());
        }
        return s;
    }
    }
    return f;
}

} // namespace tb::dsgd
