// Runs of the doubly stochastic trainers against a recording RunContext: Algorithm 1 against a
// reference loop written feature by feature, the preconditioned step against its closed form,
// the projection cache (same bits), reproducibility, Stop (in fit() and in predict()), bad
// input, divergence, the facts and the cost prediction, and a 2-D set learnt visibly.
#include <dsgd/BatchSchedule.h>
#include <dsgd/DsgdConfig.h>
#include <dsgd/DsgdTrainer.h>
#include <numerics/LeastSquares.h>
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

DsgdConfig config(Algorithm a, const QVariantMap& over)
{
    QString err;
    const auto p = DsgdConfig::schema(a).normalise(over, &err);
    if (!p)
        qFatal("%s", qPrintable(err));
    return DsgdConfig::fromParams(a, *p);
}

QString creationError(Algorithm a, const QVariantMap& over)
{
    try {
        config(a, over);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

Eigen::MatrixXd uniform(Eigen::Index r, Eigen::Index c, std::uint64_t seed)
{
    std::mt19937_64 gen(seed);
    Eigen::MatrixXd m(r, c);
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = 2.0 * double(gen() >> 11) * 0x1.0p-53 - 1.0;
    return m;
}

// A smooth regression problem: y = (sin(2x₁) + x₂², x₁x₂), 2 inputs, 2 outputs.
struct Regression {
    Eigen::MatrixXd x, y;
    explicit Regression(Eigen::Index n, std::uint64_t seed = 1) : x(uniform(n, 2, seed)), y(n, 2)
    {
        for (Eigen::Index i = 0; i < n; ++i)
            y.row(i) << std::sin(2 * x(i, 0)) + x(i, 1) * x(i, 1), x(i, 0) * x(i, 1);
    }
    tb::DatasetView view() const { return tb::DatasetView(x, y, tb::Task::Regression); }
};

// Two classes inside and outside a circle of radius 0.6 (not linearly separable).
struct Circle {
    Eigen::MatrixXd x, y;
    explicit Circle(Eigen::Index n, std::uint64_t seed = 2) : x(uniform(n, 2, seed)), y(Eigen::MatrixXd::Zero(n, 2))
    {
        for (Eigen::Index i = 0; i < n; ++i)
            y(i, x.row(i).norm() < 0.6 ? 1 : 0) = 1.0;
    }
    tb::DatasetView view() const
    {
        tb::DatasetView v(x, y, tb::Task::Classification);
        v.classNames = {"outside", "inside"};
        return v;
    }
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

bool sameBits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() &&
           std::memcmp(a.data(), b.data(), sizeof(double) * std::size_t(a.size())) == 0;
}

// Algorithm 1 written out feature by feature (cos/sin features pair by pair, as they share one
// ω), the squared loss, every ω regenerated alone.
Eigen::MatrixXd referenceAlgorithm1(const DsgdConfig& c, const Regression& data, std::uint64_t seed,
                                    const Eigen::MatrixXd& query)
{
    tb::train::RandomFeatures map;
    map.kind = c.kernel;
    map.inputs = data.x.cols();
    map.count = 1000000;
    map.bandwidth = c.bandwidth;
    map.seed = tb::deriveSeed(seed, kSeedFeatures);
    map.normalise = false;
    const Eigen::Index unit = c.kernel == tb::train::FeatureKind::GaussianCosSin ? 2 : 1;
    auto phi = [&](const Eigen::MatrixXd& x, Eigen::Index j) {  // features j … j + unit − 1
        Eigen::MatrixXd out;
        map.transform(x, out, {}, j, unit);
        return out;
    };
    std::vector<Eigen::VectorXd> alpha;  // one k-vector per feature
    auto predict = [&](const Eigen::MatrixXd& x) {
        Eigen::MatrixXd f = Eigen::MatrixXd::Zero(x.rows(), 2);
        for (std::size_t j = 0; j < alpha.size(); j += std::size_t(unit)) {
            const Eigen::MatrixXd p = phi(x, Eigen::Index(j));
            for (Eigen::Index u = 0; u < unit; ++u)
                f += p.col(u) * alpha[j + std::size_t(u)].transpose();
        }
        return f;
    };
    BatchSchedule batches(data.x.rows(), c.batchSize, c.epochs, tb::deriveSeed(seed, kSeedOrder));
    std::vector<Eigen::Index> rows;
    const double r = double(c.featuresPerStep);
    for (Eigen::Index t = 0; batches.next(rows); ++t) {
        const Eigen::MatrixXd xb = data.x(rows, Eigen::all), yb = data.y(rows, Eigen::all);
        const Eigen::MatrixXd dl = predict(xb) - yb;  // l′ of ½(f − y)²
        const double gamma = c.theta / (1.0 + c.inverseDecay * double(t));  // θ/(1 + t/t₀)
        for (auto& a : alpha)
            a *= 1.0 - gamma * c.nu;
        for (Eigen::Index j = 0; j < c.featuresPerStep; j += unit) {
            const Eigen::MatrixXd p = phi(xb, Eigen::Index(alpha.size()));
            for (Eigen::Index u = 0; u < unit; ++u)
                alpha.push_back(-gamma / (r * double(rows.size())) * (dl.transpose() * p.col(u)));
        }
    }
    return predict(query);
}

} // namespace

class TestDsgdTrainer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void algorithm1MatchesAReferenceLoop_data()
    {
        QTest::addColumn<QVariantMap>("params");
        QTest::newRow("as written: one point, one feature") << QVariantMap{{"batch_size", 1}, {"features_per_step", 1}};
        QTest::newRow("batches and blocks") << QVariantMap{{"batch_size", 7}, {"features_per_step", 3}};
        QTest::newRow("cos/sin pairs") << QVariantMap{{"batch_size", 5}, {"features_per_step", 2}, {"kernel", "gaussian_cos_sin"}};
        QTest::newRow("laplace") << QVariantMap{{"batch_size", 4}, {"features_per_step", 1}, {"kernel", "laplace"}};
    }
    void algorithm1MatchesAReferenceLoop()
    {
        QFETCH(QVariantMap, params);
        params.insert({{"bandwidth_rule", "fixed"}, {"bandwidth", 0.8}, {"theta", 0.7}, {"t0", 20.0}, {"ridge", 0.5 * 0.05},
                       {"epochs", 2.0}, {"loss", "squared"}});
        const DsgdConfig c = config(Algorithm::Doubly, params);
        const Regression data(60);
        DsgdTrainer t(c);
        TestRunContext ctx(11, 2);
        fitIn(t, data.view(), ctx, 2);
        const Eigen::MatrixXd query = uniform(25, 2, 3);
        const Eigen::MatrixXd ref = referenceAlgorithm1(c, data, 11, query);
        const Eigen::MatrixXd got = t.predict(query);
        // Same terms, other summation order and the shrink as one scale: ~1e-13 relative.
        const double err = (got - ref).cwiseAbs().maxCoeff() / ref.cwiseAbs().maxCoeff();
        QVERIFY2(err < 1e-11, qPrintable(QString("relative difference %1").arg(err)));
        QCOMPARE(t.model().features(), Eigen::Index(DsgdTrainer::plan(c, 60).features));
        QCOMPARE(ctx.checkpoints.back().epoch, 2.0);
    }

    void preconditionedStepIsTheRidgeFitOfItsBlock()
    {
        // Full batch, one step, γ = 1: α = (ΦᵀΦ/n + r(ν + ε)I)⁻¹Φᵀy/n, the ridge least-squares fit
        // of the targets on the block's 64 features.
        const Regression data(200);
        const double nu = 0.01, eps = 1e-7;
        const DsgdConfig c = config(Algorithm::Preconditioned,
                                    {{"bandwidth_rule", "fixed"}, {"bandwidth", 0.9}, {"batch_size", 200},
                                     {"features_per_step", 64}, {"epochs", 1.0}, {"theta", 1.0}, {"ridge", 0.5 * nu},
                                     {"loss", "squared"}, {"kernel", "gaussian_cos_sin"}});
        DsgdTrainer t(c);
        TestRunContext ctx(5, 2);
        fitIn(t, data.view(), ctx, 2);
        QCOMPARE(t.model().features(), Eigen::Index(64));
        Eigen::MatrixXd phi;
        QVERIFY(t.model().features(data.x, 0, 64, phi));
        tb::num::LeastSquaresOptions opt;
        opt.ridge = 200.0 * 64.0 * (nu + eps);
        const Eigen::MatrixXd w = tb::num::solveLeastSquares(phi, data.y, opt);
        const Eigen::MatrixXd query = uniform(30, 2, 4);
        Eigen::MatrixXd phiQ;
        QVERIFY(t.model().features(query, 0, 64, phiQ));
        // The trainer shrinks nothing in its first step (1 − γν scales no earlier feature);
        // two Cholesky solves of a well-conditioned 64² system agree to ~1e-12.
        const Eigen::MatrixXd expected = phiQ * w;
        QVERIFY((t.predict(query) - expected).cwiseAbs().maxCoeff() < 1e-9 * expected.cwiseAbs().maxCoeff());
        QCOMPARE(ctx.records.value("precondition_fallbacks").toInt(), 0);
    }

    void preconditionedRegressionFitsWell()
    {
        const Regression data(800);
        DsgdTrainer t(config(Algorithm::Preconditioned, {{"batch_size", 400}, {"features_per_step", 128},
                                                         {"epochs", 4.0}, {"loss", "squared"}}));
        TestRunContext ctx(3, 2);
        fitIn(t, data.view(), ctx, 2);
        const Regression test(300, 9);
        const double rmse = std::sqrt((t.predict(test.x) - test.y).squaredNorm() / 300.0);
        // Smooth targets of unit scale, 1024 features: far below the targets' spread (~0.7).
        QVERIFY2(rmse < 0.05, qPrintable(QString("test RMSE %1").arg(rmse)));
    }

    void cacheGivesTheSameModelBitForBit_data()
    {
        QTest::addColumn<int>("algorithm");
        QTest::newRow("doubly") << int(Algorithm::Doubly);
        QTest::newRow("preconditioned") << int(Algorithm::Preconditioned);
    }
    void cacheGivesTheSameModelBitForBit()
    {
        QFETCH(int, algorithm);
        const Circle data(1500);
        const Circle test(1200, 7);  // above KernelExpansion::kRowPathRows: the row path too
        Eigen::MatrixXd predictions[2], testPredictions[2];
        std::vector<double> losses[2];
        for (int cached = 0; cached < 2; ++cached) {
            DsgdTrainer t(config(Algorithm(algorithm), {{"batch_size", 50}, {"features_per_step", 200},
                                                        {"kernel", "gaussian_cos_sin"}, {"epochs", 1.0},
                                                        {"cache_mib", cached ? 64.0 : 0.0}}));
            TestRunContext ctx(21, 2);
            ctx.onCheckpoint = [&](const tb::Checkpoint& cp) {
                losses[cached].push_back(cp.loss);
                QVERIFY(t.predict(test.x).allFinite());  // the host's evaluation, with remembered sums
            };
            fitIn(t, data.view(), ctx, 2);
            predictions[cached] = t.predict(data.x);
            testPredictions[cached] = t.predict(test.x);
            QVERIFY(t.model().features() >= 2 * KernelExpansion::kChunk);
            QCOMPARE(t.model().cacheBytes() > 0, bool(cached));
        }
        QVERIFY(sameBits(predictions[0], predictions[1]));
        QVERIFY(sameBits(testPredictions[0], testPredictions[1]));
        QCOMPARE(losses[0], losses[1]);
    }

    void mixedPrecisionLearnsAsDoubleDoesAndRepeatsItself()
    {
        // precision = mixed: float projections and a float Gram with the ridge floored at
        // 7e-5·trace/√r (here ≈ 50× the ε·m·r of double), so not double's bits — but the same
        // learning: both must clear the circle with the accuracy double reaches, within 2 points
        // of 1200 test points (the decision boundary moves by the changed preconditioner only).
        const Circle data(1500);
        const Circle test(1200, 7);
        double acc[2];
        Eigen::MatrixXd first;
        for (int mixed = 0; mixed < 2; ++mixed) {
            const QVariantMap p{{"batch_size", 500}, {"features_per_step", 200}, {"kernel", "gaussian_cos_sin"},
                                {"epochs", 2.0}, {"precision", mixed ? "mixed" : "double"}};
            DsgdTrainer t(config(Algorithm::Preconditioned, p)), again(config(Algorithm::Preconditioned, p));
            TestRunContext ctx(21, 2), ctxAgain(21, 2);
            fitIn(t, data.view(), ctx, 2);
            fitIn(again, data.view(), ctxAgain, 2);
            const Eigen::MatrixXd scores = t.predict(test.x);
            QVERIFY(sameBits(scores, again.predict(test.x)));  // deterministic for a seed and thread count
            QCOMPARE(ctx.records.value("precondition_fallbacks").toInt(), 0);
            acc[mixed] = accuracy(scores, test.y);
            if (mixed)
                QVERIFY2(!sameBits(scores, first), "mixed precision gave double's bits");
            first = scores;
        }
        QVERIFY2(acc[0] > 0.9, qPrintable(QString("double: %1").arg(acc[0])));
        QVERIFY2(acc[1] >= acc[0] - 0.02, qPrintable(QString("mixed %1 against double %2").arg(acc[1]).arg(acc[0])));
        QString err;
        QVERIFY(!DsgdConfig::schema(Algorithm::Preconditioned).normalise({{"precision", "half"}}, &err));
        QVERIFY2(err.contains("\"precision\"") && err.contains("half"), qPrintable(err));
    }

    void sameSeedSameBits()
    {
        const Circle data(400);
        const QVariantMap p{{"batch_size", 16}, {"features_per_step", 4}, {"epochs", 2.0}};
        DsgdTrainer a(config(Algorithm::Doubly, p)), b(config(Algorithm::Doubly, p)), c(config(Algorithm::Doubly, p));
        TestRunContext ca(8, 1), cb(8, 2), cc(9, 2);
        fitIn(a, data.view(), ca, 1);
        fitIn(b, data.view(), cb, 2);
        fitIn(c, data.view(), cc, 2);
        // The doubly stochastic variant's sums do not depend on the thread count at all.
        QVERIFY(sameBits(a.predict(data.x), b.predict(data.x)));
        QVERIFY(!sameBits(a.predict(data.x), c.predict(data.x)));
    }

    void stopEndsFitWithin200ms()
    {
        // Stop 800 ms of CPU time into a long run (400 ms on an idle machine's two threads):
        // the run ends early and its work after Stop is within the promise
        // (tests/support/StopMeter.h).
        const Circle data(20000);
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

    void predictStopsWithTheRunAndOnlyDuringIt()
    {
        const Circle data(300);
        const Eigen::MatrixXd big = uniform(5000, 2, 3);
        DsgdTrainer t(config(Algorithm::Doubly, {{"batch_size", 300}, {"features_per_step", 1500}, {"epochs", 3.0}}));
        TestRunContext ctx(1, 2);
        bool sawEmpty = false;
        ctx.onCheckpoint = [&](const tb::Checkpoint&) {
            // The host's evaluation after Stop: predict() gives up and says so with no rows.
            ctx.requestStop();
            sawEmpty = t.predict(big).rows() == 0;
        };
        fitIn(t, data.view(), ctx, 2);
        QVERIFY(sawEmpty);
        QCOMPARE(ctx.checkpoints.size(), std::size_t(1));
        // After fit() the token is the trainer's no more: predictions are complete.
        QCOMPARE(t.predict(big).rows(), big.rows());
    }

    void badInputFailsWithClearMessages()
    {
        // A fixed bandwidth must be > 0: the shared random-features block's range says so.
        QVERIFY(DsgdConfig::schema(Algorithm::Doubly)
                    .validate({{"bandwidth_rule", "fixed"}, {"bandwidth", 0.0}})
                    .contains("\"bandwidth\""));
        QVERIFY(creationError(Algorithm::Doubly, {{"lr", 0.0}}).contains("\"lr\""));
        const QString shrink = creationError(Algorithm::Doubly, {{"lr", 10.0}, {"ridge", 0.2}});
        QVERIFY2(shrink.contains("\"lr\"") && shrink.contains("\"ridge\""), qPrintable(shrink));
        // Written with the spellings of plugin 1.0.0 (θ, ν, kernel), the same checks hold.
        QVERIFY(creationError(Algorithm::Doubly, {{"theta", 10.0}, {"nu", 0.2}}).contains("\"ridge\""));
        QVERIFY(creationError(Algorithm::Doubly, {{"kernel", "gaussian_cos_sin"}, {"features_per_step", 3}})
                    .contains("\"features_per_step\""));
        QVERIFY(creationError(Algorithm::Preconditioned, {{"max_features", 100}}).contains("\"max_features\""));

        auto fitError = [](const DsgdConfig& c, const tb::DatasetView& v) -> QString {
            DsgdTrainer t(c);
            TestRunContext ctx;
            try {
                t.fit(v, ctx);
            } catch (const std::exception& e) {
                return QString::fromUtf8(e.what());
            }
            return {};
        };
        Circle data(50);
        data.x(2, 1) = std::numeric_limits<double>::quiet_NaN();
        QString m = fitError(config(Algorithm::Doubly, {}), data.view());
        QVERIFY2(m.contains("inputs") && m.contains("row 3, column 2"), qPrintable(m));
        data.x(2, 1) = 0.5;
        data.y(4, 0) = std::numeric_limits<double>::infinity();
        m = fitError(config(Algorithm::Doubly, {}), data.view());
        QVERIFY2(m.contains("targets") && m.contains("row 5"), qPrintable(m));

        // A binary loss on three classes.
        Eigen::MatrixXd x = uniform(30, 2, 1), y = Eigen::MatrixXd::Zero(30, 3);
        for (Eigen::Index i = 0; i < 30; ++i)
            y(i, i % 3) = 1;
        tb::DatasetView three(x, y, tb::Task::Classification);
        m = fitError(config(Algorithm::Doubly, {{"loss", "hinge"}}), three);
        QVERIFY2(m.contains("\"loss\"") && m.contains("3 classes"), qPrintable(m));

        // The median trick on identical rows.
        const Eigen::MatrixXd same = Eigen::MatrixXd::Ones(20, 2);
        const Eigen::MatrixXd ys = Eigen::MatrixXd::Zero(20, 1);
        m = fitError(config(Algorithm::Doubly, {}), tb::DatasetView(same, ys));
        QVERIFY2(m.contains("\"bandwidth_rule\""), qPrintable(m));

        DsgdTrainer t(config(Algorithm::Doubly, {}));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, t.predict(x));
        TestRunContext ctx;
        const Circle ok(40);
        t.fit(ok.view(), ctx);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, t.predict(uniform(3, 5, 1)));
    }

    void divergenceIsReportedAsAnInfiniteLoss()
    {
        const Regression data(100);
        DsgdTrainer t(config(Algorithm::Doubly, {{"theta", 1e5}, {"t0", 1e12}, {"ridge", 0.0}, {"batch_size", 1},
                                                 {"epochs", 10.0}, {"checkpoint_every", 1000}}));
        TestRunContext ctx(1, 2);
        fitIn(t, data.view(), ctx, 2);
        QVERIFY(!ctx.checkpoints.empty());
        QVERIFY(std::isinf(ctx.checkpoints.back().loss));
        QVERIFY(ctx.records.contains("diverged_at_epoch"));
    }

    void factsAndCostPrediction()
    {
        const Circle data(1000);
        const DsgdConfig c = config(Algorithm::Preconditioned, {{"batch_size", 250}, {"features_per_step", 128}});
        DsgdTrainer t(c);
        const QJsonObject cost = t.predictCost({1000, 2, 2, tb::Task::Classification});
        TestRunContext ctx(1, 2);
        fitIn(t, data.view(), ctx, 2);
        QCOMPARE(cost.value("features").toDouble(), 512.0);
        QCOMPARE(cost.value("steps").toDouble(), 4.0);
        QVERIFY(cost.value("flops").toDouble() > 0);
        // The model: 512 features × 2 outputs (multinomial) of 8 bytes, not a word of ω.
        QCOMPARE(cost.value("model_bytes").toDouble(), 512.0 * 2 * 8 + 64);
        const double working = ctx.records.value("working_memory_bytes").toDouble();
        QVERIFY2(working >= t.model().modelBytes() + t.model().cacheBytes(), qPrintable(QString::number(working)));
        // The prediction covers what the trainer accounted for (same formulas, with margin for
        // the coefficients' growth).
        QVERIFY2(cost.value("memory_bytes").toDouble() >= 0.9 * working,
                 qPrintable(QString("%1 < %2").arg(cost.value("memory_bytes").toDouble()).arg(working)));
        const QJsonArray features = ctx.records.value("checkpoint_features").toArray();
        QCOMPARE(features.size(), 4);
        QCOMPARE(features.last().toDouble(), 512.0);
        QCOMPARE(ctx.records.value("planned_features").toDouble(), 512.0);
        QVERIFY(ctx.records.value("bandwidth").toDouble() > 0);
    }

    void twoDimensionalSetIsLearntCheckpointByCheckpoint()
    {
        // The teaching view's use: a small 2-D set, a checkpoint per step, the decision
        // regions (here: the accuracy) improving as features are added.
        const Circle data(300), test(300, 5);
        DsgdTrainer t(config(Algorithm::Doubly, {{"batch_size", 10}, {"features_per_step", 4}, {"epochs", 20.0},
                                                 {"checkpoint_every", 30}, {"theta", 2.0}}));
        TestRunContext ctx(4, 2);
        std::vector<double> acc;
        ctx.onCheckpoint = [&](const tb::Checkpoint&) { acc.push_back(accuracy(t.predict(test.x), test.y)); };
        fitIn(t, data.view(), ctx, 2);
        QCOMPARE(ctx.checkpoints.size(), std::size_t(20));
        qInfo("test accuracy after the first checkpoint %.3f, after the last %.3f", acc.front(), acc.back());
        QVERIFY(acc.back() >= 0.95);
        QVERIFY(acc.back() > acc.front());
    }
};

QTEST_GUILESS_MAIN(TestDsgdTrainer)
#include "tst_dsgdtrainer.moc"
