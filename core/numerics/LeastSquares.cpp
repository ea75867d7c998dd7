#include "LeastSquares.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace tb::num {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

Eigen::Index chunkCount(Eigen::Index rows, Eigen::Index chunkRows)
{
    if (rows == 0)
        return 1;
    if (chunkRows > 0)
        return (rows + chunkRows - 1) / chunkRows;
    const Eigen::Index threads = std::max(1, tbb::this_task_arena::max_concurrency());
    // Below ~256 rows a chunk costs more in summation than it saves.
    return std::max<Eigen::Index>(1, std::min(threads, rows / 256));
}

// Accumulates per-chunk partials in parallel, then sums them in chunk order.
void accumulate(const Eigen::Ref<const Eigen::MatrixXd>& a, const Eigen::MatrixXd* bPtr, Eigen::MatrixXd& g,
                Eigen::MatrixXd* c, Eigen::Index chunkRows)
{
    const Eigen::Index n = a.rows(), d = a.cols();
    const Eigen::Index chunks = chunkCount(n, chunkRows);
    const Eigen::Index per = chunkRows > 0 ? chunkRows : (n + chunks - 1) / std::max<Eigen::Index>(chunks, 1);
    std::vector<Eigen::MatrixXd> gs(chunks), cs(c ? chunks : 0);
    auto work = [&](Eigen::Index i) {
        const Eigen::Index r0 = i * per, r1 = std::min(n, r0 + per);
        Eigen::MatrixXd& gi = gs[i];
        gi.setZero(d, d);
        if (r1 > r0) {
            const auto block = a.middleRows(r0, r1 - r0);
            gi.selfadjointView<Eigen::Lower>().rankUpdate(block.transpose());
            if (c)
                cs[i].noalias() = block.transpose() * bPtr->middleRows(r0, r1 - r0);
        } else if (c) {
            cs[i].setZero(d, bPtr->cols());
        }
    };
    if (chunks == 1) {
        work(0);
    } else {
        tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, chunks, 1),
                          [&](const tbb::blocked_range<Eigen::Index>& r) {
                              for (Eigen::Index i = r.begin(); i < r.end(); ++i)
                                  work(i);
                          },
                          tbb::simple_partitioner());
    }
    g = std::move(gs[0]);
    for (Eigen::Index i = 1; i < chunks; ++i)
        g.triangularView<Eigen::Lower>() += gs[i];
    g.triangularView<Eigen::StrictlyUpper>() = g.transpose();
    if (c) {
        *c = std::move(cs[0]);
        for (Eigen::Index i = 1; i < chunks; ++i)
            *c += cs[i];
    }
}

std::string formatDouble(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

} // namespace

std::string SolveReport::summary() const
{
    std::string s;
    if (method == Method::Cholesky)
        s = "cholesky";
    else
        s = "eigen pseudo-inverse (" + reason + ")";
    s += ", rank " + std::to_string(rank) + "/" + std::to_string(dimension);
    s += ", cond " + formatDouble(conditionEstimate);
    if (ridgeUsed > 0)
        s += ", ridge " + formatDouble(ridgeUsed);
    return s;
}

Eigen::MatrixXd gram(const Eigen::Ref<const Eigen::MatrixXd>& a, Eigen::Index chunkRows)
{
    Eigen::MatrixXd g;
    accumulate(a, nullptr, g, nullptr, chunkRows);
    return g;
}

void gramAndCross(const Eigen::Ref<const Eigen::MatrixXd>& a, const Eigen::Ref<const Eigen::MatrixXd>& b,
                  Eigen::MatrixXd& g, Eigen::MatrixXd& c, Eigen::Index chunkRows)
{
    if (a.rows() != b.rows())
        throw std::invalid_argument("least squares: A has " + std::to_string(a.rows()) + " rows but B has " +
                                    std::to_string(b.rows()));
    const Eigen::MatrixXd bCopy = b; // Ref may not be contiguous; one copy of n×k is cheap
    accumulate(a, &bCopy, g, &c, chunkRows);
}

Eigen::MatrixXd solveNormalEquations(const Eigen::Ref<const Eigen::MatrixXd>& g, const Eigen::Ref<const Eigen::MatrixXd>& c,
                                     const LeastSquaresOptions& options, SolveReport* report)
{
    const auto t0 = Clock::now();
    const Eigen::Index d = g.rows();
    if (g.cols() != d || c.rows() != d)
        throw std::invalid_argument("least squares: Gram matrix is " + std::to_string(g.rows()) + "x" +
                                    std::to_string(g.cols()) + " but right-hand side has " +
                                    std::to_string(c.rows()) + " rows");
    if (!g.allFinite() || !c.allFinite())
        throw std::invalid_argument("least squares: the data contain NaN or Inf");
    if (options.ridge < 0 || options.relativeRidge < 0 || !std::isfinite(options.ridge) ||
        !std::isfinite(options.relativeRidge))
        throw std::invalid_argument("least squares: ridge must be finite and >= 0");

    SolveReport rep;
    rep.dimension = d;
    double lambda = options.ridge;
    if (options.relativeRidge > 0 && d > 0)
        lambda = options.relativeRidge * g.trace() / double(d);
    rep.ridgeUsed = lambda;

    Eigen::MatrixXd m = g;
    m.diagonal().array() += lambda;

    Eigen::MatrixXd w;
    Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> llt(m);
    bool ok = llt.info() == Eigen::Success;
    if (ok && d > 0) {
        const auto diag = llt.matrixLLT().diagonal().cwiseAbs();
        const double lo = diag.minCoeff(), hi = diag.maxCoeff();
        rep.conditionEstimate = lo > 0 ? (hi / lo) * (hi / lo) : std::numeric_limits<double>::infinity();
        if (!(rep.conditionEstimate * options.minRcond < 1.0)) {
            ok = false;
            rep.reason = "Cholesky condition estimate " + formatDouble(rep.conditionEstimate) + " too large";
        }
    } else if (!ok) {
        rep.reason = "Cholesky failed: matrix not positive definite";
    }
    if (ok) {
        w = llt.solve(c);
        rep.method = SolveReport::Method::Cholesky;
        rep.rank = d;
    } else {
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(m);
        if (es.info() != Eigen::Success)
            throw std::runtime_error("least squares: eigendecomposition did not converge");
        const Eigen::VectorXd& ev = es.eigenvalues(); // ascending
        const double maxEv = d > 0 ? std::max(std::abs(ev(d - 1)), std::abs(ev(0))) : 0.0;
        const double tol = (options.eigenTolerance > 0 ? options.eigenTolerance
                                                       : double(d) * std::numeric_limits<double>::epsilon()) *
                           maxEv;
        Eigen::VectorXd inv(d);
        Eigen::Index rank = 0;
        double minKept = maxEv;
        for (Eigen::Index i = 0; i < d; ++i) {
            if (ev(i) > tol) {
                inv(i) = 1.0 / ev(i);
                ++rank;
                minKept = std::min(minKept, ev(i));
            } else {
                inv(i) = 0.0;
            }
        }
        const Eigen::MatrixXd& v = es.eigenvectors();
        w = v * (inv.asDiagonal() * (v.transpose() * c));
        rep.method = SolveReport::Method::EigenPseudoInverse;
        rep.fallback = true;
        rep.rank = rank;
        rep.conditionEstimate = (rank < d || minKept <= 0) ? std::numeric_limits<double>::infinity() : maxEv / minKept;
    }
    rep.solveSeconds = secondsSince(t0);
    if (report) {
        const double gramSeconds = report->gramSeconds;
        *report = rep;
        report->gramSeconds = gramSeconds;
    }
    return w;
}

Eigen::MatrixXd solveLeastSquares(const Eigen::Ref<const Eigen::MatrixXd>& a, const Eigen::Ref<const Eigen::MatrixXd>& b,
                                  const LeastSquaresOptions& options, SolveReport* report)
{
    if (a.rows() != b.rows())
        throw std::invalid_argument("least squares: A has " + std::to_string(a.rows()) + " rows but B has " +
                                    std::to_string(b.rows()));
    if (!a.allFinite() || !b.allFinite())
        throw std::invalid_argument("least squares: the data contain NaN or Inf");
    const auto t0 = Clock::now();
    Eigen::MatrixXd g, c;
    gramAndCross(a, b, g, c, options.chunkRows);
    SolveReport local;
    local.gramSeconds = secondsSince(t0);
    Eigen::MatrixXd w = solveNormalEquations(g, c, options, &local);
    if (report)
        *report = local;
    return w;
}

} // namespace tb::num
