#include "CalibratedTrainer.h"

#include "SimplexProjection.h"

#include <training/TrainingLoop.h>
#include <trainbench/toolkit/RunLoopHost.h>
#include <numerics/LeastSquares.h>

#include <trainbench/Seeds.h>

namespace tb::lsq {

CalibratedTrainer::CalibratedTrainer(LsqConfig config) : LsqTrainer(std::move(config)) {}

double CalibratedTrainer::modelBytes() const
{
    double b = m_map.bytes() + (m_config.features.raw ? 0.0 : 8.0);
    for (const Step& s : m_steps)
        b += 8.0 * double(s.w.size() + s.calibration.size() + s.low.size() + s.high.size());
    return b;
}

std::vector<train::RandomFeatures> CalibratedTrainer::maps() const
{
    if (m_config.features.raw)
        return {};
    return {m_map.block(0, m_featureCount)};
}

Eigen::MatrixXd CalibratedTrainer::basis(const Eigen::Ref<const Eigen::MatrixXd>& y, int degree, bool constant)
{
    const Eigen::Index n = y.rows(), k = y.cols();
    Eigen::MatrixXd g(n, degree * k + (constant ? 1 : 0));
    g.leftCols(k) = y;
    for (int d = 1; d < degree; ++d)
        g.middleCols(d * k, k) = g.middleCols((d - 1) * k, k).cwiseProduct(y);
    if (constant)
        g.rightCols(1).setOnes();
    return g;
}

void CalibratedTrainer::train(const DatasetView& data, const Eigen::Ref<const Eigen::MatrixXd>& z, RunContext& ctx)
{
    m_steps.clear();
    m_project = m_classification;
    const StopToken stop = ctx.stopToken();
    const Eigen::Index n = data.rows(), k = data.outputs();
    m_featureCount = m_config.features.raw ? z.cols() : m_config.features.count;
    const train::RandomFeatures map = m_map.block(0, m_featureCount);
    train::DesignMatrix design = makeDesign(z, m_config.features.raw ? nullptr : &map, nullptr, stop);
    if (design.stopped())
        return;
    // The inputs count only when they are our PCA projection (else they are the host's data).
    const double designBytes = design.storedBytes() + (m_map.projects() ? 8.0 * double(z.size()) : 0.0);
    noteMemory(designBytes);
    // (18) is a least-squares step: identity link, L = 1, one factorisation for every iteration.
    GlsSettings s = glsSettings(Link::Identity, 1, deriveSeed(ctx.seed(), train::FeatureMap::kSigmaStream));
    s.lipschitz = 1.0;
    s.acceleration = false;
    s.sigmaRows = 0;
    GlsSolver solver;
    if (!solver.prepare(design, s, stop))
        return;
    QJsonObject solve;
    reportSolve(solver.report(), QStringLiteral("Σ̂ of %1 features").arg(m_featureCount), ctx, &solve);
    for (auto it = m_facts.begin(); it != m_facts.end(); ++it)
        ctx.record(it.key(), it.value());
    ctx.record(QStringLiteral("sigma_solve"), solve);
    ctx.record(QStringLiteral("features"), qint64(m_featureCount));

    Eigen::MatrixXd yHat = Eigen::MatrixXd::Zero(n, k), yTilde, w;
    num::LeastSquaresOptions calibrate;
    calibrate.stop = stop;
    QJsonArray calibrationSolves;
    // The algorithm: one iteration (a residual fit and a calibration); the loop polls Stop and
    // checkpoints after each.
    train::TrainingLoop::Hooks hooks;
    hooks.step = [&](const train::LoopPosition& at) {
        const Eigen::Index t = at.step;
        const train::StepResult stopped{0, 1, true};
        // (18) the residual fit and the uncalibrated predictions Ỹ = Ŷ + F·W_t.
        if (!solver.solveStep(design, data.y - yHat, w))
            return stopped;
        design.product(w, m_config.features.bias, yTilde);
        if (design.stopped())
            return stopped;
        yTilde += yHat;
        // (19) calibration on G(Ỹ), then the projection onto the simplex.
        const Eigen::MatrixXd g = basis(yTilde, m_config.calibrationDegree, m_config.calibrationConstant);
        num::SolveReport rep;
        Eigen::MatrixXd wc = num::solveLeastSquares(g, data.y, calibrate, &rep);
        if (rep.interrupted)
            return stopped;
        yHat.noalias() = g * wc;
        if (m_project)
            projectRowsOntoSimplex(yHat);
        noteMemory(designBytes + solver.report().peakBytes + 8.0 * double(g.size() + 4 * yHat.size()));
        m_steps.push_back(Step{w, std::move(wc), yTilde.colwise().minCoeff(), yTilde.colwise().maxCoeff()});
        if (rep.fallback && calibrationSolves.size() < 20)
            calibrationSolves.append(QStringLiteral("iteration %1: %2").arg(t).arg(QString::fromStdString(rep.summary())));
        publishTrainingOutputs(yHat);
        const double loss = 0.5 * (data.y - yHat).squaredNorm() / double(n);
        if (!calibrationSolves.isEmpty())
            ctx.record(QStringLiteral("calibration_fallbacks"), calibrationSolves);
        return train::StepResult{loss, 1, false};
    };
    RunLoopHost host(ctx);
    train::TrainingLoop(host).run(train::TrainingLoop::epochs(m_config.iterations, 1), hooks);
}

void CalibratedTrainer::blockOutputs(const Eigen::Ref<const Eigen::MatrixXd>& z,
                                     const std::vector<Eigen::MatrixXd>& omega,
                                     const std::vector<Eigen::VectorXd>& offset, Eigen::Ref<Eigen::MatrixXd> out) const
{
    const Eigen::Index p = m_featureCount, k = out.cols(), m = z.rows();
    const bool bias = m_config.features.bias;
    // Every residual fit's contribution F·W_t in one product, then the chain.
    Eigen::MatrixXd all(p + (bias ? 1 : 0), k * Eigen::Index(m_steps.size()));
    for (std::size_t t = 0; t < m_steps.size(); ++t)
        all.middleCols(Eigen::Index(t) * k, k) = m_steps[t].w;
    Eigen::MatrixXd fw;
    if (m_config.features.raw) {
        fw.noalias() = z * all.topRows(p);
    } else {
        Eigen::MatrixXd f;
        maps().front().apply(z, omega[0], offset[0], f);
        fw.noalias() = f * all.topRows(p);
    }
    if (bias)
        fw.rowwise() += all.row(p);
    Eigen::MatrixXd yHat = Eigen::MatrixXd::Zero(m, k);
    for (std::size_t t = 0; t < m_steps.size(); ++t) {
        const Step& st = m_steps[t];
        Eigen::MatrixXd yTilde = yHat + fw.middleCols(Eigen::Index(t) * k, k);
        if (!m_project) // the projection bounds a classifier's chain; clamping it cost 0.7 points
            for (Eigen::Index i = 0; i < m; ++i)
                yTilde.row(i) = yTilde.row(i).cwiseMin(st.high).cwiseMax(st.low);
        yHat.noalias() = basis(yTilde, m_config.calibrationDegree, m_config.calibrationConstant) * st.calibration;
        if (m_project)
            for (Eigen::Index i = 0; i < m; ++i)
                projectOntoSimplex(yHat.row(i), yHat.row(i));
    }
    out = yHat;
}

LsqTrainer::Cost CalibratedTrainer::trainCost(const ProblemShape& shape, Eigen::Index q) const
{
    const double n = double(shape.rows), k = double(shape.outputs);
    const double p = m_config.features.raw ? double(q) : double(m_config.features.count);
    const double pb = p + (m_config.features.bias ? 1.0 : 0.0);
    const double g = double(m_config.calibrationDegree) * k + (m_config.calibrationConstant ? 1.0 : 0.0);
    const double t = double(m_config.iterations);
    Cost c;
    const double features = featureFlops(n, double(q), p);
    const double gram = n * pb * (pb + 1.0);
    const double factor = pb * pb * pb / 3.0;
    // Residual cross products, solve, product; calibration Gram, solve, product; projection.
    const double iteration = 4.0 * n * pb * k + 2.0 * pb * pb * k + n * g * (g + 1.0) + 2.0 * n * g * k +
                             g * g * g / 3.0 + 2.0 * n * g * k + 10.0 * n * k;
    c.flops = features + gram + factor + t * iteration;
    c.steps = QJsonObject{{"feature_flops", features},
                          {"gram_flops", gram},
                          {"factorisation_flops", factor},
                          {"iteration_flops", iteration}};
    const double bytesPerEntry = m_config.precision == train::Precision::Mixed ? 4.0 : 8.0;
    const bool copies = !(m_config.features.raw && m_config.features.pca == 0 &&
                          m_config.precision == train::Precision::Double);
    const double design = copies ? n * p * bytesPerEntry : 0.0;
    const double gramBytes = 2.0 * 8.0 * pb * pb * (bytesPerEntry == 4.0 ? 1.5 : 1.0);
    c.memoryBytes = design + std::max(gramBytes, 2.0 * 8.0 * pb * pb) + 8.0 * n * (g + 6.0 * k);
    c.modelBytes = t * 8.0 * (pb * k + g * k) + (m_config.features.raw ? 0.0 : 8.0);
    return c;
}

} // namespace tb::lsq
