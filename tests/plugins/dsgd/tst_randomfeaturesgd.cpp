// The random-feature baseline: with the squared loss it converges to the ridge solution on its
// features (the known answer), the hinge loss (r-Pegasos) separates a 2-D set, every update
// rule trains, the projection cache changes no bit, Stop ends a run within 200 ms.
#include <dsgd/DsgdConfig.h>
#include <numerics/LeastSquares.h>
#include <dsgd/RandomFeatureSgdTrainer.h>
#include <trainbench/testing/TestRunContext.h>

#include <FitIn.h>
#include <StopMeter.h>

#include <QtTest>
#include <chrono>
#include <future>
#include <random>
#include <tbb/task_arena.h>
#include <thread>

using namespace tb::dsgd;
using tb::testing::TestRunContext;
using tb::testsupport::fitIn;
using tb::testsupport::runAndStop;
using tb::testsupport::StopWhen;

namespace {

DsgdConfig config(const QVariantMap& over)
{
    QString err;
    const auto p = DsgdConfig::schema(Algorithm::RandomFeatureSgd).normalise(over, &err);
    if (!p)
        qFatal("%s", qPrintable(err));
    return DsgdConfig::fromParams(Algorithm::RandomFeatureSgd, *p);
}

Eigen::MatrixXd uniform(Eigen::Index r, Eigen::Index c, std::uint64_t seed)
{
    std::mt19937_64 gen(seed);
    Eigen::MatrixXd m(r, c);
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = 2.0 * double(gen() >> 11) * 0x1.0p-53 - 1.0;
    return m;
}

struct Circle {
    Eigen::MatrixXd x, y;
    explicit Circle(Eigen::Index n, std::uint64_t seed = 2) : x(uniform(n, 2, seed)), y(Eigen::MatrixXd::Zero(n, 2))
    {
        for (Eigen::Index i = 0; i < n; ++i)
            y(i, x.row(i).norm() < 0.6 ? 1 : 0) = 1.0;
    }
    tb::DatasetView view() const { return tb::DatasetView(x, y, tb::Task::Classification); }
};

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

} // namespace

class TestRandomFeatureSgd : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void squaredLossConvergesToTheRidgeSolutionOnItsFeatures()
    {
        // With ν and the features fixed, full-batch steps of a constant size minimise
        // mean ½(wᵀφ(x) − y)² + ν/2‖w‖², whose minimiser solves (ΦᵀΦ + nν·I)w = Φᵀy.
        const Eigen::Index n = 200;
        const Eigen::MatrixXd x = uniform(n, 3, 1);
        Eigen::MatrixXd y(n, 2);
        for (Eigen::Index i = 0; i < n; ++i)
            y.row(i) << std::sin(3 * x(i, 0)) * x(i, 2), x(i, 1) * x(i, 1) - 0.3;
        const double nu = 0.01;
        RandomFeatureSgdTrainer t(config({{"features", 64}, {"ridge", 0.5 * nu}, {"batch_size", int(n)}, {"epochs", 3000.0},
                                          {"t0", 1e12}, {"theta", 0.9}, {"loss", "squared"},
                                          {"checkpoint_every", 1000}}));
        TestRunContext ctx(3, 2);
        fitIn(t, tb::DatasetView(x, y), ctx, 2);
        Eigen::MatrixXd phi;
        QVERIFY(t.model().features(x, 0, 64, phi));
        tb::num::LeastSquaresOptions opt;
        opt.ridge = double(n) * nu;
        const Eigen::MatrixXd w = tb::num::solveLeastSquares(phi, y, opt);
        // Gradient descent contracts the error by (1 − θ(λ_min + ν)) ≤ 1 − 0.009 per step:
        // after 3000 steps by e⁻²⁷ ≈ 2e-12 of the initial error (‖w*‖ ~ 1).
        const double err = (t.model().coefficients() - w).cwiseAbs().maxCoeff();
        qInfo("largest weight difference to the ridge solution: %.3g", err);
        QVERIFY2(err < 1e-8, qPrintable(QString::number(err)));
        const Eigen::MatrixXd query = uniform(40, 3, 2);
        Eigen::MatrixXd phiQ;
        QVERIFY(t.model().features(query, 0, 64, phiQ));
        QVERIFY((t.predict(query) - phiQ * w).cwiseAbs().maxCoeff() < 1e-8);
    }

    void pegasosSeparatesACircle()
    {
        const Circle data(1000), test(500, 3);
        const double nu = 1e-4;
        // Pegasos: hinge loss, step 1/(ν·t).
        RandomFeatureSgdTrainer t(config({{"loss", "hinge"}, {"ridge", 0.5 * nu}, {"theta", 1.0 / nu}, {"t0", 1.0},
                                          {"batch_size", 10}, {"epochs", 10.0}, {"bandwidth_scale", 0.5}}));
        TestRunContext ctx(1, 2);
        fitIn(t, data.view(), ctx, 2);
        const double acc = accuracy(t.predict(test.x), test.y);
        qInfo("r-Pegasos (256 features) test accuracy %.3f", acc);
        QVERIFY(acc > 0.93);
    }

    void everyUpdateRuleLowersTheLoss_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<double>("theta");
        for (const auto& [m, lr] : std::vector<std::pair<const char*, double>>{
                 {"sgd", 1.0}, {"momentum", 0.1}, {"nag", 0.1}, {"adagrad", 0.1}, {"rmsprop", 0.01}, {"adam", 0.01}})
            QTest::newRow(m) << QString(m) << lr;
    }
    void everyUpdateRuleLowersTheLoss()
    {
        QFETCH(QString, method);
        QFETCH(double, theta);
        const Circle data(600);
        RandomFeatureSgdTrainer t(config({{"method", method}, {"theta", theta}, {"epochs", 5.0}}));
        TestRunContext ctx(2, 2);
        fitIn(t, data.view(), ctx, 2);
        QVERIFY(ctx.checkpoints.size() > 3);
        QVERIFY2(ctx.checkpoints.back().loss < 0.8 * ctx.checkpoints.front().loss,
                 qPrintable(QString("%1 → %2").arg(ctx.checkpoints.front().loss).arg(ctx.checkpoints.back().loss)));
    }

    void cacheAndThreadsChangeNoBit()
    {
        const Circle data(500);
        Eigen::MatrixXd out[3];
        const double caches[3] = {0.0, 64.0, 64.0};
        const int threads[3] = {2, 2, 1};
        for (int i = 0; i < 3; ++i) {
            RandomFeatureSgdTrainer t(config({{"features", 1200}, {"cache_mib", caches[i]}, {"epochs", 2.0}}));
            TestRunContext ctx(4, threads[i]);
            fitIn(t, data.view(), ctx, threads[i]);
            out[i] = t.predict(data.x);
        }
        QVERIFY(out[0] == out[1]);
        QVERIFY(out[1] == out[2]);
    }

    void stopEndsFitWithin200ms()
    {
        // Stop 800 ms of CPU time into a long run (400 ms on an idle machine's two threads):
        // the run ends early and its work after Stop is within the promise
        // (tests/support/StopMeter.h).
        const Circle data(20000);
        RandomFeatureSgdTrainer t(config({{"features", 2048}, {"epochs", 1000.0}, {"batch_size", 512}}));
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

    void oddCosSinFeatureCountIsRefused()
    {
        try {
            config({{"random_features", "gaussian_cos_sin"}, {"feature_count", 255}});
            QFAIL("accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY(QString(e.what()).contains("\"feature_count\""));
        }
        try {
            config({{"kernel", "gaussian_cos_sin"}, {"features", 255}});  // plugin 1.0.0's spellings
            QFAIL("accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY(QString(e.what()).contains("\"feature_count\""));
        }
    }
};

QTEST_GUILESS_MAIN(TestRandomFeatureSgd)
#include "tst_randomfeaturesgd.moc"
