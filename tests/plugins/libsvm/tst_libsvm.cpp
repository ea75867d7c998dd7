// Known-answer tests of the LIBSVM plugin (LibsvmTrainer, linked from the plugin's static core):
// every kernel separates a separable set; the model is the one svm-train builds from the same
// data; ε-SVR fits noiseless linear data to within ε; predictions are the library's own; γ
// follows its rule; Stop abandons the library call, which then unwinds; bad input fails clearly.
// Sparse inputs: the same data sparse gives the same model and predictions as dense; a problem far
// too wide to densify (2000 × 1,000,000) trains; the plugin declares both algorithms sparse-capable.
#include <trainbench/testing/TestRunContext.h>

#include <CpuTime.h>
#include <FitIn.h>
#include <LabelledSets.h>
#include <LibraryTrainerChecks.h>
#include <SparseTrainerChecks.h>

#include <wrapping/DetachedCall.h>
#include <libsvm/LibsvmConfig.h>
#include <libsvm/LibsvmTrainer.h>

#include <libsvm/svm.h>

#include <QDir>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <chrono>
#include <cmath>
#include <random>

using namespace tb;
using tb::libsvm::LibsvmConfig;
using tb::libsvm::LibsvmTrainer;
using tb::testing::TestRunContext;
using namespace tb::testsupport;
using Set = LabelledSet;

namespace {

// The host's arena for every fit() and predict() here: two threads.
constexpr int kThreads = 2;

constexpr auto trainer = &configuredTrainer<LibsvmTrainer, LibsvmConfig>;

// A model's dual coefficients, (classes − 1) × support vectors.
Eigen::MatrixXd dualCoefficients(const svm_model* m)
{
    Eigen::MatrixXd c(m->nr_class - 1, m->l);
    for (int r = 0; r < m->nr_class - 1; ++r)
        for (int i = 0; i < m->l; ++i)
            c(r, i) = m->sv_coef[r][i];
    return c;
}

std::vector<svm_node> nodes(const Eigen::RowVectorXd& x)
{
    std::vector<svm_node> row;
    for (Eigen::Index j = 0; j < x.size(); ++j)
        if (x(j) != 0.0)
            row.push_back(svm_node{int(j + 1), x(j)});
    row.push_back(svm_node{-1, 0.0});
    return row;
}

} // namespace

class TestLibsvm : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyKernelSeparatesASeparableSet_data()
    {
        QTest::addColumn<QVariantMap>("params");
        QTest::newRow("linear") << QVariantMap{{"kernel", "linear"}, {"c", 100.0}};
        QTest::newRow("polynomial") << QVariantMap{{"kernel", "polynomial"}, {"coef0", 1.0}, {"c", 100.0}};
        QTest::newRow("rbf") << QVariantMap{{"kernel", "gaussian"}, {"c", 100.0}};
        // tanh(γ·u·v) with a small γ is nearly γ·u·v: a near-linear kernel, given a large C.
        QTest::newRow("sigmoid") << QVariantMap{
            {"kernel", "sigmoid"}, {"gamma_rule", "value"}, {"gamma", 0.01}, {"c", 1e4}};
    }
    void everyKernelSeparatesASeparableSet()
    {
        QFETCH(QVariantMap, params);
        const Set train = separable(300, 2, 11), test = separable(200, 2, 12);
        LibsvmTrainer t = trainer(false, params);
        TestRunContext ctx;
        fitIn(t, train.view(), ctx, kThreads);
        QCOMPARE(ctx.checkpoints.size(), 1u);
        QCOMPARE(ctx.checkpoints[0].epoch, 1.0);
        // Margin 0.2 on inputs in [−1, 1]²: each kernel machine, with these settings, separates it.
        QCOMPARE(accuracy(predictIn(t, train.x, kThreads), train.y), 1.0);
        QCOMPARE(accuracy(predictIn(t, test.x, kThreads), test.y), 1.0);
    }

    void sameModelAsTheCommandLineTool()
    {
        // The plugin hands LIBSVM the data svm-train reads from a file of the same values (SMO has
        // no randomness without probability estimates), so the models must be the same. Debian's
        // tool reads real options in single precision (-g 0.1 becomes 0.10000000149011612):
        // C = 3 and γ = 1/2 are exact either way.
        const QString tool = QStandardPaths::findExecutable("svm-train");
        if (tool.isEmpty())
            QSKIP("svm-train is not installed (Debian libsvm-tools)");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Set s = blobs(40, 3, 21);
        s.x.col(0).array() += 3; // no zero inputs: the tool's 1/max_index would equal our 1/d
        QVERIFY(writeLibsvm(s, dir.filePath("train.txt")));
        LibsvmTrainer t = trainer(false, {{"c", 3.0}, {"tolerance", 1e-6}});
        TestRunContext ctx;
        fitIn(t, s.view(), ctx, kThreads);
        const QString options = t.config().commandLineOptions(t.gammaUsed());
        QCOMPARE(ctx.records.value("command_line").toString(), "svm-train " + options);
        QStringList args = options.split(' ');
        args << "-q" << dir.filePath("train.txt") << dir.filePath("model");
        const QString failed = runTool(tool, args);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        svm_model* cli = svm_load_model(dir.filePath("model").toLocal8Bit().constData());
        QVERIFY(cli);
        const svm_model* ours = t.libraryModel();
        QVERIFY(ours);
        QCOMPARE(cli->nr_class, ours->nr_class);
        QCOMPARE(cli->l, ours->l);
        QCOMPARE(cli->param.gamma, ours->param.gamma);
        for (int c = 0; c < cli->nr_class; ++c) {
            QCOMPARE(cli->label[c], ours->label[c]);
            QCOMPARE(cli->nSV[c], ours->nSV[c]);
        }
        double worst = 0;
        for (int i = 0; i < cli->nr_class * (cli->nr_class - 1) / 2; ++i)
            worst = std::max(worst, std::abs(cli->rho[i] - ours->rho[i]));
        for (int j = 0; j < cli->nr_class - 1; ++j)
            for (int i = 0; i < cli->l; ++i)
                worst = std::max(worst, std::abs(cli->sv_coef[j][i] - ours->sv_coef[j][i]));
        // Support vectors: the file keeps 8 significant digits of their values.
        for (int i = 0; i < cli->l; ++i)
            for (int j = 0; ours->SV[i][j].index != -1; ++j) {
                QCOMPARE(cli->SV[i][j].index, ours->SV[i][j].index);
                QVERIFY(std::abs(cli->SV[i][j].value - ours->SV[i][j].value) <=
                        1e-7 * std::abs(ours->SV[i][j].value));
            }
        svm_free_and_destroy_model(&cli);
        qInfo("svm-train %s: %d support vectors; largest difference in ρ and coefficients %.3g",
              qPrintable(options), ours->l, worst);
        // The same code on the same numbers: equal up to the 17 significant digits the file keeps.
        QVERIFY(worst <= 1e-12);
    }

    void multiClassPredictionsAreTheLibrarys_data()
    {
        QTest::addColumn<bool>("probability");
        QTest::newRow("votes") << false;
        QTest::newRow("probabilities") << true;
    }
    void multiClassPredictionsAreTheLibrarys()
    {
        QFETCH(bool, probability);
        // Three classes present, four one-hot columns: class 3 never occurs in training.
        const Set s = blobs(40, 3, 31, 4);
        LibsvmTrainer t = trainer(false, {{"probability", probability}});
        TestRunContext ctx(/*seed=*/3);
        fitIn(t, s.view(), ctx, kThreads);
        const svm_model* m = t.libraryModel();
        QCOMPARE(m->nr_class, 3);
        QCOMPARE(svm_check_probability_model(m), probability ? 1 : 0);
        const Eigen::MatrixXd scores = predictIn(t, s.x, kThreads);
        QVERIFY(scores.allFinite());
        // Blobs 2√3 apart with σ = 0.3 are separated by the RBF machine.
        QCOMPARE(accuracy(scores, s.y), 1.0);
        // The arg-max of the scores is LIBSVM's own prediction on every probe, including the
        // ties of one-vs-one votes far from the data.
        Eigen::MatrixXd probe(300, 2);
        std::mt19937_64 gen(4);
        for (Eigen::Index i = 0; i < probe.size(); ++i)
            probe.data()[i] = 6 * uniformPm1(gen);
        const Eigen::MatrixXd ps = predictIn(t, probe, kThreads);
        std::vector<double> prob(3);
        for (Eigen::Index i = 0; i < probe.rows(); ++i) {
            const auto row = nodes(probe.row(i));
            const double label = probability ? svm_predict_probability(m, row.data(), prob.data())
                                             : svm_predict(m, row.data());
            Eigen::Index best = 0;
            ps.row(i).maxCoeff(&best);
            QCOMPARE(double(best), label);
            QVERIFY(ps(i, 3) < ps.row(i).head(3).minCoeff()); // the absent class is never chosen
            if (probability)
                QVERIFY(std::abs(ps.row(i).head(3).sum() - 1.0) < 1e-9);
        }
    }

    void probabilityModelIsSeededByTheRun()
    {
        // Platt scaling's internal cross-validation shuffles with rand(), seeded from the run: the
        // same seed gives the same probabilities bit for bit, another seed other folds and so other
        // probabilities (a trainer that ignored the run's seed would fail the second check).
        const Set s = blobs(30, 2, 41);
        auto scores = [&](std::uint64_t seed) {
            LibsvmTrainer t = trainer(false, {{"probability", true}});
            TestRunContext ctx(seed);
            fitIn(t, s.view(), ctx, kThreads);
            return predictIn(t, s.x, kThreads);
        };
        const Eigen::MatrixXd first = scores(9);
        QVERIFY(first == scores(9)); // bit for bit
        for (std::uint64_t seed : {10, 11})
            QVERIFY2(first != scores(seed),
                     qPrintable(QString("seed %1 gave seed 9's probabilities").arg(seed)));
    }

    void svrFitsNoiselessLinearDataWithinEpsilon()
    {
        // y = 2·x₁ − x₂ + 0.5 exactly, two outputs (the second negated): a linear ε-SVR with a
        // large C puts every training residual within the ε-tube. The residual of an affine fit
        // is affine, so on convex combinations of training points it stays within the tube too.
        std::mt19937_64 gen(51);
        Set s;
        s.task = Task::Regression;
        s.x.resize(200, 2);
        for (Eigen::Index i = 0; i < s.x.size(); ++i)
            s.x.data()[i] = uniformPm1(gen);
        s.y.resize(200, 2);
        s.y.col(0) = 2 * s.x.col(0) - s.x.col(1) + Eigen::VectorXd::Constant(200, 0.5);
        s.y.col(1) = -s.y.col(0);
        const double eps = 0.01;
        LibsvmTrainer t =
            trainer(true, {{"kernel", "linear"}, {"c", 1000.0}, {"svr_epsilon", eps}, {"tolerance", 1e-8}});
        TestRunContext ctx;
        fitIn(t, s.view(), ctx, kThreads);
        const double trainErr = (predictIn(t, s.x, kThreads) - s.y).cwiseAbs().maxCoeff();
        Eigen::MatrixXd xt(50, 2);
        for (Eigen::Index i = 0; i < xt.rows(); ++i) {
            const double a = 0.5 * (uniformPm1(gen) + 1);
            xt.row(i) = a * s.x.row(Eigen::Index(gen() % 200)) + (1 - a) * s.x.row(Eigen::Index(gen() % 200));
        }
        Eigen::MatrixXd yt(50, 2);
        yt.col(0) = 2 * xt.col(0) - xt.col(1) + Eigen::VectorXd::Constant(50, 0.5);
        yt.col(1) = -yt.col(0);
        const double testErr = (predictIn(t, xt, kThreads) - yt).cwiseAbs().maxCoeff();
        qInfo("largest |error|: training %.6g, between training points %.6g (ε = %g)", trainErr, testErr,
              eps);
        // SMO stops when the optimality conditions hold to 1e-8: a residual may leave the tube
        // by about that much; 1e-6 allows for it.
        QVERIFY(trainErr <= eps + 1e-6);
        QVERIFY(testErr <= eps + 1e-6);
        QCOMPARE(ctx.records.value("support_vectors").toArray().size(), 2);
    }

    void gammaFollowsItsRule()
    {
        const Set s = separable(100, 4, 61);
        const double mean = s.x.mean();
        const double var = (s.x.array() - mean).square().mean();
        const struct {
            QVariantMap params;
            double gamma;
        } cases[] = {
            {{}, 0.25},                                   // 1/d, svm-train's default
            {{{"gamma_rule", "scale"}}, 1.0 / (4 * var)}, // scikit-learn's "scale"
            {{{"gamma_rule", "value"}, {"gamma", 0.7}}, 0.7},
        };
        for (const auto& c : cases) {
            LibsvmTrainer t = trainer(false, c.params);
            TestRunContext ctx;
            fitIn(t, s.view(), ctx, kThreads);
            // The rule's value: "scale" sums 400 entries, in the grouping Eigen's packets give the
            // plugin's view of the data, which need not be this test's (a generic x86-64 build's
            // 2-wide packets group them otherwise): within 400 · 2⁻⁵³ ≈ 4e-14 relative.
            QVERIFY2(std::abs(t.gammaUsed() - c.gamma) <= 1e-13 * c.gamma,
                     qPrintable(QString("γ %1, expected %2").arg(t.gammaUsed(), 0, 'g', 17).arg(c.gamma, 0, 'g', 17)));
            // What is recorded, given to LIBSVM and shown as its command line is that γ itself.
            QCOMPARE(ctx.records.value("gamma").toDouble(), t.gammaUsed());
            QCOMPARE(t.libraryModel()->param.gamma, t.gammaUsed());
            QVERIFY(
                ctx.records.value("command_line")
                    .toString()
                    .contains(" -g " + QString::number(t.gammaUsed(), 'g', QLocale::FloatingPointShortest) + " "));
        }
    }

    void factsAndMemory()
    {
        const Set s = separable(400, 2, 71);
        LibsvmTrainer t = trainer(false, {{"kernel", "linear"}, {"c", 100.0}});
        TestRunContext ctx;
        fitIn(t, s.view(), ctx, kThreads);
        QCOMPARE(ctx.records.value("kernel").toString(), QString("linear"));
        // 16-byte nodes: 2 inputs + terminator per row, and a pointer per row.
        QCOMPARE(ctx.records.value("problem_bytes").toDouble(), double(400 * (3 * 16 + 8)));
        // Only the support vectors are kept: a few rows near the margin, 3 nodes each.
        const int sv = ctx.records.value("support_vectors").toArray().at(0).toInt();
        QCOMPARE(sv, t.libraryModel()->l);
        QVERIFY(sv > 0 && sv < 100);
        QCOMPARE(ctx.records.value("support_vector_bytes").toDouble(), double(sv * 3 * 16));
        const QJsonObject cost = t.predictCost(ProblemShape{400, 2, 2, Task::Classification});
        const QString failure = checkLibraryFacts(ctx, cost, LIBSVM_VERSION, libsvm_version);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        // Fashion-MNIST's shape: the cache is capped at cache_mib.
        const QJsonObject big = t.predictCost(ProblemShape{60000, 784, 10, Task::Classification});
        QCOMPARE(big.value("cache_bytes").toDouble(), 100.0 * 1048576);
        const QString log = ctx.logs.join('\n');
        QVERIFY2(log.contains("1 SMO problem(s) solved") && log.contains("Total nSV"), qPrintable(log));
        QVERIFY2(!log.contains("nu = ") && !log.contains("obj = "), qPrintable(log)); // summed up
    }

    void libraryNeverWritesToStdout()
    {
        const Set s = blobs(30, 3, 81);
        LibsvmTrainer t = trainer(false, {});
        TestRunContext ctx;
        QCOMPARE(stdoutDuring([&] { fitIn(t, s.view(), ctx, kThreads); }), QByteArray());
        QVERIFY2(ctx.logs.join('\n').contains("3 SMO problem(s) solved"), qPrintable(ctx.logs.join('\n')));
    }

    void stopAbandonsTheCallWhichThenUnwinds()
    {
        // An RBF machine with γ = 20 on 20 inputs sees every point as isolated; with a huge C
        // and an unreachable tolerance SMO runs for minutes when left alone.
        QVERIFY(waitUntil([] { return wrap::DetachedCall::liveThreads() == 0; }));
        const Set s = separable(20000, 20, 91);
        LibsvmTrainer t =
            trainer(false, {{"gamma_rule", "value"}, {"gamma", 20.0}, {"c", 1e6}, {"tolerance", 1e-15}});
        TestRunContext ctx;
        int live = -1;
        // Half a second of CPU time: SMO is running, however busy the machine.
        const StoppedFit stopped =
            fitThenStop(t, s.view(), ctx, kThreads, 500, [&] { live = wrap::DetachedCall::liveThreads(); });
        QVERIFY2(!stopped.endedBeforeStop, "fit() ended before Stop");
        QCOMPARE(live, 1);
        // fit() polls Stop every 10 ms while the library's thread works, and returns at the poll
        // after Stop: its thread's work after Stop is that poll, its sleep at most 10 ms.
        const WorkAfterStop& after = stopped.after;
        QVERIFY2(after.withinPromise(), qPrintable("fit(): " + after.describe()));
        QVERIFY(ctx.checkpoints.empty());
        QVERIFY(!t.isTrained());
        QVERIFY(predictIn(t, s.x.topRows(5), kThreads).isZero());
        // The abandoned call unwinds at its next progress dot, printed every 1000 SMO iterations;
        // here each computes up to two uncached kernel rows of 20000 entries, so that takes
        // 2.5–5 s on this machine. The limit only guards against a call that never ends.
        const auto t0 = std::chrono::steady_clock::now();
        QVERIFY2(waitUntil([] { return wrap::DetachedCall::liveThreads() == 0; }, std::chrono::minutes(5)),
                 "the abandoned svm_train() is still running");
        qInfo("fit(): %s; the abandoned svm_train() ended %.1f ms after that", qPrintable(after.describe()),
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }

    void badInputFailsClearly()
    {
        LibsvmTrainer svc = trainer(false, {});
        LibsvmTrainer svr = trainer(true, {});

        Set nan = separable(50, 2, 101);
        nan.x(4, 0) = std::numeric_limits<double>::quiet_NaN();
        QString err = fitError(svc, nan.view(), kThreads);
        QVERIFY2(err.contains("training input [row 4, column 0] is nan"), qPrintable(err));

        Set inf = separable(50, 2, 102);
        inf.task = Task::Regression;
        inf.y(3, 0) = -std::numeric_limits<double>::infinity();
        err = fitError(svr, inf.view(), kThreads);
        QVERIFY2(err.contains("training target [row 3, column 0] is -inf"), qPrintable(err));

        Set oneClass = separable(30, 2, 103);
        oneClass.y.col(0).setOnes();
        oneClass.y.col(1).setZero();
        err = fitError(svc, oneClass.view(), kThreads);
        QVERIFY2(err.contains("one class") && err.contains("30"), qPrintable(err));

        err = fitError(svc, inf.view(), kThreads);
        QVERIFY2(err.contains("libsvm.classify got a regression set"), qPrintable(err));

        // C-SVC handles any number of classes (one-vs-one): no multi-class set to refuse.
        LibsvmTrainer t = trainer(false, {});
        TestRunContext ctx;
        fitIn(t, blobs(10, 4, 104).view(), ctx, kThreads);
        try {
            t.predict(Eigen::MatrixXd::Zero(3, 7));
            QFAIL("predict() accepted 7 inputs for a 2-input model");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("7 inputs, the model has 2"), e.what());
        }
    }

    void sparseAndDenseGiveTheSameModel_data()
    {
        QTest::addColumn<bool>("regression");
        QTest::addColumn<QVariantMap>("params");
        QTest::newRow("linear") << false << QVariantMap{{"kernel", "linear"}};
        QTest::newRow("polynomial") << false << QVariantMap{{"kernel", "polynomial"}, {"coef0", 1.0}};
        QTest::newRow("rbf") << false << QVariantMap{{"kernel", "gaussian"}, {"c", 10.0}};
        QTest::newRow("sigmoid") << false << QVariantMap{{"kernel", "sigmoid"}};
        // The probability model's cross-validation draws from rand(), seeded by the run.
        QTest::newRow("rbf probability") << false << QVariantMap{{"kernel", "gaussian"}, {"probability", true}};
        QTest::newRow("svr rbf") << true << QVariantMap{{"kernel", "gaussian"}, {"svr_epsilon", 0.01}};
    }
    void sparseAndDenseGiveTheSameModel()
    {
        // 300 × 50, about 20 % non-zero, three classes (or two regression outputs) from planted
        // weights; the same data as a dense matrix and as a tb::SparseMatrix. Why the models must
        // agree: the plugin builds the very same svm_node rows from either form (one node rule,
        // tb::wrap::SparseRows: same indices, same doubles, same order), γ = 1/d either way, and
        // svm_train() is a deterministic function of those rows, the labels, the parameters and —
        // for probability estimates — the rand() stream, which the run's seed fixes; LIBSVM uses
        // no BLAS. So support vectors, coefficients and predictions are expected bit for bit
        // equal; 1e-12 (relative) is the bound asserted, and the test prints the difference reached.
        QFETCH(bool, regression);
        QFETCH(QVariantMap, params);
        const DenseSparsePair s = denseSparsePair(regression, 191);
        LibsvmTrainer a = trainer(regression, params), b = trainer(regression, params);
        TestRunContext ca(7), cb(7);
        const FormsCompared c = compareForms(a, b, s, ca, cb, kThreads);
        QVERIFY2(c.failure.isEmpty(), qPrintable(c.failure));
        QCOMPARE(b.gammaUsed(), a.gammaUsed());
        QCOMPARE(cb.records.value("support_vectors"), ca.records.value("support_vectors"));
        double coefficients = 0;
        for (std::size_t o = 0; a.libraryModel(o); ++o)
            coefficients = std::max(coefficients, relativeDifference(dualCoefficients(a.libraryModel(o)),
                                                                     dualCoefficients(b.libraryModel(o))));
        qInfo("dense vs sparse: largest relative difference of dual coefficients %.3g, of predictions %.3g",
              coefficients, c.predictions);
        QVERIFY2(coefficients <= 1e-12, qPrintable(QString::number(coefficients)));
    }

    void scaleGammaFromTheNonZeros()
    {
        // gamma_rule "scale" on sparse inputs: the variance over every entry, zeros included,
        // from the stored entries alone — the dense formula's value up to summation order.
        const Set dense = plantedDense(300, 50, 0.2, 3, 193);
        const SparseLabelledSet sparse = toSparse(dense);
        LibsvmConfig config = LibsvmConfig::fromParams(
            false, *LibsvmConfig::schema(false).normalise({{"gamma_rule", "scale"}}, nullptr));
        const double g = config.effectiveGamma(dense.x), gs = config.effectiveGamma(sparse.x);
        qInfo("scale γ: dense %.17g, sparse %.17g", g, gs);
        // Sums of 15000 terms in two orders: rounding may differ by about 15000 · 2⁻⁵³ ≈ 2e-12
        // relative at worst (1e-14 is what this data gives).
        QVERIFY(std::abs(gs - g) <= 1e-12 * g);
        // The dense rule against the formula written here: the same sums, grouped as Eigen's packets
        // group them for each expression (other groupings in a generic x86-64 build) — the same bound.
        QVERIFY(std::abs(g - 1.0 / (50 * (dense.x.array() - dense.x.mean()).square().mean())) <= 1e-12 * g);
        // All zeros: no variance, 1/d as the dense rule.
        QCOMPARE(config.effectiveGamma(SparseMatrix(10, 40)), 1.0 / 40);
    }

    void trainsOnAProblemFarTooWideToDensify()
    {
        // 2000 × 1,000,000 with 20 non-zeros a row (40,000 in all): a dense copy would take 16 GB,
        // the plugin's rows 0.7 MB. The linear kernel on the sparse rows themselves: every kernel
        // entry is a merge of two 20-node rows. Labels are the sign of planted weights on the 500
        // "common" columns; every row has 10 of those and 10 "rare" ones of the other 999,500.
        const WideSparseProblem p = wideSparseProblem();
        const Eigen::Index n = p.rows, d = p.columns;
        LibsvmTrainer t = trainer(false, {{"kernel", "linear"}});
        const QJsonObject cost = t.predictCost(ProblemShape{n, d, 2, Task::Classification, p.train.x.nonZeros()});
        const double nodes = double(n * 20 + n) * 16 + double(n) * 8; // + a terminator a row
        QCOMPARE(cost.value("problem_bytes_upper_bound").toDouble(), nodes);
        QCOMPARE(cost.value("kernel_row_flops").toDouble(), 3.0 * double(n * 20));
        // The kernel cache (2000² floats at most), SMO's arrays: tens of MB, not the dense 16 GB.
        const QString failure = checkTrainsWideSparse(t, p, nodes, "linear C-SVC", kThreads);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
    }

    void pluginDeclaresSparseInput()
    {
        const QString failure = checkDeclaresSparseInput(
            QDir(TB_PLUGIN_BUILD_DIR).filePath("trainbench-libsvm.so"), {"libsvm.classify", "libsvm.regress"},
            [] { svm_set_print_string_function(&wrap::DetachedCall::print); });
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
    }

    void badSparseInputFailsClearly()
    {
        const SparseLabelledSet ok = toSparse(plantedDense(60, 8, 0.5, 2, 194));
        LibsvmTrainer t = trainer(false, {});
        // Columns out of order among the refusals: LIBSVM's kernels merge rows by index and would
        // miscount silently.
        const QString failure = checkRefusesBadSparseInput(t, ok, kThreads);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
    }
};

QTEST_GUILESS_MAIN(TestLibsvm)
#include "tst_libsvm.moc"
