#pragma once
/// @file SparseCgLeastSquares.h
/// Ridge least squares on sparse inputs by conjugate gradients (CGLS), never forming XᵀX and
/// never copying X densely. No Qt here.

#include <trainbench/SparseMatrix.h>
#include <trainbench/StopToken.h>

#include <Eigen/Core>

namespace tb::linear {

/// min_W ‖A·W − B‖² + λ‖W‖² for A = [X 1] (the constant column only with @p bias; it is never
/// stored: A·v = X·v_top + v_bias, Aᵀr = [Xᵀr; Σr]) and X an n×d tb::SparseMatrix, by CGLS —
/// the same recurrences as tb::num::CgLeastSquares (Hestenes–Stiefel CG on (AᵀA + λI)·W = AᵀB,
/// one CG per column of B sharing every product, from W = 0), so the iterates tend to the closed
/// form's solution (the minimum-norm one when λ = 0 and A is rank-deficient).
///
/// Each iteration costs one product with X and one with Xᵀ: 4·nnz·k flops. Xᵀ is kept as a
/// compressed-row copy (d×n, the non-zeros' own size again) so that both products run in
/// parallel over row blocks that write disjoint rows: the same bits for any thread count.
///
/// Stop: the token is polled between row blocks; once it fires iterateTo() returns false and
/// the object is spent.
///
/// Not thread-safe; holds a reference to X, which must outlive it (B is copied).
class SparseCgLeastSquares {
public:
    /// Prepares W = 0 for @p x (n×d) and @p b (n×k), ridge λ = @p ridge ≥ 0. Computes AᵀB and
    /// the transposed copy of X (polls @p stop — check stopped() after construction). Throws
    /// std::invalid_argument when the row counts differ, λ is negative or not finite, or X or B
    /// holds a NaN or Inf.
    SparseCgLeastSquares(const SparseMatrix& x, const Eigen::Ref<const Eigen::MatrixXd>& b, bool bias,
                         double ridge, StopToken stop = {});

    /// Runs iterations until iterations() == @p target (nothing when it is already there).
    /// Returns false when the stop token fired (solution() is then meaningless and the object
    /// takes no more iterations). Throws std::invalid_argument for a negative @p target.
    bool iterateTo(int target);

    /// W after iterations() iterations ((d [+1]) × k; the bias weight last).
    const Eigen::MatrixXd& solution() const { return m_x; }
    int iterations() const { return m_iterations; }
    bool stopped() const { return m_stopped; }
    /// ‖A·W − B‖²_F + λ‖W‖²_F at the current W, from the recurrence's residual.
    double objective() const;
    /// Largest over the columns of ‖Aᵀ(b − A·w) − λw‖ / ‖Aᵀb‖ (0 for a column with Aᵀb = 0).
    double relativeNormalResidual() const;
    /// Bytes this object holds: the transposed copy of X and its d×k and n×k vectors.
    double bytes() const;

private:
    Eigen::MatrixXd times(const Eigen::MatrixXd& p);          // A·P, n×k
    Eigen::MatrixXd transposeTimes(const Eigen::MatrixXd& r); // Aᵀ·R, (d [+1])×k

    const SparseMatrix& m_a;
    SparseMatrix m_at; // Xᵀ, compressed rows
    bool m_bias;
    double m_ridge;
    StopToken m_stop;
    Eigen::Index m_rowsPerBlock = 0, m_colsPerBlock = 0;
    Eigen::MatrixXd m_x, m_r, m_s, m_p;
    Eigen::VectorXd m_gamma, m_gamma0;
    int m_iterations = 0;
    bool m_stopped = false;
};

} // namespace tb::linear
