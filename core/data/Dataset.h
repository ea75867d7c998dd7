#pragma once
/// @file Dataset.h
/// An owned dataset (inputs, targets, names) and a train/test pair of them.

#include <trainbench/DataTable.h>

#include <Eigen/Core>
#include <QString>
#include <QStringList>
#include <vector>

namespace tb::data {

/// Inputs and targets of one dataset, owned. A plain value type: copy freely; concurrent const
/// use is safe.
///
/// Invariants kept by every loader and generator of tb::data:
/// x is n×d, y is n×k with the same n; all values finite; for Classification y is one-hot,
/// k == classNames.size(), labels has n entries in [0, k) and y(i, labels[i]) == 1; for
/// Regression labels and classNames are empty.
struct Dataset : tb::DataTable {
    Dataset() = default;
    /// A source's table (DataSourceProvider::load()), taken over.
    explicit Dataset(tb::DataTable&& t) : tb::DataTable(std::move(t)) {}

    /// Regression with standardised targets ("standardise_targets"): y = (original − targetMean)
    /// / targetScale per column, fitted on the training set. Empty (size 0) otherwise.
    Eigen::RowVectorXd targetMean;
    Eigen::RowVectorXd targetScale;

    /// A non-owning view for Trainer::fit(); valid while this Dataset lives and is not modified.
    tb::DatasetView view() const;

    /// The rows @p rows (each in [0, rows()), repeats allowed) in that order, with the same
    /// names, task and description. Throws std::out_of_range for an index outside the set.
    Dataset selectRows(const std::vector<Eigen::Index>& rows) const;

    /// The same rows with dense inputs: x filled from xSparse (a no-op copy when already dense).
    /// The caller checks the memory first (denseBytes()).
    Dataset densified() const;

    /// Bytes of the dense inputs of this set: rows × inputs doubles.
    std::uint64_t denseBytes() const;

    /// Sets y to the one-hot encoding of labels with k = classNames.size() columns.
    /// Throws std::out_of_range if a label is outside [0, k).
    void setOneHotFromLabels();

    /// Number of rows of each class (size k); empty for regression.
    std::vector<Eigen::Index> classCounts() const;

    /// @p values (n×k, in the units of y, e.g. a trainer's predictions) in the targets' original
    /// units: values·targetScale + targetMean per column when the targets were standardised, else
    /// @p values unchanged. Metrics such as RMSE compare these with targetsInOriginalUnits(y).
    Eigen::MatrixXd targetsInOriginalUnits(const Eigen::MatrixXd& values) const;
};

/// A training set, the test set it is evaluated on, and optionally a validation set (rows held
/// out of the training data, or a file of their own) on which anything the workbench selects is
/// selected. All have the same d and k.
struct DatasetPair {
    Dataset train;
    Dataset test;
    QStringList warnings; ///< DataSource::warnings(): suspicious but not wrong; show them
    Dataset validation;   ///< no rows when the data set has no validation split

    bool hasValidation() const { return validation.rows() > 0; }
};

} // namespace tb::data
