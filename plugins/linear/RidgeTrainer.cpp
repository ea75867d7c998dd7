#include "RidgeTrainer.h"

#include <trainbench/toolkit/Ridge.h>

#include "SparseCgLeastSquares.h"

#include <numerics/CgLeastSquares.h>
#include <numerics/FirstTouch.h>

#include <QJsonArray>
#include <QStringList>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <vector>

namespace tb::linear {

RidgeTrainer::RidgeTrainer(const QVariantMap& params)
    : m_commonRidge(params.value("ridge").toDouble()),
      m_gramRidge(params.value("gram_ridge").toDouble()),
      m_relativeRidge(params.value("relative_ridge").toDouble()),
      m_bias(params.value("bias").toBool())
{
    toolkit::requireOneRidge(m_commonRidge, m_gramRidge, "linear");
    // Absent from parameter maps made before these keys existed: the schema's defaults.
    if (params.contains("cg_tolerance"))
        m_cgTolerance = params.value("cg_tolerance").toDouble();
    if (params.contains("iterations"))
        m_cgMaxIterations = params.value("iterations").toInt();
    if (!(m_cgTolerance > 0) || !std::isfinite(m_cgTolerance))
        throw std::invalid_argument("parameter \"cg_tolerance\": must be a positive number, got " +
                                    std::to_string(m_cgTolerance));
    if (m_cgMaxIterations < 1 || m_cgMaxIterations > maxCgIterations)
        throw std::invalid_argument("parameter \"iterations\": " + std::to_string(m_cgMaxIterations) +
                                    " is outside [1, " + std::to_string(maxCgIterations) + "]");
    const QVariantList ladder = params.value("iteration_ladder").toList();
    QStringList shown;
    for (const QVariant& v : ladder)
        shown << v.toString();
    auto fail = [&](const QString& why) {
        return std::invalid_argument(
            QStringLiteral("parameter \"iteration_ladder\": [%1] %2").arg(shown.join(", "), why).toStdString());
    };
    if (ladder.size() > maxCgRungs)
        throw fail(QStringLiteral("has %1 counts, at most %2").arg(ladder.size()).arg(maxCgRungs));
    for (const QVariant& v : ladder) {
        const int m = v.toInt();
        if (m < 1 || m > maxCgIterations)
            throw fail(QStringLiteral("holds %1, outside [1, %2]").arg(m).arg(maxCgIterations));
        if (!m_cgLadder.empty() && m <= m_cgLadder.back())
            throw fail(QStringLiteral("is not strictly increasing: %1 follows %2").arg(m).arg(m_cgLadder.back()));
        m_cgLadder.push_back(m);
    }
}

void RidgeTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    // The Gram-diagonal λ of these rows: (1/n)·½‖Ax − y‖² + r‖x‖² has the normal equations
    // (AᵀA + 2n·r·I)x = Aᵀy.
    m_ridge = toolkit::gramDiagonal(m_commonRidge, m_gramRidge, double(data.rows()));
    if (data.isSparse()) {
        fitSparse(data, ctx);
        return;
    }
    if (!data.x.allFinite() || !data.y.allFinite())
        throw std::invalid_argument("linear: the training data contain NaN or Inf");
    const Eigen::Index n = data.rows(), d = data.inputs();
    Eigen::MatrixXd a(n, d + (m_bias ? 1 : 0));
    // The copy is the first touch of n·d doubles: on a machine where page faults are slow (this
    // VM: about 0.5 s for 20000 × 1500) it would outlast the 200 ms Stop promise, so it goes in
    // column blocks of about 16 MB with a poll of Stop between them (the same values).
    const Eigen::Index block = std::max<Eigen::Index>(1, Eigen::Index(2) * 1024 * 1024 / std::max<Eigen::Index>(n, 1));
    for (Eigen::Index j = 0; j < d; j += block) {
        if (ctx.stopRequested())
            return;  // Stop: no model, as below
        const Eigen::Index w = std::min(block, d - j);
        a.middleCols(j, w) = data.x.middleCols(j, w);
    }
    if (m_bias)
        a.col(d).setOnes();
    if (m_cgLadder.empty())
        fitClosedForm(a, data, ctx);
    else
        fitCg(a, data, ctx);
}

void RidgeTrainer::fitClosedForm(const Eigen::MatrixXd& a, const DatasetView& data, RunContext& ctx)
{
    num::LeastSquaresOptions opt;
    opt.ridge = m_ridge;
    opt.relativeRidge = m_relativeRidge;  // takes precedence when > 0
    opt.stop = ctx.stopToken();  // polled inside the Gram accumulation and large factorisations
    num::SolveReport rep;
    Eigen::MatrixXd w = num::solveLeastSquares(a, data.y, opt, &rep);
    if (rep.interrupted)
        return;  // Stop: no model (predict() keeps refusing), the host marks the run cancelled
    m_w = std::move(w);
    ctx.record("solver", QString::fromStdString(rep.summary()));
    ctx.record("gram_seconds", rep.gramSeconds);
    ctx.record("solve_seconds", rep.solveSeconds);
    ctx.checkpoint(Checkpoint{1.0, std::numeric_limits<double>::quiet_NaN(),
                              rep.fallback ? QString::fromStdString(rep.summary()) : QString()});
}

void RidgeTrainer::fitCg(const Eigen::MatrixXd& a, const DatasetView& data, RunContext& ctx)
{
    // The same λ as the closed form: relative_ridge·trace(AᵀA)/d when set, trace(AᵀA) = ‖A‖²_F.
    double lambda = m_ridge;
    if (m_relativeRidge > 0 && a.cols() > 0)
        lambda = m_relativeRidge * a.squaredNorm() / double(a.cols());
    num::CgLeastSquares cg(a, data.y, lambda, ctx.stopToken());
    if (cg.stopped())
        return; // Stop before the first iterate: no model, the run is cancelled
    ctx.record("solver", QStringLiteral("conjugate gradients on the normal equations (CGLS) from 0, λ = %1")
                             .arg(lambda, 0, 'g', 6));
    ctx.record("ridge_used", lambda);
    const double n = double(std::max<Eigen::Index>(a.rows(), 1));
    QJsonArray residuals;
    for (const int m : m_cgLadder) {
        if (!cg.iterateTo(m))
            return; // Stop: the last checkpoint's model stays
        m_w = cg.solution();
        residuals.append(cg.relativeNormalResidual());
        ctx.record("cg_relative_residuals", residuals);
        // The clock runs on: iterate m's time from the start of fit() is its own cost.
        if (ctx.checkpoint(Checkpoint{double(m), cg.objective() / n, {}}) == CheckpointAction::Stop)
            return;
    }
}

namespace {

// G = [X 1]ᵀ[X 1] (lower triangle) and C = [X 1]ᵀY from the sparse rows: Σᵢ nnzᵢ²/2
// multiply-adds for G, no dense copy of X. Rows in order (deterministic); Stop is polled every
// few million multiply-adds. Returns false when it fired.
bool sparseGramAndCross(const SparseMatrix& x, const Eigen::Ref<const Eigen::MatrixXd>& y, bool bias,
                        Eigen::MatrixXd& g, Eigen::MatrixXd& c, const StopToken& stop)
{
    const Eigen::Index n = x.rows(), d = x.cols(), db = d + (bias ? 1 : 0);
    g = Eigen::MatrixXd::Zero(db, db);
    const int* outer = x.outerIndexPtr();
    const int* inner = x.innerIndexPtr();
    const double* value = x.valuePtr();
    double work = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
        const int begin = outer[i], end = outer[i + 1];
        for (int p = begin; p < end; ++p) {
            const double v = value[p];
            double* column = g.col(inner[p]).data();
            for (int q = p; q < end; ++q) // columns increase within a row: inner[q] ≥ inner[p], the lower triangle
                column[inner[q]] += v * value[q];
            if (bias)
                g(d, inner[p]) += v;
        }
        work += 0.5 * double(end - begin) * double(end - begin) + 1.0;
        if (work > 4e6) {
            work = 0;
            if (stop.stopRequested())
                return false;
        }
    }
    if (bias)
        g(d, d) = double(n);
    c.resize(db, y.cols());
    c.topRows(d).noalias() = x.transpose() * y;
    if (bias)
        c.row(d) = y.colwise().sum();
    return !stop.stopRequested();
}

// K = [X 1][X 1]ᵀ (lower triangle), n×n, from the sparse rows without a transposed copy: the
// non-zeros sorted by (column, row) — 16 bytes each, never an array of the width — then, per
// column, every pair of its rows. Σ_c nnz_c²/2 multiply-adds, each entry summed in column order
// (the same bits for any thread count); Stop polled every few million. Returns false when it fired.
bool sparseRowGram(const SparseMatrix& x, bool bias, Eigen::MatrixXd& k, const StopToken& stop)
{
    struct Entry {
        int column;
        int row;
        double value;
    };
    const Eigen::Index n = x.rows();
    std::vector<Entry> entries;
    entries.reserve(std::size_t(x.nonZeros()));
    const int* outer = x.outerIndexPtr();
    const int* inner = x.innerIndexPtr();
    const double* value = x.valuePtr();
    for (Eigen::Index i = 0; i < n; ++i)
        for (int p = outer[i]; p < outer[i + 1]; ++p)
            entries.push_back(Entry{inner[p], int(i), value[p]});
    // Rows were pushed in increasing order: a stable sort by column keeps them so within a column.
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.column < b.column; });
    if (stop.stopRequested())
        return false;
    k = Eigen::MatrixXd::Constant(n, n, bias ? 1.0 : 0.0); // the bias column adds 1·1 to every entry
    double work = 0;
    for (std::size_t begin = 0; begin < entries.size();) {
        std::size_t end = begin + 1;
        while (end < entries.size() && entries[end].column == entries[begin].column)
            ++end;
        for (std::size_t p = begin; p < end; ++p) {
            double* column = k.col(entries[p].row).data();
            const double v = entries[p].value;
            for (std::size_t q = p; q < end; ++q) // rows increase within a column: the lower triangle
                column[entries[q].row] += v * entries[q].value;
        }
        work += 0.5 * double(end - begin) * double(end - begin) + 1.0;
        if (work > 4e6) {
            work = 0;
            if (stop.stopRequested())
                return false;
        }
        begin = end;
    }
    return !stop.stopRequested();
}

bool allFinite(const SparseMatrix& x)
{
    return Eigen::Map<const Eigen::VectorXd>(x.valuePtr(), x.nonZeros()).allFinite();
}

} // namespace

void RidgeTrainer::fitSparse(const DatasetView& data, RunContext& ctx)
{
    const SparseMatrix& x = *data.xSparse;
    if (x.rows() != data.y.rows())
        throw std::invalid_argument("linear: the sparse inputs have " + std::to_string(x.rows()) +
                                    " rows, the targets " + std::to_string(data.y.rows()));
    if (!allFinite(x) || !data.y.allFinite())
        throw std::invalid_argument("linear: the training data contain NaN or Inf");
    const Eigen::Index db = x.cols() + (m_bias ? 1 : 0);
    if (m_cgLadder.empty() && db <= kNormalEquationsMaxWidth) {
        fitSparseClosedForm(data, ctx);
        return;
    }
    // trace([X 1]ᵀ[X 1]) = ‖X‖²_F + n: what relative_ridge is relative to, as on dense data.
    const double squaredNorm = Eigen::Map<const Eigen::VectorXd>(x.valuePtr(), x.nonZeros()).squaredNorm() +
                               (m_bias ? double(x.rows()) : 0.0);
    if (m_cgLadder.empty() && usesDualForm(x.rows(), db)) {
        fitSparseDual(data, squaredNorm, ctx);
        return;
    }
    fitSparseCg(data, squaredNorm, ctx);
}

void RidgeTrainer::fitSparseClosedForm(const DatasetView& data, RunContext& ctx)
{
    const auto t0 = std::chrono::steady_clock::now();
    Eigen::MatrixXd g, c;
    if (!sparseGramAndCross(*data.xSparse, data.y, m_bias, g, c, ctx.stopToken()))
        return; // Stop: no model, the run is cancelled
    num::LeastSquaresOptions opt;
    opt.ridge = m_ridge;
    opt.relativeRidge = m_relativeRidge;
    opt.stop = ctx.stopToken();
    num::SolveReport rep;
    Eigen::MatrixXd w = num::solveNormalEquations(g, c, opt, &rep);
    if (rep.interrupted)
        return;
    rep.gramSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - rep.solveSeconds;
    m_w = std::move(w);
    ctx.record("solver", QString::fromStdString(rep.summary()) +
                             QStringLiteral(" (normal equations from the sparse rows, %1 non-zeros)")
                                 .arg(qint64(data.xSparse->nonZeros())));
    ctx.record("gram_seconds", rep.gramSeconds);
    ctx.record("solve_seconds", rep.solveSeconds);
    ctx.checkpoint(Checkpoint{1.0, std::numeric_limits<double>::quiet_NaN(),
                              rep.fallback ? QString::fromStdString(rep.summary()) : QString()});
}

void RidgeTrainer::fitSparseDual(const DatasetView& data, double squaredNorm, RunContext& ctx)
{
    const auto t0 = std::chrono::steady_clock::now();
    const SparseMatrix& x = *data.xSparse;
    const Eigen::Index n = x.rows(), d = x.cols(), db = d + (m_bias ? 1 : 0);
    // λ as on the primal paths: relative to trace(AᵀA)/(d [+1]) = trace(AAᵀ)/(d [+1]).
    double lambda = m_ridge;
    if (m_relativeRidge > 0 && db > 0)
        lambda = m_relativeRidge * squaredNorm / double(db);
    Eigen::MatrixXd k;
    if (!sparseRowGram(x, m_bias, k, ctx.stopToken()))
        return; // Stop: no model, the run is cancelled
    num::LeastSquaresOptions opt;
    opt.ridge = lambda;
    opt.stop = ctx.stopToken();
    num::SolveReport rep;
    // (AAᵀ + λI)·α = Y, then W = Aᵀα: the same W as (AᵀA + λI)⁻¹AᵀY for λ > 0, and for λ = 0 the
    // minimum-norm least-squares solution (the pseudo-inverse fallback when AAᵀ is singular).
    const Eigen::MatrixXd alpha = num::solveNormalEquations(k, data.y, opt, &rep);
    if (rep.interrupted)
        return;
    k = Eigen::MatrixXd(); // n² freed before the d×k weights are made
    // W is the one array of the width (512 MiB for 67 million columns): faulted in with Stop
    // polled (num::touchPolled), then written.
    Eigen::MatrixXd w(db, data.y.cols());
    if (!num::touchPolled(w.data(), std::size_t(w.size()) * sizeof(double), [&] { return ctx.stopRequested(); }))
        return; // Stop: no model, the run is cancelled
    w.topRows(d).noalias() = x.transpose() * alpha;
    m_w = std::move(w);
    if (m_bias)
        m_w.row(d) = alpha.colwise().sum();
    const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ctx.record("solver", QString::fromStdString(rep.summary()) +
                             QStringLiteral(" (the dual normal equations, %1 × %1, from the sparse rows: %1 rows, "
                                            "%2 columns, %3 non-zeros), λ = %4")
                                 .arg(qint64(n))
                                 .arg(qint64(db))
                                 .arg(qint64(x.nonZeros()))
                                 .arg(lambda, 0, 'g', 6));
    ctx.record("ridge_used", lambda);
    ctx.record("gram_seconds", total - rep.solveSeconds);
    ctx.record("solve_seconds", rep.solveSeconds);
    ctx.checkpoint(Checkpoint{1.0, std::numeric_limits<double>::quiet_NaN(),
                              rep.fallback ? QString::fromStdString(rep.summary()) : QString()});
}

void RidgeTrainer::fitSparseCg(const DatasetView& data, double squaredNorm, RunContext& ctx)
{
    const auto start = std::chrono::steady_clock::now();
    const SparseMatrix& x = *data.xSparse;
    const Eigen::Index db = x.cols() + (m_bias ? 1 : 0);
    double lambda = m_ridge;
    if (m_relativeRidge > 0 && db > 0)
        lambda = m_relativeRidge * squaredNorm / double(db);
    SparseCgLeastSquares cg(x, data.y, m_bias, lambda, ctx.stopToken());
    if (cg.stopped())
        return; // Stop before the first iterate: no model, the run is cancelled
    ctx.record("ridge_used", lambda);
    const double n = double(std::max<Eigen::Index>(x.rows(), 1));
    if (!m_cgLadder.empty()) {
        ctx.record("solver", QStringLiteral("conjugate gradients on the normal equations (CGLS) from 0 on the sparse "
                                            "rows, λ = %1").arg(lambda, 0, 'g', 6));
        QJsonArray residuals;
        for (const int m : m_cgLadder) {
            if (!cg.iterateTo(m))
                return; // Stop: the last checkpoint's model stays
            m_w = cg.solution();
            residuals.append(cg.relativeNormalResidual());
            ctx.record("cg_relative_residuals", residuals);
            if (ctx.checkpoint(Checkpoint{double(m), cg.objective() / n, {}}) == CheckpointAction::Stop)
                return;
        }
        return;
    }
    ctx.record("solver", QStringLiteral("conjugate gradients on the normal equations (CGLS) from 0 on the sparse rows "
                                        "(%1 columns: wider than the normal equations' %2), λ = %3, tolerance %4, at "
                                        "most %5 iterations")
                             .arg(qint64(db))
                             .arg(qint64(kNormalEquationsMaxWidth))
                             .arg(lambda, 0, 'g', 6)
                             .arg(m_cgTolerance, 0, 'g', 3)
                             .arg(m_cgMaxIterations));
    bool converged = cg.relativeNormalResidual() <= m_cgTolerance;
    bool first = true;
    while (true) {
        const int target = std::min(m_cgMaxIterations, cg.iterations() + kCgCheckpointEvery);
        // Converged columns take zero steps; stop at the first checkpoint below the tolerance.
        if (!converged) {
            while (cg.iterations() < target) {
                if (!cg.iterateTo(cg.iterations() + 1))
                    return; // Stop: the last checkpoint's model stays
                if (cg.relativeNormalResidual() <= m_cgTolerance) {
                    converged = true;
                    break;
                }
            }
        }
        m_w = cg.solution();
        if (first) { // what predictCost()'s "scope" covers: from the start of fit() to here
            first = false;
            ctx.record("cg_first_checkpoint_seconds",
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        ctx.record("cg_iterations", cg.iterations());
        ctx.record("cg_relative_residual", cg.relativeNormalResidual());
        ctx.record("cg_converged", converged);
        const bool last = converged || cg.iterations() >= m_cgMaxIterations;
        if (last && !converged)
            ctx.log(QStringLiteral("linear: CG stopped at its cap, iterations = %1, at relative residual "
                                   "%2 (cg_tolerance = %3); raise iterations or the ridge")
                        .arg(m_cgMaxIterations)
                        .arg(cg.relativeNormalResidual(), 0, 'g', 3)
                        .arg(m_cgTolerance, 0, 'g', 3));
        if (ctx.checkpoint(Checkpoint{double(std::max(cg.iterations(), 1)), cg.objective() / n, {}}) ==
                CheckpointAction::Stop ||
            last)
            return;
    }
}

namespace {

// x·W (+ the bias row): one rule for dense and sparse rows.
template <class Rows>
Eigen::MatrixXd applyWeights(const Eigen::MatrixXd& w, bool bias, const Rows& x)
{
    if (w.size() == 0)
        throw std::logic_error("linear: predict() called before fit() completed");
    const Eigen::Index d = w.rows() - (bias ? 1 : 0);
    if (x.cols() != d)
        throw std::invalid_argument("linear: predict() got " + std::to_string(x.cols()) + " inputs, the model has " +
                                    std::to_string(d));
    // In blocks of rows: one product of all n rows with the thin W makes Eigen pack a panel of
    // every row at once where L1 is small (kc = 400 of 784 inputs on a 32 KiB L1: a 192 MB
    // buffer for Fashion-MNIST's 60,000 rows, none on a 48 KiB L1), so the peak would depend on
    // the CPU. Rows are disjoint: the same values for any thread count.
    constexpr Eigen::Index kRows = 2048;
    Eigen::MatrixXd out(x.rows(), w.cols());
    const auto top = w.topRows(d);
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, (x.rows() + kRows - 1) / kRows, 1),
                      [&](const tbb::blocked_range<Eigen::Index>& r) {
                          for (Eigen::Index b = r.begin(); b < r.end(); ++b) {
                              const Eigen::Index r0 = b * kRows, m = std::min(kRows, x.rows() - r0);
                              out.middleRows(r0, m).noalias() = x.middleRows(r0, m) * top;
                              if (bias)
                                  out.middleRows(r0, m).rowwise() += w.row(d);
                          }
                      });
    return out;
}

} // namespace

Eigen::MatrixXd RidgeTrainer::predictSparse(const SparseMatrix& x) const
{
    return applyWeights(m_w, m_bias, x);
}

Eigen::MatrixXd RidgeTrainer::predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    return applyWeights(m_w, m_bias, x);
}

QJsonObject RidgeTrainer::predictCost(const ProblemShape& s) const
{
    const double n = double(s.rows), d = double(s.inputs + (m_bias ? 1 : 0)), k = double(s.outputs);
    if (s.isSparse()) {
        // Never n·d or d² beyond what is allocated: the non-zeros' products, and a Gram matrix
        // only on the closed-form path (d ≤ kNormalEquationsMaxWidth).
        const double nnz = double(s.nonZeros);
        const double evaluation = 8.0 * 4 * n * k; // the host's predictions and targets
        if (m_cgLadder.empty() && !(s.inputs + (m_bias ? 1 : 0) <= kNormalEquationsMaxWidth) &&
            usesDualForm(s.rows, s.inputs + (m_bias ? 1 : 0))) {
            // The non-zeros' sorted copy, K and what solveNormalEquations() holds beside it (its
            // factor, or the eigen fallback's vectors and workspace: 5 n² at most, as on the
            // primal path), α, then the weights alone. Σ_c nnz_c²/2 with every column at the
            // mean density (a lower bound when columns vary), the sort, n³/3, the solves, Aᵀα.
            const double gram = 0.5 * nnz * nnz / std::max(d, 1.0) + nnz * std::log2(std::max(nnz, 2.0));
            const double flops = gram + n * n * n / 3.0 + 2 * n * n * k + 2 * nnz * k;
            const double memory = std::max(16.0 * nnz + 8.0 * (5 * n * n + 2 * n * k), 8.0 * (d * k + n * k)) + evaluation;
            return QJsonObject{{"flops", flops},
                               {"gram_flops", gram},
                               {"factorisation_flops", n * n * n / 3.0},
                               {"memory_bytes", memory}};
        }
        if (m_cgLadder.empty() && s.inputs + (m_bias ? 1 : 0) <= kNormalEquationsMaxWidth) {
            // Σᵢ nnzᵢ²/2 with every row at the mean density (a lower bound when rows vary), the
            // cross products, the factorisation and the solves.
            const double gram = 0.5 * nnz * nnz / std::max(n, 1.0) + nnz;
            const double flops = gram + 2 * nnz * k + d * d * d / 3.0 + 2 * d * d * k;
            return QJsonObject{{"flops", flops},
                               {"gram_flops", gram},
                               {"factorisation_flops", d * d * d / 3.0},
                               {"memory_bytes", 8.0 * (5 * d * d + 2 * d * k) + evaluation}};
        }
        const double iterations = m_cgLadder.empty() ? double(m_cgMaxIterations) : double(m_cgLadder.back());
        // Xᵀ's compressed copy, CG's d×k and n×k vectors; per iteration a product with X and one
        // with Xᵀ (4·nnz·k) plus the vector updates.
        const double iteration = 4 * nnz * k + 6 * (d + n) * k;
        const double memory = double(sparseBytes(std::uint64_t(s.inputs), std::uint64_t(s.nonZeros))) +
                              8.0 * (4 * d * k + 3 * n * k) + evaluation;
        QJsonObject o{{"flops", 2 * nnz * k + iterations * iteration},
                      {"iteration_flops", iteration},
                      {"iterations", iterations},
                      {"memory_bytes", memory}};
        if (m_cgLadder.empty()) {
            // CG stops at cg_tolerance, usually long before the cap: the prediction covers what
            // is known, up to the first checkpoint, and fit() records that part's seconds.
            const double first = std::min<double>(kCgCheckpointEvery, iterations);
            o.insert("flops", 2 * nnz * k + first * iteration);
            o.insert("flops_at_cap", 2 * nnz * k + iterations * iteration);
            o.insert("scope", QStringLiteral("the first %1 CG iterations").arg(first));
            o.insert("scope_measured_key", QStringLiteral("cg_first_checkpoint_seconds"));
        }
        return o;
    }
    if (!m_cgLadder.empty()) {
        // AᵀY once, then per iteration one product with A and one with Aᵀ. Memory: the design
        // and the targets, CG's few d×k and n×k vectors, the host's evaluation.
        const double iterations = double(m_cgLadder.back());
        const double memory = 8.0 * (n * d + n * k + 6 * d * k + 2 * n * k + 4 * n * k);
        return QJsonObject{{"flops", 2 * n * d * k + iterations * 4 * n * d * k},
                           {"iteration_flops", 4 * n * d * k},
                           {"iterations", iterations},
                           {"memory_bytes", memory}};
    }
    // Gram (symmetric rank-n update: n·d² multiply-adds) + cross products + Cholesky + 2k triangular solves.
    const double flops = n * d * d + 2 * n * d * k + d * d * d / 3.0 + 2 * d * d * k;
    // Working memory, an upper bound: the design [X 1] and a copy of the targets, a Gram and
    // cross product per row chunk (one per thread, ≥ 256 rows each), the summed Gram with its
    // factor (or, for a singular one, the eigen fallback's vectors and workspace), the weights,
    // and the host's evaluation (predictions and targets of the training and test sets).
    const double chunks = std::max(1.0, std::min(double(tbb::this_task_arena::max_concurrency()), std::floor(n / 256)));
    const double memory = 8.0 * (n * d + n * k + chunks * (d * d + d * k) + 5 * d * d + 2 * d * k + 4 * n * k);
    return QJsonObject{{"flops", flops},
                       {"gram_flops", n * d * d},
                       {"factorisation_flops", d * d * d / 3.0},
                       {"memory_bytes", memory}};
}

} // namespace tb::linear
