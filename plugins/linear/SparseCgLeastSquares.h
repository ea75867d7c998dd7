#pragma once
/// @file SparseCgLeastSquares.h
/// Ridge least squares on sparse inputs by conjugate gradients (CGLS), never forming XᵀX and
/// never copying X densely. No Qt here.

#include <numerics/CglsOperator.h>
#include <numerics/CglsRecurrence.h>
#include <trainbench/SparseMatrix.h>
#include <trainbench/StopToken.h>

#include <Eigen/Core>

namespace tb::linear {

/// min_W ‖A·W − B‖² + λ‖W‖² for A = [X 1] (the constant column only with @p bias; it is never
/// stored: A·v = X·v_top + v_bias, Aᵀr = [Xᵀr; Σr]) and X an n×d tb::SparseMatrix, by CGLS —
/// tb::num::CglsRecurrence, the recurrence of tb::num::CgLeastSquares too (Hestenes–Stiefel CG
/// on (AᵀA + λI)·W = AᵀB, one CG per column of B sharing every product, from W = 0), so the
/// iterates tend to the closed form's solution (the minimum-norm one when λ = 0 and A is
/// rank-deficient). This class supplies the sparse products.
///
/// Each iteration costs one product with X and one with Xᵀ: 4·nnz·k flops. Xᵀ is kept as a
/// compressed-row copy (d×n, the non-zeros' own size again) so that both products run in
/// parallel over row blocks that write disjoint rows: the same bits for any thread count.
///
/// Stop: the token is polled between row blocks; once it fires iterateTo() returns false and
/// the object is spent.
///
/// Not thread-safe, not copyable; holds a reference to X, which must outlive it (B is copied).
class SparseCgLeastSquares {
public:
    /// Prepares W = 0 for @p x (n×d) and @p b (n×k), ridge λ = @p ridge ≥ 0. Computes AᵀB and
    /// the transposed copy of X (polls @p stop — check stopped() after construction). Throws
    /// std::invalid_argument when the row counts differ, λ is negative or not finite, or X or B
    /// holds a NaN or Inf.
    SparseCgLeastSquares(const SparseMatrix& x, const Eigen::Ref<const Eigen::MatrixXd>& b, bool bias,
                         double ridge, StopToken stop = {});
    SparseCgLeastSquares(const SparseCgLeastSquares&) = delete; // the recurrence refers to this object's products
    SparseCgLeastSquares& operator=(const SparseCgLeastSquares&) = delete;

    /// Runs iterations until iterations() == @p target (nothing when it is already there).
    /// Returns false when the stop token fired (solution() is then meaningless and the object
    /// takes no more iterations). Throws std::invalid_argument for a negative @p target.
    bool iterateTo(int target) { return m_cg.iterateTo(target); }

    /// W after iterations() iterations ((d [+1]) × k; the bias weight last).
    const Eigen::MatrixXd& solution() const { return m_cg.solution(); }
    /// Iterations done so far.
    int iterations() const { return m_cg.iterations(); }
    /// The stop token fired during a product.
    bool stopped() const { return m_cg.stopped(); }
    /// ‖A·W − B‖²_F + λ‖W‖²_F at the current W, from the recurrence's residual.
    double objective() const { return m_cg.objective(); }
    /// Largest over the columns of ‖Aᵀ(b − A·w) − λw‖ / ‖Aᵀb‖ (0 for a column with Aᵀb = 0).
    double relativeNormalResidual() const { return m_cg.relativeNormalResidual(); }
    /// Bytes this object holds: the transposed copy of X and its d×k and n×k vectors.
    double bytes() const;

private:
    // A·P and Aᵀ·R with the implicit bias column, over row blocks of X and of its transposed
    // copy (disjoint rows: the same bits for any thread count), polling Stop between blocks.
    class Products final : public num::CglsOperator {
    public:
        Products(const SparseMatrix& x, Eigen::Index k, bool bias, StopToken stop);
        bool times(const Eigen::MatrixXd& p, Eigen::MatrixXd& out) override;          // A·P, n×k
        bool transposeTimes(const Eigen::MatrixXd& r, Eigen::MatrixXd& out) override; // Aᵀ·R, (d [+1])×k
        const SparseMatrix& transposed() const { return m_at; }

    private:
        const SparseMatrix& m_a;
        SparseMatrix m_at; // Xᵀ, compressed rows
        bool m_bias;
        StopToken m_stop;
        Eigen::Index m_rowsPerBlock = 0, m_colsPerBlock = 0;
    };

    Products m_products; // before m_cg, which calls it from its constructor
    num::CglsRecurrence m_cg;
};

} // namespace tb::linear
