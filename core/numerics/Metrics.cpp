#include "Metrics.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace tb::num {
namespace {
void checkShapes(const char* what, const Eigen::Ref<const Eigen::MatrixXd>& p, const Eigen::Ref<const Eigen::MatrixXd>& t)
{
    if (p.rows() != t.rows() || p.cols() != t.cols())
        throw std::invalid_argument(std::string(what) + ": predictions are " + std::to_string(p.rows()) + "x" +
                                    std::to_string(p.cols()) + " but targets are " + std::to_string(t.rows()) +
                                    "x" + std::to_string(t.cols()));
}
} // namespace

std::vector<int> argmaxRows(const Eigen::Ref<const Eigen::MatrixXd>& scores)
{
    std::vector<int> out(size_t(scores.rows()), -1);
    for (Eigen::Index i = 0; i < scores.rows(); ++i) {
        double best = -std::numeric_limits<double>::infinity();
        int arg = -1;
        for (Eigen::Index j = 0; j < scores.cols(); ++j) {
            const double v = scores(i, j);
            if (std::isnan(v)) {
                arg = -1;
                break;
            }
            if (arg < 0 || v > best) {
                best = v;
                arg = int(j);
            }
        }
        out[size_t(i)] = arg;
    }
    return out;
}

double accuracy(const Eigen::Ref<const Eigen::MatrixXd>& scores, const Eigen::Ref<const Eigen::MatrixXd>& targets)
{
    checkShapes("accuracy", scores, targets);
    if (scores.rows() == 0)
        return std::numeric_limits<double>::quiet_NaN();
    const auto p = argmaxRows(scores);
    const auto t = argmaxRows(targets);
    Eigen::Index hits = 0;
    for (size_t i = 0; i < p.size(); ++i)
        hits += (p[i] >= 0 && p[i] == t[i] && scores.row(Eigen::Index(i)).allFinite()) ? 1 : 0;
    return double(hits) / double(scores.rows());
}

double rmse(const Eigen::Ref<const Eigen::MatrixXd>& predictions, const Eigen::Ref<const Eigen::MatrixXd>& targets)
{
    checkShapes("rmse", predictions, targets);
    if (predictions.rows() == 0)
        return std::numeric_limits<double>::quiet_NaN();
    return std::sqrt((predictions - targets).squaredNorm() / double(predictions.rows()));
}

MeanStd meanStd(const std::vector<double>& values)
{
    MeanStd r;
    r.count = int(values.size());
    if (values.empty())
        return r;
    double s = 0;
    for (double v : values)
        s += v;
    r.mean = s / double(values.size());
    if (values.size() > 1) {
        double q = 0;
        for (double v : values)
            q += (v - r.mean) * (v - r.mean);
        r.std = std::sqrt(q / double(values.size() - 1));
    }
    return r;
}

} // namespace tb::num
