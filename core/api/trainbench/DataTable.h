#pragma once
/// @file DataTable.h
/// One data set as a data source produces it: inputs, targets and names, owned.

#include "DatasetView.h"
#include "SparseMatrix.h"

#include <Eigen/Core>
#include <QString>
#include <QStringList>
#include <vector>

namespace tb {

/// Inputs and targets of one data set, owned. A plain value type: copy freely; concurrent const
/// use is safe.
///
/// What a data source fills: x (n×d, finite); for a regression y (n×k); for a classification
/// classNames (k names) and labels (n class indices in [0, k)) — y may be left empty, the host
/// then one-hot encodes the labels. featureNames (d names) when the source has them. The host
/// checks all of this after loading and names the source at fault.
///
/// Sparse inputs (a text corpus: d in the millions, a few hundred non-zeros a row) go in
/// xSparse instead, compressed, with x left n×0 so that rows() is the same either way.
struct DataTable {
    Eigen::MatrixXd x;             ///< n×d dense inputs (no bias column); n×0 when sparse
    Eigen::MatrixXd y;             ///< n×k targets, one-hot for classification
    Task task = Task::Regression;
    QStringList classNames;        ///< Classification: k names in class-index order
    QStringList featureNames;      ///< d names, or empty when the source has none (IDX)
    QString description;           ///< short human text, e.g. "fashion-mnist train 60000×784"
    std::vector<int> labels;       ///< Classification: class index of each row; else empty
    SparseMatrix xSparse;          ///< n×d sparse inputs when isSparse(); else 0×0

    /// True when the inputs are in xSparse (it has columns), false when they are in x.
    bool isSparse() const { return xSparse.cols() > 0; }
    Eigen::Index rows() const { return x.rows(); }
    Eigen::Index inputs() const { return isSparse() ? Eigen::Index(xSparse.cols()) : x.cols(); }
    Eigen::Index outputs() const { return y.cols(); }
    bool isClassification() const { return task == Task::Classification; }
};

} // namespace tb
