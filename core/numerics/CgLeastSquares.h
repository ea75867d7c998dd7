#pragma once
/// @file CgLeastSquares.h
/// Least squares by conjugate gradients on the normal equations (CGLS), iteration by iteration.
/// No Qt here.

#include "CglsOperator.h"
#include "CglsRecurrence.h"

#include <trainbench/StopToken.h>

#include <Eigen/Core>

namespace tb::num {

/// min_W ‖A·W − B‖² + λ‖W‖² for A n×d and B n×k by CGLS (Hestenes–Stiefel CG on
/// (AᵀA + λI)·W = AᵀB, written with A and Aᵀ so that the Gram matrix is never formed), each
/// column of B its own CG, all columns sharing every product with A. Starts from W = 0.
///
/// Why it exists: the closed form (solveLeastSquares) is single-shot — one point, after the whole
/// Gram matrix and its factorisation. CG gives the same problem an anytime curve: iterate m is
/// the minimiser over the m-th Krylov space, so the objective never increases from one iterate
/// to the next, and the iterates tend to the closed form's solution (the minimum-norm one when
/// λ = 0 and A is rank-deficient). Iterate m does not depend on how many iterations follow, so a
/// single run that stops at m₁ < m₂ < … costs, up to mᵢ, exactly what a run of mᵢ iterations
/// costs. Each iteration costs one product with A and one with Aᵀ: 4·n·d·k flops.
///
/// Determinism: the products are split into row blocks whose sizes depend only on the shape
/// (never on the thread count), the block partials of Aᵀ·R are joined in a fixed tree
/// (tbb::parallel_deterministic_reduce): the same data give the same bits with any number of
/// threads. Parallel in the current TBB arena.
///
/// Stop: the token is polled between row blocks (a block is about 4·10⁶ multiply-adds, a few
/// milliseconds); once it fires iterateTo() returns false and the object is spent.
///
/// The recurrence is tb::num::CglsRecurrence (shared with the sparse rows'
/// tb::linear::SparseCgLeastSquares); this class supplies the dense products.
///
/// Not thread-safe, not copyable; holds a reference to A, which must outlive it (B is copied).
class CgLeastSquares {
public:
    /// Prepares W = 0 for @p a (n×d) and @p b (n×k) with ridge λ = @p ridge ≥ 0 (relative
    /// ridges are the caller's: relativeRidge·‖A‖²_F/d as solveLeastSquares does). Computes AᵀB
    /// (one pass; polls @p stop — check stopped() after construction). Throws
    /// std::invalid_argument when the row counts differ, λ is negative or not finite, or A or B
    /// holds a NaN or Inf.
    CgLeastSquares(const Eigen::MatrixXd& a, const Eigen::Ref<const Eigen::MatrixXd>& b, double ridge,
                   StopToken stop = {});
    CgLeastSquares(const CgLeastSquares&) = delete; // the recurrence refers to this object's products
    CgLeastSquares& operator=(const CgLeastSquares&) = delete;

    /// Runs iterations until iterations() == @p target (nothing when it is already there). A
    /// column whose normal-equation residual is exactly zero stays where it is (its step is 0).
    /// Returns false when the stop token fired (then solution() is meaningless and the object
    /// takes no more iterations). Throws std::invalid_argument for a negative @p target.
    bool iterateTo(int target) { return m_cg.iterateTo(target); }

    /// W after iterations() iterations (d×k).
    const Eigen::MatrixXd& solution() const { return m_cg.solution(); }
    /// Iterations done so far.
    int iterations() const { return m_cg.iterations(); }
    /// The stop token fired during a product.
    bool stopped() const { return m_cg.stopped(); }
    /// ‖A·W − B‖²_F + λ‖W‖²_F at the current W, from the recurrence's residual (never recomputed).
    double objective() const { return m_cg.objective(); }
    /// Largest over the columns of ‖Aᵀ(b − A·w) − λw‖ / ‖Aᵀb‖: how far W is from solving the
    /// normal equations (0 for a column with Aᵀb = 0).
    double relativeNormalResidual() const { return m_cg.relativeNormalResidual(); }
    /// The ridge λ applied.
    double ridge() const { return m_cg.ridge(); }

private:
    // A·P and Aᵀ·R over row blocks of A, polling Stop between blocks.
    class Products final : public CglsOperator {
    public:
        Products(const Eigen::MatrixXd& a, Eigen::Index k, StopToken stop);
        bool times(const Eigen::MatrixXd& p, Eigen::MatrixXd& out) override;          // A·P, n×k
        bool transposeTimes(const Eigen::MatrixXd& r, Eigen::MatrixXd& out) override; // Aᵀ·R, d×k

    private:
        const Eigen::MatrixXd& m_a;
        StopToken m_stop;
        Eigen::Index m_blockRows; // rows per product block: a function of the shape only
    };

    Products m_products; // before m_cg, which calls it from its constructor
    CglsRecurrence m_cg;
};

} // namespace tb::num
