#pragma once
/// @file CglsRecurrence.h
/// The CGLS recurrence (conjugate gradients on the ridge normal equations), iteration by
/// iteration, on any matrix that supplies its two products. No Qt here.

#include "CglsOperator.h"

#include <Eigen/Core>
#include <string>

namespace tb::num {

/// min_W ‖A·W − B‖² + λ‖W‖² for A n×d (seen only through @ref CglsOperator) and B n×k by CGLS:
/// Hestenes–Stiefel CG on (AᵀA + λI)·W = AᵀB, written with A·P and Aᵀ·R so that the Gram matrix
/// is never formed, each column of B its own CG, all columns sharing every product. Starts from
/// W = 0. Iterate m is the minimiser over the m-th Krylov space: the objective never increases,
/// the iterates tend to the closed form's solution (the minimum-norm one when λ = 0 and A is
/// rank-deficient), and iterate m does not depend on how many iterations follow.
///
/// The one copy of the recurrence behind tb::num::CgLeastSquares (dense A) and
/// tb::linear::SparseCgLeastSquares (sparse rows); its arithmetic, given the products' bits, is
/// fixed, so the iterates are as deterministic as the operator's products.
///
/// Stop: the operator polls it inside its products; once a product reports it, the object is
/// spent (stopped() is true, iterateTo() returns false).
///
/// Not thread-safe; holds a reference to the operator, which must outlive it (B is copied).
class CglsRecurrence {
public:
    /// Throws std::invalid_argument, each message starting with @p what, when @p matrixRows
    /// (the rows of the matrix named @p matrix, e.g. "A") differs from @p b's, when @p ridge is
    /// negative or not finite, or when the matrix (@p matrixFinite false) or @p b holds a NaN or
    /// Inf — checked in that order. For the owners of an operator, before they build it.
    static void checkProblem(const std::string& what, const char* matrix, Eigen::Index matrixRows,
                             const Eigen::Ref<const Eigen::MatrixXd>& b, double ridge, bool matrixFinite);

    /// Prepares W = 0 (@p unknowns × k) for @p b (n×k) with ridge λ = @p ridge (≥ 0, finite:
    /// see checkProblem()). Computes AᵀB with @p op (one product; check stopped() afterwards).
    /// @p what starts the messages of the exceptions iterateTo() throws.
    CglsRecurrence(CglsOperator& op, const Eigen::Ref<const Eigen::MatrixXd>& b, Eigen::Index unknowns,
                   double ridge, std::string what);

    /// Runs iterations until iterations() == @p target (nothing when it is already there), two
    /// products each. A column whose normal-equation residual is exactly zero stays where it is
    /// (its step is 0). Returns false when the stop token fired (then solution() is meaningless
    /// and the object takes no more iterations). Throws std::invalid_argument for a negative
    /// @p target.
    bool iterateTo(int target);

    /// W after iterations() iterations (unknowns × k).
    const Eigen::MatrixXd& solution() const { return m_x; }
    /// B − A·W from the recurrence (n×k; never recomputed).
    const Eigen::MatrixXd& residual() const { return m_r; }
    /// Iterations done so far.
    int iterations() const { return m_iterations; }
    /// A product reported that the stop token fired.
    bool stopped() const { return m_stopped; }
    /// ‖A·W − B‖²_F + λ‖W‖²_F at the current W, from the recurrence's residual (never recomputed).
    double objective() const;
    /// Largest over the columns of ‖Aᵀ(b − A·w) − λw‖ / ‖Aᵀb‖: how far W is from solving the
    /// normal equations (0 for a column with Aᵀb = 0).
    double relativeNormalResidual() const;
    /// The ridge λ applied.
    double ridge() const { return m_ridge; }

private:
    CglsOperator& m_op;
    double m_ridge;
    std::string m_what;       // starts exception messages
    Eigen::MatrixXd m_x;      // W
    Eigen::MatrixXd m_r;      // B − A·W
    Eigen::MatrixXd m_s;      // Aᵀ·R − λW
    Eigen::MatrixXd m_q;      // A·P, the iteration's scratch
    Eigen::MatrixXd m_p;      // search directions
    Eigen::VectorXd m_gamma;  // ‖s_j‖² per column
    Eigen::VectorXd m_gamma0; // ‖Aᵀb_j‖² per column
    int m_iterations = 0;
    bool m_stopped = false;
};

} // namespace tb::num
