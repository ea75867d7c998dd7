#include "LibraryLabels.h"

#include <QString>

#include <algorithm>
#include <stdexcept>

namespace tb::wrap {

void requireTask(const DatasetView& data, bool regression, const std::string& who,
                 const std::string& algorithmId)
{
    const Eigen::Index n = data.rows(), k = data.outputs();
    // A sparse view's x is n×0: its rows must be the sparse matrix's and the targets'.
    if (data.isSparse() && (data.xSparse->rows() != data.y.rows() || n != data.y.rows()))
        throw std::invalid_argument(who + ": the sparse inputs have " + std::to_string(data.xSparse->rows()) +
                                    " rows, the targets " + std::to_string(data.y.rows()) +
                                    " (and the view's dense part " + std::to_string(n) + ")");
    if (n < 1 || k < 1)
        throw std::invalid_argument(who + ": the training set is empty (" + std::to_string(n) + " rows, " +
                                    std::to_string(k) + " outputs)");
    if (data.isClassification() == regression)
        throw std::invalid_argument(who + ": " + algorithmId + " got a " +
                                    (data.isClassification() ? "classification" : "regression") + " set");
}

std::vector<double> classLabels(const DatasetView& data, const std::string& who)
{
    const Eigen::Index n = data.rows(), k = data.outputs();
    std::vector<double> y(static_cast<std::size_t>(n));
    std::vector<Eigen::Index> count(std::size_t(k), 0);
    for (Eigen::Index i = 0; i < n; ++i) {
        Eigen::Index c = 0;
        data.y.row(i).maxCoeff(&c);
        y[std::size_t(i)] = double(c);
        ++count[std::size_t(c)];
    }
    const auto present = std::count_if(count.begin(), count.end(), [](Eigen::Index c) { return c > 0; });
    if (present < 2) {
        const auto only = std::find_if(count.begin(), count.end(), [](Eigen::Index c) { return c > 0; });
        const auto idx = qsizetype(only - count.begin());
        const QString name = idx < data.classNames.size() ? data.classNames[idx] : QString::number(idx);
        throw std::invalid_argument(QStringLiteral("%1: all %2 training rows are of one class (\"%3\"); a "
                                                   "classifier needs at least two classes")
                                        .arg(QString::fromStdString(who))
                                        .arg(n)
                                        .arg(name)
                                        .toStdString());
    }
    return y;
}

} // namespace tb::wrap
