#include "Dataset.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tb::data {

tb::DatasetView Dataset::view() const
{
    tb::DatasetView v(x, y, task);
    v.classNames = classNames;
    v.featureNames = featureNames;
    if (isSparse())
        v.xSparse = &xSparse;
    return v;
}

Dataset Dataset::densified() const
{
    Dataset out = *this;
    if (isSparse()) {
        out.x = Eigen::MatrixXd(xSparse);
        out.xSparse = tb::SparseMatrix();
    }
    return out;
}

std::uint64_t Dataset::denseBytes() const
{
    const auto rowsU = std::uint64_t(rows());
    const auto colsU = std::uint64_t(inputs());
    return colsU != 0 && rowsU > UINT64_MAX / colsU / sizeof(double) ? UINT64_MAX : rowsU * colsU * sizeof(double);
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
    if (isSparse()) {
        // Compressed rows copied whole: count, then fill (the result is compressed too).
        out.xSparse.resize(m, xSparse.cols());
        std::int64_t nnz = 0;
        for (Eigen::Index r : rowIndices) {
            if (r < 0 || r >= rows())
                throw std::out_of_range("Dataset::selectRows: row " + std::to_string(r) + " outside [0, " +
                                        std::to_string(rows()) + ")");
            nnz += xSparse.outerIndexPtr()[r + 1] - xSparse.outerIndexPtr()[r];
        }
        if (nnz > tb::SparseMaxIndex)
            throw std::length_error("Dataset::selectRows: " + std::to_string(nnz) +
                                    " non-zeros, more than 32-bit row offsets hold");
        out.xSparse.resizeNonZeros(Eigen::Index(nnz));
        int* outer = out.xSparse.outerIndexPtr();
        outer[0] = 0;
        for (Eigen::Index i = 0; i < m; ++i) {
            const Eigen::Index r = rowIndices[std::size_t(i)];
            const int begin = xSparse.outerIndexPtr()[r];
            const int end = xSparse.outerIndexPtr()[r + 1];
            std::copy(xSparse.innerIndexPtr() + begin, xSparse.innerIndexPtr() + end, out.xSparse.innerIndexPtr() + outer[i]);
            std::copy(xSparse.valuePtr() + begin, xSparse.valuePtr() + end, out.xSparse.valuePtr() + outer[i]);
            outer[i + 1] = outer[i] + (end - begin);
        }
    }
    if (!labels.empty())
        out.labels.resize(rowIndices.size());
    for (Eigen::Index i = 0; i < m; ++i) {
        const Eigen::Index r = rowIndices[std::size_t(i)];
        if (r < 0 || r >= rows())
            throw std::out_of_range("Dataset::selectRows: row " + std::to_string(r) + " outside [0, " +
                                    std::to_string(rows()) + ")");
        if (!isSparse())
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
