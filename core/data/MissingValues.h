#pragma once
/// @file MissingValues.h
/// Filling missing inputs (NaN) with the training set's column means.

#include "Dataset.h"

#include <QString>

namespace tb::data {

/// The "fill_mean" missing-value policy of the CSV source and the catalogue. Reentrant.
class MissingValues {
public:
    /// Replaces every NaN input of @p pair's train and test sets with the mean of its column
    /// over the training rows that have a value (never the test rows: nothing of the test set
    /// leaks into training). Returns how many values were filled. Throws DataError naming
    /// @p origin and the column when a training column has no value at all.
    static qint64 fillWithTrainingMeans(DatasetPair& pair, const QString& origin);
};

} // namespace tb::data
