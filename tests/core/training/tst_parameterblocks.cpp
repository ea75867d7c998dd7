// The SDK's shared parameter blocks (trainbench/toolkit/): each declares its keys as the plugin
// asks, reads normalised parameters into the training library's struct, and accepts former spellings with a
// note. Also the training library's pieces they read into: StoppingRules' tests, the absolute gradient test of
// the L-BFGS driver, the diminishing schedule's rate.
#include <training/LbfgsDriver.h>
#include <training/Objective.h>
#include <trainbench/toolkit/LbfgsParams.h>
#include <trainbench/toolkit/OptimizerParams.h>
#include <trainbench/toolkit/RandomFeatureParams.h>
#include <trainbench/toolkit/StoppingParams.h>

#include <QtTest>

using namespace tb;
using Kind = train::LearningRateSchedule::Kind;

namespace {

QStringList keys(const ParamSchema& s)
{
    QStringList out;
    for (const ParamSpec& p : s.specs())
        out << p.key;
    return out;
}

QVariantMap normalise(const ParamSchema& s, const QVariantMap& p, QStringList* notes = nullptr)
{
    QString err;
    const auto n = s.normalise(p, &err, notes);
    if (!n)
        qFatal("%s", qPrintable(err));
    return *n;
}

// f(w) = ½·a·‖w − c‖²: the gradient a(w − c) has norm a·‖w − c‖.
class Bowl final : public train::Objective {
public:
    Bowl(double a, Eigen::VectorXd c) : m_a(a), m_c(std::move(c)) {}
    Eigen::Index dimension() const override { return m_c.size(); }
    double evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& g) override
    {
        g = m_a * (w - m_c);
        return 0.5 * m_a * (w - m_c).squaredNorm();
    }

private:
    double m_a;
    Eigen::VectorXd m_c;
};

} // namespace

class TestParameterBlocks : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void optimizerBlockForAFixedRule()
    {
        OptimizerDefaults d;
        d.method = train::Method::Adam;
        d.schedules = {Kind::Constant, Kind::Step, Kind::Inverse};
        ParamSchema s;
        addOptimizerParams(s, d);
        QCOMPARE(keys(s), (QStringList{"lr", "beta1", "beta2", "epsilon", "schedule", "step_epochs", "step_factor",
                                       "inverse_decay"}));
        QCOMPARE(s.find("lr")->defaultValue.toDouble(), 0.001);  // Adam's usual rate
        QCOMPARE(s.find("schedule")->choices, (QStringList{"constant", "step", "inverse"}));
        const QVariantMap p = normalise(s, {{"lr", 0.05}, {"beta2", 0.99}, {"schedule", "step"}, {"step_epochs", 3}});
        const train::OptimizerSettings o = optimizerFromParams(p, d);
        QCOMPARE(o.method, train::Method::Adam);
        QCOMPARE(o.beta1, 0.9);
        QCOMPARE(o.beta2, 0.99);
        QCOMPARE(o.epsilon, 1e-8);
        QCOMPARE(o.weightDecay, 0.0);  // the plugin's "ridge", not the block's
        const train::LearningRateSchedule r = scheduleFromParams(p, d);
        QCOMPARE(r.kind, Kind::Step);
        QCOMPARE(r.base, 0.05);
        QCOMPARE(r.every, 3.0);
        QCOMPARE(r.rate(3), 0.025);
    }

    void optimizerBlockWithAChoiceAndFormerKeys()
    {
        // dsgd's: a choice of rule with the usual constants, a fixed inverse schedule, θ and
        // "method" accepted as former spellings.
        OptimizerDefaults d;
        d.offerChoice = true;
        d.offerConstants = false;
        d.lr = 1.0;
        d.lrAliases = {"theta"};
        d.schedule = Kind::Inverse;
        d.unit = "steps";
        d.inverseDecay = 0.01;
        ParamSchema s;
        addOptimizerParams(s, d);
        QCOMPARE(keys(s), (QStringList{"optimizer", "lr", "inverse_decay"}));
        QStringList notes;
        const QVariantMap p = normalise(s, {{"method", "adagrad"}, {"theta", 0.5}}, &notes);
        QVERIFY2(notes.join('\n').contains("\"method\" is deprecated: it is now \"optimizer\""), qPrintable(notes.join('\n')));
        QVERIFY(notes.join('\n').contains("\"theta\" is deprecated: it is now \"lr\""));
        const train::OptimizerSettings o = optimizerFromParams(p, d);
        QCOMPARE(o.method, train::Method::AdaGrad);
        QCOMPARE(o.epsilon, 1e-10);  // AdaGrad's usual ε
        const train::LearningRateSchedule r = scheduleFromParams(p, d);
        QCOMPARE(r.kind, Kind::Inverse);
        QCOMPARE(r.rate(100), 0.5 / 2.0);
        QVERIFY(!s.validate({{"optimizer", "lion"}}).isEmpty());
    }

    void diminishingScheduleIsTheRecursion()
    {
        OptimizerDefaults d;
        d.offerConstants = false;
        d.lr = 0.5;
        d.lrMin = 0.0;
        d.schedule = Kind::Diminishing;
        d.diminishingDecayAliases = {"step_decay"};
        ParamSchema s;
        addOptimizerParams(s, d);
        QCOMPARE(keys(s), (QStringList{"lr", "diminishing_decay"}));
        const train::LearningRateSchedule r = scheduleFromParams(normalise(s, {{"step_decay", 0.01}}), d);
        QCOMPARE(r.kind, Kind::Diminishing);
        QCOMPARE(r.decay, 0.01);
        train::DiminishingStep step(r.base, r.decay);
        for (int t = 0; t < 50; ++t) {
            QCOMPARE(r.rate(t), step.current());  // bit for bit: the same arithmetic
            step.next();
        }
    }

    void lbfgsBlock()
    {
        ParamSchema s;
        addLbfgsParams(s, LbfgsDefaults{});
        StoppingDefaults stop;
        stop.offerIterations = true;
        stop.offerGradientTolerance = true;
        stop.gradientTest = train::GradientTest::Absolute;
        addStoppingParams(s, stop);
        QCOMPARE(keys(s), (QStringList{"memory", "line_search", "iterations", "gradient_tolerance", "gradient_test"}));
        QCOMPARE(s.find("gradient_test")->defaultValue.toString(), QString("absolute"));
        QStringList notes;
        const QVariantMap p = normalise(s, {{"memory", 5}, {"line_search", "backtracking"}, {"iterations", 7},
                                            {"tolerance", 1e-4}},
                                        &notes);
        QVERIFY(notes.join('\n').contains("\"tolerance\" is deprecated: it is now \"gradient_tolerance\""));
        const train::LbfgsSettings l = lbfgsFromParams(p);
        QCOMPARE(l.memory, 5);
        QCOMPARE(l.lineSearch, train::LbfgsSettings::LineSearch::Armijo);
        QCOMPARE(l.maxIterations, 7);
        QCOMPARE(l.epsilon, 1e-4);
        QCOMPARE(l.gradientTest, train::GradientTest::Absolute);
    }

    void stoppingBlock()
    {
        StoppingDefaults d;
        d.offerEpochs = true;
        d.fractionalEpochs = true;
        d.epochs = 1.5;
        d.offerRelativeDecrease = true;
        d.offerDecreaseWindow = true;
        d.offerEarlyStopping = true;
        ParamSchema s;
        addStoppingParams(s, d);
        QCOMPARE(keys(s), (QStringList{"epochs", "relative_decrease", "decrease_window", "validation_fraction", "patience"}));
        QCOMPARE(s.find("epochs")->type, ParamType::Real);
        const train::StoppingRules r =
            stoppingFromParams(normalise(s, {{"decrease_window", 3}, {"validation_fraction", 0.2}}), d);
        QCOMPARE(r.epochs, 1.5);
        QCOMPARE(r.iterations, 0LL);
        QCOMPARE(r.relativeDecrease, 1e-4);
        QCOMPARE(r.decreaseWindow, 3);
        QCOMPARE(r.validationFraction, 0.2);
        QCOMPARE(r.patience, 5);
        QCOMPARE(r.gradientTolerance, 0.0);  // not offered: off
        StoppingDefaults whole;
        whole.offerEpochs = true;
        ParamSchema t;
        addStoppingParams(t, whole);
        QCOMPARE(t.find("epochs")->type, ParamType::Int);
        QVERIFY(!t.validate({{"epochs", 2.5}}).isEmpty());
    }

    void stoppingRulesTests()
    {
        train::StoppingRules r;
        QVERIFY(!r.gradientConverged(0.0, 1.0));  // off at 0
        r.gradientTolerance = 1e-3;
        r.gradientTest = train::GradientTest::Scaled;
        QVERIFY(r.gradientConverged(5e-3, 10.0));   // ≤ 1e-3·max(1, 10)
        QVERIFY(!r.gradientConverged(5e-3, 0.5));
        r.gradientTest = train::GradientTest::Absolute;
        QVERIFY(!r.gradientConverged(5e-3, 10.0));
        QVERIFY(r.gradientConverged(1e-3, 10.0));
        QCOMPARE(r.scaledTolerance(), 0.0);
        QVERIFY(!r.smallDecrease(10.0, 9.99999));  // off at 0
        r.relativeDecrease = 1e-4;
        QVERIFY(r.smallDecrease(10.0, 9.9995));     // 5e-5 of 10
        QVERIFY(!r.smallDecrease(10.0, 9.99));
        QVERIFY(r.smallDecrease(0.5, 0.49995));      // relative to max(f, 1)
        QCOMPARE(QString(train::gradientTestName(train::GradientTest::Absolute)), QString("absolute"));
    }

    void lbfgsDriverTestsTheAbsoluteNorm()
    {
        // At w far from 0 the scaled test accepts a gradient 100 times larger than the absolute one.
        Eigen::VectorXd c = Eigen::VectorXd::Constant(4, 50.0);
        train::LbfgsSettings s;
        s.epsilon = 1e-3;
        s.maxIterations = 200;
        Bowl scaled(1.0, c), absolute(1.0, c);
        Eigen::VectorXd w1 = Eigen::VectorXd::Constant(4, 49.9), w2 = w1;
        // ‖∇f‖ = 0.2 at the start, above 1e-3·‖w‖ ≈ 0.0998: both iterate.
        const train::LbfgsReport a = train::LbfgsDriver(s).minimise(scaled, w1);
        s.gradientTest = train::GradientTest::Absolute;
        const train::LbfgsReport b = train::LbfgsDriver(s).minimise(absolute, w2);
        QCOMPARE(a.outcome, train::LbfgsOutcome::Converged);
        QCOMPARE(b.outcome, train::LbfgsOutcome::Converged);
        QVERIFY2(b.gradientNorm <= 1e-3, qPrintable(QString::number(b.gradientNorm)));
        QVERIFY(a.gradientNorm <= 1e-3 * w1.norm());
        // Started where the scaled test already holds (‖∇f‖ = 0.02 ≤ 1e-3·‖w‖ ≈ 0.1) but the
        // absolute one does not: only the absolute run takes a step.
        Eigen::VectorXd w3 = Eigen::VectorXd::Constant(4, 49.99), w4 = w3;
        s.gradientTest = train::GradientTest::Scaled;
        QCOMPARE(train::LbfgsDriver(s).minimise(scaled, w3).iterations, 0);
        s.gradientTest = train::GradientTest::Absolute;
        QVERIFY(train::LbfgsDriver(s).minimise(absolute, w4).iterations > 0);
    }

    void randomFeatureBlock()
    {
        RandomFeatureDefaults d;
        d.kinds.prepend("raw");
        d.kind = "raw";
        d.kindAliases = {"features"};
        d.count = 4000;
        ParamSchema s;
        addRandomFeatureParams(s, d);
        QCOMPARE(keys(s), (QStringList{"random_features", "feature_count", "bandwidth_rule", "bandwidth", "median_sample",
                                       "pca", "pca_center"}));
        train::FeatureMapConfig c = randomFeaturesFromParams(normalise(s, {}), d);
        QVERIFY(c.raw);
        QCOMPARE(c.count, Eigen::Index(4000));
        QStringList notes;
        c = randomFeaturesFromParams(normalise(s, {{"features", "laplace_cos"}, {"median_rows", 300},
                                                   {"bandwidth_rule", "fixed"}, {"bandwidth", 2.5}, {"pca", 7}},
                                               &notes),
                                     d);
        QVERIFY2(notes.join('\n').contains("\"features\" is deprecated: it is now \"random_features\""),
                 qPrintable(notes.join('\n')));
        QVERIFY(notes.join('\n').contains("\"median_rows\" is deprecated: it is now \"median_sample\""));
        QVERIFY(!c.raw);
        QCOMPARE(c.kind, train::FeatureKind::LaplaceCos);
        QCOMPARE(c.medianSample, Eigen::Index(300));
        QCOMPARE(c.bandwidthRule, train::BandwidthRule::Fixed);
        QCOMPARE(c.bandwidth, 2.5);
        QCOMPARE(c.pca, Eigen::Index(7));
        QVERIFY(!s.validate({{"bandwidth", 0.0}}).isEmpty());

        // Without the kind offered (an exact kernel), the defaults' kind; a choice spelled the old way.
        RandomFeatureDefaults k;
        k.kinds = {"gaussian_cos", "laplace_cos"};
        k.kindAliases = {"kernel"};
        k.kindChoiceAliases = {{"laplace", "laplace_cos"}};
        k.offerCount = false;
        k.offerPca = false;
        ParamSchema ks;
        addRandomFeatureParams(ks, k);
        QCOMPARE(keys(ks), (QStringList{"random_features", "bandwidth_rule", "bandwidth", "median_sample"}));
        notes.clear();
        c = randomFeaturesFromParams(normalise(ks, {{"kernel", "laplace"}}, &notes), k);
        QCOMPARE(c.kind, train::FeatureKind::LaplaceCos);
        QVERIFY(notes.join('\n').contains("\"laplace\" is deprecated: it is now \"laplace_cos\""));
        QCOMPARE(c.count, Eigen::Index(1000));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, randomFeaturesFromParams({{"random_features", "sparse"}}, k));
    }
};

QTEST_GUILESS_MAIN(TestParameterBlocks)
#include "tst_parameterblocks.moc"
