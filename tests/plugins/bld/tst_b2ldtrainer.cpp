// B2LD: the paper's objective as the training library evaluates it, block gradients against finite
// differences, the output block against the closed-form ridge solution, the run's behaviour
// (monotone objective, diagnostics, stopping rules, time limit), determinism and Stop inside
// an L-BFGS block solve.
#include "BldTestData.h"

#include <bld/B2ldTrainer.h>
#include <bld/BldObjective.h>
#include <training/Sampling.h>
#include <trainbench/testing/TestRunContext.h>

#include <FitIn.h>
#include <StopMeter.h>

#include <Eigen/Cholesky>
#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>
#include <atomic>
#include <chrono>
#include <future>
#include <tbb/task_arena.h>
#include <thread>

using namespace tb::bld;
using tb::testing::TestRunContext;
using tb::testsupport::fitIn;
using tb::testsupport::runAndStop;
using tb::testsupport::StopWhen;

namespace {

double paperObjective(const tb::num::Mlp& net, const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, double rho)
{
    return (net.predict(x) - y).squaredNorm() / double(x.rows()) + rho * net.flatten().squaredNorm();
}

} // namespace

class TestB2ldTrainer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void objectiveIsThePapers()
    {
        // MlpObjective with divisor P/2 and λ = 2ρ must be f = (1/P)Σ‖y − net‖² + ρ‖w‖².
        const auto p = bldtest::teacher(50, 3, 2, 1);
        tb::num::Mlp net = bldtest::config(Algorithm::B2ld, {{"hidden", QVariantList{5, 4}}}).makeNetwork(3, 2, 3);
        const double rho = 0.37; // large, so that a wrong factor on the penalty shows
        const Eigen::MatrixXd xt = tb::train::transposedCopy(p.x);
        auto f = makeObjective(net, xt, p.y, rho);
        const double direct = paperObjective(net, p.x, p.y, rho);
        // 1e-13 relative: sums of 100 squares in another order.
        QVERIFY2(std::abs(f->value(net.flatten()) - direct) <= 1e-13 * direct,
                 qPrintable(QString("%1 vs %2").arg(f->value(net.flatten())).arg(direct)));
    }

    void blockGradientsMatchFiniteDifferences()
    {
        const auto p = bldtest::teacher(40, 3, 1, 2);
        tb::num::Mlp net = bldtest::config(Algorithm::B2ld, {{"hidden", QVariantList{5, 4}}}).makeNetwork(3, 1, 4);
        const double rho = 0.01;
        const Eigen::MatrixXd xt = tb::train::transposedCopy(p.x);
        auto f = makeObjective(net, xt, p.y, rho);
        const tb::num::Mlp start = net;
        for (int l = 0; l < net.layerCount(); ++l) {
            net = start;
            QVERIFY(f->selectLayers(l, l));
            const Eigen::VectorXd w = f->blockWeights();
            Eigen::VectorXd g;
            f->evaluate(w, g);
            QCOMPARE(g.size(), net.weights(l).size());
            const double h = 1e-6;
            for (Eigen::Index i = 0; i < w.size(); ++i) {
                tb::num::Mlp a = start, b = start;
                a.mutableWeights(l).data()[i] += h;
                b.mutableWeights(l).data()[i] -= h;
                const double fd = (paperObjective(a, p.x, p.y, rho) - paperObjective(b, p.x, p.y, rho)) / (2 * h);
                // Central differences of the direct formula: O(h²) truncation, ~1e-10 rounding.
                QVERIFY2(std::abs(fd - g(i)) <= 1e-7 * (1 + std::abs(fd)),
                         qPrintable(QString("layer %1, weight %2: %3 vs %4").arg(l).arg(i).arg(g(i)).arg(fd)));
            }
        }
    }

    void outputBlockIsTheRidgeSolution_data()
    {
        QTest::addColumn<QString>("solve");
        QTest::newRow("L-BFGS") << "lbfgs";
        QTest::newRow("closed form") << "closed_form";
    }
    void outputBlockIsTheRidgeSolution()
    {
        // One hidden layer, fixed during B2LD's first visit (the output layer, backward order):
        // that visit must land on argmin_W (1/P)‖HW − Y‖² + ρ‖W‖², i.e. (HᵀH + PρI)W = HᵀY.
        QFETCH(QString, solve);
        const auto p = bldtest::teacher(200, 3, 2, 5);
        const QVariantMap params{{"hidden", QVariantList{8}}, {"sweeps", 1}, {"output_solve", solve},
                                 {"inner_iterations", 2000}, {"block_tolerance", 1e-12}, {"relative_ridge", 0.5}};
        B2ldTrainer t(bldtest::config(Algorithm::B2ld, params));
        TestRunContext ctx(11);
        Eigen::MatrixXd first, hidden;
        ctx.onCheckpoint = [&](const tb::Checkpoint& cp) {
            if (cp.epoch == 0)
                hidden = t.network().slice(0, 0).predict(p.x); // H before any update
            else if (first.size() == 0)
                first = t.network().weights(1);
        };
        ctx.stopAfter = 2;
        fitIn(t, p.x, p.y, ctx);
        const double n = double(p.x.rows()), rho = ctx.records.value("rho").toDouble();
        QCOMPARE(rho, 0.5 / double(t.network().parameterCount()));
        Eigen::MatrixXd g = hidden.transpose() * hidden;
        g.diagonal().array() += n * rho;
        const Eigen::MatrixXd expected = g.ldlt().solve(hidden.transpose() * p.y);
        const double err = (first - expected).norm() / expected.norm();
        // L-BFGS to ‖∇‖ ≤ 1e-12 on a quadratic with condition ~1e3: weights to ~1e-9; the
        // closed form to rounding.
        QVERIFY2(err <= (solve == "lbfgs" ? 1e-7 : 1e-10), qPrintable(QString("relative error %1").arg(err)));
    }

    void runDecreasesTheObjectiveAndReports()
    {
        const auto p = bldtest::teacher(300, 4, 1, 6);
        B2ldTrainer t(bldtest::config(Algorithm::B2ld, {{"hidden", QVariantList{10, 10}}, {"sweeps", 6}}));
        TestRunContext ctx(3, 2);
        fitIn(t, p.x, p.y, ctx);
        QVERIFY(ctx.checkpoints.size() >= 2);
        QCOMPARE(ctx.checkpoints.front().epoch, 0.0);
        for (std::size_t i = 1; i < ctx.checkpoints.size(); ++i) {
            // Conditions 4 and 5 make every accepted block update a decrease.
            QVERIFY2(ctx.checkpoints[i].loss < ctx.checkpoints[i - 1].loss, qPrintable(QString::number(i)));
            QVERIFY(ctx.checkpoints[i].epoch > ctx.checkpoints[i - 1].epoch && ctx.checkpoints[i].epoch <= 6);
        }
        // The last checkpoint is the model's objective.
        const double rho = ctx.records.value("rho").toDouble();
        QVERIFY(std::abs(ctx.checkpoints.back().loss - paperObjective(t.network(), p.x, p.y, rho)) <= 1e-12);
        QCOMPARE(ctx.checkpoints.back().loss, t.objective());
        const QJsonArray layers = ctx.records.value("layer_updates").toArray();
        QCOMPARE(layers.size(), 3);
        int updates = 0;
        for (int l = 0; l < 3; ++l) {
            const QJsonObject o = layers[l].toObject();
            QCOMPARE(o.value("layer").toInt(), l);
            const int u = o.value("updates").toInt();
            QCOMPARE(o.value("lbfgs_accepted").toInt() + o.value("armijo_fallbacks").toInt(), u);
            QVERIFY(o.value("lbfgs_iterations").toDouble() <= 30.0 * 6);
            QVERIFY(o.value("seconds").toDouble() >= 0);
            updates += u;
        }
        QCOMPARE(int(ctx.checkpoints.size()), updates + 1); // one checkpoint per update, one at 0
        QVERIFY(!t.endReason().isEmpty());
        QCOMPARE(ctx.records.value("end_reason").toString(), t.endReason());
        QVERIFY(ctx.records.value("working_memory_bytes").toDouble() > 8.0 * 300 * 4);
    }

    void stoppingRules()
    {
        const auto p = bldtest::teacher(200, 3, 1, 7);
        {
            // A block tolerance no gradient reaches for three sweeps (ε = 1e3, 500, 250): every
            // visit is skipped, which is not quiet (ε shrinks until the layer is worked on), so
            // the run goes on to its sweep limit without a single update.
            B2ldTrainer t(bldtest::config(Algorithm::B2ld, {{"block_tolerance", 1e3}, {"gradient_tolerance", 0.0},
                                                            {"sweeps", 3}}));
            TestRunContext ctx;
            fitIn(t, p.x, p.y, ctx);
            QCOMPARE(t.endReason(), QStringLiteral("sweeps"));
            QCOMPARE(ctx.checkpoints.size(), std::size_t(1));
            for (const LayerStats& s : t.layerStats())
                QVERIFY(s.skippedGradient == 3 && s.updates == 0);
        }
        {
            // A gradient tolerance met after the first sweep.
            B2ldTrainer t(bldtest::config(Algorithm::B2ld, {{"gradient_tolerance", 1e3}}));
            TestRunContext ctx;
            fitIn(t, p.x, p.y, ctx);
            QCOMPARE(t.endReason(), QStringLiteral("gradient"));
            QCOMPARE(ctx.records.value("sweeps_done").toInt(), 1);
        }
        {
            // Criterion ii per block: with a large relative-decrease tolerance the run ends after
            // the first sweep in which no visit decreased f by more than it. Every layer is
            // visited (updated, skipped or settled) exactly once per sweep.
            B2ldTrainer t(bldtest::config(Algorithm::B2ld, {{"relative_decrease", 0.5}, {"gradient_tolerance", 0.0},
                                                            {"hidden", QVariantList{6}}}));
            TestRunContext ctx;
            fitIn(t, p.x, p.y, ctx);
            QCOMPARE(t.endReason(), QStringLiteral("relative decrease"));
            const int sweeps = ctx.records.value("sweeps_done").toInt();
            QVERIFY(sweeps >= 1 && sweeps < 1000);
            for (std::size_t l = 0; l < t.layerStats().size(); ++l) {
                const LayerStats& s = t.layerStats()[l];
                QVERIFY2(s.updates + s.noStep + s.skippedGradient + s.skippedSettled == sweeps,
                         qPrintable(QJsonDocument(s.toJson(int(l))).toJson(QJsonDocument::Compact)));
                // A layer is only skipped as settled after an update that decreased f little.
                if (s.skippedSettled > 0)
                    QVERIFY(s.updates + s.noStep > 0 && s.relativeDecrease <= 0.5);
            }
        }
    }

    void timeLimit()
    {
        // The paper's time limit is the host's budget, polled after every L-BFGS iteration.
        const auto p = bldtest::teacher(4000, 8, 1, 8);
        for (const tb::ClockKind clock : {tb::ClockKind::Wall, tb::ClockKind::Cpu}) {
            B2ldTrainer t(bldtest::config(Algorithm::B2ld, {{"hidden", QVariantList{60, 60}}, {"gradient_tolerance", 0.0},
                                                            {"relative_decrease", 0.0}, {"sweeps", 100000}}));
            TestRunContext ctx(1, 2);
            ctx.budget = tb::RunBudget{0.3, clock};
            ctx.restartClock();
            fitIn(t, p.x, p.y, ctx);
            QCOMPARE(t.endReason(), QStringLiteral("time limit"));
            QVERIFY(ctx.budgetUsed() >= 0.3);
            QVERIFY(!ctx.stoppedByBudget || ctx.budgetSpent());
            QVERIFY(ctx.records.value("sweeps_done").toDouble() < 100000);
        }
    }

    void orders()
    {
        const auto p = bldtest::teacher(200, 3, 1, 9);
        for (const char* order : {"forward", "random"}) {
            B2ldTrainer t(bldtest::config(Algorithm::B2ld, {{"order", order}, {"sweeps", 3}, {"hidden", QVariantList{6, 6}}}));
            TestRunContext ctx(5);
            fitIn(t, p.x, p.y, ctx);
            QVERIFY2(ctx.checkpoints.back().loss < ctx.checkpoints.front().loss, order);
        }
        // Forward order visits layer 0 first: its first checkpoint comes from layer 0's update.
        B2ldTrainer t(bldtest::config(Algorithm::B2ld, {{"order", "forward"}, {"sweeps", 1}}));
        TestRunContext ctx;
        ctx.stopAfter = 2;
        fitIn(t, p.x, p.y, ctx);
        QCOMPARE(t.layerStats()[0].updates, 1);
        QCOMPARE(t.layerStats()[1].updates, 0);
    }

    void sameSeedSameBits()
    {
        const auto p = bldtest::teacher(500, 4, 2, 10);
        const QVariantMap params{{"hidden", QVariantList{12, 12}}, {"sweeps", 3}, {"order", "random"}};
        std::vector<tb::Checkpoint> runs[2];
        Eigen::VectorXd w[2];
        for (int r = 0; r < 2; ++r) {
            B2ldTrainer t(bldtest::config(Algorithm::B2ld, params));
            TestRunContext ctx(77, 2);
            fitIn(t, p.x, p.y, ctx);
            runs[r] = ctx.checkpoints;
            w[r] = t.network().flatten();
        }
        QCOMPARE(runs[0].size(), runs[1].size());
        for (std::size_t i = 0; i < runs[0].size(); ++i)
            QCOMPARE(runs[0][i].loss, runs[1][i].loss); // exact
        QVERIFY(w[0] == w[1]);
    }

    void stopInsideABlockSolve()
    {
        // Forward order: the first visit is layer 0, a non-convex block of 4200 weights whose
        // evaluations pass through the whole net (tens of ms each) and whose solve may run a
        // million iterations. Stop 1.2 s of CPU time in (600 ms on an idle machine's two
        // threads, however busy the machine) lands inside its L-BFGS: its iterations are
        // counted, no update is, and the work after Stop is within the promise
        // (tests/support/StopMeter.h).
        static const auto p = bldtest::teacher(30000, 20, 1, 12);
        B2ldTrainer t(bldtest::config(Algorithm::B2ld, {{"hidden", QVariantList{200}}, {"inner_iterations", 1000000},
                                                        {"block_tolerance", 0.0}, {"order", "forward"}}));
        TestRunContext ctx(1, 2);
        const auto r = runAndStop(ctx.stopSource(), StopWhen{.cpuMs = 1200}, [&] {
            fitIn(t, p.x, p.y, ctx);
            return true;
        });
        QVERIFY2(!r.endedBeforeStop, "the run ended before Stop");
        const LayerStats& out = t.layerStats()[0];
        QCOMPARE(out.updates, 0); // a stopped solve never updates the layer
        QVERIFY(t.predict(p.x.topRows(3)).allFinite());
        QVERIFY2(out.lbfgsIterations > 0, "Stop came before the first L-BFGS iteration of the block solve");
        qInfo("%lld L-BFGS iterations before Stop; %s", out.lbfgsIterations, qPrintable(r.after.describe()));
        QVERIFY2(r.after.withinPromise(), qPrintable(r.after.describe()));
    }

    void badInput()
    {
        B2ldTrainer t(bldtest::config(Algorithm::B2ld));
        TestRunContext ctx;
        Eigen::MatrixXd x = Eigen::MatrixXd::Ones(10, 2), y = Eigen::MatrixXd::Ones(10, 1);
        x(3, 1) = std::numeric_limits<double>::quiet_NaN();
        // Named by row and column (from 0, as the data set's), so it can be found in the file.
        try {
            fitIn(t, x, y, ctx);
            QFAIL("NaN input accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("bld: the training inputs contain NaN at row 3, column 1"), e.what());
        }
        x(3, 1) = 1.0;
        y(6, 0) = std::numeric_limits<double>::infinity();
        try {
            fitIn(t, x, y, ctx);
            QFAIL("Inf target accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("targets contain Inf at row 6, column 0"), e.what());
        }
        QVERIFY(ctx.checkpoints.empty());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 fitIn(t, Eigen::MatrixXd(0, 2), Eigen::MatrixXd(0, 1), ctx));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, t.predict(Eigen::MatrixXd::Ones(1, 2)));
        // Targets so large that f overflows: the run is reported diverged (infinite loss), not failed
        // silently.
        B2ldTrainer big(bldtest::config(Algorithm::B2ld));
        TestRunContext c2;
        const Eigen::MatrixXd yBig = Eigen::MatrixXd::Constant(10, 1, 1e300);
        fitIn(big, Eigen::MatrixXd::Ones(10, 2), yBig, c2);
        QVERIFY(!c2.checkpoints.empty() && std::isinf(c2.checkpoints.back().loss));
    }

    void predictedCost()
    {
        const B2ldTrainer t(bldtest::config(Algorithm::B2ld, {{"hidden", QVariantList{50, 50}}}));
        const QJsonObject c = t.predictCost({32614, 12, 1, tb::Task::Regression});
        QCOMPARE(c.value("scope").toString(), QStringLiteral("first sweep"));
        QCOMPARE(c.value("model_bytes").toDouble(), 8.0 * (13 * 50 + 50 * 50 + 50));
        QVERIFY(c.value("flops").toDouble() > 6.0 * 32614 * (13 * 50 + 50 * 50 + 50) * 30);
        // At least the data and the largest forward cache.
        QVERIFY(c.value("memory_bytes").toDouble() > 8.0 * 32614 * (13 + 50));
    }
};

QTEST_GUILESS_MAIN(TestB2ldTrainer)
#include "tst_b2ldtrainer.moc"
