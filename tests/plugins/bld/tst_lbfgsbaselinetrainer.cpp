// The full L-BFGS baseline: the same start and objective as B2LD, its stopping rules, the
// time limit, determinism and Stop.
#include "BldTestData.h"

#include <bld/B2ldTrainer.h>
#include <bld/LbfgsBaselineTrainer.h>
#include <trainbench/testing/TestRunContext.h>

#include <FitIn.h>
#include <StopMeter.h>

#include <QtTest>
#include <chrono>
#include <future>
#include <tbb/task_arena.h>
#include <thread>

using namespace tb::bld;
using tb::testing::TestRunContext;
using tb::testsupport::fitIn;
using tb::testsupport::runAndStop;
using tb::testsupport::StopWhen;

class TestLbfgsBaselineTrainer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sameStartAndObjectiveAsB2ld()
    {
        // The paper starts both methods from the same random point: the same seed gives the
        // same network, hence the same f at epoch 0, bit for bit.
        const auto p = bldtest::teacher(300, 4, 1, 1);
        const QVariantMap net{{"hidden", QVariantList{10, 10}}};
        LbfgsBaselineTrainer l(bldtest::config(Algorithm::Lbfgs, net));
        B2ldTrainer b(bldtest::config(Algorithm::B2ld, net));
        TestRunContext cl(42), cb(42);
        cl.stopAfter = cb.stopAfter = 1;
        fitIn(l, p.x, p.y, cl);
        fitIn(b, p.x, p.y, cb);
        QCOMPARE(cl.checkpoints.front().loss, cb.checkpoints.front().loss);
        QVERIFY(l.network().flatten() == b.network().flatten());
    }

    void runsToItsCriteria()
    {
        const auto p = bldtest::teacher(400, 4, 1, 2);
        {
            // The paper's criteria by default: criterion ii on every iteration's own decrease.
            LbfgsBaselineTrainer t(bldtest::config(Algorithm::Lbfgs, {{"hidden", QVariantList{8}}}));
            TestRunContext ctx;
            fitIn(t, p.x, p.y, ctx);
            const QString why = t.endReason();
            QVERIFY2(why == "relative decrease" || why == "gradient", qPrintable(why));
            const auto& cps = ctx.checkpoints;
            for (std::size_t i = 1; i + 1 < cps.size(); ++i)
                QVERIFY((cps[i - 1].loss - cps[i].loss) / std::max(cps[i - 1].loss, 1.0) > 1e-4);
            if (why == "relative decrease")
                QVERIFY((cps[cps.size() - 2].loss - cps.back().loss) / std::max(cps[cps.size() - 2].loss, 1.0) <= 1e-4);
        }
        {
            LbfgsBaselineTrainer t(
                bldtest::config(Algorithm::Lbfgs, {{"hidden", QVariantList{8}}, {"decrease_window", 30}}));
            TestRunContext ctx;
            fitIn(t, p.x, p.y, ctx);
            // Every iteration a checkpoint (checkpoint_every 1), the objective decreasing.
            for (std::size_t i = 1; i < ctx.checkpoints.size(); ++i) {
                QCOMPARE(ctx.checkpoints[i].epoch, double(i));
                QVERIFY(ctx.checkpoints[i].loss <= ctx.checkpoints[i - 1].loss);
            }
            const QString why = t.endReason();
            QVERIFY2(why == "relative decrease" || why == "gradient", qPrintable(why));
            QCOMPARE(ctx.records.value("end_reason").toString(), why);
            if (why == "relative decrease") // checked only at multiples of the window
                QCOMPARE(int(ctx.checkpoints.back().epoch) % 30, 0);
        }
        {
            // A window of 1 and a large tolerance: the run ends at the first iteration whose
            // relative decrease (f_old − f_new)/max(f_old, 1) is at most 0.5, and only there.
            LbfgsBaselineTrainer t(bldtest::config(Algorithm::Lbfgs, {{"decrease_window", 1}, {"relative_decrease", 0.5},
                                                                      {"gradient_tolerance", 0.0}}));
            TestRunContext ctx;
            fitIn(t, p.x, p.y, ctx);
            QCOMPARE(t.endReason(), QStringLiteral("relative decrease"));
            const auto& cps = ctx.checkpoints;
            QVERIFY(cps.size() >= 2);
            for (std::size_t i = 1; i < cps.size(); ++i) {
                QCOMPARE(cps[i].epoch, double(i));
                const double rel = (cps[i - 1].loss - cps[i].loss) / std::max(cps[i - 1].loss, 1.0);
                QVERIFY2(i + 1 == cps.size() ? rel <= 0.5 : rel > 0.5, qPrintable(QString::number(rel)));
            }
        }
        {
            LbfgsBaselineTrainer t(bldtest::config(Algorithm::Lbfgs, {{"iterations", 7}, {"gradient_tolerance", 0.0},
                                                                      {"relative_decrease", 0.0}, {"checkpoint_every", 5}}));
            TestRunContext ctx;
            fitIn(t, p.x, p.y, ctx);
            QCOMPARE(t.endReason(), QStringLiteral("iterations"));
            QCOMPARE(ctx.checkpoints.size(), std::size_t(3)); // 0, 5 and the last, 7
            QCOMPARE(ctx.checkpoints.back().epoch, 7.0);
            QCOMPARE(ctx.checkpoints.back().loss, t.objective());
        }
    }

    void timeLimit()
    {
        const auto p = bldtest::teacher(4000, 8, 1, 3);
        LbfgsBaselineTrainer t(bldtest::config(Algorithm::Lbfgs, {{"hidden", QVariantList{60, 60}},
                                                                  {"gradient_tolerance", 0.0}, {"relative_decrease", 0.0}}));
        TestRunContext ctx(1, 2);
        ctx.budget = tb::RunBudget{0.3, tb::ClockKind::Wall};  // the host's budget, polled after every iteration
        ctx.restartClock();
        fitIn(t, p.x, p.y, ctx);
        QCOMPARE(t.endReason(), QStringLiteral("time limit"));
        QCOMPARE(ctx.records.value("end_reason").toString(), QStringLiteral("time limit"));
        QVERIFY(ctx.budgetUsed() >= 0.3);
    }

    void sameSeedSameBits()
    {
        const auto p = bldtest::teacher(500, 4, 2, 4);
        Eigen::VectorXd w[2];
        std::vector<tb::Checkpoint> cps[2];
        for (int r = 0; r < 2; ++r) {
            LbfgsBaselineTrainer t(bldtest::config(Algorithm::Lbfgs, {{"hidden", QVariantList{12, 12}}, {"iterations", 40}}));
            TestRunContext ctx(9, 2);
            fitIn(t, p.x, p.y, ctx);
            w[r] = t.network().flatten();
            cps[r] = ctx.checkpoints;
        }
        QVERIFY(w[0] == w[1]);
        QCOMPARE(cps[0].size(), cps[1].size());
        for (std::size_t i = 0; i < cps[0].size(); ++i)
            QCOMPARE(cps[0][i].loss, cps[1][i].loss);
    }

    void stopWithin200ms()
    {
        // Stop half a second into the run on two threads (1 s of CPU time, however busy the
        // machine): the run ends "stopped" and its work after Stop is within the promise
        // (tests/support/StopMeter.h).
        static const auto p = bldtest::teacher(40000, 20, 1, 5);
        LbfgsBaselineTrainer t(bldtest::config(Algorithm::Lbfgs, {{"hidden", QVariantList{100, 100}},
                                                                  {"gradient_tolerance", 0.0},
                                                                  {"relative_decrease", 0.0}}));
        TestRunContext ctx(1, 2);
        const auto r = runAndStop(ctx.stopSource(), StopWhen{.cpuMs = 1000}, [&] {
            fitIn(t, p.x, p.y, ctx);
            return t.endReason();
        });
        QVERIFY2(!r.endedBeforeStop, qPrintable("ended before Stop: " + r.value));
        QCOMPARE(r.value, QStringLiteral("stopped"));
        qInfo("%s", qPrintable(r.after.describe()));
        QVERIFY2(r.after.withinPromise(), qPrintable(r.after.describe()));
    }
};

QTEST_GUILESS_MAIN(TestLbfgsBaselineTrainer)
#include "tst_lbfgsbaselinetrainer.moc"
