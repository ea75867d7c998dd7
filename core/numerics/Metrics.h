#pragma once
/// @file Metrics.h
/// Accuracy and RMSE. No Qt.

#include <Eigen/Core>
#include <vector>

namespace tb::num {

/// Index of the largest entry of each row (first one on ties). NaN rows give -1.
std::vector<int> argmaxRows(const Eigen::Ref<const Eigen::MatrixXd>& scores);

/// Share of rows whose arg-max of @p scores equals the arg-max of the one-hot @p targets,
/// in [0, 1]. Rows with non-finite scores count as wrong. Throws std::invalid_argument on a
/// shape mismatch. An empty set gives NaN.
double accuracy(const Eigen::Ref<const Eigen::MatrixXd>& scores, const Eigen::Ref<const Eigen::MatrixXd>& targets);

/// Root mean squared error per sample as in the BPLS paper:
/// sqrt( (1/n) Σ_i ‖ŷ_i − y_i‖² ), the Euclidean norm taken over the k outputs of a sample.
/// For k = 1 this is the usual RMSE. Throws std::invalid_argument on a shape mismatch.
double rmse(const Eigen::Ref<const Eigen::MatrixXd>& predictions, const Eigen::Ref<const Eigen::MatrixXd>& targets);

/// Mean and sample standard deviation (n − 1; 0 for fewer than two values) of @p values.
struct MeanStd {
    double mean = 0;
    double std = 0;
    int count = 0;
};
MeanStd meanStd(const std::vector<double>& values);

} // namespace tb::num
