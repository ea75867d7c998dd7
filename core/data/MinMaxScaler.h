#pragma once
/// @file MinMaxScaler.h
/// Per-column min-max scaling to [0, 1] fitted on a training set.

#include "Dataset.h"

#include <Eigen/Core>

namespace tb::data {

/// z = (x − min) / (max − min) per column, with min and max fitted on training data only and
/// then applied unchanged to any set (test values may fall outside [0, 1]). A constant column
/// (max − min ≤ 1e-12·max(1, |min|)) maps to 0: its divisor is 1, never 1/0.
///
/// Palagi & Seccia (2019) scale every column this way, the regression target included; see
/// scaleMinMax(). fit() is not thread-safe; concurrent apply() on a fitted object is.
class MinMaxScaler {
public:
    /// Fits min and max of every column of @p x (n ≥ 1 rows, finite values). Throws
    /// std::invalid_argument for an empty matrix or a non-finite value.
    void fit(const Eigen::Ref<const Eigen::MatrixXd>& x);

    /// (x − min) / range. Throws std::logic_error if not fitted and std::invalid_argument if
    /// @p x does not have the fitted number of columns.
    Eigen::MatrixXd apply(const Eigen::Ref<const Eigen::MatrixXd>& x) const;
    /// apply() in place.
    void applyInPlace(Eigen::MatrixXd& x) const;

    bool isFitted() const { return m_fitted; }
    const Eigen::RowVectorXd& minimum() const { return m_min; }
    /// Fitted divisors: max − min, or 1 for a constant column.
    const Eigen::RowVectorXd& range() const { return m_range; }

private:
    void check(Eigen::Index cols) const;

    Eigen::RowVectorXd m_min;
    Eigen::RowVectorXd m_range;
    bool m_fitted = false;
};

/// Scales the inputs of @p pair with a MinMaxScaler fitted on pair.train.x, and, when
/// @p targets (regression only: one-hot class targets are left alone), its targets with one
/// fitted on pair.train.y. Throws std::invalid_argument for an empty training set.
void scaleMinMax(DatasetPair& pair, bool targets);

} // namespace tb::data
