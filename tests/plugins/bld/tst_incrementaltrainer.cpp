// BLInG and IG against a reference written with the shared network's full forward and
// backward passes for every layer update; the step rule; checkpoints; Stop; time limit.
#include "BldTestData.h"

#include <bld/IncrementalTrainer.h>
#include <training/Sampling.h>
#include <trainbench/testing/TestRunContext.h>

#include <FitIn.h>
#include <StopMeter.h>

#include <QtTest>
#include <chrono>
#include <future>
#include <numeric>
#include <tbb/task_arena.h>
#include <thread>

using namespace tb::bld;
using tb::num::Mlp;
using tb::testing::TestRunContext;
using tb::testsupport::fitIn;
using tb::testsupport::runAndStop;
using tb::testsupport::StopWhen;

namespace {

// Algorithm 5 (blockwise) or IG written out plainly: the partition drawn as the trainer
// documents it, and for every layer update a complete forward and backward pass of Mlp.
Mlp reference(const BldConfig& c, const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, std::uint64_t seed, int epochs)
{
    Mlp net = c.makeNetwork(x.cols(), y.cols(), tb::deriveSeed(seed, kSeedWeights));
    const Eigen::Index n = x.rows(), b = std::min(c.batchSize, n);
    std::vector<Eigen::Index> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), Eigen::Index(0));
    std::mt19937_64 gen(tb::deriveSeed(seed, kSeedPartition));
    tb::train::shuffle(perm, gen);
    const double rho = c.rho(double(net.parameterCount()));
    double alpha = c.firstStep(net.layerCount());
    std::vector<Eigen::MatrixXd> g = net.zeroGradients();
    tb::num::MlpWorkspace ws;
    for (int e = 0; e < epochs; ++e)
        for (Eigen::Index s = 0; s < n; s += b) {
            const Eigen::Index m = std::min(b, n - s);
            Eigen::MatrixXd xb(m, x.cols()), yb(m, y.cols());
            for (Eigen::Index i = 0; i < m; ++i) {
                xb.row(i) = x.row(perm[std::size_t(s + i)]);
                yb.row(i) = y.row(perm[std::size_t(s + i)]);
            }
            // ∇f_h = ∇Σ‖ŷ − y‖² + 2·|B_h|(ρ/P)·w; Mlp's loss is ½‖ŷ − y‖².
            auto direction = [&](int l) -> Eigen::MatrixXd {
                return -(2.0 * g[std::size_t(l)] + 2.0 * double(m) * rho / double(n) * net.weights(l));
            };
            auto normaliser = [&](double norm) { return std::max(c.normFloor, std::min(c.normCeiling, norm)); };
            if (c.algorithm == Algorithm::Bling) {
                for (int l = net.layerCount() - 1; l >= 0; --l) {
                    net.forward(xb, ws);
                    net.backward(xb, yb, tb::num::MlpLoss::SquaredError, ws, g);
                    const Eigen::MatrixXd d = direction(l);
                    net.mutableWeights(l) += alpha / normaliser(d.norm()) * d;
                }
            } else {
                net.forward(xb, ws);
                net.backward(xb, yb, tb::num::MlpLoss::SquaredError, ws, g);
                std::vector<Eigen::MatrixXd> d;
                double sq = 0;
                for (int l = 0; l < net.layerCount(); ++l) {
                    d.push_back(direction(l));
                    sq += d.back().squaredNorm();
                }
                for (int l = 0; l < net.layerCount(); ++l)
                    net.mutableWeights(l) += alpha / normaliser(std::sqrt(sq)) * d[std::size_t(l)];
            }
            alpha *= 1 - c.stepDecay * alpha;
        }
    return net;
}

} // namespace

class TestIncrementalTrainer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesTheReference_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<bool>("hiddenBias");
        QTest::newRow("BLInG") << "bld.bling" << false;
        QTest::newRow("BLInG, hidden biases") << "bld.bling" << true;
        QTest::newRow("IG") << "bld.ig" << false;
    }
    void matchesTheReference()
    {
        QFETCH(QString, id);
        QFETCH(bool, hiddenBias);
        const auto p = bldtest::teacher(53, 3, 2, 1);
        const BldConfig c = bldtest::config(*BldConfig::algorithmFromId(id),
                                            {{"hidden", QVariantList{5, 4, 3}}, {"batch_size", 8}, {"epochs", 3},
                                             {"hidden_bias", hiddenBias}, {"relative_ridge", 0.5}});
        IncrementalTrainer t(c);
        TestRunContext ctx(21);
        fitIn(t, p.x, p.y, ctx);
        const Mlp ref = reference(c, p.x, p.y, 21, 3);
        // 21 minibatches × 4 layer updates: rounding differences of two association orders
        // of the same products, amplified a little by the chain of updates.
        const double diff = (t.network().flatten() - ref.flatten()).cwiseAbs().maxCoeff();
        QVERIFY2(diff < 1e-11, qPrintable(QString::number(diff)));
        // α after 3 × 7 minibatches of α ← α(1 − εα).
        double alpha = c.firstStep(4);
        for (int k = 0; k < 21; ++k)
            alpha *= 1 - c.stepDecay * alpha;
        QCOMPARE(t.step(), alpha);
        QCOMPARE(ctx.records.value("initial_step").toDouble(), id == "bld.ig" ? 0.5 : 0.25);
    }

    void checkpointsReportTheObjective()
    {
        const auto p = bldtest::teacher(300, 4, 1, 2);
        IncrementalTrainer t(bldtest::config(Algorithm::Bling, {{"epochs", 5}, {"hidden", QVariantList{10, 10}}}));
        TestRunContext ctx(4);
        fitIn(t, p.x, p.y, ctx);
        QCOMPARE(ctx.checkpoints.size(), std::size_t(6)); // epoch 0 and every epoch
        QCOMPARE(ctx.checkpoints.back().epoch, 5.0);
        const double rho = ctx.records.value("rho").toDouble();
        const double f = (t.network().predict(p.x) - p.y).squaredNorm() / 300.0 + rho * t.network().flatten().squaredNorm();
        QVERIFY(std::abs(ctx.checkpoints.back().loss - f) <= 1e-12 * f);
        QVERIFY(ctx.checkpoints.back().loss < ctx.checkpoints.front().loss);
        const QJsonArray layers = ctx.records.value("layer_updates").toArray();
        QCOMPARE(layers.size(), 3);
        for (const QJsonValue& v : layers)
            QCOMPARE(v.toObject().value("updates").toInt(), 5 * 3); // 3 minibatches of 128 rows per epoch
        QCOMPARE(ctx.records.value("end_reason").toString(), QStringLiteral("epochs"));
    }

    void timeLimit()
    {
        const auto p = bldtest::teacher(20000, 8, 1, 3);
        IncrementalTrainer t(bldtest::config(Algorithm::Ig, {{"epochs", 1000000}, {"hidden", QVariantList{50, 50}}}));
        TestRunContext ctx;
        ctx.budget = tb::RunBudget{0.3, tb::ClockKind::Cpu};  // the host's budget, polled after every minibatch
        ctx.restartClock();
        fitIn(t, p.x, p.y, ctx);
        QCOMPARE(ctx.records.value("end_reason").toString(), QStringLiteral("time limit"));
        QVERIFY(ctx.budgetUsed() >= 0.3);
        QVERIFY(ctx.checkpoints.back().epoch < 1000000);
    }

    void sameSeedSameBits()
    {
        const auto p = bldtest::teacher(400, 4, 1, 4);
        Eigen::VectorXd w[2];
        for (int r = 0; r < 2; ++r) {
            IncrementalTrainer t(bldtest::config(Algorithm::Bling, {{"epochs", 3}, {"order", "forward"}}));
            TestRunContext ctx(13, 2);
            fitIn(t, p.x, p.y, ctx);
            w[r] = t.network().flatten();
        }
        QVERIFY(w[0] == w[1]);
    }

    void stopWithin200ms()
    {
        // Stop a run of a million epochs 800 ms of CPU time after its first checkpoint (400 ms on
        // an idle machine's two threads). Stop is polled before every minibatch: the run returns without an
        // end of its own (no "end_reason": neither the epochs nor the time limit ended it), with
        // at most the checkpoint already under way after the flag, and its work after Stop within
        // the promise (tests/support/StopMeter.h).
        static const auto p = bldtest::teacher(40000, 20, 1, 5);
        IncrementalTrainer t(bldtest::config(Algorithm::Bling, {{"epochs", 1000000}, {"hidden", QVariantList{100, 100}}}));
        TestRunContext ctx(1, 2);
        std::atomic<int> checkpoints{0};
        int atStop = 0;
        ctx.onCheckpoint = [&](const tb::Checkpoint&) { ++checkpoints; };
        const StopWhen when{.cpuMs = 800, .ready = [&] { return checkpoints > 0; }, .beforeStop = [&] { atStop = checkpoints; }};
        const auto r = runAndStop(ctx.stopSource(), when, [&] {
            fitIn(t, p.x, p.y, ctx);
            return true;
        });
        QVERIFY2(!r.endedBeforeStop, "the run ended before Stop");
        QVERIFY2(!ctx.records.contains("end_reason"),
                 qPrintable("ended by " + ctx.records.value("end_reason").toString() + ", not by Stop"));
        QVERIFY2(checkpoints - atStop <= 1, qPrintable(QString("%1 epochs ended after Stop").arg(checkpoints - atStop)));
        QVERIFY(ctx.checkpoints.back().epoch < 1000000);
        QVERIFY(t.predict(p.x.topRows(3)).allFinite()); // the network stays usable
        qInfo("%s", qPrintable(r.after.describe()));
        QVERIFY2(r.after.withinPromise(), qPrintable(r.after.describe()));
    }
};

QTEST_GUILESS_MAIN(TestIncrementalTrainer)
#include "tst_incrementaltrainer.moc"
