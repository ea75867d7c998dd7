#include "StagewiseTrainer.h"

#include "CalibratedTrainer.h"

#include <training/TrainingLoop.h>
#include <trainbench/toolkit/RunLoopHost.h>
#include <trainbench/Seeds.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace tb::lsq {

StagewiseTrainer::StagewiseTrainer(LsqConfig config) : LsqTrainer(std::move(config)) {}

double StagewiseTrainer::modelBytes() const
{
    double b = m_map.bytes();
    for (const Stage& s : m_stages)
        b += 8.0 * double(s.w.size()) + 8.0 + 8.0 * double(s.columns.size()); // weights, the block's seed, raw_gradient's columns
    return b;
}

Eigen::Index StagewiseTrainer::extraColumns(std::size_t t, Eigen::Index k) const
{
    return m_config.flavour == Flavour::Calibrated && t > 0 ? Eigen::Index(m_config.calibrationDegree) * k : 0;
}

std::vector<train::RandomFeatures> StagewiseTrainer::maps() const
{
    if (m_config.features.gradientOrder)
        return {}; // every stage stores its columns: nothing to regenerate
    std::vector<train::RandomFeatures> out;
    out.reserve(m_stages.size());
    for (const Stage& s : m_stages)
        out.push_back(m_map.block(s.block, m_config.features.count));
    return out;
}

std::vector<Eigen::Index> StagewiseTrainer::gradientColumns(const Eigen::MatrixXd& gradient, Eigen::Index p)
{
    const Eigen::Index d = gradient.rows();
    const Eigen::VectorXd score = gradient.rowwise().squaredNorm();
    std::vector<Eigen::Index> order(static_cast<std::size_t>(d));
    std::iota(order.begin(), order.end(), Eigen::Index(0));
    // Largest ‖gradient row‖ first, ties to the lower column: a total order, so the choice is
    // the same on every machine.
    const auto before = [&](Eigen::Index a, Eigen::Index b) {
        return score(a) > score(b) || (score(a) == score(b) && a < b);
    };
    const auto cut = order.begin() + std::ptrdiff_t(std::min(p, d));
    std::nth_element(order.begin(), cut, order.end(), before);
    order.erase(cut, order.end());
    std::sort(order.begin(), order.end());
    return order;
}

Eigen::MatrixXd StagewiseTrainer::orderingResidual(const Eigen::Ref<const Eigen::MatrixXd>& y,
                                                   const Eigen::MatrixXd& outputs) const
{
    if (m_config.flavour == Flavour::Logistic) {
        Eigen::MatrixXd r = outputs;
        GlsSolver::softmaxRows(r);
        return r - y;
    }
    return y - outputs;
}

void StagewiseTrainer::train(const DatasetView& data, const Eigen::Ref<const Eigen::MatrixXd>& z, RunContext& ctx)
{
    const double fixedBytes = m_map.projects() ? 8.0 * double(z.size()) : 0.0;
    const Eigen::Index p = m_config.features.count;
    runStages(data, ctx, fixedBytes,
              [&](Eigen::Index t, const Eigen::MatrixXd& outputs, const Eigen::MatrixXd* extra, const auto& fit) {
                  const StopToken stop = ctx.stopToken();
                  if (m_config.features.gradientOrder) {
                      // The block: the p columns of z with the largest gradient Zᵀ·R.
                      const Eigen::MatrixXd gradient = z.transpose() * orderingResidual(data.y, outputs);
                      std::vector<Eigen::Index> columns = gradientColumns(gradient, p);
                      Eigen::MatrixXd selected(z.rows(), p);
                      for (Eigen::Index j = 0; j < p; ++j)
                          selected.col(j) = z.col(columns[std::size_t(j)]);
                      train::DesignMatrix design = makeDesign(selected, nullptr, extra, stop);
                      if (design.stopped())
                          return false;
                      return fit(design, design.storedBytes() + 8.0 * double(selected.size() + gradient.size()),
                                 std::move(columns));
                  }
                  const train::RandomFeatures map = m_map.block(t, p);
                  train::DesignMatrix design = makeDesign(z, &map, extra, stop);
                  if (design.stopped())
                      return false;
                  return fit(design, design.storedBytes(), std::vector<Eigen::Index>{});
              });
}

void StagewiseTrainer::trainSparse(const DatasetView& data, RunContext& ctx)
{
    const SparseMatrix& x = *data.xSparse;
    const Eigen::Index p = m_config.features.count;
    runStages(data, ctx, 0.0,
              [&](Eigen::Index t, const Eigen::MatrixXd& outputs, const Eigen::MatrixXd* extra, const auto& fit) {
                  std::vector<Eigen::Index> columns;
                  double orderingBytes = 0;
                  if (m_config.features.gradientOrder) {
                      // Xᵀ·R from the non-zeros (2·nnz·k), then the p largest rows.
                      const Eigen::MatrixXd gradient = x.transpose() * orderingResidual(data.y, outputs);
                      columns = gradientColumns(gradient, p);
                      orderingBytes = 8.0 * double(gradient.size()) + 8.0 * double(x.cols());
                  } else {
                      columns = m_map.block(t, p).subsetColumns(0, p);
                      orderingBytes = 8.0 * double(x.cols());
                  }
                  if (ctx.stopRequested())
                      return false;
                  SparseDesign design(SparseDesign::selectColumns(x, columns), extra);
                  design.setStopToken(ctx.stopToken());
                  const double bytes = design.storedBytes() + orderingBytes + 4.0 * double(x.cols());
                  // raw_subset's columns come from the block's seed: the model stores the seed alone.
                  if (!m_config.features.gradientOrder)
                      columns.clear();
                  return fit(design, bytes, std::move(columns));
              });
}

template <class MakeStage>
void StagewiseTrainer::runStages(const DatasetView& data, RunContext& ctx, double fixedBytes, const MakeStage& makeStage)
{
    m_stages.clear();
    if (m_config.flavour == Flavour::Logistic && !m_classification)
        throw std::invalid_argument("lsq: parameter \"flavour\" = logistic needs a classification data set; use linear "
                                    "or calibrated for regression");
    const StopToken stop = ctx.stopToken();
    const Eigen::Index n = data.rows(), k = data.outputs(), p = m_config.features.count;
    const Link link = m_config.flavour == Flavour::Logistic ? Link::Softmax : Link::Identity;
    const Eigen::Index inner = m_config.flavour == Flavour::Logistic ? m_config.iterations : 1;
    Eigen::MatrixXd outputs = Eigen::MatrixXd::Zero(n, k); // Ŷ: running outputs (logits for logistic)
    QJsonArray featureCounts, solves;
    for (auto it = m_facts.begin(); it != m_facts.end(); ++it)
        ctx.record(it.key(), it.value());
    fixedBytes += 4.0 * 8.0 * double(n) * double(k);
    // The algorithm: one stage (a block of features and its fit); the loop polls Stop and
    // checkpoints after each.
    train::TrainingLoop::Hooks hooks;
    hooks.step = [&](const train::LoopPosition& at) {
        const Eigen::Index t = at.step - 1;
        const train::StepResult stopped{0, 1, true};
        const Eigen::Index e = extraColumns(std::size_t(t), k);
        Eigen::MatrixXd extra;
        if (e > 0)
            extra = CalibratedTrainer::basis(outputs, m_config.calibrationDegree, false);
        double loss = 0;
        // Fits stage t on @p design (its own bytes @p designBytes), the block's columns @p columns
        // (raw_gradient) stored with it.
        const auto fit = [&](const auto& design, double designBytes, std::vector<Eigen::Index> columns) {
            GlsSettings s = glsSettings(link, inner, deriveSeed(ctx.seed(), train::FeatureMap::kSigmaStream + 1000 * std::uint64_t(t)));
            if (design.precision() != train::Precision::Mixed)
                s.ridgeFloor = 0.0; // no float Gram to guard against
            s.spectrum = m_config.recordSpectrum && t == 0;
            // linear: the residual Y − Ŷ through the offset; logistic: the running logits;
            // calibrated: Ŷ enters as features instead.
            const Eigen::MatrixXd* offset = m_config.flavour == Flavour::Calibrated ? nullptr : &outputs;
            Eigen::MatrixXd w, zw;
            GlsSolver solver;
            const bool done = solver.fit(design, data.y, offset, s, stop,
                                         [&](Eigen::Index, const Eigen::MatrixXd& wi, const Eigen::MatrixXd& zi, double obj) {
                                             w = wi;
                                             zw = zi;
                                             loss = obj;
                                             return !ctx.stopRequested();
                                         });
            if (!done || ctx.stopRequested() || w.size() == 0)
                return false;
            noteMemory(fixedBytes + designBytes + 8.0 * double(extra.size()) + solver.report().peakBytes);
            QJsonObject solve;
            reportSolve(solver.report(), QStringLiteral("stage %1").arg(t + 1), ctx, &solve);
            solve.insert("stage", qint64(t + 1));
            if (solves.size() < 100)
                solves.append(solve);
            if (s.spectrum && solver.report().spectrum.size() > 0)
                ctx.record(QStringLiteral("feature_spectrum"), spectrumFact(solver.report().spectrum));
            m_stages.push_back(Stage{t, std::move(w), std::move(columns)});
            outputs = std::move(zw);
            return true;
        };
        if (!makeStage(t, outputs, e > 0 ? &extra : nullptr, fit))
            return stopped;
        Eigen::MatrixXd shown = outputs;
        if (link == Link::Softmax)
            GlsSolver::softmaxRows(shown);
        publishTrainingOutputs(shown);
        featureCounts.append(qint64((t + 1) * p));
        ctx.record(QStringLiteral("feature_counts"), featureCounts);
        ctx.record(QStringLiteral("features"), qint64((t + 1) * p));
        ctx.record(QStringLiteral("stage_solves"), solves);
        return train::StepResult{loss, 1, false};
    };
    RunLoopHost host(ctx);
    train::TrainingLoop(host).run(train::TrainingLoop::epochs(m_config.stages, 1), hooks);
}

void StagewiseTrainer::blockOutputs(const Eigen::Ref<const Eigen::MatrixXd>& z, const std::vector<Eigen::MatrixXd>& omega,
                                    const std::vector<Eigen::VectorXd>& offset, Eigen::Ref<Eigen::MatrixXd> out) const
{
    const Eigen::Index p = m_config.features.count, k = out.cols();
    const bool bias = m_config.features.bias;
    const std::vector<train::RandomFeatures> ms = maps();
    Eigen::MatrixXd f, acc = Eigen::MatrixXd::Zero(z.rows(), k), next;
    for (std::size_t t = 0; t < m_stages.size(); ++t) {
        const Eigen::MatrixXd& w = m_stages[t].w;
        if (const auto& columns = m_stages[t].columns; !columns.empty()) { // raw_gradient: the stored columns
            f.resize(z.rows(), p);
            for (Eigen::Index j = 0; j < p; ++j)
                f.col(j) = z.col(columns[std::size_t(j)]);
        } else {
            ms[t].apply(z, omega[t], offset[t], f);
        }
        next.noalias() = f * w.topRows(p);
        const Eigen::Index e = extraColumns(t, k);
        if (e > 0)
            next.noalias() += CalibratedTrainer::basis(acc, m_config.calibrationDegree, false) * w.middleRows(p, e);
        if (bias)
            next.rowwise() += w.row(p + e);
        if (m_config.flavour == Flavour::Calibrated)
            acc.swap(next);
        else
            acc += next;
    }
    if (m_config.flavour == Flavour::Logistic)
        GlsSolver::softmaxRows(acc);
    out = acc;
}

Eigen::MatrixXd StagewiseTrainer::sparseOutputs(const SparseMatrix& x) const
{
    const Eigen::Index p = m_config.features.count, k = outputCount();
    const bool bias = m_config.features.bias;
    Eigen::MatrixXd acc = Eigen::MatrixXd::Zero(x.rows(), k), next;
    for (std::size_t t = 0; t < m_stages.size(); ++t) {
        const Stage& st = m_stages[t];
        // raw_gradient: the stored columns; raw_subset: regenerated from the block's seed.
        const SparseMatrix block = SparseDesign::selectColumns(
            x, st.columns.empty() ? m_map.block(st.block, p).subsetColumns(0, p) : st.columns);
        next.noalias() = block * st.w.topRows(p);
        const Eigen::Index e = extraColumns(t, k);
        if (e > 0)
            next.noalias() += CalibratedTrainer::basis(acc, m_config.calibrationDegree, false) * st.w.middleRows(p, e);
        if (bias)
            next.rowwise() += st.w.row(p + e);
        if (m_config.flavour == Flavour::Calibrated)
            acc.swap(next);
        else
            acc += next;
    }
    if (m_config.flavour == Flavour::Logistic)
        GlsSolver::softmaxRows(acc);
    return acc;
}

LsqTrainer::Cost StagewiseTrainer::sparseTrainCost(const ProblemShape& shape) const
{
    const double n = double(shape.rows), d = double(shape.inputs), k = double(shape.outputs);
    const double nnz = double(shape.nonZeros), p = double(m_config.features.count);
    const double e = m_config.flavour == Flavour::Calibrated ? double(m_config.calibrationDegree) * k : 0.0;
    const double pb = p + e + (m_config.features.bias ? 1.0 : 0.0);
    const double stages = double(m_config.stages);
    const bool logistic = m_config.flavour == Flavour::Logistic;
    // A block's non-zeros: a random subset holds p/d of them on average (4× that allows for
    // skewed column frequencies, as in text); the gradient's choice favours frequent columns, so
    // at most all of them (and at most n·p).
    const double blockNnz = m_config.features.gradientOrder ? std::min(nnz, n * p) : std::min(nnz, nnz * p / d * 4.0);
    Cost c;
    const double ordering = m_config.features.gradientOrder ? 2.0 * nnz * k + d * std::log2(std::max(p, 2.0)) : 0.0;
    const double select = nnz + d;
    const double gram = 0.5 * blockNnz * blockNnz / std::max(n, 1.0) + blockNnz * e + n * e * e;
    const double factor = pb * pb * pb / 3.0;
    const double inner = logistic ? double(m_config.iterations) * (4.0 * (blockNnz + n * e) * k + 20.0 * n * k + 2.0 * pb * pb * k)
                                  : 2.0 * (blockNnz + n * e) * k + 2.0 * pb * pb * k;
    const double stage = ordering + select + gram + factor + inner + 2.0 * (blockNnz + n * e) * k;
    c.flops = stages * stage;
    c.steps = QJsonObject{{"stage_flops", stage},
                          {"ordering_flops_per_stage", ordering},
                          {"gram_flops_per_stage", gram},
                          {"factorisation_flops_per_stage", factor},
                          {"fit_flops_per_stage", inner}};
    // The block (compressed rows), the column map and gradient (d), the Gram and its factor,
    // the running outputs and the host's evaluation (n·k each), G(Ŷ).
    c.memoryBytes = double(sparseBytes(std::uint64_t(n), std::uint64_t(blockNnz))) + 8.0 * d * (1.0 + k) +
                    2.0 * 8.0 * pb * pb + 8.0 * n * (e + 8.0 * k);
    c.modelBytes = stages * (8.0 * pb * k + 8.0 + (m_config.features.gradientOrder ? 8.0 * p : 0.0));
    return c;
}

LsqTrainer::Cost StagewiseTrainer::trainCost(const ProblemShape& shape, Eigen::Index q) const
{
    const double n = double(shape.rows), k = double(shape.outputs), p = double(m_config.features.count);
    const double e = m_config.flavour == Flavour::Calibrated ? double(m_config.calibrationDegree) * k : 0.0;
    const double pb = p + e + (m_config.features.bias ? 1.0 : 0.0);
    const double stages = double(m_config.stages);
    const bool logistic = m_config.flavour == Flavour::Logistic;
    const double sigmaRows = logistic && m_config.sigmaRows > 0 ? std::min<double>(double(m_config.sigmaRows), n) : n;
    Cost c;
    // raw_gradient: the gradient Zᵀ·R (2·n·q·k) before the block is copied out.
    const double features = featureFlops(n, double(q), p) +
                            (m_config.features.gradientOrder ? 2.0 * n * double(q) * k : 0.0);
    const double gram = sigmaRows * pb * (pb + 1.0);
    const double factor = pb * pb * pb / 3.0;
    // linear / calibrated: Gram and cross products in one pass, a solve, one product.
    // logistic: per inner iteration the fused pass (4·n·pb·k), the softmax, a solve; one product.
    const double inner = logistic ? double(m_config.iterations) * (4.0 * n * pb * k + 20.0 * n * k + 2.0 * pb * pb * k)
                                  : 2.0 * n * pb * k + 2.0 * pb * pb * k;
    const double stage = features + gram + factor + inner + 2.0 * n * pb * k;
    c.flops = stages * stage;
    c.steps = QJsonObject{{"stage_flops", stage},
                          {"feature_flops_per_stage", features},
                          {"gram_flops_per_stage", gram},
                          {"factorisation_flops_per_stage", factor},
                          {"fit_flops_per_stage", inner}};
    const double bytesPerEntry = m_config.precision == train::Precision::Mixed ? 4.0 : 8.0;
    const double gramBytes = 2.0 * 8.0 * pb * pb * (bytesPerEntry == 4.0 ? 1.5 : 1.0);
    c.memoryBytes = n * (p + e) * bytesPerEntry + std::max(gramBytes, 2.0 * 8.0 * pb * pb) + 8.0 * n * (e + 8.0 * k) +
                    (m_config.features.gradientOrder ? 8.0 * (n * p + double(q) * k) : 0.0); // the columns, the gradient
    c.modelBytes = stages * (8.0 * pb * k + 8.0);
    return c;
}

} // namespace tb::lsq
