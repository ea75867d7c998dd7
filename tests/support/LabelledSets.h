#pragma once
/// @file LabelledSets.h
/// The small data sets of the tests of the library-wrapping plugins (liblinear, libsvm): a set
/// with one-hot targets, two classes on either side of a line, Gaussian blobs on a circle, the
/// arg-max accuracy of scores, and the set written as LIBSVM text for the libraries' own tools.

#include <trainbench/DatasetView.h>

#include <Eigen/Core>
#include <QString>
#include <cstdint>
#include <random>

namespace tb::testsupport {

/// Inputs, targets (one-hot for classification) and the task.
struct LabelledSet {
    Eigen::MatrixXd x, y;
    Task task = Task::Classification;
    DatasetView view() const { return DatasetView(x, y, task); }
};

/// Uniform in [−1, 1) from the top 53 bits of one draw: the same numbers on every platform.
double uniformPm1(std::mt19937_64& gen);

/// @p n rows of two classes on either side of a line at 30° through the origin, nothing within
/// 0.2 of it; inputs uniform in [−1, 1]^d (only the first two matter; d ≥ 2). Rows closer than
/// 0.2 to the line are drawn again.
LabelledSet separable(Eigen::Index n, int d, std::uint64_t seed);

/// k Gaussian blobs (σ = 0.3) centred on a circle of radius 2 in the plane, @p perClass rows
/// each, classes in turn (row i has class i mod k), with @p columns ≥ k one-hot columns (the
/// last columns' classes absent when columns > k; 0 = k).
LabelledSet blobs(int perClass, int k, std::uint64_t seed, int columns = 0);

/// The fraction of rows whose largest score is in the column of the largest target.
double accuracy(const Eigen::MatrixXd& scores, const Eigen::MatrixXd& y);

/// Writes @p s in LIBSVM text format (label = the class index of the one-hot row, zeros left out,
/// values as %.17g so that a tool reads the very same doubles). False when the file cannot be
/// written.
bool writeLibsvm(const LabelledSet& s, const QString& path);

} // namespace tb::testsupport
