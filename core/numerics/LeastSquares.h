#pragma once
/// @file LeastSquares.h
/// Least squares for many right-hand sides sharing one coefficient matrix.
///
/// min_W ‖A·W − B‖² + λ‖W‖²  for A n×d and B n×k is solved through the normal equations
/// (AᵀA + λI)·W = AᵀB: ONE Gram matrix (accumulated in parallel over row blocks with TBB),
/// ONE factorisation, k triangular solves. When the Gram matrix is singular or too
/// ill-conditioned for Cholesky, a symmetric eigendecomposition gives the minimum-norm
/// solution on the numerically non-null space; the report says which path ran and why.
/// No Qt here.

#include <trainbench/StopToken.h>

#include <Eigen/Core>
#include <algorithm>
#include <string>

namespace tb::num {

/// Options of a least-squares solve. Every field documents its default and range.
struct LeastSquaresOptions {
    /// Ridge λ ≥ 0 added to the Gram diagonal. Default 0 (plain least squares).
    double ridge = 0.0;
    /// If > 0, the ridge is instead relativeRidge·trace(AᵀA)/d (scale-free). Default 0 (off).
    double relativeRidge = 0.0;
    /// Cholesky is accepted when its condition estimate is below 1/minRcond; otherwise the
    /// eigen fallback runs. Default 1e-13, range (0, 1).
    double minRcond = 1e-13;
    /// Eigenvalues below eigenTolerance·λ_max are treated as zero by the fallback.
    /// Default 0 = d·ε_machine (the usual pseudo-inverse tolerance), range [0, 1).
    double eigenTolerance = 0.0;
    /// Rows per parallel chunk of the Gram accumulation; 0 = split into as many chunks as
    /// the arena has threads (fastest: one large product per thread). Results are
    /// identical for the same thread count and chunking. Default 0.
    Eigen::Index chunkRows = 0;
    /// Polled between row blocks of the Gram accumulation and between column blocks of the
    /// factorisation (see gram() and solveNormalEquations()); once it fires the solve returns
    /// early with SolveReport::interrupted set and a meaningless result. Default: never stops.
    StopToken stop;
};

/// What a solve did.
struct SolveReport {
    enum class Method { Cholesky, EigenPseudoInverse };
    Method method = Method::Cholesky;
    Eigen::Index rank = 0;        ///< numerical rank of AᵀA + λI
    Eigen::Index dimension = 0;   ///< d
    double conditionEstimate = 0; ///< of AᵀA + λI (Cholesky: from the factor's diagonal)
    double ridgeUsed = 0;         ///< the absolute λ applied
    bool fallback = false;        ///< true when Cholesky was rejected
    std::string reason;           ///< why the fallback ran, empty otherwise
    double gramSeconds = 0;       ///< wall time of the Gram / cross products
    double solveSeconds = 0;      ///< wall time of factorisation and solves
    bool interrupted = false;     ///< the stop token fired: the result is meaningless

    /// "cholesky, cond 3.2e+04" or "eigen pseudo-inverse (Cholesky failed: not positive
    /// definite), rank 783/785, cond 1.1e+17".
    std::string summary() const;
};

/// Rows per product between two polls of a stop token in gram() and gramAndCross() for d
/// columns: about 1.5·10⁸ multiply-adds (d²/2 per row), ≈ 15 ms on one idle core, at least
/// 32 rows (a shared machine may run it several times slower: still within the 200 ms of Stop).
inline Eigen::Index stopPollRows(Eigen::Index d)
{
    const double rows = 3e8 / (double(d) * double(d) + 1.0);
    return rows > 1e9 ? Eigen::Index(1000000000) : std::max<Eigen::Index>(32, Eigen::Index(rows));
}

/// G = AᵀA, lower and upper triangles filled. Parallel over row chunks in the current
/// TBB arena; chunk partials are summed in a fixed order so results depend only on the data,
/// chunkRows, whether a stop token is given and (when chunkRows = 0) the arena's concurrency.
/// With a stop token each chunk is accumulated in blocks of stopPollRows(d) rows and the token
/// is polled between them; once it fires the result is meaningless (the caller checks the
/// token).
Eigen::MatrixXd gram(const Eigen::Ref<const Eigen::MatrixXd>& a, Eigen::Index chunkRows = 0, StopToken stop = {});

/// G = AᵀA and C = AᵀB in one pass over A (same chunking, stop polling and determinism as
/// gram()).
void gramAndCross(const Eigen::Ref<const Eigen::MatrixXd>& a, const Eigen::Ref<const Eigen::MatrixXd>& b,
                  Eigen::MatrixXd& g, Eigen::MatrixXd& c, Eigen::Index chunkRows = 0, StopToken stop = {});

/// Dimension from which solveNormalEquations() factorises in parallel column blocks that
/// poll the stop token (below it Eigen's LLT takes a few milliseconds at most).
inline constexpr Eigen::Index kBlockedCholeskyMin = 1024;

/// Solves (G + λI)·W = C for W (d×k). @p g is the Gram matrix (only the lower triangle is
/// read). Fills @p report if given. Throws std::invalid_argument on shape mismatch or
/// non-finite input.
///
/// Stop: with options.stop set and d ≥ kBlockedCholeskyMin the Cholesky factorisation runs in
/// column blocks of 128 (the trailing updates in parallel in the current TBB arena) and polls
/// the token between blocks. The eigen fallback cannot be interrupted inside Eigen: it runs on
/// a thread of its own that owns a copy of the matrix; on Stop the call returns at once and that
/// thread finishes in the background and frees its memory (its result is discarded).
Eigen::MatrixXd solveNormalEquations(const Eigen::Ref<const Eigen::MatrixXd>& g,
                                     const Eigen::Ref<const Eigen::MatrixXd>& c,
                                     const LeastSquaresOptions& options = {},
                                     SolveReport* report = nullptr);

/// argmin_W ‖A·W − B‖² + λ‖W‖²: gramAndCross() then solveNormalEquations().
Eigen::MatrixXd solveLeastSquares(const Eigen::Ref<const Eigen::MatrixXd>& a,
                                  const Eigen::Ref<const Eigen::MatrixXd>& b,
                                  const LeastSquaresOptions& options = {},
                                  SolveReport* report = nullptr);

} // namespace tb::num
