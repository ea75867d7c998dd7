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
#include <optional>
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

/// G + λI factorised once and applied to many right-hand sides: iterative methods whose
/// preconditioner never changes (generalized least squares: W ← W − (LΣ̂ + λI)⁻¹·∇, Agarwal et
/// al. 2014) pay the d³/3 of the factorisation once and d²·k per solve. solveNormalEquations()
/// is factorise() then solve().
///
/// Thread-safety: factorise() is not; solve() on a factorised object may be called from any
/// number of threads at once.
class NormalEquationsFactor {
public:
    /// Factorises G + λI (λ from options.ridge / options.relativeRidge, as solveNormalEquations();
    /// only the lower triangle of @p g is read): Cholesky — blocked, in parallel and polling
    /// options.stop between column blocks for d ≥ kBlockedCholeskyMin when a stop token is given —
    /// or, when Cholesky fails or its condition estimate exceeds 1/options.minRcond, the
    /// symmetric eigendecomposition (pseudo-inverse on the numerically non-null space; on a
    /// thread of its own that is abandoned on Stop, see solveNormalEquations()). Fills
    /// @p report if given (its gramSeconds is kept). Returns false when the stop token fired:
    /// report->interrupted is set and the object is left unfactorised. Throws
    /// std::invalid_argument for a non-square or non-finite @p g or a negative or non-finite
    /// ridge.
    bool factorise(const Eigen::Ref<const Eigen::MatrixXd>& g, const LeastSquaresOptions& options = {},
                   SolveReport* report = nullptr);

    /// W = (G + λI)⁻¹·C (d×k), the minimum-norm solution on the fallback path. O(d²·k).
    /// Throws std::logic_error before a successful factorise(), std::invalid_argument when
    /// @p c does not have dimension() rows or is not finite.
    Eigen::MatrixXd solve(const Eigen::Ref<const Eigen::MatrixXd>& c) const;

    /// True after a factorise() that was not interrupted.
    bool isFactorised() const { return m_ready; }
    /// d, the order of G.
    Eigen::Index dimension() const { return m_basis.rows(); }
    /// What the last factorise() did (method, rank, condition estimate, ridge used, seconds).
    const SolveReport& report() const { return m_report; }
    /// Memory held by the factor in bytes (d² doubles, plus d for the fallback's eigenvalues).
    double bytes() const { return 8.0 * double(m_basis.size() + m_inverse.size()); }

private:
    SolveReport m_report;
    bool m_ready = false;
    Eigen::MatrixXd m_basis;   ///< Cholesky: the lower factor L; fallback: the eigenvectors V
    Eigen::VectorXd m_inverse; ///< fallback: 1/eigenvalue on the kept space, 0 elsewhere (empty for Cholesky)
};

/// Eigenvalues (ascending) and, with @p vectors, eigenvectors (columns, in the same order) of
/// the symmetric matrix whose lower triangle is @p g (Eigen's SelfAdjointEigenSolver). Eigen's
/// solver cannot be interrupted: with a stop token it runs on a thread of its own that owns a
/// copy of @p g, and on Stop the call returns std::nullopt at once while that thread finishes in
/// the background and frees its memory. Throws std::invalid_argument for a non-square or
/// non-finite @p g, std::runtime_error if the solver does not converge.
struct SymmetricEigen {
    Eigen::VectorXd values;  ///< ascending
    Eigen::MatrixXd vectors; ///< d×d, column i belongs to values(i); empty unless asked for
};
std::optional<SymmetricEigen> symmetricEigen(const Eigen::Ref<const Eigen::MatrixXd>& g, bool vectors,
                                             StopToken stop = {});

/// argmin_W ‖A·W − B‖² + λ‖W‖²: gramAndCross() then solveNormalEquations().
Eigen::MatrixXd solveLeastSquares(const Eigen::Ref<const Eigen::MatrixXd>& a,
                                  const Eigen::Ref<const Eigen::MatrixXd>& b,
                                  const LeastSquaresOptions& options = {},
                                  SolveReport* report = nullptr);

} // namespace tb::num
