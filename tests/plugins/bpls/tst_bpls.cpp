// Known-answer tests of the BPLS plugin (bpls.regress = Algorithm 1, bpls.classify = Algorithm 2).
#include <trainbench/testing/TestRunContext.h>

#include <bpls/BplsConfig.h>
#include <bpls/BplsTrainer.h>
#include <numerics/Metrics.h>

#include <QDir>
#include <QJsonArray>
#include <QPluginLoader>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <random>
#include <tbb/task_arena.h>
#include <FitIn.h>
#include <RandomMatrix.h>

using namespace tb;
using tb::bpls::BplsConfig;
using tb::bpls::BplsTrainer;
using tb::testing::TestRunContext;

namespace {

using tb::testsupport::fitIn;
using tb::testsupport::randomMatrix;

// The paper's toy inputs: train on x = 1, 3, 5, 7, 9, test on x = 2, 4, 6, 8, 10.
Eigen::MatrixXd toyInputs(bool train)
{
    Eigen::MatrixXd x(5, 1);
    for (int i = 0; i < 5; ++i)
        x(i, 0) = train ? 1 + 2 * i : 2 + 2 * i;
    return x;
}

Eigen::MatrixXd toyLinear(const Eigen::MatrixXd& x)
{
    Eigen::MatrixXd y(x.rows(), 2);
    y.col(0) = -x.col(0) / 3.0 + Eigen::VectorXd::Constant(x.rows(), 2.0);
    y.col(1) = 2.0 * x.col(0) - Eigen::VectorXd::Ones(x.rows());
    return y;
}

Eigen::MatrixXd toyNonlinear(const Eigen::MatrixXd& x)
{
    Eigen::MatrixXd y(x.rows(), 2);
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        y(i, 0) = 1.0 / (1.0 + std::exp(std::log10(std::pow(x(i, 0), -1.5))));
        y(i, 1) = 1.0 / (1.0 + std::exp(std::pow(x(i, 0), -0.25)));
    }
    return y;
}

// Parameters normalised by the real schema, with overrides.
BplsConfig config(bool classify, const QVariantMap& overrides)
{
    QString err;
    const auto p = BplsConfig::schema(classify).normalise(overrides, &err);
    if (!p)
        qFatal("bad test parameters: %s", qPrintable(err));
    return BplsConfig::fromParams(*p, classify);
}

// Two Gaussian blobs 4 standard deviations apart in the plane: linearly separable in practice.
void blobs(Eigen::Index perClass, std::uint64_t seed, Eigen::MatrixXd& x, Eigen::MatrixXd& y)
{
    x = randomMatrix(2 * perClass, 2, seed, 0.5);
    y.setZero(2 * perClass, 2);
    for (Eigen::Index i = 0; i < 2 * perClass; ++i) {
        const int c = i < perClass ? 0 : 1;
        x(i, 0) += c ? 2.0 : -2.0;
        x(i, 1) += c ? 1.0 : -1.0;
        y(i, c) = 1.0;
    }
}

// Points inside radius 0.8 vs a ring between radii 1.2 and 2: separable, but not linearly.
void rings(Eigen::Index perClass, std::uint64_t seed, Eigen::MatrixXd& x, Eigen::MatrixXd& y)
{
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    x.resize(2 * perClass, 2);
    y.setZero(2 * perClass, 2);
    for (Eigen::Index i = 0; i < 2 * perClass; ++i) {
        const int c = i < perClass ? 0 : 1;
        const double r = c ? 1.2 + 0.8 * u(gen) : 0.8 * std::sqrt(u(gen));
        const double a = 2 * M_PI * u(gen);
        x(i, 0) = r * std::cos(a);
        x(i, 1) = r * std::sin(a);
        y(i, c) = 1.0;
    }
}

} // namespace

class TestBpls : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pluginLoadsWithMetadataAndSchemas()
    {
        QPluginLoader loader(QDir(TB_PLUGIN_BUILD_DIR).filePath("trainbench-bpls.so"));
        const QJsonObject meta = loader.metaData();
        QCOMPARE(meta.value("IID").toString(), QString(TrainerFactory_iid));
        const QJsonObject md = meta.value("MetaData").toObject();
        QCOMPARE(md.value("id").toString(), QString("bpls"));
        QCOMPARE(md.value("version").toString(), QString("2.0.0"));
        QVERIFY(!md.contains("apiVersion")); // the IID carries the API version (written once)
        QCOMPARE(md.value("family").toString(), QString("bpls"));
        QVERIFY(md.value("citation").toString().contains("Tomi"));
        QVERIFY(!md.value("description").toString().isEmpty());
        auto* factory = qobject_cast<TrainerFactory*>(loader.instance());
        QVERIFY2(factory, qPrintable(loader.errorString()));
        const auto algos = factory->algorithms();
        QCOMPARE(algos.size(), 2);
        QCOMPARE(algos[0].id, QString("bpls.regress"));
        QCOMPARE(algos[1].id, QString("bpls.classify"));
        QVERIFY(algos[0].regression && !algos[0].classification);
        QVERIFY(!algos[1].regression && algos[1].classification);
        for (const auto& a : algos) {
            QString err;
            const auto p = a.schema.normalise({}, &err);
            QVERIFY2(p.has_value(), qPrintable(err));
            QVERIFY(factory->create(a.id, *p) != nullptr);
        }
        // The documented defaults as the trainer reads them (the values a run without
        // parameters uses, not the help text). The open choices of the paper were set from the
        // Fashion-MNIST validation split (docs/bpls.md, "How the defaults were chosen").
        QString defaultsError;
        const BplsConfig reg = BplsConfig::fromParams(*algos[0].schema.normalise({}, &defaultsError), false);
        const BplsConfig cls = BplsConfig::fromParams(*algos[1].schema.normalise({}, &defaultsError), true);
        QCOMPARE(reg.hidden, std::vector<Eigen::Index>{3});
        QCOMPARE(cls.hidden, std::vector<Eigen::Index>{50});
        QCOMPARE(reg.hiddenActivation, num::Activation::Sigmoid);
        QCOMPARE(cls.outputActivation, num::Activation::Softmax);
        QCOMPARE(cls.relativeRidge, 1e-8);
        QCOMPARE(reg.ridge, 0.0);
        QCOMPARE(reg.targetRule, bpls::TargetRule::PerNeuron);
        QCOMPARE(cls.targetRule, bpls::TargetRule::PerNeuron);
        QCOMPARE(cls.epsilon, 0.05);
        QCOMPARE(cls.standardise, true);
        QCOMPARE(cls.gramPrecision, bpls::GramPrecision::Mixed);
        QCOMPARE(cls.tauMax, 20);
        QCOMPARE(reg.epsilon, 1e-3);
        QCOMPARE(reg.standardise, false);
        QCOMPARE(reg.gramPrecision, bpls::GramPrecision::Double);
        QVERIFY(reg.bias && reg.hiddenBias && !reg.resolve);
        QString err;
        QVERIFY(!algos[0].schema.normalise({{"target_rule", "fancy"}}, &err));
        QVERIFY(err.contains("target_rule"));
        auto p = *algos[0].schema.normalise({{"init_low", 2.0}, {"init_high", 1.0}}, &err);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, factory->create("bpls.regress", p));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, factory->create("bpls.nope", p));
    }

    void formerSpellingsAreUpgraded()
    {
        // Files written before the names were unified (hyphenated choices, "hidden_activation",
        // "epsilon") run with the current meaning and one note per former spelling.
        QString err;
        QStringList notes;
        const auto p = BplsConfig::schema(true).normalise({{"target_rule", "joint-delta"}, {"hidden_activation", "tanh"},
                                                           {"epsilon", 0.01}, {"target_encoding", "one-hot"},
                                                           {"blend", "miss-ratio"}},
                                                          &err, &notes);
        QVERIFY2(p, qPrintable(err));
        QCOMPARE(p->value("target_rule").toString(), QString("joint_delta"));
        QCOMPARE(p->value("activation").toString(), QString("tanh"));
        QCOMPARE(p->value("clip_epsilon").toDouble(), 0.01);
        QCOMPARE(p->value("target_encoding").toString(), QString("one_hot"));
        QCOMPARE(p->value("blend").toString(), QString("miss_ratio"));
        QVERIFY(!p->contains("epsilon") && !p->contains("hidden_activation"));
        QCOMPARE(notes.size(), 5);
        const BplsConfig c = BplsConfig::fromParams(*p, true);
        QCOMPARE(c.targetRule, bpls::TargetRule::JointDelta);
        QCOMPARE(c.hiddenActivation, num::Activation::Tanh);
        // Both spellings at once: the current one wins, with a note.
        notes.clear();
        const auto both = BplsConfig::schema(true).normalise({{"epsilon", 0.2}, {"clip_epsilon", 0.01}}, &err, &notes);
        QCOMPARE(both->value("clip_epsilon").toDouble(), 0.01);
        QVERIFY(notes.join(' ').contains("also given"));
    }

    void noiselessLinearToyFitsInOneSweep()
    {
        // The paper's Fig. 4 setting without noise: x plus bias, 3 linear hidden neurons, 2 outputs.
        const Eigen::MatrixXd x = toyInputs(true), y = toyLinear(x);
        BplsTrainer t(config(false, {{"hidden_activation", "identity"}, {"output_activation", "identity"}}));
        TestRunContext ctx(3);
        fitIn(t, DatasetView(x, y), ctx, 1);
        QCOMPARE(int(ctx.checkpoints.size()), 1);
        QCOMPARE(ctx.checkpoints[0].epoch, 1.0);
        // Exact in exact arithmetic; the normal equations of [x 1] with x ≤ 10 have condition
        // ≈ 1e3–1e4, so rounding stays near 1e-12 — far below the 1e-8 the issue asks for.
        const double train = num::rmse(t.predict(x), y);
        QVERIFY2(train < 1e-8, qPrintable(QString::number(train)));
        const Eigen::MatrixXd xt = toyInputs(false);
        QVERIFY(num::rmse(t.predict(xt), toyLinear(xt)) < 1e-8); // a linear map generalises exactly
        // [N 1] of three linear features of (x, 1) has rank 2 of 4: the solver's fallback ran and
        // the plugin recorded it.
        QVERIFY(t.history().fallbacks > 0);
        QVERIFY(ctx.records.contains("fallback_1"));
        QVERIFY(ctx.logs.join("\n").contains("eigen pseudo-inverse"));
    }

    void randomLinearNetworkIsReproduced_data()
    {
        QTest::addColumn<QVariantList>("hidden");
        QTest::addColumn<bool>("hiddenBias");
        QTest::addColumn<QString>("rule");
        QTest::newRow("3-4-2, full-rank first layer") << QVariantList{4} << false << "per-neuron";
        QTest::newRow("3-4-2 hidden bias (singular)") << QVariantList{4} << true << "per-neuron";
        // Two hidden layers: the per-neuron rule lets EVERY neuron absorb the whole residual
        // (it overshoots whenever the residual is not zero), so only the joint correction is
        // exact through a chain of layers: N̂·W = N·W + R·W⁺W = B for full-column-rank W.
        QTest::newRow("3-3-2-2 two hidden layers, joint-delta") << QVariantList{3, 2} << false << "joint-delta";
        QTest::newRow("3-4-2 joint-delta rule") << QVariantList{4} << false << "joint-delta";
    }
    void randomLinearNetworkIsReproduced()
    {
        QFETCH(QVariantList, hidden);
        QFETCH(bool, hiddenBias);
        QFETCH(QString, rule);
        // Teacher: a random linear network; its outputs are linear in (x, 1), so the student's
        // first layer can reach any desired hidden values of that form exactly.
        std::vector<Eigen::Index> sizes{3};
        for (const auto& h : hidden)
            sizes.push_back(h.toInt());
        sizes.push_back(2);
        num::Mlp teacher(sizes, std::vector<num::Activation>(sizes.size() - 1, num::Activation::Identity), true);
        teacher.initUniform(99);
        const Eigen::MatrixXd x = randomMatrix(40, 3, 5);
        const Eigen::MatrixXd y = teacher.predict(x);
        BplsTrainer t(config(false, {{"hidden", hidden},
                                     {"hidden_activation", "identity"},
                                     {"hidden_bias", hiddenBias},
                                     {"target_rule", rule}}));
        TestRunContext ctx(11);
        fitIn(t, DatasetView(x, y), ctx, 1);
        // Well-conditioned Gaussian inputs: normal equations lose ~cond·ε ≈ 1e-13.
        const double fit = num::rmse(t.predict(x), y);
        QVERIFY2(fit < 1e-9, qPrintable(QString::number(fit)));
        const Eigen::MatrixXd xNew = randomMatrix(10, 3, 6);
        QVERIFY(num::rmse(t.predict(xNew), teacher.predict(xNew)) < 1e-8);
        if (!hiddenBias && rule == "per-neuron" && hidden.size() == 1)
            QCOMPARE(t.history().fallbacks, 0); // full column rank everywhere: Cholesky only
    }

    void perNeuronRuleIsPaperEquationFiveForOneOutput()
    {
        // One output j: n̂_i = (b − Σ_{t≠i} w_t n_t − w_bias) / w_i  (paper eq. 5).
        const Eigen::MatrixXd n = randomMatrix(6, 3, 1), b = randomMatrix(6, 1, 2);
        Eigen::MatrixXd w(4, 1);
        w << 0.7, -1.3, 0.4, 0.25; // last row: bias
        const Eigen::MatrixXd got = BplsTrainer::desiredValues(bpls::TargetRule::PerNeuron, n, w, b, true);
        for (Eigen::Index r = 0; r < 6; ++r)
            for (int i = 0; i < 3; ++i) {
                double others = w(3, 0);
                for (int t = 0; t < 3; ++t)
                    if (t != i)
                        others += w(t, 0) * n(r, t);
                QVERIFY(std::abs(got(r, i) - (b(r, 0) - others) / w(i, 0)) < 1e-12);
            }
        // Several outputs: the least-squares combination; for exact targets it returns N itself.
        Eigen::MatrixXd w2 = randomMatrix(4, 3, 3);
        Eigen::MatrixXd b2 = n * w2.topRows(3);
        b2.rowwise() += w2.row(3);
        QVERIFY((BplsTrainer::desiredValues(bpls::TargetRule::PerNeuron, n, w2, b2, true) - n).norm() < 1e-12);
        QVERIFY((BplsTrainer::desiredValues(bpls::TargetRule::JointDelta, n, w2, b2, true) - n).norm() < 1e-12);
        // Joint rule: minimum norm N̂ with N̂·W_h = B − 1·bᵀ (W_h 3×3 invertible here: N̂ = N).
        QVERIFY((BplsTrainer::desiredValues(bpls::TargetRule::Joint, n, w2, b2, true) - n).norm() < 1e-10);
    }

    void nonlinearToyWithSigmoids()
    {
        // Fig. 5 setting without noise: sigmoid hidden and output layers, paper defaults.
        // Error aggregated as in the paper, sqrt(mean over runs of the squared RMSE). Measured
        // over seeds 1–200: train 0.054, test 0.028 (the mean predictor scores 0.115 on train);
        // single seeds vary (worst train 0.31), hence the aggregate over 50 seeds and bounds
        // with a 1.5× margin.
        const Eigen::MatrixXd x = toyInputs(true), y = toyNonlinear(x);
        const Eigen::MatrixXd xt = toyInputs(false), yt = toyNonlinear(xt);
        const Eigen::MatrixXd centred = y.rowwise() - y.colwise().mean();
        const double baseline = std::sqrt(centred.rowwise().squaredNorm().mean());
        QVERIFY(std::abs(baseline - 0.1145) < 1e-3);
        double train2 = 0, test2 = 0;
        for (std::uint64_t seed = 1; seed <= 50; ++seed) {
            BplsTrainer t(config(false, {{"hidden_activation", "sigmoid"}, {"output_activation", "sigmoid"}}));
            TestRunContext ctx(seed);
            fitIn(t, DatasetView(x, y), ctx, 1);
            train2 += std::pow(num::rmse(t.predict(x), y), 2);
            test2 += std::pow(num::rmse(t.predict(xt), yt), 2);
        }
        const double train = std::sqrt(train2 / 50), test = std::sqrt(test2 / 50);
        QVERIFY2(train < 0.08 && test < 0.045, qPrintable(QString("train %1 test %2").arg(train).arg(test)));
    }

    void separableClassesAreLearned_data()
    {
        QTest::addColumn<QString>("set");
        QTest::addColumn<double>("minAccuracy");
        // Blobs 4 sd apart: every seed separates them. Rings: a sigmoid layer of 10 must carve
        // a closed boundary; measured ≥ 0.97 over seeds 1–5, asserted ≥ 0.9.
        QTest::newRow("blobs") << "blobs" << 1.0;
        QTest::newRow("rings") << "rings" << 0.9;
    }
    void separableClassesAreLearned()
    {
        QFETCH(QString, set);
        QFETCH(double, minAccuracy);
        Eigen::MatrixXd x, y;
        if (set == "blobs")
            blobs(200, 4, x, y);
        else
            rings(200, 4, x, y);
        for (std::uint64_t seed = 1; seed <= 5; ++seed) {
            BplsTrainer t(config(true, {{"hidden", QVariantList{10}}, {"gram_precision", "double"}}));
            TestRunContext ctx(seed);
            std::vector<double> acc;
            ctx.onCheckpoint = [&](const Checkpoint&) { acc.push_back(num::accuracy(t.predict(x), y)); };
            fitIn(t, DatasetView(x, y, Task::Classification), ctx, 1);
            QVERIFY(!acc.empty());
            // Algorithm 2 keeps the best iterate: no checkpoint falls below the first one.
            for (double a : acc)
                QVERIFY2(a >= acc.front(), qPrintable(QString("seed %1: %2 < first %3").arg(seed).arg(a).arg(acc.front())));
            QVERIFY2(acc.back() >= minAccuracy,
                     qPrintable(QString("seed %1: final accuracy %2 < %3").arg(seed).arg(acc.back()).arg(minAccuracy)));
            QCOMPARE(acc.back(), t.history().trainAccuracy.back());
            QCOMPARE(int(ctx.checkpoints.size()), int(acc.size()));
            QCOMPARE(ctx.checkpoints.front().epoch, 1.0);
        }
    }

    void singularGramFallsBackAndStillFits()
    {
        // Duplicated input column: [X 1]ᵀ[X 1] is exactly singular.
        Eigen::MatrixXd x = randomMatrix(30, 3, 8);
        x.col(2) = x.col(1);
        const Eigen::MatrixXd y = x * Eigen::Vector3d(1.0, -2.0, 0.5) + Eigen::VectorXd::Constant(30, 0.3);
        BplsTrainer t(config(false, {{"hidden", QVariantList{}}}));
        TestRunContext ctx(1);
        fitIn(t, DatasetView(x, y), ctx, 1);
        QCOMPARE(t.history().fallbacks, 1);
        QVERIFY(ctx.records.value("fallback_1").toString().contains("layer 0"));
        QVERIFY(ctx.logs.join("\n").contains("rank 3/4"));
        // The minimum-norm solution still fits exactly (cond of the kept part ~10).
        QVERIFY(num::rmse(t.predict(x), y) < 1e-10);
        QVERIFY(t.network().weights(0).allFinite());
    }

    void constantTargetsGiveConstantPredictions()
    {
        const Eigen::MatrixXd x = randomMatrix(25, 2, 9);
        const Eigen::MatrixXd y = Eigen::MatrixXd::Constant(25, 1, 3.7);
        BplsTrainer t(config(false, {}));
        TestRunContext ctx(1);
        fitIn(t, DatasetView(x, y), ctx, 1);
        // Output layer: B constant → W = (0, …, 0, 3.7) exactly; residual 0 → hidden targets unchanged.
        QVERIFY(num::rmse(t.predict(x), y) < 1e-10);
        QVERIFY(num::rmse(t.predict(randomMatrix(5, 2, 10)), Eigen::MatrixXd::Constant(5, 1, 3.7)) < 1e-10);

        // Classification with every row in one class: nothing to refine after epoch 1.
        Eigen::MatrixXd yc = Eigen::MatrixXd::Zero(25, 3);
        yc.col(1).setOnes();
        BplsTrainer c(config(true, {{"hidden", QVariantList{4}}}));
        TestRunContext cctx(1);
        fitIn(c, DatasetView(x, yc, Task::Classification), cctx, 1);
        QCOMPARE(int(cctx.checkpoints.size()), 1);
        QCOMPARE(num::accuracy(c.predict(x), yc), 1.0);
        QVERIFY(cctx.logs.join("\n").contains("no misclassified"));
    }

    void nonFiniteInputsAreRejectedClearly()
    {
        Eigen::MatrixXd x = randomMatrix(10, 3, 1), y = randomMatrix(10, 1, 2);
        x(4, 2) = std::numeric_limits<double>::quiet_NaN();
        BplsTrainer t(config(false, {}));
        TestRunContext ctx(1);
        try {
            fitIn(t, DatasetView(x, y), ctx, 1);
            QFAIL("NaN input accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("inputs contain NaN at row 4, column 2"), e.what());
        }
        QVERIFY(ctx.checkpoints.empty());
        x(4, 2) = 0.0;
        y(7, 0) = std::numeric_limits<double>::infinity();
        try {
            fitIn(t, DatasetView(x, y), ctx, 1);
            QFAIL("Inf target accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("targets contain Inf at row 7, column 0"), e.what());
        }
        // Wrong task / too few classes: messages name the algorithm.
        BplsTrainer c(config(true, {}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fitIn(c, DatasetView(x, randomMatrix(10, 2, 3)), ctx, 1));
        Eigen::MatrixXd one = Eigen::MatrixXd::Ones(10, 1);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fitIn(c, DatasetView(x, one, Task::Classification), ctx, 1));
        // Before a model exists: the network trainers' logic_error (NetworkTrainer).
        QVERIFY_THROWS_EXCEPTION(std::logic_error, t.predict(Eigen::MatrixXd::Zero(2, 5)));
    }

    void sameSeedGivesIdenticalWeights_data()
    {
        QTest::addColumn<QString>("precision");
        QTest::newRow("double") << "double";
        QTest::newRow("mixed") << "mixed";
    }
    void sameSeedGivesIdenticalWeights()
    {
        QFETCH(QString, precision);
        Eigen::MatrixXd x, y;
        rings(1500, 7, x, y); // 3000 rows: several row blocks per thread
        auto run = [&](std::uint64_t seed, int threads) {
            BplsTrainer t(config(true, {{"hidden", QVariantList{12}}, {"gram_precision", precision}}));
            TestRunContext ctx(seed, threads);
            fitIn(t, DatasetView(x, y, Task::Classification), ctx, threads);
            return t.network().flatten();
        };
        const Eigen::VectorXd a = run(7, 2), b = run(7, 2), c = run(8, 2);
        QCOMPARE(a, b); // bit-identical: fixed row partitions, ordered reductions
        QVERIFY(a != c);
    }

    void stopIsHonoured()
    {
        Eigen::MatrixXd x, y;
        rings(300, 2, x, y);
        BplsTrainer t(config(true, {{"hidden", QVariantList{6}}, {"stop_when_no_gain", false}, {"tau_max", 10}}));
        TestRunContext ctx(1);
        ctx.requestStop();
        fitIn(t, DatasetView(x, y, Task::Classification), ctx, 1);
        QVERIFY(ctx.checkpoints.empty());
        QVERIFY(t.history().stopped);
        QVERIFY(t.predict(x).allFinite()); // the initial network stays usable

        TestRunContext ctx2(1);
        ctx2.stopAfter = 2;
        fitIn(t, DatasetView(x, y, Task::Classification), ctx2, 1);
        QCOMPARE(int(ctx2.checkpoints.size()), 2); // nothing after the host said Stop
    }

    void standardisationIsFoldedIntoTheWeights()
    {
        // Inputs on wildly different scales; predictions take raw inputs.
        Eigen::MatrixXd x = randomMatrix(40, 3, 5);
        x.col(0) = x.col(0) * 1000.0 + Eigen::VectorXd::Constant(40, 5000.0);
        const Eigen::MatrixXd y = x * Eigen::Vector3d(0.001, 2.0, -1.0);
        BplsTrainer t(config(false, {{"hidden", QVariantList{}}, {"standardise", true}}));
        TestRunContext ctx(2);
        fitIn(t, DatasetView(x, y), ctx, 1);
        // Relative accuracy of a linear fit with inputs of size 5e3: ~1e-12·5e3.
        QVERIFY(num::rmse(t.predict(x), y) < 1e-8);
    }

    void predictedCostMatchesTheOperationCount()
    {
        BplsTrainer t(config(false, {{"hidden", QVariantList{3}}, {"bias", true}, {"hidden_bias", true}}));
        const QJsonObject cost = t.predictCost(ProblemShape{100, 1, 2, Task::Regression});
        const QJsonArray steps = cost.value("steps").toArray();
        QCOMPARE(steps.size(), 2);
        // Output layer first: A = [N 1] is 100×4, 2 outputs: Gram 100·4·5, factorisation 4³/3.
        QCOMPARE(steps[0].toObject().value("gram_flops").toDouble(), 100.0 * 4 * 5);
        QCOMPARE(steps[0].toObject().value("factorisation_flops").toDouble(), 64.0 / 3);
        QCOMPARE(steps[1].toObject().value("cross_flops").toDouble(), 2.0 * 100 * 2 * 3);
        QVERIFY(cost.value("flops").toDouble() > cost.value("sweep_flops").toDouble());
        QVERIFY(cost.value("predicted_seconds").toDouble() > 0);
    }

    void runRecordsPredictedAgainstMeasuredTime()
    {
        Eigen::MatrixXd x, y;
        blobs(100, 3, x, y);
        BplsTrainer t(config(true, {{"hidden", QVariantList{5}}}));
        TestRunContext ctx(1);
        fitIn(t, DatasetView(x, y, Task::Classification), ctx, 1);
        for (const char* key : {"predicted_flops", "predicted_seconds", "first_sweep_measured_seconds",
                                "fit_seconds", "network"})
            QVERIFY2(ctx.records.contains(key), key);
        QVERIFY(ctx.records.value("predicted_flops").toDouble() > 0);
        // Algorithm 2's prediction covers the first sweep and names the fact that measures it,
        // so hosts compare like with like (the refinement depends on the misses).
        const QJsonObject cost =
            t.predictCost(ProblemShape{x.rows(), x.cols(), y.cols(), Task::Classification});
        QCOMPARE(cost.value("scope").toString(), QStringLiteral("first sweep"));
        QVERIFY(ctx.records.contains(cost.value("scope_measured_key").toString()));
        BplsTrainer regress(config(false, {{"hidden", QVariantList{5}}}));
        QVERIFY(!regress.predictCost(ProblemShape{100, 3, 2, Task::Regression}).contains("scope"));
    }

    void residualFromNormalEquationsMatchesDirectResidual()
    {
        // Any W, not only the least-squares one: the identity is algebraic.
        const Eigen::MatrixXd a = randomMatrix(40, 4, 21), b = randomMatrix(40, 3, 22), w = randomMatrix(4, 3, 23);
        const Eigen::MatrixXd g = a.transpose() * a, c = a.transpose() * b;
        const double direct = (a * w - b).norm() / b.norm();
        // Terms of size ‖B‖² ≈ 120 cancel to ‖AW − B‖² ≈ 300: relative rounding ≈ 1e-15.
        QVERIFY(std::abs(BplsTrainer::relativeResidual(g, c, b.squaredNorm(), w) - direct) < 1e-12 * direct);
        // Only the lower triangle of G is read, as by the solver.
        Eigen::MatrixXd lower = g.triangularView<Eigen::Lower>();
        QCOMPARE(BplsTrainer::relativeResidual(lower, c, b.squaredNorm(), w),
                 BplsTrainer::relativeResidual(g, c, b.squaredNorm(), w));
        // B = 0 reports 0 rather than 0/0.
        QCOMPARE(BplsTrainer::relativeResidual(g, Eigen::MatrixXd::Zero(4, 3), 0.0, w), 0.0);
    }

    void noiselessLinearToyRecordsExactLayerSolves()
    {
        const Eigen::MatrixXd x = toyInputs(true), y = toyLinear(x);
        for (std::uint64_t seed = 1; seed <= 10; ++seed) {
            BplsTrainer t(config(false, {{"hidden_activation", "identity"}, {"output_activation", "identity"}}));
            TestRunContext ctx(seed);
            fitIn(t, DatasetView(x, y), ctx, 1);
            const QJsonArray solves = ctx.records.value("layer_solves").toArray();
            // Algorithm 1 without re-solve: one solve per layer, output layer first.
            QCOMPARE(solves.size(), 2);
            QCOMPARE(solves[0].toObject().value("layer").toInt(), 1);
            QCOMPARE(solves[1].toObject().value("layer").toInt(), 0);
            QCOMPARE(solves[1].toObject().value("phase").toString(), QString("first layer"));
            for (const auto& v : solves) {
                const QJsonObject s = v.toObject();
                // The targets are exactly linear in (x, 1): every layer is consistent, the true
                // residual is ~1e-15. The Gram formula ‖B‖² − 2⟨W,C⟩ + ⟨W,GW⟩ cancels to it, so
                // rounding of ‖B‖², G and C (≈ ε‖B‖²) shows as √ε ≈ 1.5e-8: measured 0 (clamped)
                // or 1.1e-8 … 2.8e-8 over seeds 1–20, also with extended-precision sums. The
                // issue's 1e-8 is below that resolution; 1e-7 is still 5 orders under any
                // inconsistent layer (≥ 1e-2 in the classification test below).
                const double r = s.value("residual").toDouble(-1);
                QVERIFY2(r >= 0 && r < 1e-7,
                         qPrintable(QString("seed %1, layer %2: residual %3").arg(seed).arg(s.value("layer").toInt()).arg(r)));
            }
            // [N 1] of three linear features of (x, 1) has rank 2 of 4: the output solve fell
            // back, reported with its rank, an infinite (null) condition and the reason.
            const QJsonObject out = solves[0].toObject();
            QCOMPARE(out.value("method").toString(), QString("eigen-pinv"));
            QVERIFY(out.value("fallback").toBool());
            QCOMPARE(out.value("rank").toInt(), 2);
            QCOMPARE(out.value("dimension").toInt(), 4);
            QVERIFY(out.value("cond").isNull());
            QVERIFY(!out.value("reason").toString().isEmpty());
            const QJsonObject first = solves[1].toObject();
            QCOMPARE(first.value("method").toString(), QString("cholesky"));
            QVERIFY(!first.value("fallback").toBool());
            QVERIFY(first.value("cond").toDouble() >= 1.0);
            QCOMPARE(first.value("ridge").toDouble(), 0.0);
        }
    }

    void classifyRecordsLayerSolvesBeforeEveryCheckpoint_data()
    {
        QTest::addColumn<bool>("resolve");
        QTest::addColumn<int>("perSweep");
        // One hidden layer: 2 layers; re-solving from desired values adds one solve per hidden layer.
        QTest::newRow("one solve per layer") << false << 2;
        QTest::newRow("with re-solve") << true << 3;
    }
    void classifyRecordsLayerSolvesBeforeEveryCheckpoint()
    {
        QFETCH(bool, resolve);
        QFETCH(int, perSweep);
        Eigen::MatrixXd x, y;
        rings(150, 5, x, y);
        BplsTrainer t(config(true, {{"hidden", QVariantList{10}}, {"resolve", resolve}, {"gram_precision", "double"}}));
        TestRunContext ctx(2);
        int checked = 0;
        QJsonArray firstSweep;
        ctx.onCheckpoint = [&](const Checkpoint&) {
            if (checked == 0)
                firstSweep = ctx.records.value("layer_solves").toArray();
            // The fact is in place when the host sees the checkpoint, for the sweep just done.
            QCOMPARE(ctx.records.value("layer_solves").toArray().size(), perSweep);
            QCOMPARE(ctx.records.value("layer_solves").toArray(), t.layerSolves());
            ++checked;
        };
        fitIn(t, DatasetView(x, y, Task::Classification), ctx, 1);
        QVERIFY(checked >= 1);
        QCOMPARE(checked, int(ctx.checkpoints.size()));
        const QJsonArray solves = ctx.records.value("layer_solves").toArray();
        QCOMPARE(solves.size(), perSweep);
        QList<int> layers;
        for (const auto& v : solves) {
            const QJsonObject s = v.toObject();
            layers << s.value("layer").toInt();
            // Relative ridge 1e-8 keeps every Gram positive definite: Cholesky, finite cond ≥ 1.
            QCOMPARE(s.value("method").toString(), QString("cholesky"));
            QVERIFY(!s.value("fallback").toBool());
            QVERIFY(s.value("reason").toString().isEmpty());
            const double cond = s.value("cond").toDouble(-1);
            QVERIFY2(std::isfinite(cond) && cond >= 1.0, qPrintable(QString::number(cond)));
            QVERIFY(s.value("ridge").toDouble() > 0);
            QCOMPARE(s.value("rank").toInt(), s.value("dimension").toInt());
            // W = 0 is feasible, so a least-squares (or ridge) residual never exceeds ‖B‖. The
            // last refinement may fit a handful of misclassified rows exactly (residual 0).
            const double r = s.value("residual").toDouble(-1);
            QVERIFY2(r >= 0 && r <= 1.0, qPrintable(QString::number(r)));
        }
        // The first sweep fits all 300 rows: rings are not linearly separable, so the output
        // layer's targets cannot be met exactly (measured ≈ 0.2).
        QCOMPARE(firstSweep.size(), perSweep);
        QVERIFY(firstSweep[0].toObject().value("layer").toInt() == 1);
        QVERIFY(firstSweep[0].toObject().value("residual").toDouble() > 0.01);
        std::sort(layers.begin(), layers.end());
        QCOMPARE(layers.front(), 0);
        QCOMPARE(layers.back(), 1);
        QCOMPARE(int(layers.count(0)), 1);
    }
};

QTEST_GUILESS_MAIN(TestBpls)
#include "tst_bpls.moc"
