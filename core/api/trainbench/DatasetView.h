#pragma once
/// @file DatasetView.h
/// A read-only view of a training set as the trainer sees it.

#include "SparseMatrix.h"

#include <Eigen/Core>
#include <QStringList>

namespace tb {

/// What the targets mean.
enum class Task {
    Regression,     ///< y is n×k real
    Classification  ///< y is n×k one-hot, k = number of classes
};

/// Non-owning view of inputs and targets. The host keeps the data alive for the whole of
/// fit(); the trainer must not keep references after fit() returns.
///
/// The inputs are dense (x, n×d) or sparse (xSparse, n×d; x is then n×0). Only a trainer of an
/// algorithm that declares sparse input (SparseInputFactory, SparseTrainer.h) is ever given a
/// sparse view; every other trainer sees dense inputs — the host densifies sparse data for it
/// when the dense copy fits in memory and refuses the run otherwise.
struct DatasetView {
    Eigen::Ref<const Eigen::MatrixXd> x;   ///< n×d dense inputs (standardised if the user asked); n×0 when sparse
    Eigen::Ref<const Eigen::MatrixXd> y;   ///< n×k targets (one-hot for classification)
    Task task = Task::Regression;
    QStringList classNames;                ///< Classification: k names; else empty
    QStringList featureNames;              ///< d names, may be empty
    /// Sparse inputs, or nullptr when the inputs are dense. Appended last so that the fields
    /// above keep their layout for plugins built against the SDK before it (which never get a
    /// sparse view).
    const SparseMatrix* xSparse = nullptr;

    DatasetView(const Eigen::Ref<const Eigen::MatrixXd>& xIn, const Eigen::Ref<const Eigen::MatrixXd>& yIn,
                Task t = Task::Regression)
        : x(xIn), y(yIn), task(t)
    {
    }

    bool isSparse() const { return xSparse != nullptr; }
    Eigen::Index rows() const { return x.rows(); }
    Eigen::Index inputs() const { return xSparse ? xSparse->cols() : x.cols(); }
    Eigen::Index outputs() const { return y.cols(); }
    bool isClassification() const { return task == Task::Classification; }
};

} // namespace tb
