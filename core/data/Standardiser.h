#pragma once
/// @file Standardiser.h
/// Per-column centring and scaling fitted on a training set.

#include <trainbench/SparseMatrix.h>

#include <Eigen/Core>

namespace tb::data {

/// z = (x − mean) / std per column, with mean and std fitted on training inputs only and then
/// applied unchanged to any set (train, test, new data).
///
/// std is the population standard deviation (divide by n), so the fitted set itself gets
/// mean 0 and std 1 exactly up to rounding. A constant column (std ≤ 1e-12·max(1, |mean|),
/// which absorbs rounding noise of a constant) is only centred: its scale is 1, never 1/0.
/// fit() is not thread-safe; concurrent apply() on a fitted object is.
class Standardiser {
public:
    /// Fits mean and std of every column of @p x (n ≥ 1 rows). Throws std::invalid_argument
    /// for an empty matrix.
    void fit(const Eigen::Ref<const Eigen::MatrixXd>& x);

    /// (x − mean) / scale. Throws std::logic_error if not fitted and std::invalid_argument if
    /// @p x does not have the fitted number of columns.
    Eigen::MatrixXd apply(const Eigen::Ref<const Eigen::MatrixXd>& x) const;
    /// apply() in place.
    void applyInPlace(Eigen::MatrixXd& x) const;

    /// Sparse inputs are scaled without centring — subtracting the mean would turn every zero
    /// into a non-zero, a dense matrix. fitSparse() fits the same column std as fit() (over all
    /// n rows, the zeros included) and sets mean() to 0, so applyInPlace() divides each stored
    /// value by its column's std: the columns get std 1, not mean 0. Throws as fit().
    void fitSparse(const SparseMatrix& x);
    /// x / scale per column, in place (stored values only: zeros stay zeros). Throws as apply();
    /// also when the fit was centring (fit(), not fitSparse()).
    void applyInPlace(SparseMatrix& x) const;

    bool isFitted() const { return m_fitted; }
    /// Fitted column means (1×d).
    const Eigen::RowVectorXd& mean() const { return m_mean; }
    /// Fitted divisors (1×d): the column std, or 1 for a constant column.
    const Eigen::RowVectorXd& scale() const { return m_scale; }

private:
    void check(Eigen::Index cols) const;

    Eigen::RowVectorXd m_mean;
    Eigen::RowVectorXd m_scale;
    bool m_fitted = false;
};

} // namespace tb::data
