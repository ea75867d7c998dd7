#pragma once
/// @file ClassSubset.h
/// A classification set reduced to some of its classes, e.g. Fashion-MNIST's T-shirt/top
/// against Shirt as a binary problem.

#include "Dataset.h"

#include <vector>

namespace tb::data {

/// Keeps the rows of chosen classes. Stateless; thread-safe.
class ClassSubset {
public:
    /// The rows of @p s whose class is one of @p classes (indices into s.classNames), in data
    /// order, relabelled 0, 1, … in the order of @p classes (the first listed becomes class 0),
    /// with those classes' names; the description gains " classes a,b". Throws
    /// std::invalid_argument, naming the class index, when @p s is not a classification set,
    /// @p classes has fewer than two entries, repeats one or names a class outside
    /// [0, classNames.size()).
    static Dataset keep(const Dataset& s, const std::vector<int>& classes);

    /// keep() on the training and the test set.
    static DatasetPair keep(const DatasetPair& p, const std::vector<int>& classes);
};

} // namespace tb::data
