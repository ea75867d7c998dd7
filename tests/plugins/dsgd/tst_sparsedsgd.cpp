// Sparse inputs for the dsgd plugin (issue 28): the counter-based draw of ω (its distribution and
// independence), the kernel approximation on sparse rows, sparse and dense rows through the same
// model, a 2000 × 1,000,000 problem trained without a dense copy, Stop, the cost prediction by
// the non-zeros (an upper bound of the measured peak), the median trick, bad sparse input and
// the plugin's declaration.
#include <dsgd/DsgdConfig.h>
#include <dsgd/DsgdPlugin.h>
#include <dsgd/DsgdTrainer.h>
#include <dsgd/KernelExpansion.h>
#include <dsgd/KernelSetup.h>
#include <engine/PeakMemory.h>
#include <dsgd/RandomFeatureSgdTrainer.h>
#include <dsgd/SparseFeatures.h>
#include <trainbench/testing/TestRunContext.h>

#include <FitIn.h>
#include <LabelledSets.h>
#include <OneHot.h>
#include <StopMeter.h>

#include <QDir>
#include <QPluginLoader>
#include <QtTest>
#include <random>
#include <sys/resource.h>

using namespace tb::dsgd;
using tb::SparseMatrix;
using tb::testing::TestRunContext;
using tb::testsupport::fitIn;
using tb::testsupport::runAndStop;
using tb::testsupport::SparseLabelledSet;
using tb::testsupport::StopWhen;
using tb::train::FeatureKind;
using tb::train::RandomFeatures;

namespace {

constexpr double kPi = 3.14159265358979323846;

DsgdConfig config(Algorithm a, const QVariantMap& over)
{
    QString err;
    const auto p = DsgdConfig::schema(a).normalise(over, &err);
    if (!p)
        qFatal("%s", qPrintable(err));
    return DsgdConfig::fromParams(a, *p);
}

RandomFeatures mapOf(FeatureKind kind, Eigen::Index d, Eigen::Index count, double sigma, std::uint64_t seed,
                     bool normalise)
{
    RandomFeatures m;
    m.kind = kind;
    m.inputs = d;
    m.count = count;
    m.bandwidth = sigma;
    m.seed = seed;
    m.normalise = normalise;
    return m;
}

// A text corpus in miniature with planted topics: two classes, each with a vocabulary of 40
// columns scattered over the d columns; a row has 15 distinct words of its class's vocabulary and
// 5 distinct words from anywhere, values in [0.5, 1.5). Rows of one class share ≈ 15·15/40 words,
// rows of different classes almost none, so a Gaussian kernel separates them. O(n·20).
SparseLabelledSet topics(Eigen::Index n, int d, std::uint64_t rowSeed)
{
    std::mt19937_64 vocab(77);  // the same vocabularies for every set
    std::vector<std::vector<int>> words(2);
    for (auto& w : words)
        while (w.size() < 40) {
            const int c = int(vocab() % std::uint64_t(d));
            if (std::find(words[0].begin(), words[0].end(), c) == words[0].end() &&
                std::find(words[1].begin(), words[1].end(), c) == words[1].end())
                w.push_back(c);
        }
    std::mt19937_64 gen(rowSeed);
    std::vector<Eigen::Triplet<double, int>> entries;
    std::vector<int> labels(static_cast<std::size_t>(n)), cols;
    for (Eigen::Index i = 0; i < n; ++i) {
        const int label = int(gen() % 2);
        labels[std::size_t(i)] = label;
        cols.clear();
        while (cols.size() < 20) {
            const int c = cols.size() < 15 ? words[std::size_t(label)][gen() % 40] : int(gen() % std::uint64_t(d));
            if (std::find(cols.begin(), cols.end(), c) == cols.end())
                cols.push_back(c);
        }
        for (int c : cols)
            entries.emplace_back(int(i), c, 1.0 + 0.5 * tb::testsupport::uniformPm1(gen));
    }
    SparseLabelledSet s;
    s.x.resize(n, d);
    s.x.setFromTriplets(entries.begin(), entries.end());
    s.x.makeCompressed();
    s.y = tb::testsupport::oneHot(labels, 2);
    s.none.resize(n, 0);
    return s;
}

double accuracy(const Eigen::MatrixXd& scores, const Eigen::MatrixXd& y)
{
    Eigen::Index right = 0;
    for (Eigen::Index i = 0; i < y.rows(); ++i) {
        Eigen::Index a, b;
        scores.row(i).maxCoeff(&a);
        y.row(i).maxCoeff(&b);
        right += a == b;
    }
    return double(right) / double(y.rows());
}

double maxAbs(const Eigen::MatrixXd& m)
{
    return m.size() ? m.cwiseAbs().maxCoeff() : 0.0;
}

QString fitError(tb::Trainer& t, const tb::DatasetView& v)
{
    TestRunContext ctx;
    try {
        fitIn(t, v, ctx, 2);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class TestSparseDsgd : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void counterDrawsHaveTheKernelsDistribution()
    {
        // N draws over 400 frequencies × 500 columns spread over a million: mean and variance of
        // N(0, σ⁻²) within 5 standard errors, neighbouring columns and frequencies uncorrelated.
        const double sigma = 2.0;
        const RandomFeatures g = mapOf(FeatureKind::GaussianCos, 1000000, 400, sigma, 12345, true);
        const int freqs = 400, cols = 500;
        const double n = double(freqs) * cols;
        double sum = 0, sum2 = 0, nextCol = 0, nextFreq = 0;
        for (int f = 0; f < freqs; ++f) {
            const std::uint64_t key = SparseFeatures::frequencyKey(g, f), key2 = SparseFeatures::frequencyKey(g, f + 1);
            for (int i = 0; i < cols; ++i) {
                const Eigen::Index c = Eigen::Index(i) * 1999 + 3;
                const double w = SparseFeatures::omegaEntry(g, key, c) * sigma;  // standard normal
                sum += w;
                sum2 += w * w;
                nextCol += w * SparseFeatures::omegaEntry(g, key, c + 1) * sigma;
                nextFreq += w * SparseFeatures::omegaEntry(g, key2, c) * sigma;
            }
        }
        const double mean = sum / n, var = sum2 / n - mean * mean;
        qInfo("gaussian: mean %.4g (SE %.3g), variance %.4g (SE %.3g), neighbour correlations %.3g, %.3g", mean,
              1 / std::sqrt(n), var, std::sqrt(2 / n), nextCol / n, nextFreq / n);
        QVERIFY(std::abs(mean) < 5 / std::sqrt(n));
        QVERIFY(std::abs(var - 1) < 5 * std::sqrt(2 / n));
        // E[w w′] = 0 with variance 1 per product for independent standard normals.
        QVERIFY(std::abs(nextCol / n) < 5 / std::sqrt(n));
        QVERIFY(std::abs(nextFreq / n) < 5 / std::sqrt(n));

        // Laplace: Cauchy(0, 1/σ), whose quartiles are ±1/σ: the fractions below −1/σ, 0, 1/σ.
        const RandomFeatures l = mapOf(FeatureKind::LaplaceCos, 1000000, 400, sigma, 999, true);
        double below[3] = {0, 0, 0}, offsets = 0;
        for (int f = 0; f < freqs; ++f) {
            const std::uint64_t key = SparseFeatures::frequencyKey(l, f);
            for (int i = 0; i < cols; ++i) {
                const double w = SparseFeatures::omegaEntry(l, key, Eigen::Index(i) * 1999 + 3) * sigma;
                below[0] += w <= -1;
                below[1] += w <= 0;
                below[2] += w <= 1;
            }
            offsets += SparseFeatures::offset(l, f);
        }
        const double q[3] = {0.25, 0.5, 0.75};
        for (int i = 0; i < 3; ++i)
            QVERIFY2(std::abs(below[i] / n - q[i]) < 5 * std::sqrt(q[i] * (1 - q[i]) / n),
                     qPrintable(QString("fraction below quartile %1: %2").arg(i + 1).arg(below[i] / n)));
        // Offsets U[0, 2π): mean π, standard deviation 2π/√12.
        QVERIFY(std::abs(offsets / freqs - kPi) < 5 * 2 * kPi / std::sqrt(12.0 * freqs));
        QCOMPARE(SparseFeatures::offset(mapOf(FeatureKind::GaussianCosSin, 10, 4, 1, 1, true), 1), 0.0);
    }

    void featuresDoNotDependOnTheBlock()
    {
        // A row's features are the same bits alone or among other rows (entries drawn per column).
        const SparseLabelledSet s = topics(40, 1000000, 5);
        KernelExpansion e;
        e.reset(mapOf(FeatureKind::GaussianCos, 1000000, 1200, 3.0, 8, false), 1, 0, FeatureDraw::Counter);
        Eigen::MatrixXd all, one;
        QVERIFY(e.featuresSparse(s.x, 100, 1000, all));
        const SparseMatrix row = SparseFeatures::selectRows(s.x, {17});
        QVERIFY(e.featuresSparse(row, 100, 1000, one));
        QVERIFY(one == all.row(17));
    }

    void rememberedSumsGiveTheSameBits()
    {
        // Large sparse inputs remember the sum over complete chunks: the next evaluation after
        // more features were added continues it in the same order, the same bits as afresh.
        const SparseLabelledSet s = topics(2500, 200000, 6);
        KernelExpansion e;
        e.reset(mapOf(FeatureKind::GaussianCosSin, 200000, 4000, 3.0, 8, false), 2, 0, FeatureDraw::Counter);
        std::mt19937_64 g(3);
        auto block = [&](Eigen::Index r) {
            Eigen::MatrixXd a(r, 2);
            for (Eigen::Index i = 0; i < a.size(); ++i)
                a.data()[i] = tb::testsupport::uniformPm1(g);
            return a;
        };
        e.append(block(1100));
        Eigen::MatrixXd first, memo, fresh;
        QVERIFY(e.evaluateSparse(s.x, first, {}, true));
        QVERIFY(e.memoBytes() > 0);
        e.append(block(900));
        QVERIFY(e.evaluateSparse(s.x, memo, {}, true));
        QVERIFY(e.evaluateSparse(s.x, fresh));
        QVERIFY(memo == fresh);
        // Changed values are other rows: nothing remembered is reused for them.
        SparseMatrix other = s.x;
        other.valuePtr()[7] += 0.25;
        QVERIFY(e.evaluateSparse(other, memo, {}, true));
        QVERIFY(e.evaluateSparse(other, fresh));
        QVERIFY(memo == fresh);
    }

    void kernelApproximationHoldsOnSparseRows_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("gaussian_cos") << int(FeatureKind::GaussianCos);
        QTest::newRow("gaussian_cos_sin") << int(FeatureKind::GaussianCosSin);
        QTest::newRow("laplace_cos") << int(FeatureKind::LaplaceCos);
    }
    void kernelApproximationHoldsOnSparseRows()
    {
        // φ(x)ᵀφ(x′) with p features normalised by √(2/p) is a mean of p terms: 2cos(u)cos(v)
        // ∈ [−2, 2] (offset form, standard error ≤ 2/√p), or over p/2 pairs cos(u − v) ∈ [−1, 1]
        // (standard error ≤ 1/√(p/2)); 5 standard errors is the tolerance.
        QFETCH(int, kind);
        const FeatureKind k = FeatureKind(kind);
        const Eigen::Index d = 1000000, p = 20000;
        const SparseLabelledSet s = topics(6, int(d), 11);  // rows 0…5: pairs of one class share words
        const double sigma = k == FeatureKind::LaplaceCos ? 15.0 : 4.0;
        KernelExpansion e;
        e.reset(mapOf(k, d, p, sigma, 4242, true), 1, 0, FeatureDraw::Counter);
        Eigen::MatrixXd phi;
        QVERIFY(e.featuresSparse(s.x, 0, p, phi));
        const double tol = k == FeatureKind::GaussianCosSin ? 5.0 / std::sqrt(p / 2.0) : 10.0 / std::sqrt(double(p));
        for (int i = 0; i < 6; ++i)
            for (int j = i + 1; j < 6; ++j) {
                const SparseMatrix diff = SparseMatrix(s.x.row(i)) - SparseMatrix(s.x.row(j));
                const double exact = k == FeatureKind::LaplaceCos
                                         ? std::exp(-diff.cwiseAbs().sum() / sigma)
                                         : std::exp(-diff.squaredNorm() / (2 * sigma * sigma));
                const double approx = phi.row(i).dot(phi.row(j));
                QVERIFY2(std::abs(approx - exact) < tol,
                         qPrintable(QString("rows %1, %2: φᵀφ′ = %3, k = %4, tolerance %5")
                                        .arg(i).arg(j).arg(approx).arg(exact).arg(tol)));
            }
    }

    void sequentialProjectionsGiveTheDenseFeatures()
    {
        // A model of dense rows (the Sequential draw) evaluated on the same rows kept sparse reads
        // the occurring columns' rows of the same projections: equal up to rounding. z = Σ x_c ω_c
        // summed in another order differs by at most (nnz + 1)·ε·Σ|x_c ω_c| (B below; laplace's
        // Cauchy entries make it large), the cosines by a few ulp, so |Δφ| ≤ √2·ε·((nnz + 1)·B +
        // 8); 4× that is the tolerance.
        const SparseLabelledSet s = tb::testsupport::toSparse(tb::testsupport::plantedDense(1500, 60, 0.2, 2, 3));
        const Eigen::MatrixXd dense = Eigen::MatrixXd(s.x);
        Eigen::Index nnzMax = 0;
        for (Eigen::Index i = 0; i < s.x.rows(); ++i)
            nnzMax = std::max<Eigen::Index>(nnzMax, s.x.outerIndexPtr()[i + 1] - s.x.outerIndexPtr()[i]);
        const double eps = std::numeric_limits<double>::epsilon();
        for (FeatureKind k : {FeatureKind::GaussianCos, FeatureKind::GaussianCosSin, FeatureKind::LaplaceCos}) {
            const RandomFeatures map = mapOf(k, 60, 1300, 1.5, 9, false);
            Eigen::MatrixXd omega;
            Eigen::VectorXd offset;
            map.projection(0, 1300, omega, offset);
            const double b = (dense.cwiseAbs() * omega.cwiseAbs()).maxCoeff();
            const double tol = 4 * std::sqrt(2.0) * eps * (double(nnzMax + 1) * b + 8);
            KernelExpansion e;
            e.reset(map, 2, 1e9);
            Eigen::MatrixXd fa, fb;
            QVERIFY(e.features(dense, 0, 1300, fa));
            QVERIFY(e.featuresSparse(s.x, 0, 1300, fb));
            QVERIFY2(maxAbs(fa - fb) <= tol, qPrintable(QString("%1 > %2").arg(maxAbs(fa - fb)).arg(tol)));
            std::mt19937_64 g(1);
            Eigen::MatrixXd alpha(1300, 2);
            for (Eigen::Index i = 0; i < alpha.size(); ++i)
                alpha.data()[i] = tb::testsupport::uniformPm1(g);
            e.append(alpha);
            // |Δf| ≤ Σ|α|·(tol + the sums' own rounding) on both paths (row path: 1500 rows,
            // chunk path: 100).
            const double ftol = alpha.cwiseAbs().colwise().sum().maxCoeff() * (tol + 1300 * eps * std::sqrt(2.0));
            QVERIFY(e.evaluate(dense, fa));
            QVERIFY(e.evaluateSparse(s.x, fb));
            QVERIFY2(maxAbs(fa - fb) <= ftol, qPrintable(QString("%1 > %2").arg(maxAbs(fa - fb)).arg(ftol)));
            const SparseMatrix top = s.x.topRows(100);
            QVERIFY(e.evaluate(dense.topRows(100), fa));
            QVERIFY(e.evaluateSparse(top, fb));
            QVERIFY2(maxAbs(fa - fb) <= ftol, qPrintable(QString("%1 > %2").arg(maxAbs(fa - fb)).arg(ftol)));
        }
    }

    void predictSparseMatchesPredictOnTheSameRows_data()
    {
        QTest::addColumn<int>("algorithm");
        QTest::newRow("doubly") << int(Algorithm::Doubly);
        QTest::newRow("preconditioned") << int(Algorithm::Preconditioned);
        QTest::newRow("random_features_sgd") << int(Algorithm::RandomFeatureSgd);
    }
    void predictSparseMatchesPredictOnTheSameRows()
    {
        QFETCH(int, algorithm);
        const Algorithm a = Algorithm(algorithm);
        const SparseLabelledSet train = topics(600, 5000, 1), probe = topics(1200, 5000, 2);
        const Eigen::MatrixXd probeDense = Eigen::MatrixXd(probe.x);
        const QVariantMap params = a == Algorithm::RandomFeatureSgd
                                       ? QVariantMap{{"batch_size", 50}, {"feature_count", 600}, {"epochs", 2.0}}
                                       : QVariantMap{{"batch_size", 50}, {"features_per_step", 40}, {"epochs", 2.0}};
        auto make = [&]() -> std::unique_ptr<tb::SparseTrainer> {
            if (a == Algorithm::RandomFeatureSgd)
                return std::make_unique<RandomFeatureSgdTrainer>(config(a, params));
            return std::make_unique<DsgdTrainer>(config(a, params));
        };
        // Trained on sparse rows: dense rows of the same data go through their non-zeros, the
        // same path, so the same bits (row path: 1200 rows; chunk path: 100).
        auto sparseModel = make();
        TestRunContext ctx(7, 2);
        fitIn(*sparseModel, train.view(), ctx, 2);
        const Eigen::MatrixXd ps = sparseModel->predictSparse(probe.x);
        QVERIFY(ps == sparseModel->predict(probeDense));
        QVERIFY(sparseModel->predictSparse(SparseMatrix(probe.x.topRows(100))) == sparseModel->predict(probeDense.topRows(100)));
        const double acc = accuracy(ps, probe.y);
        qInfo("sparse-trained: held-out accuracy %.3f", acc);
        QVERIFY(acc > 0.75);  // chance: 0.5

        // Trained on the dense copy (the Sequential draw, as before): sparse rows read the same
        // projections, equal up to rounding: |Δφ| ≤ √2·ε·((nnz + 1)·Σ|x_c ω_c| + 8) with
        // Σ|x_c ω_c| ≲ 20·1.5·|ω| ≲ 200 here (gaussian ω of σ ≈ median distance ≈ 5), so
        // |Δf| ≤ Σ|α|·1e-12 with room.
        auto denseModel = make();
        const Eigen::MatrixXd trainDense = Eigen::MatrixXd(train.x);
        TestRunContext cd(7, 2);
        fitIn(*denseModel, tb::DatasetView(trainDense, train.y, tb::Task::Classification), cd, 2);
        const Eigen::MatrixXd pd = denseModel->predict(probeDense);
        const KernelExpansion& m = a == Algorithm::RandomFeatureSgd
                                       ? static_cast<RandomFeatureSgdTrainer&>(*denseModel).model()
                                       : static_cast<DsgdTrainer&>(*denseModel).model();
        const double tol = 1e-12 * (1 + m.coefficients().cwiseAbs().colwise().sum().maxCoeff());
        QVERIFY2(maxAbs(denseModel->predictSparse(probe.x) - pd) < tol, qPrintable(QString::number(tol)));
        // Same seed, different draws: the sparse and dense runs are different models.
        QVERIFY(maxAbs(ps - pd) > 1e-6);
    }

    void medianTrickOnSparseRowsMatchesDense()
    {
        // The same sampled rows as the dense median trick; distances from the non-zeros, equal up
        // to rounding.
        const SparseLabelledSet s = topics(700, 3000, 9);
        const Eigen::MatrixXd dense = Eigen::MatrixXd(s.x);
        const double a = tb::train::medianDistance(dense, 300, 5);
        const double b = SparseFeatures::medianDistance(s.x, 300, 5);
        QVERIFY2(std::abs(a - b) <= 1e-12 * a, qPrintable(QString("%1 vs %2").arg(a).arg(b)));
        const DsgdConfig c = config(Algorithm::Doubly, {{"bandwidth", 0.5}});
        QCOMPARE(KernelSetup::bandwidth(c, s.view(), 3), KernelSetup::bandwidth(c, dense, 3));
        // Every sampled row the same point: no bandwidth, and the message says what to do.
        SparseLabelledSet same = s;
        same.x = SparseFeatures::selectRows(s.x, std::vector<Eigen::Index>(50, 4));
        same.y = s.y.topRows(50);
        same.none.resize(50, 0);
        DsgdTrainer t(config(Algorithm::Doubly, {}));
        QVERIFY(fitError(t, same.view()).contains("bandwidth_rule"));
    }

    void trainsOnAProblemFarTooWideToDensify()
    {
        // 2000 × 1,000,000 with 20 non-zeros a row: a dense copy would take 16 GB; the plugin
        // keeps the rows (0.5 MB) and draws ω only for the columns that occur.
        const Eigen::Index n = 2000, d = 1000000;
        const SparseLabelledSet train = topics(n, int(d), 21), test = topics(1000, int(d), 22);
        QCOMPARE(train.x.nonZeros(), n * 20);
        DsgdTrainer t(config(Algorithm::Doubly, {{"batch_size", 100}, {"features_per_step", 50}, {"epochs", 2.0}}));
        const tb::ProblemShape shape{n, d, 2, tb::Task::Classification, train.x.nonZeros()};
        const QJsonObject cost = t.predictCost(shape);
        QVERIFY2(cost.value("memory_bytes").toDouble() < 100e6, qPrintable(QString::number(cost.value("memory_bytes").toDouble())));
        const double dense = t.predictCost(tb::ProblemShape{n, d, 2, tb::Task::Classification}).value("memory_bytes").toDouble();
        // The same shape taken dense: its working memory alone is over 8 GB (ω for every column,
        // the median's sample), and the 16 GB copy of the data comes on top.
        QVERIFY2(dense > 8e9, qPrintable(QString::number(dense)));
        TestRunContext ctx(3, 2);
        QString why;
        qint64 measured = -1;
        Eigen::MatrixXd trainScores, testScores;
        {
            tb::PeakMemory peak;
            fitIn(t, train.view(), ctx, 2);
            trainScores = t.predictSparse(train.x);
            testScores = t.predictSparse(test.x);
            measured = peak.finish(&why);
        }
        QVERIFY(!ctx.checkpoints.empty());
        QCOMPARE(ctx.records.value("planned_features").toDouble(), 40.0 * 50.0);
        const double trainAccuracy = accuracy(trainScores, train.y), testAccuracy = accuracy(testScores, test.y);
        qInfo("2000 × 1,000,000 doubly stochastic: training accuracy %.4f, held-out %.4f (chance 0.5); predicted "
              "memory %.1f MB, measured peak growth %.1f MB (%s)",
              trainAccuracy, testAccuracy, cost.value("memory_bytes").toDouble() / 1e6, double(measured) / 1e6,
              qPrintable(why));
        QVERIFY(testAccuracy >= 0.9);
        // The conformance suite's bound: the measured peak within the prediction + 4 MiB.
        if (measured >= 0)
            QVERIFY(double(measured) <= cost.value("memory_bytes").toDouble() + 4.0 * 1024 * 1024);
        QVERIFY(ctx.records.value("working_memory_bytes").toDouble() <= cost.value("memory_bytes").toDouble());
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        QVERIFY(double(usage.ru_maxrss) * 1024 < 2e9);

        // The random-feature baseline on the same problem.
        RandomFeatureSgdTrainer r(config(Algorithm::RandomFeatureSgd, {{"batch_size", 50}, {"feature_count", 1000}, {"epochs", 3.0}}));
        const QJsonObject rc = r.predictCost(shape);
        QVERIFY(rc.value("memory_bytes").toDouble() < 100e6);
        TestRunContext cr(3, 2);
        qint64 rMeasured = -1;
        double rAcc = 0;
        {
            tb::PeakMemory rpeak;
            fitIn(r, train.view(), cr, 2);
            rAcc = accuracy(r.predictSparse(test.x), test.y);
            rMeasured = rpeak.finish(&why);
        }
        qInfo("random_features_sgd: held-out %.4f; predicted %.1f MB, measured %.1f MB (%s)", rAcc,
              rc.value("memory_bytes").toDouble() / 1e6, double(rMeasured) / 1e6, qPrintable(why));
        QVERIFY(rAcc >= 0.9);
        if (rMeasured >= 0)
            QVERIFY(double(rMeasured) <= rc.value("memory_bytes").toDouble() + 4.0 * 1024 * 1024);
    }

    void costOfASparseShapeCountsNonZeros()
    {
        for (Algorithm a : {Algorithm::Doubly, Algorithm::Preconditioned, Algorithm::RandomFeatureSgd}) {
            const DsgdConfig c = config(a, {});
            std::unique_ptr<tb::Trainer> t;
            if (a == Algorithm::RandomFeatureSgd)
                t = std::make_unique<RandomFeatureSgdTrainer>(c);
            else
                t = std::make_unique<DsgdTrainer>(c);
            const tb::ProblemShape narrow{20000, 47236, 2, tb::Task::Classification, 20000 * 74};
            tb::ProblemShape wide = narrow;
            wide.inputs = 1000000;
            const QJsonObject cn = t->predictCost(narrow), cw = t->predictCost(wide);
            // The width never enters: only the non-zeros.
            QCOMPARE(cw.value("flops").toDouble(), cn.value("flops").toDouble());
            QCOMPARE(cw.value("memory_bytes").toDouble(), cn.value("memory_bytes").toDouble());
            tb::ProblemShape more = narrow;
            more.nonZeros *= 2;
            QVERIFY(t->predictCost(more).value("flops").toDouble() > cn.value("flops").toDouble());
            QVERIFY(t->predictCost(more).value("memory_bytes").toDouble() > cn.value("memory_bytes").toDouble());
            // RCV1's shape: well under a GB, while its dense shape is 7.6 GB of inputs alone.
            QVERIFY2(cn.value("memory_bytes").toDouble() < 1e9, qPrintable(QString::number(cn.value("memory_bytes").toDouble())));
        }
    }

    void stopEndsASparseFit()
    {
        // As on dense data: Stop 800 ms of CPU time into a long run; the work after Stop is
        // within the promise (tests/support/StopMeter.h).
        const SparseLabelledSet data = topics(20000, 1000000, 31);
        DsgdTrainer t(config(Algorithm::Doubly, {{"batch_size", 256}, {"features_per_step", 64}, {"epochs", 1000.0}}));
        TestRunContext ctx(1, 2);
        const auto r = runAndStop(ctx.stopSource(), StopWhen{.cpuMs = 800}, [&] {
            fitIn(t, data.view(), ctx, 2);
            return true;
        });
        QVERIFY2(!r.endedBeforeStop, "finished before Stop");
        QVERIFY(ctx.checkpoints.empty() || ctx.checkpoints.back().epoch < 1000.0);
        qInfo("%s", qPrintable(r.after.describe()));
        QVERIFY2(r.after.withinPromise(), qPrintable(r.after.describe()));
    }

    void predictSparseStopsWithTheRun()
    {
        const SparseLabelledSet data = topics(300, 100000, 41), big = topics(5000, 100000, 42);
        DsgdTrainer t(config(Algorithm::Doubly, {{"batch_size", 300}, {"features_per_step", 1500}, {"epochs", 3.0}}));
        TestRunContext ctx(1, 2);
        bool sawEmpty = false;
        ctx.onCheckpoint = [&](const tb::Checkpoint&) {
            ctx.requestStop();
            sawEmpty = t.predictSparse(big.x).rows() == 0;
        };
        fitIn(t, data.view(), ctx, 2);
        QVERIFY(sawEmpty);
        QCOMPARE(ctx.checkpoints.size(), std::size_t(1));
        QCOMPARE(t.predictSparse(big.x).rows(), big.x.rows());
    }

    void badSparseInputFailsClearly()
    {
        const SparseLabelledSet ok = topics(60, 1000, 51);
        SparseLabelledSet nan = ok;
        nan.x.valuePtr()[nan.x.outerIndexPtr()[4]] = std::numeric_limits<double>::quiet_NaN();
        DsgdTrainer t(config(Algorithm::Doubly, {}));
        const QString err = fitError(t, nan.view());
        QVERIFY2(err.contains("NaN or Inf") && err.contains("row 5"), qPrintable(err));
        RandomFeatureSgdTrainer r(config(Algorithm::RandomFeatureSgd, {}));
        QVERIFY(fitError(r, nan.view()).contains("row 5"));
        // A model of 1000 columns asked about rows of another width.
        TestRunContext ctx;
        fitIn(t, ok.view(), ctx, 2);
        const SparseMatrix wide(3, 1001);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, t.predictSparse(wide));
        DsgdTrainer fresh(config(Algorithm::Doubly, {}));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, fresh.predictSparse(ok.x));
        // The counter draw takes the cosine features only.
        KernelExpansion e;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 e.reset(mapOf(FeatureKind::RandomLogit, 10, 4, 1, 1, true), 1, 0, FeatureDraw::Counter));
    }

    void pluginDeclaresSparseInput()
    {
        QPluginLoader loader(QDir(TB_PLUGIN_BUILD_DIR).filePath("trainbench-dsgd.so"));
        QObject* root = loader.instance();
        QVERIFY2(root, qPrintable(loader.errorString()));
        auto* factory = qobject_cast<tb::TrainerFactory*>(root);
        auto* sparse = qobject_cast<tb::SparseInputFactory*>(root);
        QVERIFY(factory && sparse);
        const QStringList ids = sparse->sparseInputAlgorithms();
        QCOMPARE(ids, QStringList({"dsgd.doubly_stochastic", "dsgd.preconditioned", "dsgd.random_features_sgd"}));
        for (const auto& a : factory->algorithms()) {
            QString err;
            const auto p = a.schema.normalise({}, &err);
            QVERIFY2(p.has_value(), qPrintable(err));
            const auto trainer = factory->create(a.id, *p);
            QCOMPARE(dynamic_cast<const tb::SparseTrainer*>(trainer.get()) != nullptr, ids.contains(a.id));
        }
    }
};

QTEST_GUILESS_MAIN(TestSparseDsgd)
#include "tst_sparsedsgd.moc"
