#include "ClassSubset.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tb::data {

Dataset ClassSubset::keep(const Dataset& s, const std::vector<int>& classes)
{
    if (!s.isClassification())
        throw std::invalid_argument("classes: the data set is not a classification set");
    if (classes.size() < 2)
        throw std::invalid_argument("classes: keep at least two classes, got " + std::to_string(classes.size()));
    const int k = int(s.classNames.size());
    std::vector<int> newLabel(std::size_t(std::max(k, 0)), -1);
    for (std::size_t i = 0; i < classes.size(); ++i) {
        const int c = classes[i];
        if (c < 0 || c >= k)
            throw std::invalid_argument("classes: class " + std::to_string(c) + " is not in [0, " +
                                        std::to_string(k) + ")");
        if (newLabel[std::size_t(c)] >= 0)
            throw std::invalid_argument("classes: class " + std::to_string(c) + " is listed twice");
        newLabel[std::size_t(c)] = int(i);
    }
    std::vector<Eigen::Index> rows;
    for (std::size_t i = 0; i < s.labels.size(); ++i)
        if (newLabel[std::size_t(s.labels[i])] >= 0)
            rows.push_back(Eigen::Index(i));
    Dataset out = s.selectRows(rows); // inputs dense or sparse; labels and classes set below
    out.classNames.clear();
    out.labels.clear();
    for (int c : classes)
        out.classNames << s.classNames[c];
    out.labels.reserve(rows.size());
    for (Eigen::Index r : rows)
        out.labels.push_back(newLabel[std::size_t(s.labels[std::size_t(r)])]);
    out.setOneHotFromLabels();
    QStringList list;
    for (int c : classes)
        list << QString::number(c);
    out.description = s.description + QStringLiteral(" classes ") + list.join(',');
    return out;
}

DatasetPair ClassSubset::keep(const DatasetPair& p, const std::vector<int>& classes)
{
    DatasetPair out;
    out.train = keep(p.train, classes);
    out.test = keep(p.test, classes);
    if (p.hasValidation())
        out.validation = keep(p.validation, classes);
    out.warnings = p.warnings;  // what was suspicious about the whole set still applies
    return out;
}

} // namespace tb::data
