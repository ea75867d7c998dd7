// The bld plugin's parameters: the paper's settings as defaults, its variable counts, ρ, the
// BLInG step rule, and the combinations the schema cannot express.
#include "BldTestData.h"

#include <bld/BldConfig.h>
#include <bld/BldCost.h>

#include <QtTest>

using namespace tb::bld;

class TestBldConfig : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaultsAreThePapersSettings()
    {
        for (const QString& id : BldConfig::algorithmIds()) {
            const Algorithm a = *BldConfig::algorithmFromId(id);
            QCOMPARE(BldConfig::idOf(a), id);
            const tb::ParamSchema s = BldConfig::schema(a);
            QVERIFY2(s.validate(s.defaults()).isEmpty(), qPrintable(id));
            const BldConfig c = bldtest::config(a);
            QVERIFY(c.network.bias && !c.network.hiddenBias); // a ones column on the input only
            QCOMPARE(c.activation, tb::num::Activation::Sigmoid);
            QCOMPARE(c.output, tb::num::Activation::Identity);
            QCOMPARE(c.relativeRidge, 1e-3);
        }
        const BldConfig b = bldtest::config(Algorithm::B2ld);
        QCOMPARE(b.order, BlockOrder::Backward);
        QCOMPARE(b.gradientTolerance, 1e-3);
        QCOMPARE(b.relativeDecrease, 1e-4);
        QVERIFY(!b.closedFormOutput); // the paper used L-BFGS on the output layer too
        const BldConfig g = bldtest::config(Algorithm::Bling);
        QCOMPARE(g.stepDecay, 5e-3);
        QCOMPARE(g.normFloor, 1e-3);
        QCOMPARE(g.normCeiling, 1e6);
    }

    void variableCountsOfTable1()
    {
        // Table 1, Mv (12 encoded inputs + the ones column = the paper's 13 "features") and
        // CCPP (4 inputs): the network the plugin builds must have exactly these many weights.
        const QList<QPair<QVariantList, double>> mv{{{50}, 700},
                                                    {{20, 20, 20}, 1080},
                                                    {{200, 50, 200}, 22800},
                                                    {{50, 50, 50, 50, 50}, 10700},
                                                    {{50, 50, 50, 50, 50, 50, 50, 50, 50, 50}, 23200}};
        for (const auto& [hidden, weights] : mv) {
            const BldConfig c = bldtest::config(Algorithm::B2ld, {{"hidden", hidden}});
            QCOMPARE(c.weightCount(12, 1), weights);
            QCOMPARE(double(c.makeNetwork(12, 1, 1).parameterCount()), weights);
            QCOMPARE(BldCost(c, {1000, 12, 1, tb::Task::Regression}).modelBytes(), 8 * weights);
        }
        QCOMPARE(bldtest::config(Algorithm::B2ld).weightCount(4, 1), 300.0); // CCPP [1×50]
    }

    void rhoIsRelativeToTheWeights()
    {
        const BldConfig c = bldtest::config(Algorithm::Lbfgs);
        QCOMPARE(c.rho(23200), 1e-3 / 23200);
        // The papers' ρ is twice the common ridge (docs/parameters.md).
        const BldConfig a = bldtest::config(Algorithm::Lbfgs, {{"relative_ridge", 0.0}, {"ridge", 0.125}});
        QCOMPARE(a.rho(23200), 0.25);
    }

    void firstStepOfBlingAndIg()
    {
        // α₀(IG) = 0.5, α₀(BLInG) = 0.5 / max(1, L − 2) for L weight layers.
        const BldConfig bling = bldtest::config(Algorithm::Bling);
        QCOMPARE(bling.firstStep(11), 0.5 / 9);
        QCOMPARE(bling.firstStep(2), 0.5);
        QCOMPARE(bling.firstStep(4), 0.25);
        QCOMPARE(bldtest::config(Algorithm::Ig).firstStep(11), 0.5);
        QCOMPARE(bldtest::config(Algorithm::Bling, {{"initial_step", 0.1}}).firstStep(11), 0.1);
    }

    void contradictionsNameTheParameters()
    {
        auto fails = [](Algorithm a, const QVariantMap& p, const QStringList& keys) {
            QString err;
            const auto n = BldConfig::schema(a).normalise(p, &err);
            QVERIFY2(n, qPrintable(err));
            try {
                BldConfig::fromParams(a, *n);
                QFAIL("no exception");
            } catch (const std::invalid_argument& e) {
                for (const QString& k : keys)
                    QVERIFY2(QString(e.what()).contains(k), e.what());
            }
        };
        fails(Algorithm::B2ld, {{"output_solve", "closed_form"}, {"output_activation", "sigmoid"}},
              {"output_solve", "output_activation"});
        fails(Algorithm::Bling, {{"norm_floor", 10.0}, {"norm_ceiling", 1.0}}, {"norm_floor", "norm_ceiling"});
        fails(Algorithm::Ig, {{"lr", 10.0}, {"diminishing_decay", 0.5}}, {"lr", "diminishing_decay"});
        // The spellings of plugin 1.1.0 (initial_step, step_decay) still load.
        fails(Algorithm::Ig, {{"initial_step", 10.0}, {"step_decay", 0.5}}, {"lr", "diminishing_decay"});
        fails(Algorithm::Lbfgs, {{"init_low", 1.0}, {"init_high", -1.0}}, {"init_low", "init_high"});
    }

    void formerTimeLimitBecomesTheHostsBudget()
    {
        // Plugin 1.1.0's own time limit: the keys become the host's, which takes them out.
        const tb::ParamSchema s = BldConfig::schema(Algorithm::Ig);
        QStringList notes;
        QVariantMap p = s.upgrade({{"time_limit", 60.0}, {"time_clock", "cpu"}, {"epochs", 5}}, &notes);
        QCOMPARE(p.value("time_budget_s").toDouble(), 60.0);
        QCOMPARE(p.value("time_budget_clock").toString(), QString("cpu"));
        QVERIFY(!p.contains("time_limit") && !p.contains("time_clock"));
        QVERIFY2(notes.join('\n').contains("\"time_limit\" (with \"time_clock\") is deprecated"), qPrintable(notes.join('\n')));
        // 0 was "no limit": nothing is left.
        notes.clear();
        p = s.upgrade({{"time_limit", 0.0}, {"time_clock", "wall"}}, &notes);
        QVERIFY(p.isEmpty());
        QCOMPARE(notes.size(), 1);
        // Given under both names, the host's key wins.
        p = s.upgrade({{"time_limit", 60.0}, {"time_budget_s", 10.0}});
        QCOMPARE(p.value("time_budget_s").toDouble(), 10.0);
        // The schema itself no longer has them: only the host reads a budget.
        QVERIFY(!s.find("time_limit") && !s.find("time_clock"));
        QVERIFY(s.validate({{"time_limit", 60.0}}).contains("time_budget_s"));
    }

    void schemaRejectsBadValues()
    {
        const tb::ParamSchema s = BldConfig::schema(Algorithm::B2ld);
        QVERIFY(s.validate({{"order", "sideways"}}).contains("order"));
        QVERIFY(s.validate({{"inner_iterations", 0}}).contains("inner_iterations"));
        QVERIFY(s.validate({{"armijo_gamma", 0.9}}).contains("armijo_gamma"));
        QVERIFY(s.validate({{"epochs", 3}}).contains("epochs")); // a BLInG key
        QVERIFY(BldConfig::schema(Algorithm::Bling).validate({{"order", "random"}}).contains("order"));
    }
};

QTEST_GUILESS_MAIN(TestBldConfig)
#include "tst_bldconfig.moc"
