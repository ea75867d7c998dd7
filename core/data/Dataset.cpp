#include "Dataset.h"

#include <stdexcept>
#include <string>

namespace tb::data {

tb::DatasetView Dataset::view() const
{
    tb::DatasetView v(x, y, task);
    v.classNames = classNames;
    v.featureNames = featureNames;
    return v;
}

Dataset Dataset::selectRows(const std::vector<Eigen::Index>& rowIndices) const
{
    Dataset out;
    out.task = task;
    out.classNames = classNames;
    out.featureNames = featureNames;
    out.description = description;
    out.targetMean = targetMean;
    out.targetScale = targetScale;
    const auto m = Eigen::Index(rowIndices.size());
    out.x.resize(m, x.cols());
    out.y.resize(m, y.cols());
    if (!labels.empty())
        out.labels.resize(rowIndices.size());
    for (Eigen::Index i = 0; i < m; ++i) {
        const Eigen::Index r = rowIndices[std::size_t(i)];
        if (r < 0 || r >= rows())
            throw std::out_of_range("Dataset::selectRows: row " + std::to_string(r) + " outside [0, " +
                                    std::to_string(rows()) + ")");
        out.x.row(i) = x.row(r);
        out.y.row(i) = y.row(r);
        if (!labels.empty())
            out.labels[std::size_t(i)] = labels[std::size_t(r)];
    }
    return out;
}

void Dataset::setOneHotFromLabels()
{
    const auto k = Eigen::Index(classNames.size());
    y = Eigen::MatrixXd::Zero(Eigen::Index(labels.size()), k);
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (labels[i] < 0 || labels[i] >= k)
            throw std::out_of_range("Dataset::setOneHotFromLabels: label " + std::to_string(labels[i]) +
                                    " outside [0, " + std::to_string(k) + ")");
        y(Eigen::Index(i), labels[i]) = 1.0;
    }
}

std::vector<Eigen::Index> Dataset::classCounts() const
{
    if (!isClassification())
        return {};
    std::vector<Eigen::Index> counts(std::size_t(classNames.size()), 0);
    for (int l : labels)
        if (l >= 0 && std::size_t(l) < counts.size())
            ++counts[std::size_t(l)];
    return counts;
}

Eigen::MatrixXd Dataset::targetsInOriginalUnits(const Eigen::MatrixXd& values) const
{
    if (targetScale.size() == 0 || targetScale.size() != values.cols())
        return values;
    return (values.array().rowwise() * targetScale.array()).rowwise() + targetMean.array();
}

} // namespace tb::data
