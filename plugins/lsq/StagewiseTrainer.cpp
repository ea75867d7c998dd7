#include "StagewiseTrainer.h"

#include "CalibratedTrainer.h"

#include <TrainingLoop.h>
#include <trainbench/toolkit/RunLoopHost.h>
#include <trainbench/Seeds.h>

#include <stdexcept>

namespace tb::lsq {

StagewiseTrainer::StagewiseTrainer(LsqConfig config) : LsqTrainer(std::move(config)) {}

double StagewiseTrainer::modelBytes() const
{
    double b = m_map.bytes();
    for (const Stage& s : m_stages)
        b += 8.0 * double(s.w.size()) + 8.0; // weights and the block's seed
    return b;
}

Eigen::Index StagewiseTrainer::extraColumns(std::size_t t, Eigen::Index k) const
{
    return m_config.flavour == Flavour::Calibrated && t > 0 ? Eigen::Index(m_config.calibrationDegree) * k : 0;
}

std::vector<train::RandomFeatures> StagewiseTrainer::maps() const
{
    std::vector<train::RandomFeatures> out;
    out.reserve(m_stages.size());
    for (const Stage& s : m_stages)
        out.push_back(m_map.block(s.block, m_config.features.count));
    return out;
}

void StagewiseTrainer::train(const DatasetView& data, const Eigen::Ref<const Eigen::MatrixXd>& z, RunContext& ctx)
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
    const double fixedBytes = (m_map.projects() ? 8.0 * double(z.size()) : 0.0) + 4.0 * 8.0 * double(n) * double(k);
    // The algorithm: one stage (a block of features and its fit); the loop polls Stop and
    // checkpoints after each.
    train::TrainingLoop::Hooks hooks;
    hooks.step = [&](const train::LoopPosition& at) {
        const Eigen::Index t = at.step - 1;
        const train::StepResult stopped{0, 1, true};
        const train::RandomFeatures map = m_map.block(t, p);
        const Eigen::Index e = extraColumns(std::size_t(t), k);
        Eigen::MatrixXd extra;
        if (e > 0)
            extra = CalibratedTrainer::basis(outputs, m_config.calibrationDegree, false);
        train::DesignMatrix design = makeDesign(z, &map, e > 0 ? &extra : nullptr, stop);
        if (design.stopped())
            return stopped;
        GlsSettings s = glsSettings(link, inner, deriveSeed(ctx.seed(), train::FeatureMap::kSigmaStream + 1000 * std::uint64_t(t)));
        s.spectrum = m_config.recordSpectrum && t == 0;
        // linear: the residual Y − Ŷ through the offset; logistic: the running logits; calibrated:
        // Ŷ enters as features instead.
        const Eigen::MatrixXd* offset = m_config.flavour == Flavour::Calibrated ? nullptr : &outputs;
        Eigen::MatrixXd w, zw;
        double loss = 0;
        GlsSolver solver;
        const bool done = solver.fit(design, data.y, offset, s, stop,
                                     [&](Eigen::Index, const Eigen::MatrixXd& wi, const Eigen::MatrixXd& zi, double obj) {
                                         w = wi;
                                         zw = zi;
                                         loss = obj;
                                         return !ctx.stopRequested();
                                     });
        if (!done || ctx.stopRequested() || w.size() == 0)
            return stopped;
        noteMemory(fixedBytes + design.storedBytes() + 8.0 * double(extra.size()) + solver.report().peakBytes);
        QJsonObject solve;
        reportSolve(solver.report(), QStringLiteral("stage %1").arg(t + 1), ctx, &solve);
        solve.insert("stage", qint64(t + 1));
        if (solves.size() < 100)
            solves.append(solve);
        if (s.spectrum && solver.report().spectrum.size() > 0)
            ctx.record(QStringLiteral("feature_spectrum"), spectrumFact(solver.report().spectrum));
        m_stages.push_back(Stage{t, std::move(w)});
        outputs = std::move(zw);
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
        ms[t].apply(z, omega[t], offset[t], f);
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

LsqTrainer::Cost StagewiseTrainer::trainCost(const ProblemShape& shape, Eigen::Index q) const
{
    const double n = double(shape.rows), k = double(shape.outputs), p = double(m_config.features.count);
    const double e = m_config.flavour == Flavour::Calibrated ? double(m_config.calibrationDegree) * k : 0.0;
    const double pb = p + e + (m_config.features.bias ? 1.0 : 0.0);
    const double stages = double(m_config.stages);
    const bool logistic = m_config.flavour == Flavour::Logistic;
    const double sigmaRows = logistic && m_config.sigmaRows > 0 ? std::min<double>(double(m_config.sigmaRows), n) : n;
    Cost c;
    const double features = featureFlops(n, double(q), p);
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
    c.memoryBytes = n * (p + e) * bytesPerEntry + std::max(gramBytes, 2.0 * 8.0 * pb * pb) + 8.0 * n * (e + 8.0 * k);
    c.modelBytes = stages * (8.0 * pb * k + 8.0);
    return c;
}

} // namespace tb::lsq
