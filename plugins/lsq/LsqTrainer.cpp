#include "LsqTrainer.h"

#include <trainbench/toolkit/DataChecks.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace tb::lsq {
namespace {


// Flops charged per cos, sin or exp of a feature: a model constant, not measured.
constexpr double kTranscendentalFlops = 20.0;

void checkFinite(const Eigen::Ref<const Eigen::MatrixXd>& m, const char* what)
{
    toolkit::requireFinite(m, "lsq", what);
}

} // namespace

LsqTrainer::LsqTrainer(LsqConfig config) : m_config(std::move(config)) {}

std::string LsqTrainer::countKey() const
{
    return m_config.algorithm == Algorithm::Stagewise ? "block_size" : "feature_count";
}

void LsqTrainer::fit(const DatasetView& data, RunContext& ctx)
{
    m_peakBytes = 0;
    m_facts = QJsonObject{};
    m_trainingOutputs.resize(0, 0);
    if (data.rows() == 0)
        throw std::invalid_argument("lsq: the training set is empty");
    if (data.inputs() == 0 || data.outputs() == 0)
        throw std::invalid_argument("lsq: the training set has no inputs or no targets");
    if (data.isSparse()) {
        fitSparse(data, ctx);
        return;
    }
    checkFinite(data.x, "inputs");
    checkFinite(data.y, "targets");
    m_classification = data.isClassification();

    // predict() on this very matrix returns the maintained training outputs until fit() returns.
    struct Shortcut {
        LsqTrainer& t;
        Shortcut(LsqTrainer& trainer, const DatasetView& d) : t(trainer)
        {
            t.m_trainData = d.x.data();
            t.m_trainRows = d.x.rows();
            t.m_trainCols = d.x.cols();
            t.m_trainStride = d.x.outerStride();
        }
        ~Shortcut()
        {
            t.m_trainData = nullptr;
            t.m_trainingOutputs.resize(0, 0);
        }
    } shortcut(*this, data);

    Eigen::MatrixXd projected;
    const double pcaBytes = 3.0 * 8.0 * double(data.inputs()) * double(data.inputs());
    train::FeatureMapKeys keys;
    keys.count = countKey();
    train::FeatureMapFit found;
    if (!m_map.fit(data.x, m_config.features, ctx.seed(), keys, ctx.stopToken(), &found, projected))
        return;
    if (found.pcaDimensions > 0)
        m_facts.insert("pca", QJsonObject{{"dimensions", qint64(found.pcaDimensions)},
                                          {"centred", found.pcaCentred},
                                          {"variance_kept", found.varianceKept}});
    if (found.hasMedian) {
        m_facts.insert("median_distance", found.medianDistance);
        // The median trick's sample and distances, held before anything below (see predictCost()).
        const double n = double(data.rows());
        const double m = std::min<double>(double(m_config.features.medianSample), n);
        const double q = m_map.projects() ? double(projected.cols()) : double(data.inputs());
        noteMemory(8.0 * (n + m * q + m + m * m + m * (m - 1) / 2.0));
    }
    if (found.hasBandwidth)
        m_facts.insert("bandwidth", found.bandwidth);
    if (m_map.projects())
        noteMemory(pcaBytes + 8.0 * double(projected.size()));
    if (m_map.projects())
        train(data, projected, ctx);
    else
        train(data, data.x, ctx);
    ctx.record(QStringLiteral("working_memory_bytes"), m_peakBytes);
    ctx.record(QStringLiteral("model_bytes"), modelBytes());
}

void LsqTrainer::fitSparse(const DatasetView& data, RunContext& ctx)
{
    const SparseMatrix& x = *data.xSparse;
    if (x.rows() != data.y.rows())
        throw std::invalid_argument("lsq: the sparse inputs have " + std::to_string(x.rows()) + " rows, the targets " +
                                    std::to_string(data.y.rows()));
    for (Eigen::Index i = 0; i < x.outerSize(); ++i)
        for (SparseMatrix::InnerIterator it(x, i); it; ++it)
            if (!std::isfinite(it.value()))
                throw std::invalid_argument(std::string("lsq: the training inputs contain ") +
                                            (std::isnan(it.value()) ? "NaN" : "Inf") + " at row " + std::to_string(i) +
                                            ", column " + std::to_string(it.col()) + "; remove or impute it first");
    checkFinite(data.y, "targets");
    m_classification = data.isClassification();
    const FeatureConfig& f = m_config.features;
    if (f.pca > 0)
        throw std::invalid_argument("lsq: parameter \"pca\" = " + std::to_string(f.pca) + " needs dense inputs (the "
                                    "second moment of " + std::to_string(x.cols()) + " sparse inputs is a dense d × d "
                                    "matrix); set pca = 0 on sparse data");
    if (!f.raw && f.kind != train::FeatureKind::RawSubset)
        throw std::invalid_argument(
            "lsq: parameter \"random_features\" = " + featuresName(f).toStdString() +
            " needs dense inputs (its random projection X·Ω is regenerated, d × p numbers, for every block and "
            "every prediction); on sparse inputs use raw (lsq.gls), raw_subset or raw_gradient (lsq.stagewise)");
    struct Shortcut {
        LsqTrainer& t;
        Shortcut(LsqTrainer& trainer, const SparseMatrix* m) : t(trainer) { t.m_trainSparse = m; }
        ~Shortcut()
        {
            t.m_trainSparse = nullptr;
            t.m_trainingOutputs.resize(0, 0);
        }
    } shortcut(*this, &x);
    // The map takes the width alone (no PCA, no bandwidth: raw inputs or raw columns); a 0-row
    // view carries it without touching the rows.
    const Eigen::Map<const Eigen::MatrixXd> width(nullptr, 0, x.cols());
    train::FeatureMapKeys keys;
    keys.count = countKey();
    Eigen::MatrixXd projected;
    if (!m_map.fit(width, m_config.features, ctx.seed(), keys, ctx.stopToken(), nullptr, projected))
        return;
    trainSparse(data, ctx);
    ctx.record(QStringLiteral("working_memory_bytes"), m_peakBytes);
    ctx.record(QStringLiteral("model_bytes"), modelBytes());
}

void LsqTrainer::trainSparse(const DatasetView&, RunContext&)
{
    throw std::invalid_argument("lsq: this algorithm does not take sparse inputs; lsq.gls (random_features = raw) "
                                "and lsq.stagewise (raw_subset, raw_gradient) do");
}

Eigen::MatrixXd LsqTrainer::sparseOutputs(const SparseMatrix&) const
{
    throw std::invalid_argument("lsq: this algorithm does not predict sparse inputs");
}

LsqTrainer::Cost LsqTrainer::sparseTrainCost(const ProblemShape& shape) const
{
    ProblemShape dense = shape;
    dense.nonZeros = 0;
    return trainCost(dense, shape.inputs);
}

Eigen::MatrixXd LsqTrainer::predictSparse(const SparseMatrix& x) const
{
    if (m_trainSparse && &x == m_trainSparse && m_trainingOutputs.rows() == x.rows())
        return m_trainingOutputs;
    if (outputCount() == 0)
        throw std::invalid_argument("lsq: predict() before the first checkpoint of fit()");
    if (x.cols() != m_map.inputs())
        throw std::invalid_argument("lsq: predict() got " + std::to_string(x.cols()) + " inputs, the model was fitted "
                                    "on " + std::to_string(m_map.inputs()));
    if (m_map.projects() || (!m_config.features.raw && m_config.features.kind != train::FeatureKind::RawSubset))
        throw std::invalid_argument("lsq: a model of " + featuresName(m_config.features).toStdString() +
                                    (m_map.projects() ? " after a PCA" : "") +
                                    " features predicts dense inputs only");
    return sparseOutputs(x);
}

Eigen::MatrixXd LsqTrainer::predict(const Eigen::Ref<const Eigen::MatrixXd>& x) const
{
    if (m_trainData && x.data() == m_trainData && x.rows() == m_trainRows && x.cols() == m_trainCols &&
        x.outerStride() == m_trainStride && m_trainingOutputs.rows() == x.rows())
        return m_trainingOutputs;
    const Eigen::Index k = outputCount();
    if (k == 0)
        throw std::invalid_argument("lsq: predict() before the first checkpoint of fit()");
    if (x.cols() != m_map.inputs())
        throw std::invalid_argument("lsq: predict() got " + std::to_string(x.cols()) + " inputs, the model was fitted "
                                    "on " + std::to_string(m_map.inputs()));
    // Every random projection once per call (never stored with the model).
    const std::vector<train::RandomFeatures> ms = maps();
    std::vector<Eigen::MatrixXd> omega(ms.size());
    std::vector<Eigen::VectorXd> offset(ms.size());
    for (std::size_t i = 0; i < ms.size(); ++i)
        ms[i].projection(0, ms[i].count, omega[i], offset[i]);
    const Eigen::Index n = x.rows();
    Eigen::MatrixXd out(n, k);
    tbb::parallel_for(tbb::blocked_range<Eigen::Index>(0, (n + kPredictBlock - 1) / kPredictBlock, 1),
                      [&](const tbb::blocked_range<Eigen::Index>& r) {
                          Eigen::MatrixXd z;
                          for (Eigen::Index b = r.begin(); b < r.end(); ++b) {
                              const Eigen::Index r0 = b * kPredictBlock, m = std::min(kPredictBlock, n - r0);
                              if (m_map.projects()) {
                                  m_map.project(x.middleRows(r0, m), z);
                                  blockOutputs(z, omega, offset, out.middleRows(r0, m));
                              } else {
                                  blockOutputs(x.middleRows(r0, m), omega, offset, out.middleRows(r0, m));
                              }
                          }
                      });
    return out;
}

QJsonObject LsqTrainer::predictCost(const ProblemShape& shape) const
{
    if (shape.isSparse()) {
        // No PCA and no bandwidth on sparse inputs (fit() refuses them): the training proper.
        const Cost c = sparseTrainCost(shape);
        return QJsonObject{{"flops", c.flops},
                           {"memory_bytes", c.memoryBytes},
                           {"model_bytes", c.modelBytes},
                           {"steps", c.steps}};
    }
    const double n = double(shape.rows), d = double(shape.inputs);
    const FeatureConfig& f = m_config.features;
    const Eigen::Index q = f.pca > 0 ? std::min<Eigen::Index>(f.pca, shape.inputs) : shape.inputs;
    double flops = 0, memory = 0, model = 0;
    QJsonObject steps;
    if (f.pca > 0) {
        // Second moment (symmetric rank updates), eigendecomposition with vectors (≈ 9d³), projection.
        const double pca = n * d * (d + 1) + 9.0 * d * d * d + 2.0 * n * d * double(q);
        steps.insert("pca_flops", pca);
        flops += pca;
        memory = 3.0 * 8.0 * d * d + 8.0 * n * double(q);
        model += 8.0 * d * double(q) + (f.pcaCenter ? 8.0 * (d + double(q)) : 0.0);
    }
    if (!f.raw && f.kind != train::FeatureKind::RawSubset && f.bandwidthRule == BandwidthRule::Median) {
        const double m = std::min<double>(double(f.medianSample), n);
        const double median = m * m * double(q);
        steps.insert("median_trick_flops", median);
        flops += median;
        // train::medianDistance(): the row order, the sample, its norms, its m×m products and the
        // m(m−1)/2 distances (≈ 46 MiB for the default 2000 rows), held before the design exists.
        memory += 8.0 * (n + m * double(q) + m + m * m + m * (m - 1) / 2.0);
    }
    const Cost c = trainCost(shape, q);
    flops += c.flops;
    for (auto it = c.steps.begin(); it != c.steps.end(); ++it)
        steps.insert(it.key(), it.value());
    return QJsonObject{{"flops", flops},
                       {"memory_bytes", memory + c.memoryBytes},
                       {"model_bytes", model + c.modelBytes},
                       {"steps", steps}};
}

double LsqTrainer::featureFlops(double n, double q, double p) const
{
    const FeatureConfig& f = m_config.features;
    if (f.raw || f.kind == train::FeatureKind::RawSubset)
        return 0.0;
    if (f.kind == train::FeatureKind::GaussianCosSin)
        return n * q * p + kTranscendentalFlops * n * p; // p/2 projections, a cos and a sin each
    return 2.0 * n * q * p + kTranscendentalFlops * n * p;
}

train::DesignMatrix LsqTrainer::makeDesign(const Eigen::Ref<const Eigen::MatrixXd>& z, const train::RandomFeatures* map,
                                          const Eigen::MatrixXd* extra, StopToken stop) const
{
    if (!map && !extra && m_config.precision == train::Precision::Double) {
        train::DesignMatrix dm(z, train::Precision::Double, false, false);
        dm.setStopToken(stop);
        return dm;
    }
    const Eigen::Index p = map ? map->count : z.cols(), e = extra ? extra->cols() : 0;
    Eigen::MatrixXd omega;
    Eigen::VectorXd offset;
    if (map)
        map->projection(0, p, omega, offset);
    const train::DesignMatrix::BlockFill fill = [&](Eigen::Index r0, Eigen::Ref<Eigen::MatrixXd> block) {
        const Eigen::Index m = block.rows();
        if (map) {
            Eigen::MatrixXd features;
            map->apply(z.middleRows(r0, m), omega, offset, features);
            block.leftCols(p) = features;
        } else {
            block.leftCols(p) = z.middleRows(r0, m);
        }
        if (extra)
            block.rightCols(e) = extra->middleRows(r0, m);
    };
    return train::DesignMatrix::generate(z.rows(), p + e, m_config.precision, fill, stop);
}

GlsSettings LsqTrainer::glsSettings(Link link, Eigen::Index iterations, std::uint64_t sampleSeed) const
{
    GlsSettings s;
    s.link = link;
    s.lipschitz = m_config.lipschitz;
    s.acceleration = m_config.acceleration;
    s.iterations = iterations;
    s.ridge = m_config.ridge;
    s.relativeRidge = m_config.relativeRidge;
    s.ridgeFloor = m_config.precision == train::Precision::Mixed ? train::kMixedRidgeFloor : 0.0;
    s.sigmaRows = m_config.sigmaRows;
    s.sampleSeed = sampleSeed;
    s.bias = m_config.features.bias;
    s.spectrum = false;
    return s;
}

QJsonObject LsqTrainer::spectrumFact(const Eigen::VectorXd& ascending)
{
    const Eigen::Index p = ascending.size();
    QJsonArray eigen, singular, normalised;
    std::vector<double> sv(static_cast<std::size_t>(p));
    for (Eigen::Index i = 0; i < p; ++i) {
        const double ev = ascending(p - 1 - i);
        eigen.append(ev);
        sv[std::size_t(i)] = std::sqrt(std::max(ev, 0.0)); // rounding can make a zero slightly negative
        singular.append(sv[std::size_t(i)]);
    }
    const auto ratio = [](double a, double b) { return b > 0 && std::isfinite(a / b) ? QJsonValue(a / b) : QJsonValue(); };
    const Eigen::Index top = std::min<Eigen::Index>(p, 1000);
    double total = 0;
    for (Eigen::Index i = 0; i < top; ++i)
        total += sv[std::size_t(i)];
    double running = 0;
    for (Eigen::Index i = 0; i < top; ++i) {
        running += sv[std::size_t(i)];
        normalised.append(total > 0 ? running / total : 0.0);
    }
    QJsonObject o{{"features", qint64(p)}, {"eigenvalues", eigen}, {"singular_values", singular},
                  {"normalised_spectrum", normalised}};
    if (p >= 2) {
        o.insert("ratio_2_p", ratio(sv[1], sv[std::size_t(p - 1)]));
        o.insert("eigen_ratio_2_p", ratio(std::max(ascending(p - 2), 0.0), std::max(ascending(0), 0.0)));
    }
    if (p >= 1000)
        o.insert("ratio_2_1000", ratio(sv[1], sv[999]));
    return o;
}

void LsqTrainer::reportSolve(const GlsReport& r, const QString& what, RunContext& ctx, QJsonObject* fact) const
{
    const num::SolveReport& f = r.factor;
    const bool finiteCond = std::isfinite(f.conditionEstimate);
    if (fact)
        *fact = QJsonObject{{"method", f.method == num::SolveReport::Method::Cholesky ? "cholesky" : "eigen-pinv"},
                            {"rank", qint64(f.rank)},
                            {"dimension", qint64(f.dimension)},
                            // JSON has no infinity: null stands for an infinite estimate (singular Σ̂).
                            {"cond", finiteCond ? QJsonValue(f.conditionEstimate) : QJsonValue(QJsonValue::Null)},
                            {"lambda", r.lambda},
                            {"sigma_rows", qint64(r.sigmaRows)},
                            {"fallback", f.fallback},
                            {"reason", QString::fromStdString(f.reason)},
                            {"restarts", r.restarts},
                            {"gram_seconds", r.gramSeconds},
                            {"factor_seconds", r.factorSeconds},
                            {"iteration_seconds", r.iterationSeconds}};
    if (f.fallback)
        ctx.log(QStringLiteral("lsq: %1: L·Σ̂ + λI is singular or ill-conditioned (%2): the steps use its "
                               "pseudo-inverse; set \"ridge\" or \"relative_ridge\" > 0 to regularise")
                    .arg(what, QString::fromStdString(f.summary())));
}

} // namespace tb::lsq
