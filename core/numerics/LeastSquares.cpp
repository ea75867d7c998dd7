#include "LeastSquares.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
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

// Accumulates per-chunk partials in parallel, then sums them in chunk order. With a stop
// token each chunk is accumulated in blocks of stopPollRows(d) rows, polling between them.
void accumulate(const Eigen::Ref<const Eigen::MatrixXd>& a, const Eigen::MatrixXd* bPtr, Eigen::MatrixXd& g,
                Eigen::MatrixXd* c, Eigen::Index chunkRows, StopToken stop)
{
    const Eigen::Index n = a.rows(), d = a.cols();
    const Eigen::Index chunks = chunkCount(n, chunkRows);
    const Eigen::Index per = chunkRows > 0 ? chunkRows : (n + chunks - 1) / std::max<Eigen::Index>(chunks, 1);
    std::vector<Eigen::MatrixXd> gs(chunks), cs(c ? chunks : 0);
    auto work = [&](Eigen::Index i) {
        const Eigen::Index r0 = i * per, r1 = std::min(n, r0 + per);
        Eigen::MatrixXd& gi = gs[i];
        gi.setZero(d, d);
        if (c)
            cs[i].setZero(d, bPtr->cols());
        const Eigen::Index step = stop.stopPossible() ? stopPollRows(d) : std::max<Eigen::Index>(1, r1 - r0);
        for (Eigen::Index s0 = r0; s0 < r1; s0 += step) {
            if (stop.stopRequested())
                return;
            const Eigen::Index m = std::min(step, r1 - s0);
            const auto block = a.middleRows(s0, m);
            gi.selfadjointView<Eigen::Lower>().rankUpdate(block.transpose());
            if (c)
                cs[i].noalias() += block.transpose() * bPtr->middleRows(s0, m);
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

// In-place lower Cholesky factor of the symmetric matrix whose lower triangle is in @p m, in
// column blocks of kPanel: factor the diagonal block (Eigen LLT), solve the panel below it,
// update the trailing lower triangle with one GEMM per column block in parallel (each output
// entry is computed by one fixed product: the same result for any thread count). Polls @p stop
// between blocks. Returns false if the matrix is not positive definite or on stop (*stopped).
bool blockedCholesky(Eigen::MatrixXd& m, StopToken stop, bool* stopped)
{
    constexpr Eigen::Index kPanel = 128;
    const Eigen::Index d = m.rows();
    for (Eigen::Index k0 = 0; k0 < d; k0 += kPanel) {
        if (stop.stopRequested()) {
            *stopped = true;
            return false;
        }
        const Eigen::Index kb = std::min(kPanel, d - k0), rest = d - k0 - kb;
        auto a11 = m.block(k0, k0, kb, kb);
        Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower> llt(a11); // factorises a11 in place
        if (llt.info() != Eigen::Success)
            return false;
        if (rest == 0)
            break;
        auto a21 = m.block(k0 + kb, k0, rest, kb);
        a11.triangularView<Eigen::Lower>().transpose().solveInPlace<Eigen::OnTheRight>(a21);
        // A22 −= A21·A21ᵀ on the lower triangle, by column blocks of the trailing matrix.
        const Eigen::Index colBlocks = (rest + kPanel - 1) / kPanel;
        // The token is polled before each column block too: on a busy machine one panel's whole
        // trailing update (≈ d²·64 multiply-adds) can take longer than the 200 ms of Stop.
        std::atomic<bool> interrupted{false};
        tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, colBlocks, 1), [&](const tbb::blocked_range<Eigen::Index>& r) {
            for (Eigen::Index j = r.begin(); j < r.end(); ++j) {
                if (stop.stopRequested()) {
                    interrupted = true;
                    return;
                }
                const Eigen::Index c0 = j * kPanel, cb = std::min(kPanel, rest - c0);
                m.block(k0 + kb + c0, k0 + kb + c0, rest - c0, cb).noalias() -=
                    a21.middleRows(c0, rest - c0) * a21.middleRows(c0, cb).transpose();
            }
        });
        if (interrupted) {
            *stopped = true;
            return false;
        }
    }
    return true;
}

// Runs @p work on a thread of its own and waits for it, polling @p stop every 10 ms. On stop
// returns nullopt at once; the thread keeps running, owns everything it touches (the captured
// copies) and frees it when it ends. Exceptions thrown by @p work are rethrown here.
template <class Result, class Work>
std::optional<Result> runAbandonable(Work work, StopToken stop)
{
    struct Shared {
        std::mutex mutex;
        std::condition_variable cv;
        bool done = false;
        std::optional<Result> result;
        std::exception_ptr error;
    };
    auto shared = std::make_shared<Shared>();
    std::thread([shared, work = std::move(work)]() mutable {
        std::optional<Result> r;
        std::exception_ptr e;
        try {
            r.emplace(work());
        } catch (...) {
            e = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(shared->mutex);
        shared->result = std::move(r);
        shared->error = e;
        shared->done = true;
        shared->cv.notify_all();
    }).detach();
    std::unique_lock<std::mutex> lock(shared->mutex);
    while (!shared->done) {
        if (stop.stopRequested())
            return std::nullopt;
        shared->cv.wait_for(lock, std::chrono::milliseconds(10));
    }
    if (shared->error)
        std::rethrow_exception(shared->error);
    return std::move(shared->result);
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

Eigen::MatrixXd gram(const Eigen::Ref<const Eigen::MatrixXd>& a, Eigen::Index chunkRows, StopToken stop)
{
    Eigen::MatrixXd g;
    accumulate(a, nullptr, g, nullptr, chunkRows, stop);
    return g;
}

void gramAndCross(const Eigen::Ref<const Eigen::MatrixXd>& a, const Eigen::Ref<const Eigen::MatrixXd>& b,
                  Eigen::MatrixXd& g, Eigen::MatrixXd& c, Eigen::Index chunkRows, StopToken stop)
{
    if (a.rows() != b.rows())
        throw std::invalid_argument("least squares: A has " + std::to_string(a.rows()) + " rows but B has " +
                                    std::to_string(b.rows()));
    const Eigen::MatrixXd bCopy = b; // Ref may not be contiguous; one copy of n×k is cheap
    accumulate(a, &bCopy, g, &c, chunkRows, stop);
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

    // G + λI, built when a path needs it (the blocked path copies G itself, stoppably).
    auto shifted = [&] {
        Eigen::MatrixXd m = g;
        m.diagonal().array() += lambda;
        return m;
    };

    Eigen::MatrixXd w;
    SolveReport rep0 = rep;
    auto interrupted = [&]() -> Eigen::MatrixXd {
        rep0.interrupted = true;
        rep0.solveSeconds = secondsSince(t0);
        if (report) {
            const double gramSeconds = report->gramSeconds;
            *report = rep0;
            report->gramSeconds = gramSeconds;
        }
        return Eigen::MatrixXd::Zero(d, c.cols());
    };
    const StopToken stop = options.stop;
    // The factor L (lower triangle of `factor`): Eigen's LLT, or the stoppable blocked form for
    // large systems when a stop token is given.
    Eigen::MatrixXd factor;
    bool ok = false;
    const bool blocked = stop.stopPossible() && d >= kBlockedCholeskyMin;
    if (blocked) {
        // The lower triangle of G + λI, copied in column blocks with a poll between them: a
        // fresh d×d buffer's page faults alone can outlast the 200 ms of Stop on a busy machine.
        factor.resize(d, d);
        constexpr Eigen::Index kCopyCols = 256;
        for (Eigen::Index c0 = 0; c0 < d; c0 += kCopyCols) {
            if (stop.stopRequested())
                return interrupted();
            const Eigen::Index cb = std::min(kCopyCols, d - c0);
            factor.block(c0, c0, d - c0, cb) = g.block(c0, c0, d - c0, cb);
        }
        factor.diagonal().array() += lambda;
        bool stopped = false;
        ok = blockedCholesky(factor, stop, &stopped);
        if (stopped)
            return interrupted();
    } else {
        const Eigen::MatrixXd m = shifted();
        Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> llt(m);
        ok = llt.info() == Eigen::Success;
        if (ok)
            factor = llt.matrixLLT();
    }
    if (ok && d > 0) {
        const auto diag = factor.diagonal().cwiseAbs();
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
        const Eigen::MatrixXd& f = factor;
        w = f.triangularView<Eigen::Lower>().solve(c);
        f.triangularView<Eigen::Lower>().adjoint().solveInPlace(w);
        rep.method = SolveReport::Method::Cholesky;
        rep.rank = d;
    } else {
        if (blocked)
            factor.resize(0, 0);  // the failed factor's memory, before the fallback's copy
        auto decompose = [copy = shifted()] {
            return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(copy);
        };
        std::optional<Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>> solved;
        if (stop.stopPossible() && d >= kBlockedCholeskyMin) {
            solved = runAbandonable<Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>>(decompose, stop);
            if (!solved) {
                rep0.reason = rep.reason;
                return interrupted();
            }
        } else {
            solved.emplace(decompose());
        }
        const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>& es = *solved;
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
    gramAndCross(a, b, g, c, options.chunkRows, options.stop);
    SolveReport local;
    local.gramSeconds = secondsSince(t0);
    if (options.stop.stopRequested()) {
        local.interrupted = true;
        if (report)
            *report = local;
        return Eigen::MatrixXd::Zero(a.cols(), b.cols());
    }
    Eigen::MatrixXd w = solveNormalEquations(g, c, options, &local);
    if (report)
        *report = local;
    return w;
}

} // namespace tb::num
