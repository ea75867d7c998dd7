#include "GlsTrainer.h"

#include <trainbench/Seeds.h>

#include <stdexcept>

namespace tb::lsq {

GlsTrainer::GlsTrainer(LsqConfig config) : LsqTrainer(std::move(config)) {}

double GlsTrainer::modelBytes() const
{
    return m_map.bytes() + 8.0 * double(m_w.size()) + (m_config.features.raw ? 0.0 : 8.0); // + the seed
}

std::vector<train::RandomFeatures> GlsTrainer::maps() const
{
    if (m_config.features.raw)
        return {};
    return {m_map.block(0, m_featureCount)};
}

void GlsTrainer::train(const DatasetView& data, const Eigen::Ref<const Eigen::MatrixXd>& z, RunContext& ctx)
{
    m_w.resize(0, 0);
    m_link = m_config.autoLink ? (m_classification ? Link::Softmax : Link::Identity) : m_config.link;
    if (m_link == Link::Softmax && !m_classification)
        throw std::invalid_argument("lsq: parameter \"link\" = softmax needs a classification data set (targets that "
                                    "are class probabilities); use identity or auto for regression");
    const StopToken stop = ctx.stopToken();
    m_featureCount = m_config.features.raw ? z.cols() : m_config.features.count;
    const train::RandomFeatures map = m_map.block(0, m_featureCount);
    train::DesignMatrix design = makeDesign(z, m_config.features.raw ? nullptr : &map, nullptr, stop);
    if (design.stopped())
        return;
    // The inputs count only when they are our PCA projection (else they are the host's data).
    const double designBytes = design.storedBytes() + (m_map.projects() ? 8.0 * double(z.size()) : 0.0);
    fitDesign(design, designBytes, data, ctx);
}

void GlsTrainer::trainSparse(const DatasetView& data, RunContext& ctx)
{
    m_w.resize(0, 0);
    m_link = m_config.autoLink ? (m_classification ? Link::Softmax : Link::Identity) : m_config.link;
    if (m_link == Link::Softmax && !m_classification)
        throw std::invalid_argument("lsq: parameter \"link\" = softmax needs a classification data set (targets that "
                                    "are class probabilities); use identity or auto for regression");
    if (!m_config.features.raw)
        throw std::invalid_argument("lsq: lsq.gls on sparse inputs takes random_features = raw only (got " +
                                    featuresName(m_config.features).toStdString() + ")");
    const SparseMatrix& x = *data.xSparse;
    const Eigen::Index pb = x.cols() + (m_config.features.bias ? 1 : 0);
    if (pb > kSparseGramMaxWidth)
        throw std::invalid_argument(
            "lsq: lsq.gls on sparse inputs forms the Gram matrix of all " + std::to_string(x.cols()) +
            " columns (" + std::to_string(pb) + "² doubles), wider than its limit of " +
            std::to_string(kSparseGramMaxWidth) + "; use lsq.stagewise with random_features = raw_gradient or "
            "raw_subset (blocks of columns), or linear.ridge (conjugate gradients on the sparse rows)");
    m_featureCount = x.cols();
    SparseDesign design(x);
    design.setStopToken(ctx.stopToken());
    fitDesign(design, 0.0, data, ctx); // the design references the host's rows
}

template <class Design>
void GlsTrainer::fitDesign(const Design& design, double designBytes, const DatasetView& data, RunContext& ctx)
{
    const StopToken stop = ctx.stopToken();
    noteMemory(designBytes);
    GlsSettings s = glsSettings(m_link, m_config.iterations, deriveSeed(ctx.seed(), train::FeatureMap::kSigmaStream));
    if (design.precision() != train::Precision::Mixed)
        s.ridgeFloor = 0.0; // no float Gram to guard against (a sparse design is double)
    s.spectrum = m_config.recordSpectrum;
    const QString linkName = m_link == Link::Softmax ? QStringLiteral("softmax") : QStringLiteral("identity");
    GlsSolver solver;
    bool facts = false;
    const auto onIterate = [&](Eigen::Index t, const Eigen::MatrixXd& w, const Eigen::MatrixXd& outputs, double obj) {
        m_w = w;
        Eigen::MatrixXd shown = outputs;
        if (m_link == Link::Softmax)
            GlsSolver::softmaxRows(shown);
        publishTrainingOutputs(shown);
        if (!facts) {
            facts = true;
            for (auto it = m_facts.begin(); it != m_facts.end(); ++it)
                ctx.record(it.key(), it.value());
            QJsonObject solve;
            reportSolve(solver.report(), QStringLiteral("Σ̂ of %1 features").arg(m_featureCount), ctx, &solve);
            ctx.record(QStringLiteral("sigma_solve"), solve);
            ctx.record(QStringLiteral("link"), linkName);
            ctx.record(QStringLiteral("features"), qint64(m_featureCount));
            if (solver.report().spectrum.size() > 0)
                ctx.record(QStringLiteral("feature_spectrum"), spectrumFact(solver.report().spectrum));
        }
        noteMemory(designBytes + solver.report().peakBytes + 8.0 * double(outputs.size()));
        return ctx.checkpoint(Checkpoint{double(t), obj, {}}) == CheckpointAction::Continue;
    };
    solver.fit(design, data.y, nullptr, s, stop, onIterate);
    m_report = solver.report();
}

Eigen::MatrixXd GlsTrainer::sparseOutputs(const SparseMatrix& x) const
{
    const Eigen::Index p = m_featureCount;
    Eigen::MatrixXd out = x * m_w.topRows(p);
    if (m_config.features.bias)
        out.rowwise() += m_w.row(p);
    if (m_link == Link::Softmax)
        GlsSolver::softmaxRows(out);
    return out;
}

LsqTrainer::Cost GlsTrainer::sparseTrainCost(const ProblemShape& shape) const
{
    if (!m_config.features.raw)
        return LsqTrainer::sparseTrainCost(shape); // refused by fit(): what a dense run would cost
    const double n = double(shape.rows), k = double(shape.outputs), nnz = double(shape.nonZeros);
    const double pb = double(shape.inputs) + (m_config.features.bias ? 1.0 : 0.0);
    const double t = double(m_config.iterations);
    const bool softmax = m_config.autoLink ? shape.task == Task::Classification : m_config.link == Link::Softmax;
    Cost c;
    // Σᵢ nnzᵢ²/2 at the mean density, the factorisation, per iteration the fused pass over the
    // non-zeros (4·nnz·k) and the solve.
    const double gram = 0.5 * nnz * nnz / std::max(n, 1.0) + nnz;
    const double factor = pb * pb * pb / 3.0;
    const double iteration = 4.0 * nnz * k + (softmax ? 20.0 : 1.0) * n * k + 2.0 * pb * pb * k;
    c.flops = gram + factor + t * iteration + 2.0 * nnz * k;
    c.steps = QJsonObject{{"gram_flops", gram}, {"factorisation_flops", factor}, {"iteration_flops", iteration}};
    c.memoryBytes = 2.0 * 8.0 * pb * pb + 6.0 * 8.0 * n * k;
    c.modelBytes = 8.0 * pb * k;
    return c;
}

void GlsTrainer::blockOutputs(const Eigen::Ref<const Eigen::MatrixXd>& z, const std::vector<Eigen::MatrixXd>& omega,
                              const std::vector<Eigen::VectorXd>& offset, Eigen::Ref<Eigen::MatrixXd> out) const
{
    const Eigen::Index p = m_featureCount;
    if (m_config.features.raw) {
        out.noalias() = z * m_w.topRows(p);
    } else {
        Eigen::MatrixXd f;
        maps().front().apply(z, omega[0], offset[0], f);
        out.noalias() = f * m_w.topRows(p);
    }
    if (m_config.features.bias)
        out.rowwise() += m_w.row(p);
    if (m_link == Link::Softmax)
        GlsSolver::softmaxRows(out);
}

LsqTrainer::Cost GlsTrainer::trainCost(const ProblemShape& shape, Eigen::Index q) const
{
    const double n = double(shape.rows), k = double(shape.outputs);
    const double p = m_config.features.raw ? double(q) : double(m_config.features.count);
    const double pb = p + (m_config.features.bias ? 1.0 : 0.0);
    const double t = double(m_config.iterations);
    const bool softmax = m_config.autoLink ? shape.task == Task::Classification : m_config.link == Link::Softmax;
    const double sigmaRows = m_config.sigmaRows > 0 ? std::min<double>(double(m_config.sigmaRows), n) : n;
    Cost c;
    const double features = featureFlops(n, double(q), p);
    const double gram = sigmaRows * pb * (pb + 1.0);
    const double factor = pb * pb * pb / 3.0;
    // Each iteration: the fused pass (product and cross products, 4·n·pb·k), the link, a solve;
    // the last iterate's outputs are one more product.
    const double iteration = 4.0 * n * pb * k + (softmax ? 20.0 : 1.0) * n * k + 2.0 * pb * pb * k;
    const double iterations = t * iteration + 2.0 * n * pb * k;
    c.flops = features + gram + factor + iterations;
    c.steps = QJsonObject{{"feature_flops", features},
                          {"gram_flops", gram},
                          {"factorisation_flops", factor},
                          {"iteration_flops", iteration}};
    const double bytesPerEntry = m_config.precision == train::Precision::Mixed ? 4.0 : 8.0;
    const bool copies = !(m_config.features.raw && m_config.features.pca == 0 &&
                          m_config.precision == train::Precision::Double);
    const double design = copies ? n * p * bytesPerEntry : 0.0;
    const double gramBytes = 2.0 * 8.0 * pb * pb * (bytesPerEntry == 4.0 ? 1.5 : 1.0);
    c.memoryBytes = design + std::max(gramBytes, 2.0 * 8.0 * pb * pb) + 6.0 * 8.0 * n * k;
    c.modelBytes = 8.0 * pb * k + (m_config.features.raw ? 0.0 : 8.0);
    return c;
}

} // namespace tb::lsq
