#pragma once
/// @file DatasetView.h
/// A read-only view of a training set as the trainer sees it.

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
struct DatasetView {
    Eigen::Ref<const Eigen::MatrixXd> x;   ///< n×d inputs, already standardised if the user asked
    Eigen::Ref<const Eigen::MatrixXd> y;   ///< n×k targets (one-hot for classification)
    Task task = Task::Regression;
    QStringList classNames;                ///< Classification: k names; else empty
    QStringList featureNames;              ///< d names, may be empty

    DatasetView(const Eigen::Ref<const Eigen::MatrixXd>& xIn, const Eigen::Ref<const Eigen::MatrixXd>& yIn,
                Task t = Task::Regression)
        : x(xIn), y(yIn), task(t)
    {
    }

    Eigen::Index rows() const { return x.rows(); }
    Eigen::Index inputs() const { return x.cols(); }
    Eigen::Index outputs() const { return y.cols(); }
    bool isClassification() const { return task == Task::Classification; }
};

} // namespace tb
