#pragma once
/// @file LibraryLabels.h
/// What LIBLINEAR and LIBSVM both need of a training set before their rows are built: the task
/// that fits the algorithm, and the class of every row as the libraries' double labels.

#include <trainbench/DatasetView.h>

#include <string>
#include <vector>

namespace tb::wrap {

/// Throws std::invalid_argument, starting with @p who (e.g. "liblinear"), when @p data is empty,
/// is not the task of @p algorithmId (a regression algorithm when @p regression, else a
/// classifier), or has sparse inputs (DatasetView::xSparse) whose number of rows is not the
/// targets' (naming both).
void requireTask(const DatasetView& data, bool regression, const std::string& who,
                 const std::string& algorithmId);

/// The class index of every row (the arg-max of its one-hot target), as the double labels the
/// libraries read; they group the classes themselves. Throws std::invalid_argument naming the
/// class when fewer than two classes are present (no classifier can be trained).
std::vector<double> classLabels(const DatasetView& data, const std::string& who);

} // namespace tb::wrap
