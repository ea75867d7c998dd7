#include "BplsTrainer.h"

#include "BplsCalibration.h"

#include <trainbench/toolkit/DataChecks.h>
#include <trainbench/toolkit/Ridge.h>
#include <numerics/FirstTouch.h>
#include <numerics/LeastSquares.h>

#include <Eigen/QR>
#include <QJsonArray>
#include <QJsonObject>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>

namespace tb::bpls {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Rows per task of the forward evaluation.
constexpr Eigen::Index kEvalBlock = 4096;

// Flops charged per activation evaluation (exp/log based): a model constant, not measured.
constexpr double kActivationFlops = 20.0;

// Blend ratios tried by Blend::Search, smallest first (ties keep the smaller step).
constexpr double kBlendGrid[] = {0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0};

void checkFinite(const Eigen::Ref<const Eigen::MatrixXd>& m, const char* what)
{
    toolkit::requireFinite(m, "bpls", what);
}

std::vector<Eigen::Index> sizesOf(const BplsConfig& c, Eigen::Index d, Eigen::Index k)
{
    std::vector<Eigen::Index> s{d};
    s.insert(s.end(), c.hidden.begin(), c.hidden.end());
    s.push_back(k);
    return s;
}

// Normal equations + Cholesky + solves of one layer: A n×a (a with bias), o outputs.
double layerSolveFlops(double n, double a, double o)
{
    return n * a * (a + 1) + 2 * n * a * o + a * a * a / 3 + 2 * a * a * o;
}

} // namespace

/// A forward pass over the training rows, kept for gathering and blending.
struct BplsTrainer::Evaluation {
    Eigen::MatrixXd z0;                 ///< n × width(1): first-layer pre-activations
    std::vector<Eigen::MatrixXd> hidden; ///< hidden layer values, n × width(l), l = 1..H
    Eigen::MatrixXd out;                ///< n × k outputs
    Eigen::Index correct = 0;           ///< classify: rows whose arg-max is the label
    double loss = std::numeric_limits<double>::quiet_NaN();
};

BplsTrainer::BplsTrainer(BplsConfig config) : NetworkTrainer("bpls"), m_config(std::move(config)) {}

bool BplsTrainer::layerBias(int layer) const
{
    return layer == 0 ? m_config.bias : m_config.hiddenBias;
}

double BplsTrainer::sweepFlops(const BplsConfig& c, double rows, const std::vector<Eigen::Index>& sizes)
{
    const int layers = int(sizes.size()) - 1;
    double f = 0;
    for (int l = layers - 1; l >= 0; --l) {
        const double a = double(sizes[std::size_t(l)]) + ((l == 0 ? c.bias : c.hiddenBias) ? 1 : 0);
        const double o = double(sizes[std::size_t(l + 1)]);
        f += layerSolveFlops(rows, a, o);
        if (l > 0) {
            // residual, desired values (R·Wᵀ), inverse activation, and the optional re-solve
            f += 4 * rows * a * o + kActivationFlops * rows * double(sizes[std::size_t(l)]);
            if (c.resolve)
                f += layerSolveFlops(rows, a, o);
        }
    }
    return f;
}

double BplsTrainer::forwardFlops(const BplsConfig& c, double rows, const std::vector<Eigen::Index>& sizes)
{
    double f = 0;
    for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
        const double a = double(sizes[l]) + ((l == 0 ? c.bias : c.hiddenBias) ? 1 : 0);
        f += 2 * rows * a * double(sizes[l + 1]) + kActivationFlops * rows * double(sizes[l + 1]);
    }
    return f;
}

double BplsTrainer::workingMemoryBytes(double n, const std::vector<Eigen::Index>& sizes, int threads,
                                       train::Precision precision, bool designCopy)
{
    // In doubles, generously: every buffer below may be alive at the peak of a refinement.
    const double d1 = double(sizes.front()) + 1, k = double(sizes.back()), t = std::max(1, threads);
    const double h1 = sizes.size() > 2 ? double(sizes[1]) : k; // the first layer's pre-activations
    double hidden = 0, widest = k, widestIn = d1, weights = 0;
    for (std::size_t l = 1; l < sizes.size(); ++l) {
        if (l + 1 < sizes.size())
            hidden += double(sizes[l]);
        widest = std::max(widest, double(sizes[l]));
        widestIn = std::max(widestIn, double(sizes[l - 1]) + 1);
        weights += (double(sizes[l - 1]) + 1) * double(sizes[l]);
    }
    // Rows held n times: the design [X 1] in its precision (floats in mixed precision, counted
    // here as half a double; not at all when it only references X) and its refinement subsets —
    // the misses and the rows that entered or left them, fewer than the misses, so ≤ 2n rows;
    // the output targets, the sub-problem's targets; three evaluations (current, candidate,
    // best: first layer's pre-activations, every hidden layer, outputs); the sweep's targets,
    // desired values and their pre-activations; the misclassified rows' hidden values and
    // pre-activations.
    const double entry = precision == train::Precision::Mixed ? 0.5 : 1.0;
    const double design = entry * d1 * ((designCopy ? 1 : 0) + 2);
    const double perRow = design + 2 * k + 3 * (h1 + hidden + k) + 3 * widest + hidden + h1;
    // Normal equations: the Gram and cross products per thread and summed, the factor, the
    // eigen fallback; the weights (current, best, new); the host's evaluation: Mlp::predict()'s
    // values and deltas of up to 2048 rows per thread, predictions and targets of both sets.
    const double solves = widestIn * widestIn * (t + 6) + widestIn * widest * (t + 2);
    const double evaluation = t * std::min(n, 2048.0) * (2 * (hidden + k) + k) + 4 * n * k;
    return 8.0 * (n * perRow + solves + 3 * weights + evaluation);
}

QJsonObject BplsTrainer::predictCost(const ProblemShape& shape) const
{
    const auto sizes = sizesOf(m_config, shape.inputs, shape.outputs);
    const double n = double(shape.rows);
    QJsonArray steps;
    const int layers = int(sizes.size()) - 1;
    for (int l = layers - 1; l >= 0; --l) {
        const double a = double(sizes[std::size_t(l)]) + (layerBias(l) ? 1 : 0);
        const double o = double(sizes[std::size_t(l + 1)]);
        steps.append(QJsonObject{{"layer", l},
                                 {"gram_flops", n * a * (a + 1) * ((l > 0 && m_config.resolve) ? 2 : 1)},
                                 {"cross_flops", 2 * n * a * o * ((l > 0 && m_config.resolve) ? 2 : 1)},
                                 {"factorisation_flops", a * a * a / 3 * ((l > 0 && m_config.resolve) ? 2 : 1)},
                                 {"solve_flops", 2 * a * a * o * ((l > 0 && m_config.resolve) ? 2 : 1)}});
    }
    const double sweep = sweepFlops(m_config, n, sizes);
    const double forward = forwardFlops(m_config, n, sizes);
    // Initial forward (random net), the sweep, and the forward that evaluates it.
    const double total = sweep + 2 * forward;
    QJsonObject o{{"flops", total},
                  {"sweep_flops", sweep},
                  {"forward_flops", forward},
                  {"steps", steps},
                  {"memory_bytes", workingMemoryBytes(n, sizes, tbb::this_task_arena::max_concurrency(),
                                                      m_config.gramPrecision,
                                                      m_config.gramPrecision == train::Precision::Mixed ||
                                                          m_config.standardise)}};
    if (m_config.classify) {
        o.insert("refinement_flops_per_missed_row", sweepFlops(m_config, 1.0, sizes));
        // Refinement iterations depend on the misses, known only as they happen (each is
        // predicted then, "refinement_predicted_seconds"): the host compares the first sweep.
        o.insert("scope", "first sweep");
        o.insert("scope_measured_key", "first_sweep_measured_seconds");
    }
    const double rate = BplsCalibration::rate(m_config.gramPrecision == GramPrecision::Mixed);
    if (rate > 0)
        o.insert("predicted_seconds", total / rate);
    return o;
}

Eigen::MatrixXd BplsTrainer::outputTargets(const Eigen::Ref<const Eigen::MatrixXd>& y) const
{
    const double eps = m_config.epsilon;
    const num::Activation out = m_config.outputActivation;
    Eigen::MatrixXd b(y.rows(), y.cols());
    if (m_config.classify && out == num::Activation::Softmax) {
        const double k = double(y.cols());
        switch (m_config.encoding) {
        case TargetEncoding::SmoothedLog:
            b = ((1.0 - eps) * y.array() + eps / (k - 1) * (1.0 - y.array())).log().matrix();
            return b;
        case TargetEncoding::ClippedLog:
            num::activationInverse(num::Activation::Softmax, y, b, eps);
            return b;
        case TargetEncoding::OneHot:
            b = y;
            return b;
        }
    }
    num::activationInverse(out, y, b, eps);
    return b;
}

double BplsTrainer::relativeResidual(const Eigen::MatrixXd& g, const Eigen::MatrixXd& c, double targetNorm2,
                                     const Eigen::MatrixXd& w)
{
    if (!(targetNorm2 > 0))
        return 0.0;
    // Only the lower triangle is read, as by the solver. Cost a²·o: nothing next to the Gram.
    // The terms cancel down to the residual, so rounding in G and C (≈ ε‖B‖²) limits its
    // resolution to ≈ √ε ≈ 1e-8 relative; extended precision here would not lower that floor.
    const Eigen::MatrixXd gw = g.selfadjointView<Eigen::Lower>() * w;
    const double r2 = targetNorm2 - 2.0 * (w.array() * c.array()).sum() + (w.array() * gw.array()).sum();
    return std::sqrt(std::max(r2, 0.0) / targetNorm2);
}

num::LeastSquaresOptions BplsTrainer::solveOptions(RunContext& ctx) const
{
    num::LeastSquaresOptions opt;
    opt.ridge = m_gramRidge;
    opt.relativeRidge = m_config.relativeRidge;
    opt.stop = ctx.stopToken();  // large factorisations poll it between column blocks
    return opt;
}

Eigen::MatrixXd BplsTrainer::solve(const Eigen::MatrixXd& g, const Eigen::MatrixXd& c, double targetNorm2, int layer,
                                   bool bias, const char* phase, RunContext& ctx, const num::NormalEquationsFactor* factor)
{
    const auto t0 = Clock::now();
    num::SolveReport rep;
    Eigen::MatrixXd w;
    if (factor) {
        rep = factor->report();
        if (!factor->isFactorised())
            return Eigen::MatrixXd::Zero(g.rows(), c.cols()); // interrupted: discarded by the caller
        if (!c.allFinite())
            throw std::invalid_argument("least squares: the data contain NaN or Inf");
        w = factor->solve(c);
    } else {
        w = num::solveNormalEquations(g, c, solveOptions(ctx), &rep);
    }
    if (rep.interrupted)
        return w;  // meaningless: the caller sees ctx.stopRequested() and discards it
    const bool finiteCond = std::isfinite(rep.conditionEstimate);
    m_layerSolves.append(QJsonObject{
        {"layer", layer},
        {"phase", QString::fromLatin1(phase)},
        {"method", rep.method == num::SolveReport::Method::Cholesky ? "cholesky" : "eigen-pinv"},
        {"rank", qint64(rep.rank)},
        {"dimension", qint64(rep.dimension)},
        // JSON has no infinity: null stands for an infinite estimate (rank < dimension).
        {"cond", finiteCond ? QJsonValue(rep.conditionEstimate) : QJsonValue(QJsonValue::Null)},
        {"ridge", rep.ridgeUsed},
        {"fallback", rep.fallback},
        {"reason", QString::fromStdString(rep.reason)},
        {"residual", relativeResidual(g, c, targetNorm2, w)}});
    m_history.solveSeconds += since(t0); // the residual's a²·o product counts as solve time
    if (rep.fallback) {
        ++m_history.fallbacks;
        const QString msg = QStringLiteral("bpls: layer %1 %2: %3")
                                .arg(layer)
                                .arg(QString::fromLatin1(phase), QString::fromStdString(rep.summary()));
        ctx.log(msg);
        if (m_history.fallbacks <= 20)
            ctx.record(QStringLiteral("fallback_%1").arg(m_history.fallbacks), msg);
    }
    if (bias)
        return w;
    // No bias column was used: the layer's bias row (if the net has one) stays zero.
    Eigen::MatrixXd full = Eigen::MatrixXd::Zero(m_work.weightRows(layer), w.cols());
    full.topRows(w.rows()) = w;
    return full;
}

Eigen::MatrixXd BplsTrainer::desiredValues(TargetRule rule, const Eigen::Ref<const Eigen::MatrixXd>& n,
                                           const Eigen::MatrixXd& w, const Eigen::Ref<const Eigen::MatrixXd>& b,
                                           bool bias)
{
    const Eigen::Index h = n.cols();
    const auto wh = w.topRows(h);
    Eigen::MatrixXd r = b - n * wh;
    if (bias && w.rows() > h)
        r.rowwise() -= w.row(h);
    switch (rule) {
    case TargetRule::PerNeuron: {
        // n̂_i = n_i + Σ_j w_ij r_j / Σ_j w_ij²; a neuron with no outgoing weight keeps its value.
        Eigen::VectorXd inv = wh.rowwise().squaredNorm();
        for (Eigen::Index i = 0; i < h; ++i)
            inv(i) = inv(i) > 0 ? 1.0 / inv(i) : 0.0;
        Eigen::MatrixXd step = r * wh.transpose();
        return n + step * inv.asDiagonal();
    }
    case TargetRule::Joint: {
        const Eigen::MatrixXd pinv = Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(wh).pseudoInverse();
        Eigen::MatrixXd target = b;
        if (bias && w.rows() > h)
            target.rowwise() -= w.row(h);
        return target * pinv;
    }
    case TargetRule::JointDelta: {
        const Eigen::MatrixXd pinv = Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(wh).pseudoInverse();
        return n + r * pinv;
    }
    }
    return n;
}

bool BplsTrainer::sweep(const train::DesignMatrix& in, const Eigen::MatrixXd& targets, const std::vector<Eigen::MatrixXd>& hidden,
                        std::vector<Eigen::MatrixXd>& w, RunContext& ctx, const Eigen::MatrixXd* firstGram)
{
    const int layers = m_work.layerCount();
    w.assign(std::size_t(layers), Eigen::MatrixXd());
    m_layerSolves = QJsonArray();
    // A refinement's first-layer Gram is known before the sweep starts: its factorisation
    // (serial below kBlockedCholeskyMin, ~d³/3 flops) runs on one worker while the hidden layers
    // and the cross product use the rest of the arena, instead of leaving a core idle after them.
    // Same factorisation of the same matrix, so the same bits.
    num::NormalEquationsFactor firstFactor;
    tbb::task_group factorising;
    struct WaitOnExit {
        tbb::task_group& group;
        ~WaitOnExit()
        {
            try {
                group.wait();
            } catch (...) { // an early return (Stop) discards the factor and any error with it
            }
        }
    } waitOnExit{factorising};
    if (firstGram) {
        const num::LeastSquaresOptions opt = solveOptions(ctx);
        factorising.run([&firstFactor, firstGram, opt] { firstFactor.factorise(*firstGram, opt); });
    }
    Eigen::MatrixXd b = targets;
    Eigen::MatrixXd g, c;
    for (int l = layers - 1; l >= 1; --l) {
        if (ctx.stopRequested())
            return false;
        const auto t0 = Clock::now();
        const double solveBefore = m_history.solveSeconds;
        const bool bias = layerBias(l);
        const Eigen::MatrixXd& a = hidden[std::size_t(l - 1)];
        train::DesignMatrix::augmentedNormalEquations(a, b, bias, g, c, ctx.stopToken());
        if (ctx.stopRequested())
            return false;
        const double bNorm2 = b.squaredNorm(); // a pass over the o target columns, not over A
        const Eigen::MatrixXd wTilde = solve(g, c, bNorm2, l, bias, "initial solve", ctx);
        if (ctx.stopRequested())
            return false;
        // Desired values, clipped into the activation's range, and their pre-activations:
        // row-independent, so computed on row blocks in parallel.
        const num::Activation act = m_work.activation(l - 1);
        const num::ClipRange range = num::activationClipRange(act, m_config.epsilon);
        const Eigen::Index rows = a.rows();
        Eigen::MatrixXd nHat(rows, a.cols()), bNext(rows, a.cols());
        const Eigen::Index blocks = (rows + kEvalBlock - 1) / kEvalBlock;
        tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, blocks, 1), [&](const tbb::blocked_range<Eigen::Index>& r) {
            for (Eigen::Index bI = r.begin(); bI < r.end(); ++bI) {
                const Eigen::Index r0 = bI * kEvalBlock, m = std::min(kEvalBlock, rows - r0);
                auto nb = nHat.middleRows(r0, m);
                nb = desiredValues(m_config.targetRule, a.middleRows(r0, m), wTilde, b.middleRows(r0, m), bias)
                         .cwiseMax(range.lo)
                         .cwiseMin(range.hi);
                num::activationInverse(act, nb, bNext.middleRows(r0, m), m_config.epsilon);
            }
        });
        if (m_config.resolve) {
            train::DesignMatrix::augmentedNormalEquations(nHat, b, bias, g, c, ctx.stopToken());
            if (ctx.stopRequested())
                return false;
            w[std::size_t(l)] = solve(g, c, bNorm2, l, bias, "re-solve from desired values", ctx);
            if (ctx.stopRequested())
                return false;
        } else {
            w[std::size_t(l)] = wTilde;
        }
        b = std::move(bNext);
        m_history.hiddenSeconds += since(t0) - (m_history.solveSeconds - solveBefore);
    }
    if (ctx.stopRequested())
        return false;
    auto t0 = Clock::now();
    if (firstGram) {
        c = in.cross(b, layerBias(0));
    } else {
        in.normalEquations(b, layerBias(0), g, c);
        m_history.gramRowsDirect += in.rows();
    }
    m_history.gramSeconds += since(t0);
    if (in.stopped())
        return false;
    if (firstGram) {
        t0 = Clock::now();
        factorising.wait(); // rethrows a factorisation error (e.g. a non-finite Gram)
        m_history.solveSeconds += since(t0); // the part of the factorisation not hidden
        w[0] = solve(*firstGram, c, b.squaredNorm(), 0, layerBias(0), "first layer", ctx, &firstFactor);
    } else {
        w[0] = solve(g, c, b.squaredNorm(), 0, layerBias(0), "first layer", ctx);
    }
    return !ctx.stopRequested();
}

// With blendFrom/blendTo, ev.z0 is first set to (1 − ratio)·blendFrom + ratio·blendTo, block by
// block inside the same parallel loop.
void BplsTrainer::evaluate(Evaluation& ev, const std::vector<Eigen::MatrixXd>& w,
                           const Eigen::Ref<const Eigen::MatrixXd>& y, const Eigen::MatrixXd* blendFrom,
                           const Eigen::MatrixXd* blendTo, double ratio)
{
    const auto t0 = Clock::now();
    if (blendFrom)
        ev.z0.resize(blendFrom->rows(), blendFrom->cols());
    const Eigen::MatrixXd& z0 = ev.z0;
    const Eigen::Index n = z0.rows();
    const int layers = m_work.layerCount();
    // Buffers keep their storage between calls (no page faults on every refinement).
    ev.hidden.resize(std::size_t(layers - 1));
    for (int l = 1; l < layers; ++l)
        ev.hidden[std::size_t(l - 1)].resize(n, m_work.width(l));
    ev.out.resize(n, m_work.outputs());
    ev.correct = 0;
    // Each block below writes a row block of every column: fault fresh buffers in first, in
    // pieces Stop can end between (FirstTouch.h), and poll it per block. A stopped evaluation
    // is incomplete: callers check Stop before using it.
    const auto stopped = [this] { return m_stop.stopRequested(); };
    for (Eigen::MatrixXd& h : ev.hidden)
        if (!num::touchPolled(h.data(), std::size_t(h.size()) * sizeof(double), stopped))
            return;
    if (!num::touchPolled(ev.out.data(), std::size_t(ev.out.size()) * sizeof(double), stopped))
        return;
    if (blendFrom && !num::touchPolled(ev.z0.data(), std::size_t(ev.z0.size()) * sizeof(double), stopped))
        return;
    const Eigen::Index blocks = (n + kEvalBlock - 1) / kEvalBlock;
    const bool classify = m_config.classify;
    struct Partial {
        Eigen::Index correct = 0;
        double loss = 0;
    };
    // Per-block partials summed in block order: deterministic for any thread count.
    std::vector<Partial> partial(static_cast<std::size_t>(blocks));
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, blocks, 1), [&](const tbb::blocked_range<Eigen::Index>& r) {
        Eigen::MatrixXd z;
        for (Eigen::Index bI = r.begin(); bI < r.end(); ++bI) {
            if (stopped())
                return;
            const Eigen::Index r0 = bI * kEvalBlock, m = std::min(kEvalBlock, n - r0);
            if (blendFrom)
                ev.z0.middleRows(r0, m) = (1.0 - ratio) * blendFrom->middleRows(r0, m) + ratio * blendTo->middleRows(r0, m);
            for (int l = 0; l < layers; ++l) {
                auto dst = (l == layers - 1) ? ev.out.middleRows(r0, m) : ev.hidden[std::size_t(l)].middleRows(r0, m);
                if (l == 0) {
                    num::activationApply(m_work.activation(0), z0.middleRows(r0, m), dst);
                    continue;
                }
                const auto prev = ev.hidden[std::size_t(l - 1)].middleRows(r0, m);
                const Eigen::MatrixXd& wl = w[std::size_t(l)];
                const Eigen::Index in = m_work.width(l);
                z.noalias() = prev * wl.topRows(in);
                if (m_work.bias(l))
                    z.rowwise() += wl.row(in);
                num::activationApply(m_work.activation(l), z, dst);
            }
            Partial& p = partial[std::size_t(bI)];
            const auto out = ev.out.middleRows(r0, m);
            for (Eigen::Index i = 0; i < m; ++i) {
                if (classify) {
                    Eigen::Index arg = 0;
                    out.row(i).maxCoeff(&arg);
                    const int label = m_labels[std::size_t(r0 + i)];
                    p.correct += (arg == label) ? 1 : 0;
                    if (m_config.outputActivation == num::Activation::Softmax)
                        p.loss -= std::log(std::max(out(i, label), 1e-300));
                    else
                        p.loss += (out.row(i) - y.row(r0 + i)).squaredNorm();
                } else {
                    p.loss += (out.row(i) - y.row(r0 + i)).squaredNorm();
                }
            }
        }
    });
    double loss = 0;
    for (const auto& p : partial) {
        ev.correct += p.correct;
        loss += p.loss;
    }
    ev.loss = n > 0 ? loss / double(n) : 0.0;
    m_history.forwardSeconds += since(t0);
}

void BplsTrainer::publish(const train::DesignMatrix& in)
{
    m_net = m_work;
    if (in.scale().size() == 0)
        return;
    // Fold the standardisation into the first layer: x_s = (x − μ)/s.
    Eigen::MatrixXd w0 = m_work.weights(0);
    const Eigen::Index d = in.cols();
    for (Eigen::Index i = 0; i < d; ++i)
        w0.row(i) /= in.scale()(i);
    if (m_work.bias(0))
        w0.row(d) -= in.mean().transpose() * w0.topRows(d);
    m_net.setWeights(0, w0);
}

/// What every step of a fit reads: the training set, its inputs in the working precision, the
/// output layer's targets, the layer sizes and the calibrated GEMM rate (0: none).
struct BplsTrainer::Problem {
    const DatasetView& data;
    const train::DesignMatrix& in;
    const Eigen::MatrixXd& targets;
    std::vector<Eigen::Index> sizes;
    double rate = 0;
    Eigen::Index rows() const { return data.rows(); }
};

/// The state the refinement iterations carry from one to the next.
struct BplsTrainer::Refinement {
    std::vector<Eigen::MatrixXd> bestW, curW; ///< the weights kept so far, and the current iterate's
    double bestLoss = 0;
    Eigen::Index bestCorrect = 0, prevCorrect = 0;
    std::vector<Eigen::Index> miss, prevMiss, added, removed; ///< this and the last miss set, their change
    Eigen::MatrixXd missGram, z0Miss; ///< the miss set's first-layer Gram; its sweep's first products
    train::DesignMatrix sub, delta;   ///< the miss rows, the rows that changed (storage reused)
    Evaluation cand, best;            ///< a blend being tried, the best blend so far
    CheckpointAction action = CheckpointAction::Continue;
};

void BplsTrainer::checkTrainingSet(const DatasetView& data) const
{
    const Eigen::Index n = data.rows(), d = data.inputs(), k = data.outputs();
    const char* algo = m_config.classify ? "bpls.classify" : "bpls.regress";
    if (n == 0 || d == 0 || k == 0)
        throw std::invalid_argument(std::string(algo) + ": empty training set (" + std::to_string(n) + " rows, " +
                                    std::to_string(d) + " inputs, " + std::to_string(k) + " outputs)");
    if (data.y.rows() != n)
        throw std::invalid_argument(std::string(algo) + ": inputs have " + std::to_string(n) + " rows, targets " +
                                    std::to_string(data.y.rows()));
    checkFinite(data.y, "targets");
    if (m_config.classify) {
        if (!data.isClassification())
            throw std::invalid_argument("bpls.classify: needs classification data (one-hot targets); use bpls.regress "
                                        "for regression");
        if (k < 2)
            throw std::invalid_argument("bpls.classify: needs at least 2 classes, the data have " + std::to_string(k));
    }
}

void BplsTrainer::initNetwork(const std::vector<Eigen::Index>& sizes, std::uint64_t seed)
{
    // The Mlp has one bias flag; a disabled layer bias is a bias row held at zero.
    std::vector<num::Activation> acts(m_config.hidden.size(), m_config.hiddenActivation);
    acts.push_back(m_config.outputActivation);
    const bool netBias = m_config.bias || (m_config.hiddenBias && !m_config.hidden.empty());
    m_work = num::Mlp(sizes, acts, netBias);
    m_work.initUniform(deriveSeed(seed, 0), m_config.initLow, m_config.initHigh);
    std::vector<Eigen::MatrixXd> w = m_work.allWeights();
    if (netBias)
        for (int l = 0; l < m_work.layerCount(); ++l)
            if (!layerBias(l))
                w[std::size_t(l)].row(m_work.width(l)).setZero();
    m_work.setAllWeights(w);
}

void BplsTrainer::setLabels(const Eigen::Ref<const Eigen::MatrixXd>& y)
{
    m_labels.clear();
    if (!m_config.classify)
        return;
    m_labels.resize(std::size_t(y.rows()));
    for (Eigen::Index i = 0; i < y.rows(); ++i) {
        Eigen::Index arg = 0;
        y.row(i).maxCoeff(&arg);
        m_labels[std::size_t(i)] = int(arg);
    }
}

double BplsTrainer::recordPrediction(RunContext& ctx, double rows, const std::vector<Eigen::Index>& sizes)
{
    // The deterministic part's cost, from flops and a calibrated GEMM rate.
    const double rate = BplsCalibration::rate(m_config.gramPrecision == GramPrecision::Mixed);
    m_history.predictedFlops = sweepFlops(m_config, rows, sizes) + 2 * forwardFlops(m_config, rows, sizes);
    m_history.predictedSeconds = rate > 0 ? m_history.predictedFlops / rate : 0;
    ctx.record("network", QString::fromStdString(m_work.describe()));
    ctx.record("predicted_flops", m_history.predictedFlops);
    ctx.record("predicted_seconds", m_history.predictedSeconds);
    ctx.record("calibrated_gflops", rate / 1e9);
    return rate;
}

void BplsTrainer::firstProduct(const train::DesignMatrix& in, const Eigen::MatrixXd& w0, Eigen::MatrixXd& z)
{
    const auto t = Clock::now();
    in.product(w0, m_work.bias(0), z);
    m_history.forwardSeconds += since(t);
}

bool BplsTrainer::firstSweep(const Problem& p, Evaluation& cur, RunContext& ctx)
{
    // Algorithm line 2: the random network's layer values.
    firstProduct(p.in, m_work.weights(0), cur.z0);
    if (!p.in.stopped())
        evaluate(cur, m_work.allWeights(), p.data.y);
    if (p.in.stopped() || ctx.stopRequested())
        return false;
    std::vector<Eigen::MatrixXd> wNew;
    if (!sweep(p.in, p.targets, cur.hidden, wNew, ctx))
        return false;
    firstProduct(p.in, wNew[0], cur.z0);
    if (p.in.stopped())
        return false;
    m_work.setAllWeights(wNew);
    evaluate(cur, wNew, p.data.y);
    if (ctx.stopRequested())
        return false;
    publish(p.in);
    return true;
}

CheckpointAction BplsTrainer::checkpointFirstSweep(const Evaluation& cur, Eigen::Index n, RunContext& ctx)
{
    QString note = QStringLiteral("backward sweep: %1 fallback(s)").arg(m_history.fallbacks);
    if (m_config.classify) {
        m_history.trainAccuracy.push_back(double(cur.correct) / double(n));
        m_history.misses.push_back(n - cur.correct);
        note += QStringLiteral(", %1 misses").arg(n - cur.correct);
    }
    m_history.bestEpoch = 1;
    m_history.epochs = 1;
    ctx.record(QStringLiteral("layer_solves"), m_layerSolves);
    return ctx.checkpoint(Checkpoint{1.0, cur.loss, note});
}

void BplsTrainer::refine(const Problem& p, Evaluation& cur, CheckpointAction action, RunContext& ctx)
{
    Refinement r;
    r.bestW = m_work.allWeights();
    r.curW = r.bestW;
    r.bestLoss = cur.loss;
    r.bestCorrect = r.prevCorrect = cur.correct;
    r.action = action;
    for (int tau = 1; tau <= m_config.tauMax; ++tau) {
        if (ctx.stopRequested()) {
            m_history.stopped = true;
            break;
        }
        if (!refineOnce(p, tau, cur, r, ctx))
            break;
    }
    restoreBest(p, r, ctx);
}

bool BplsTrainer::gatherMisses(const Problem& p, const Evaluation& cur, Refinement& r,
                               Eigen::MatrixXd& subTargets, std::vector<Eigen::MatrixXd>& subHidden)
{
    const auto t0 = Clock::now();
    r.miss.clear();
    for (Eigen::Index i = 0; i < p.rows(); ++i) {
        Eigen::Index arg = 0;
        cur.out.row(i).maxCoeff(&arg);
        if (arg != m_labels[std::size_t(i)])
            r.miss.push_back(i);
    }
    if (r.miss.empty())
        return false;
    r.sub.assignSubset(p.in, r.miss);
    const Eigen::Index m = Eigen::Index(r.miss.size());
    subTargets.resize(m, p.data.outputs());
    subHidden.assign(cur.hidden.size(), Eigen::MatrixXd());
    for (std::size_t l = 0; l < cur.hidden.size(); ++l)
        subHidden[l].resize(m, cur.hidden[l].cols());
    for (Eigen::Index i = 0; i < m; ++i) {
        subTargets.row(i) = p.targets.row(r.miss[std::size_t(i)]);
        for (std::size_t l = 0; l < cur.hidden.size(); ++l)
            subHidden[l].row(i) = cur.hidden[l].row(r.miss[std::size_t(i)]);
    }
    m_history.gatherSeconds += since(t0);
    return true;
}

void BplsTrainer::updateMissGram(const train::DesignMatrix& in, Refinement& r)
{
    // Consecutive miss sets overlap heavily: update the previous miss Gram by the rows that
    // entered and left when that is cheaper than recomputing it (exact algebra).
    const auto t0 = Clock::now();
    r.added.clear();
    r.removed.clear();
    std::set_difference(r.miss.begin(), r.miss.end(), r.prevMiss.begin(), r.prevMiss.end(),
                        std::back_inserter(r.added));
    std::set_difference(r.prevMiss.begin(), r.prevMiss.end(), r.miss.begin(), r.miss.end(),
                        std::back_inserter(r.removed));
    if (!r.prevMiss.empty() && r.added.size() + r.removed.size() < r.miss.size()) {
        if (!r.added.empty()) {
            r.delta.assignSubset(in, r.added);
            r.missGram += r.delta.gram(layerBias(0));
        }
        if (!r.removed.empty()) {
            r.delta.assignSubset(in, r.removed);
            r.missGram -= r.delta.gram(layerBias(0));
        }
        m_history.gramRowsUpdated += Eigen::Index(r.added.size() + r.removed.size());
    } else {
        r.missGram = r.sub.gram(layerBias(0));
        m_history.gramRowsDirect += r.sub.rows();
    }
    std::swap(r.prevMiss, r.miss);
    m_history.gramSeconds += since(t0);
}

double BplsTrainer::iterationSeconds(const Problem& p, Eigen::Index m, Eigen::Index gramRowsBefore) const
{
    // The sweep over m rows (its first-layer Gram replaced by the rows actually added to or
    // removed from the miss Gram) and one first-layer product over all n rows, plus the forward
    // tails.
    const double n = double(p.rows());
    const double a0 = double(p.data.inputs()) + (layerBias(0) ? 1 : 0);
    const double gramRows = double(m_history.gramRowsUpdated + m_history.gramRowsDirect - gramRowsBefore);
    const double flops = sweepFlops(m_config, double(m), p.sizes) - double(m) * a0 * (a0 + 1) +
                         gramRows * a0 * (a0 + 1) + forwardFlops(m_config, n, p.sizes);
    return p.rate > 0 ? flops / p.rate : 0;
}

std::vector<Eigen::MatrixXd> BplsTrainer::blendBest(const Problem& p, const Evaluation& cur,
                                                    const std::vector<Eigen::MatrixXd>& wMiss, Eigen::Index m,
                                                    Refinement& r, double& ratio)
{
    std::vector<double> ratios;
    if (m_config.blend == Blend::MissRatio)
        ratios = {double(m) / double(p.rows())};
    else if (m_config.blend == Blend::Replace)
        ratios = {1.0};
    else
        ratios.assign(std::begin(kBlendGrid), std::end(kBlendGrid));
    std::vector<Eigen::MatrixXd> nextW;
    for (double b : ratios) {
        const auto t0 = Clock::now();
        std::vector<Eigen::MatrixXd> wr(r.curW.size());
        for (std::size_t l = 0; l < r.curW.size(); ++l)
            wr[l] = (1.0 - b) * r.curW[l] + b * wMiss[l];
        m_history.blendSeconds += since(t0);
        // [X 1]·W is linear in W: blend the first-layer products instead of recomputing.
        evaluate(r.cand, wr, p.data.y, &cur.z0, &r.z0Miss, b);
        if (m_stop.stopRequested())
            break; // r.cand is incomplete; refineOnce() ends on Stop
        if (nextW.empty() || r.cand.correct > r.best.correct) {
            std::swap(r.best, r.cand);
            nextW = std::move(wr);
            ratio = b;
        }
    }
    return nextW;
}

bool BplsTrainer::refineOnce(const Problem& p, int tau, Evaluation& cur, Refinement& r, RunContext& ctx)
{
    const Eigen::Index n = p.rows();
    const auto tIteration = Clock::now();
    const Eigen::Index gramRowsBefore = m_history.gramRowsUpdated + m_history.gramRowsDirect;
    Eigen::MatrixXd subTargets;
    std::vector<Eigen::MatrixXd> subHidden;
    if (!gatherMisses(p, cur, r, subTargets, subHidden)) {
        ctx.log(QStringLiteral("bpls.classify: no misclassified training rows left after epoch %1")
                    .arg(m_history.epochs));
        return false;
    }
    const Eigen::Index m = subTargets.rows();
    updateMissGram(p.in, r);
    if (p.in.stopped() || r.sub.stopped() || r.delta.stopped()) {
        m_history.stopped = true;
        return false;
    }
    // This iteration's cost is known now.
    const double iterationPredicted = iterationSeconds(p, m, gramRowsBefore);

    std::vector<Eigen::MatrixXd> wMiss;
    if (!sweep(r.sub, subTargets, subHidden, wMiss, ctx, &r.missGram)) {
        m_history.stopped = true;
        return false;
    }
    firstProduct(p.in, wMiss[0], r.z0Miss);
    if (p.in.stopped()) {
        m_history.stopped = true;
        return false;
    }
    double nextR = 0;
    std::vector<Eigen::MatrixXd> nextW = blendBest(p, cur, wMiss, m, r, nextR);
    if (m_stop.stopRequested()) {
        m_history.stopped = true;
        return false;
    }

    const int epoch = 1 + tau;
    m_history.blendRatio.push_back(nextR);
    m_history.refinementPredictedSeconds.push_back(iterationPredicted);
    m_history.refinementMeasuredSeconds.push_back(since(tIteration));
    const bool gained = r.best.correct > r.prevCorrect;
    QString cpNote = QStringLiteral("refinement %1: %2 misses fitted, r = %3, %4 misses")
                         .arg(tau)
                         .arg(m)
                         .arg(nextR, 0, 'g', 3)
                         .arg(n - r.best.correct);
    if (r.best.correct > r.bestCorrect) {
        r.bestW = nextW;
        r.bestCorrect = r.best.correct;
        r.bestLoss = r.best.loss;
        m_history.bestEpoch = epoch;
    }
    m_history.epochs = epoch;
    if (!gained && m_config.stopWhenNoGain) {
        // The paper's loop ends here; the curve shows the weights kept.
        m_work.setAllWeights(r.bestW);
        publish(p.in);
        cpNote += QStringLiteral("; no gain, kept epoch %1").arg(m_history.bestEpoch);
        m_history.trainAccuracy.push_back(double(r.bestCorrect) / double(n));
        m_history.misses.push_back(n - r.bestCorrect);
        ctx.record(QStringLiteral("layer_solves"), m_layerSolves);
        ctx.record(QStringLiteral("best_epoch"), m_history.bestEpoch);
        r.action = ctx.checkpoint(Checkpoint{double(epoch), r.bestLoss, cpNote});
        return false;
    }
    r.curW = std::move(nextW);
    std::swap(cur, r.best);
    r.prevCorrect = cur.correct;
    m_work.setAllWeights(r.curW);
    publish(p.in);
    m_history.trainAccuracy.push_back(double(cur.correct) / double(n));
    m_history.misses.push_back(n - cur.correct);
    ctx.record(QStringLiteral("layer_solves"), m_layerSolves);
    // The epoch whose weights are kept so far: a refinement that lowers the accuracy is not the
    // end model, and a live view can say so (the teaching view marks it).
    ctx.record(QStringLiteral("best_epoch"), m_history.bestEpoch);
    r.action = ctx.checkpoint(Checkpoint{double(epoch), cur.loss, cpNote});
    return r.action != CheckpointAction::Stop;
}

void BplsTrainer::restoreBest(const Problem& p, const Refinement& r, RunContext& ctx)
{
    if (m_work.allWeights() == r.bestW)
        return;
    m_work.setAllWeights(r.bestW);
    publish(p.in);
    // After a stop request the host wants no further checkpoint.
    if (m_history.stopped || r.action != CheckpointAction::Continue)
        return;
    const Eigen::Index n = p.rows();
    m_history.trainAccuracy.push_back(double(r.bestCorrect) / double(n));
    m_history.misses.push_back(n - r.bestCorrect);
    ctx.record(QStringLiteral("layer_solves"), m_layerSolves);
    ctx.record(QStringLiteral("best_epoch"), m_history.bestEpoch);
    ctx.checkpoint(
        Checkpoint{double(m_history.epochs), r.bestLoss,
                   QStringLiteral("restored the best iterate (epoch %1)").arg(m_history.bestEpoch)});
}

void BplsTrainer::recordTotals(RunContext& ctx, double firstSeconds)
{
    ctx.record("fallbacks", m_history.fallbacks);
    ctx.record("fit_seconds", m_history.totalSeconds);
    ctx.record("gram_seconds", m_history.gramSeconds);
    ctx.record("solve_seconds", m_history.solveSeconds);
    ctx.record("forward_seconds", m_history.forwardSeconds);
    if (m_config.classify) {
        QJsonArray predicted, measured;
        for (std::size_t i = 0; i < m_history.refinementMeasuredSeconds.size(); ++i) {
            predicted.append(m_history.refinementPredictedSeconds[i]);
            measured.append(m_history.refinementMeasuredSeconds[i]);
        }
        ctx.record("refinement_predicted_seconds", predicted);
        ctx.record("refinement_measured_seconds", measured);
        ctx.record("best_epoch", m_history.bestEpoch);
        ctx.record("first_iterate_train_accuracy", m_history.trainAccuracy.front());
    }
    ctx.log(QStringLiteral("%1: %2 epoch(s), predicted %3 s for the first sweep, measured %4 s; total %5 s")
                .arg(m_config.classify ? QStringLiteral("bpls.classify") : QStringLiteral("bpls.regress"))
                .arg(m_history.epochs)
                .arg(m_history.predictedSeconds, 0, 'g', 3)
                .arg(firstSeconds, 0, 'g', 3)
                .arg(m_history.totalSeconds, 0, 'g', 3));
}

void BplsTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    const auto tStart = Clock::now();
    m_history = History{};
    m_layerSolves = QJsonArray();
    m_stop = ctx.stopToken();
    checkTrainingSet(data);
    // Every layer's Gram sums the n training rows: λ = 2n·r on its diagonal.
    m_gramRidge = toolkit::gramDiagonal(m_config.ridge, m_config.gramRidge, double(data.rows()));

    // The inputs in the working precision; the copy pass also checks them for NaN/Inf.
    const auto t0 = Clock::now();
    train::DesignMatrix in(data.x, m_config.gramPrecision, m_config.standardise, m_config.bias);
    in.setStopToken(ctx.stopToken()); // the big products poll it per row block
    if (!in.allFinite())
        checkFinite(data.x, "inputs"); // throws, naming the first bad entry
    const Eigen::MatrixXd targets = outputTargets(data.y);
    m_history.inputSeconds += since(t0);

    Problem p{data, in, targets, sizesOf(m_config, data.inputs(), data.outputs())};
    initNetwork(p.sizes, ctx.seed());
    publish(in);
    setLabels(data.y);
    p.rate = recordPrediction(ctx, double(data.rows()), p.sizes);

    Evaluation cur;
    if (!firstSweep(p, cur, ctx)) {
        m_history.stopped = true;
        return;
    }
    const double firstSeconds = since(tStart);
    ctx.record("first_sweep_measured_seconds", firstSeconds);
    const CheckpointAction action = checkpointFirstSweep(cur, data.rows(), ctx);
    if (m_config.classify && action == CheckpointAction::Continue)
        refine(p, cur, action, ctx);

    m_history.totalSeconds = since(tStart);
    recordTotals(ctx, firstSeconds);
}

} // namespace tb::bpls
