#pragma once
/// @file LabelledSets.h
/// The small data sets of the tests of the library-wrapping plugins (liblinear, libsvm): a set
/// with one-hot targets, two classes on either side of a line, Gaussian blobs on a circle, the
/// arg-max accuracy of scores, and the set written as LIBSVM text for the libraries' own tools;
/// sparse sets as the host hands them to a SparseTrainer — a small one that is also dense, and
/// one far too wide to densify — with labels from planted weights.

#include <trainbench/DatasetView.h>
#include <trainbench/SparseMatrix.h>

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

/// Sparse inputs and their targets. view() is what the host passes a SparseTrainer's fit():
/// DatasetView::xSparse set, the dense part n×0.
struct SparseLabelledSet {
    SparseMatrix x;
    Eigen::MatrixXd y;
    Task task = Task::Classification;
    Eigen::MatrixXd none; ///< n×0, the view's dense part
    DatasetView view() const;
};

/// @p s's inputs as a compressed tb::SparseMatrix (zeros left out), the same targets.
SparseLabelledSet toSparse(const LabelledSet& s);

/// @p n × @p d inputs of which a fraction @p density (about) is non-zero, uniform in [−1, 1);
/// targets from planted weights W (d × outputs, uniform in [−1, 1)): @p classes ≥ 2 classes,
/// the arg-max of x·W per row, or with @p classes = 0 a regression of 2 outputs, x·W + 0.05·noise.
LabelledSet plantedDense(Eigen::Index n, int d, double density, int classes, std::uint64_t seed);

/// The same planted data dense and sparse, for the tests that either form gives the same model:
/// 300 training rows × 50 inputs, about 20 % non-zero (plantedDense(), seed @p seed), of 3 classes
/// or, with @p regression, 2 outputs; 200 probe rows of the same weights (seed @p seed + 1); each
/// also as toSparse() gives it.
struct DenseSparsePair {
    LabelledSet dense, probe;
    SparseLabelledSet sparse, probeSparse;
};
DenseSparsePair denseSparsePair(bool regression, std::uint64_t seed);

/// @p n rows × @p d columns (d ≥ 1000), @p perRow non-zeros a row, a text corpus in miniature:
/// half of a row's columns from the first 500 ("common words"), half from the other d − 500
/// ("rare words"), all distinct, values in [0.25, 1.25); two classes, the sign of w·x for planted
/// weights w on the common columns only (uniform in [−1, 1), drawn from @p weightSeed), so that a
/// linear model can learn them from a few thousand rows while the rare columns are noise. Rows
/// are drawn from @p rowSeed: a training and a test set share @p weightSeed. Time and memory
/// O(n · perRow), never O(n · d).
SparseLabelledSet plantedSparse(Eigen::Index n, int d, int perRow, std::uint64_t weightSeed,
                                std::uint64_t rowSeed);

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
