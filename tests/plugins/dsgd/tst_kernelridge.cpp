// Exact kernel ridge regression on a subsample: against a dense solve written out, the
// subsample drawn with the seed, the kernels against their formulas — and against the random
// features, which must approximate these very kernels (same bandwidth conventions).
#include <dsgd/DsgdConfig.h>
#include <dsgd/KernelExpansion.h>
#include <dsgd/KernelRidgeTrainer.h>
#include <trainbench/testing/TestRunContext.h>

#include <Eigen/Cholesky>
#include <QtTest>
#include <random>
#include <tbb/task_arena.h>

using namespace tb::dsgd;
using tb::testing::TestRunContext;
using tb::train::FeatureKind;

namespace {

DsgdConfig config(const QVariantMap& over)
{
    QString err;
    const auto p = DsgdConfig::schema(Algorithm::KernelRidge).normalise(over, &err);
    if (!p)
        qFatal("%s", qPrintable(err));
    return DsgdConfig::fromParams(Algorithm::KernelRidge, *p);
}

Eigen::MatrixXd uniform(Eigen::Index r, Eigen::Index c, std::uint64_t seed)
{
    std::mt19937_64 gen(seed);
    Eigen::MatrixXd m(r, c);
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = 2.0 * double(gen() >> 11) * 0x1.0p-53 - 1.0;
    return m;
}

double kernel(FeatureKind k, double sigma, const Eigen::RowVectorXd& a, const Eigen::RowVectorXd& b)
{
    if (k == FeatureKind::LaplaceCos)
        return std::exp(-(a - b).cwiseAbs().sum() / sigma);
    return std::exp(-(a - b).squaredNorm() / (2 * sigma * sigma));
}

} // namespace

class TestKernelRidge : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void kernelsMatchTheirFormulas_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("gaussian") << int(FeatureKind::GaussianCos);
        QTest::newRow("laplace") << int(FeatureKind::LaplaceCos);
    }
    void kernelsMatchTheirFormulas()
    {
        QFETCH(int, kind);
        const Eigen::MatrixXd a = uniform(300, 4, 1), b = uniform(70, 4, 2);
        Eigen::MatrixXd k;
        QVERIFY(KernelRidgeTrainer::kernelMatrix(FeatureKind(kind), 0.7, a, b, k));
        double err = 0;
        for (Eigen::Index i = 0; i < a.rows(); ++i)
            for (Eigen::Index j = 0; j < b.rows(); ++j)
                err = std::max(err, std::abs(k(i, j) - kernel(FeatureKind(kind), 0.7, a.row(i), b.row(j))));
        QVERIFY2(err < 1e-14, qPrintable(QString::number(err)));
    }

    void randomFeaturesApproximateTheSameKernels_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("gaussian") << int(FeatureKind::GaussianCos);
        QTest::newRow("gaussian cos/sin") << int(FeatureKind::GaussianCosSin);
        QTest::newRow("laplace") << int(FeatureKind::LaplaceCos);
    }
    void randomFeaturesApproximateTheSameKernels()
    {
        // φ(x)ᵀφ(x′) with p = 20000 normalised features estimates k(x, x′) with a standard
        // deviation ≤ √(2/p) ≈ 0.01: a wrong bandwidth convention (σ vs σ², ‖·‖₁ vs ‖·‖₂) would
        // be off by far more than the 0.05 allowed.
        QFETCH(int, kind);
        tb::train::RandomFeatures map;
        map.kind = FeatureKind(kind);
        map.inputs = 3;
        map.count = 20000;
        map.bandwidth = 0.8;
        map.seed = 5;
        const Eigen::MatrixXd x = uniform(12, 3, 3) * 0.6;
        Eigen::MatrixXd phi, k;
        QVERIFY(map.transform(x, phi));
        QVERIFY(KernelRidgeTrainer::kernelMatrix(FeatureKind(kind), 0.8, x, x, k));
        const double err = (phi * phi.transpose() - k).cwiseAbs().maxCoeff();
        qInfo("largest error of the feature estimate: %.4f", err);
        QVERIFY2(err < 0.05, qPrintable(QString::number(err)));
    }

    void matchesADenseSolve()
    {
        const Eigen::Index n = 150;
        const Eigen::MatrixXd x = uniform(n, 2, 4);
        Eigen::MatrixXd y(n, 1);
        for (Eigen::Index i = 0; i < n; ++i)
            y(i, 0) = std::sin(3 * x(i, 0)) + x(i, 1);
        const double nu = 1e-3, sigma = 0.5;
        KernelRidgeTrainer t(config({{"bandwidth_rule", "fixed"}, {"bandwidth", sigma}, {"ridge", 0.5 * nu}, {"subsample", 1000}}));
        TestRunContext ctx(1, 2);
        tbb::task_arena(2).execute([&] { t.fit(tb::DatasetView(x, y), ctx); });
        QCOMPARE(t.centres().rows(), n);
        Eigen::MatrixXd k(n, n);
        for (Eigen::Index i = 0; i < n; ++i)
            for (Eigen::Index j = 0; j < n; ++j)
                k(i, j) = kernel(FeatureKind::GaussianCos, sigma, x.row(i), x.row(j));
        k.diagonal().array() += double(n) * nu;
        const Eigen::MatrixXd a = k.ldlt().solve(y);
        const Eigen::MatrixXd q = uniform(20, 2, 5);
        Eigen::MatrixXd kq(20, n);
        for (Eigen::Index i = 0; i < 20; ++i)
            for (Eigen::Index j = 0; j < n; ++j)
                kq(i, j) = kernel(FeatureKind::GaussianCos, sigma, q.row(i), x.row(j));
        const Eigen::MatrixXd expected = kq * a;
        // cond(K + nνI) ≤ (n + 0.15)/0.15 ≈ 10³: two solvers agree to ~1e-12.
        QVERIFY((t.predict(q) - expected).cwiseAbs().maxCoeff() < 1e-9);
        QCOMPARE(ctx.checkpoints.size(), std::size_t(1));
        QVERIFY(ctx.records.value("kernel_ridge_solve").toString().startsWith("cholesky"));
    }

    void subsampleIsSeeded()
    {
        const Eigen::MatrixXd x = uniform(500, 2, 6);
        const Eigen::MatrixXd y = x.col(0);
        auto centres = [&](std::uint64_t seed) {
            KernelRidgeTrainer t(config({{"subsample", 100}}));
            TestRunContext ctx(seed, 1);
            t.fit(tb::DatasetView(x, y), ctx);
            return Eigen::MatrixXd(t.centres());
        };
        const Eigen::MatrixXd a = centres(1), b = centres(1), c = centres(2);
        QCOMPARE(a.rows(), Eigen::Index(100));
        QVERIFY(a == b);
        QVERIFY(a != c);
    }

    void stopDuringTheSolveAndThePrediction()
    {
        const Eigen::MatrixXd x = uniform(3000, 5, 7);
        const Eigen::MatrixXd y = x.rowwise().sum();
        KernelRidgeTrainer t(config({{"subsample", 3000}}));
        TestRunContext ctx(1, 2);
        bool sawEmpty = false;
        ctx.onCheckpoint = [&](const tb::Checkpoint&) {
            ctx.requestStop();
            sawEmpty = t.predict(uniform(20000, 5, 8)).rows() == 0;
        };
        tbb::task_arena(2).execute([&] { t.fit(tb::DatasetView(x, y), ctx); });
        QVERIFY(sawEmpty);
        QCOMPARE(t.predict(x.topRows(10)).rows(), Eigen::Index(10));
    }
};

QTEST_GUILESS_MAIN(TestKernelRidge)
#include "tst_kernelridge.moc"
