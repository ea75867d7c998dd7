// Known-answer tests of the LIBLINEAR plugin (LiblinearTrainer, linked from the plugin's static
// core): every classification solver separates a separable set; L2-regularised logistic
// regression (-s 0) is the minimiser of its objective, found independently by LBFGS++; the
// model is the one liblinear-train builds from the same data; the SVR primal with ε = 0 is ridge
// regression; Stop abandons the library call, which then unwinds; bad input fails clearly. Sparse
// inputs: the same data sparse gives the same model and predictions as dense; a problem far too
// wide to densify (2000 × 1,000,000) trains; the plugin declares both algorithms sparse-capable.
#include <trainbench/testing/TestRunContext.h>

#include <CpuTime.h>
#include <FitIn.h>
#include <LabelledSets.h>
#include <LibraryTrainerChecks.h>
#include <OneHot.h>
#include <SparseTrainerChecks.h>

#include <wrapping/DetachedCall.h>
#include <liblinear/LiblinearConfig.h>
#include <liblinear/LiblinearTrainer.h>

#include <linear.h>

#include <Eigen/Dense>
#include <LBFGS.h>
#include <QDir>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <chrono>
#include <cmath>
#include <random>

using namespace tb;
using tb::liblinear::LiblinearConfig;
using tb::liblinear::LiblinearTrainer;
using tb::testing::TestRunContext;
using namespace tb::testsupport;
using Set = LabelledSet;

namespace {

// The host's arena for every fit() here: two threads.
constexpr int kThreads = 2;

// Overlapping classes: P(class 1) = σ(x·β + 0.3), x ~ N(0, I₃). Not separable, so the logistic
// loss has a finite minimiser with a non-trivial gradient at every sample.
Set logistic(Eigen::Index n, std::uint64_t seed)
{
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> nd(0.0, 1.0);
    const Eigen::Vector3d beta(1.5, -2.0, 0.5);
    Set s;
    s.x.resize(n, 3);
    std::vector<int> labels;
    for (Eigen::Index i = 0; i < n; ++i) {
        for (int j = 0; j < 3; ++j)
            s.x(i, j) = nd(gen);
        const double p = 1.0 / (1.0 + std::exp(-(s.x.row(i).dot(beta) + 0.3)));
        labels.push_back(double(gen() >> 11) * 0x1.0p-53 < p ? 1 : 0);
    }
    s.y = oneHot(labels, 2);
    return s;
}

// y = x·B + c + noise, 3 inputs, 2 outputs.
Set linearTargets(Eigen::Index n, std::uint64_t seed)
{
    std::mt19937_64 gen(seed);
    Eigen::Matrix<double, 3, 2> b;
    b << 1.0, -2.0, 0.5, 1.5, -1.0, 0.25;
    Set s;
    s.task = Task::Regression;
    s.x.resize(n, 3);
    for (Eigen::Index i = 0; i < n; ++i)
        for (int j = 0; j < 3; ++j)
            s.x(i, j) = uniformPm1(gen);
    s.y = s.x * b;
    s.y.rowwise() += Eigen::RowVector2d(0.3, -0.7);
    for (Eigen::Index i = 0; i < s.y.size(); ++i)
        s.y.data()[i] += 0.1 * uniformPm1(gen);
    return s;
}

constexpr auto trainer = &configuredTrainer<LiblinearTrainer, LiblinearConfig>;

// f(w) = (1/n)·Σ log(1 + exp(−yᵢ·wᵀx̃ᵢ)) + λ/2·‖w‖², x̃ = [x, 1]: LIBLINEAR's -s 0 objective
// ½‖w‖² + C·Σ log(1 + exp(−yᵢ·wᵀx̃ᵢ)) divided by n·C, so λ = 1/(n·C) and the minimiser is the same.
// Written here from the definition, independently of the library.
struct MeanLogistic {
    Eigen::MatrixXd a; // n × (d + 1)
    Eigen::VectorXd y; // ±1
    double lambda;

    double operator()(const Eigen::VectorXd& w, Eigen::VectorXd& grad) const
    {
        const Eigen::VectorXd m = y.cwiseProduct(a * w); // margins
        double loss = 0;
        Eigen::VectorXd coef(m.size());
        for (Eigen::Index i = 0; i < m.size(); ++i) {
            loss += m(i) > 0 ? std::log1p(std::exp(-m(i))) : -m(i) + std::log1p(std::exp(m(i)));
            coef(i) = -y(i) / (1.0 + std::exp(m(i))); // d loss / d margin · y
        }
        const double n = double(m.size());
        grad = a.transpose() * coef / n + lambda * w;
        return loss / n + 0.5 * lambda * w.squaredNorm();
    }
};

} // namespace

class TestLiblinear : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyClassifierSeparatesASeparableSet_data()
    {
        QTest::addColumn<QString>("solver");
        for (const auto& s : LiblinearConfig::solvers())
            if (!s.regression)
                QTest::newRow(s.name) << QString::fromLatin1(s.name);
    }
    void everyClassifierSeparatesASeparableSet()
    {
        QFETCH(QString, solver);
        const Set train = separable(300, 2, 11), test = separable(200, 2, 12);
        LiblinearTrainer t = trainer(false, {{"solver", solver}, {"c", 100.0}});
        TestRunContext ctx;
        fitIn(t, train.view(), ctx, kThreads);
        QCOMPARE(ctx.checkpoints.size(), 1u);
        QCOMPARE(ctx.checkpoints[0].epoch, 1.0);
        // Margin 0.2 on inputs in [−1, 1]²: a linear classifier with C = 100 separates it.
        QCOMPARE(accuracy(t.predict(train.x), train.y), 1.0);
        QCOMPARE(accuracy(t.predict(test.x), test.y), 1.0);
    }

    void l2LogisticRegressionIsTheLbfgsMinimiser()
    {
        // LIBLINEAR -s 0 against LBFGS++ on the same objective, written out above. Compared in the
        // weights: the objective is λ-strongly convex, so its minimiser is unique and agreement of
        // the weights is the stronger claim (objective values agree to second order in the weight
        // error, so they would hide a 1e-4 weight difference). 1e-4 is the figure; both
        // solvers are run to far tighter tolerances, and the test prints the difference reached.
        const Set s = logistic(200, 5);
        const double c = 0.5;
        LiblinearTrainer t =
            trainer(false, {{"solver", "l2r_lr_primal"}, {"c", c}, {"tolerance", 1e-10}, {"bias", 1.0}});
        TestRunContext ctx;
        fitIn(t, s.view(), ctx, kThreads);
        const Eigen::MatrixXd w = t.decisionFunctions(); // 4 × 2: column 1 scores class 1
        QCOMPARE(w.rows(), 4);
        QVERIFY(w.col(1).isApprox(-w.col(0))); // a binary model: one function, ±

        MeanLogistic f;
        const Eigen::Index n = s.x.rows();
        f.a.resize(n, 4);
        f.a << s.x, Eigen::VectorXd::Ones(n);
        f.y = 2.0 * s.y.col(1) - Eigen::VectorXd::Ones(n);
        f.lambda = 1.0 / (double(n) * c);
        LBFGSpp::LBFGSParam<double> param;
        param.epsilon = 1e-12;
        param.epsilon_rel = 1e-12;
        param.max_iterations = 10000;
        LBFGSpp::LBFGSSolver<double> solver(param);
        Eigen::VectorXd v = Eigen::VectorXd::Zero(4);
        double fx = 0;
        try {
            solver.minimize(f, v, fx);
        } catch (const std::exception& e) {
            // The line search gives up once steps are below rounding; the gradient check below
            // decides whether that is at the minimiser.
            qInfo("LBFGS++: %s", e.what());
        }
        Eigen::VectorXd g;
        fx = f(v, g);
        QVERIFY2(g.norm() < 1e-9, qPrintable(QString("LBFGS++ stopped at |grad| %1").arg(g.norm())));

        Eigen::VectorXd gLib;
        const double fLib = f(w.col(1), gLib);
        const double diff = (w.col(1) - v).cwiseAbs().maxCoeff();
        qInfo("weights LIBLINEAR [%g %g %g %g], LBFGS++ [%g %g %g %g]; max |difference| %.2e; objective "
              "%.15g vs %.15g",
              w(0, 1), w(1, 1), w(2, 1), w(3, 1), v(0), v(1), v(2), v(3), diff, fLib, fx);
        QVERIFY2(diff <= 1e-4, qPrintable(QString("weights differ by %1").arg(diff)));
        QVERIFY(fLib - fx <= 1e-10);
    }

    void sameModelAsTheCommandLineTool()
    {
        // The plugin hands LIBLINEAR the data liblinear-train reads from a file of the same
        // values, so the trust-region solver (no random order) must build the same model.
        // Debian's tool reads real options in single precision: C = 2 is exact either way.
        const QString tool = QStandardPaths::findExecutable("liblinear-train");
        if (tool.isEmpty())
            QSKIP("liblinear-train is not installed (Debian liblinear-tools)");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const Set s = blobs(60, 3, 21);
        QVERIFY(writeLibsvm(s, dir.filePath("train.txt")));
        LiblinearTrainer t = trainer(false, {{"solver", "l2r_lr_primal"}, {"c", 2.0}, {"tolerance", 1e-6}});
        TestRunContext ctx;
        fitIn(t, s.view(), ctx, kThreads);
        QStringList args = t.config().commandLineOptions().split(' ');
        args << "-q" << dir.filePath("train.txt") << dir.filePath("model");
        QCOMPARE(ctx.records.value("command_line").toString(),
                 "liblinear-train " + t.config().commandLineOptions());
        const QString failed = runTool(tool, args);
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        model* cli = load_model(dir.filePath("model").toLocal8Bit().constData());
        QVERIFY(cli);
        const model* ours = t.libraryModel();
        QVERIFY(ours);
        QCOMPARE(cli->nr_class, ours->nr_class);
        QCOMPARE(cli->nr_feature, ours->nr_feature);
        QCOMPARE(cli->bias, ours->bias);
        for (int c = 0; c < cli->nr_class; ++c)
            QCOMPARE(cli->label[c], ours->label[c]);
        double worst = 0, scale = 0;
        const int size = (ours->nr_feature + 1) * ours->nr_class;
        for (int i = 0; i < size; ++i) {
            worst = std::max(worst, std::abs(cli->w[i] - ours->w[i]));
            scale = std::max(scale, std::abs(cli->w[i]));
        }
        free_and_destroy_model(&cli);
        qInfo("%s: largest weight difference %.3g (largest weight %.3g)", qPrintable(args.join(' ')), worst,
              scale);
        // Same code, same numbers; only BLAS's summation order could differ (it may depend on
        // the arrays' alignment), hence a relative 1e-12 rather than equality.
        QVERIFY(worst <= 1e-12 * scale);
    }

    void multiClassPredictionsAreTheLibrarys_data()
    {
        QTest::addColumn<QString>("solver");
        QTest::newRow("one-vs-rest") << "l2r_l2loss_svc_dual";
        QTest::newRow("crammer-singer") << "mcsvm_cs";
        QTest::newRow("logistic") << "l2r_lr_primal";
    }
    void multiClassPredictionsAreTheLibrarys()
    {
        QFETCH(QString, solver);
        // Three classes present, four one-hot columns: class 3 never occurs in training.
        const Set s = blobs(50, 3, 31, 4);
        LiblinearTrainer t = trainer(false, {{"solver", solver}});
        TestRunContext ctx;
        fitIn(t, s.view(), ctx, kThreads);
        const model* m = t.libraryModel();
        QCOMPARE(m->nr_class, 3);
        QCOMPARE(ctx.records.value("classes_in_model").toInt(), 3);
        // Blobs 2√3 apart with σ = 0.3: linearly separable for any sensible solver.
        const Eigen::MatrixXd scores = t.predict(s.x);
        QVERIFY(scores.allFinite());
        QCOMPARE(accuracy(scores, s.y), 1.0);
        // The arg-max of the scores is LIBLINEAR's own predict() for every row, also on inputs
        // far from the training data (ties included: all-zero rows).
        Eigen::MatrixXd probe(200, 2);
        std::mt19937_64 gen(3);
        for (Eigen::Index i = 0; i < probe.size(); ++i)
            probe.data()[i] = 5 * uniformPm1(gen);
        probe.row(0).setZero();
        const Eigen::MatrixXd ps = t.predict(probe);
        std::vector<feature_node> row(4);
        for (Eigen::Index i = 0; i < probe.rows(); ++i) {
            int k = 0;
            for (int j = 0; j < 2; ++j)
                if (probe(i, j) != 0.0)
                    row[std::size_t(k++)] = feature_node{j + 1, probe(i, j)};
            row[std::size_t(k++)] = feature_node{3, 1.0}; // the bias feature (bias 1)
            row[std::size_t(k)] = feature_node{-1, 0.0};
            Eigen::Index best = 0;
            ps.row(i).maxCoeff(&best);
            QCOMPARE(int(best), int(::predict(m, row.data())));
            QVERIFY(ps(i, 3) < ps.row(i).head(3).minCoeff()); // the absent class is never chosen
        }
    }

    void svrWithoutEpsilonIsRidgeRegression()
    {
        // L2-loss SVR with ε = 0 minimises ½‖w‖² + C·‖X̃w − y‖², i.e. (X̃ᵀX̃ + I/(2C))·w = X̃ᵀy with the
        // bias feature's weight regularised too. One model per output; both must be the closed form.
        const Set s = linearTargets(150, 41);
        const double c = 2.0;
        LiblinearTrainer t = trainer(
            true,
            {{"solver", "l2r_l2loss_svr_primal"}, {"svr_epsilon", 0.0}, {"c", c}, {"tolerance", 1e-12}});
        TestRunContext ctx;
        fitIn(t, s.view(), ctx, kThreads);
        Eigen::MatrixXd a(s.x.rows(), 4);
        a << s.x, Eigen::VectorXd::Ones(s.x.rows());
        Eigen::MatrixXd gram = a.transpose() * a;
        gram.diagonal().array() += 1.0 / (2 * c);
        const Eigen::MatrixXd ridge = gram.llt().solve(a.transpose() * s.y);
        const Eigen::MatrixXd w = t.decisionFunctions();
        const double diff = (w - ridge).cwiseAbs().maxCoeff();
        qInfo("SVR primal vs closed-form ridge: max |difference| %.2e", diff);
        // The primal stops at |∇f| ≤ 1e-12·|∇f(0)|; the system is well conditioned (cond ≈ 3).
        QVERIFY(diff <= 1e-8);
        const Eigen::MatrixXd pred = t.predict(s.x);
        QVERIFY((pred - a * ridge).cwiseAbs().maxCoeff() <= 1e-8);
    }

    void sameSeedSameModel()
    {
        // The dual solvers visit coordinates in rand() order, seeded from the run's seed: the same
        // seed gives the same model bit for bit, another seed another visiting order and so another
        // model (a trainer that ignored the run's seed would fail the second check).
        const Set s = logistic(300, 8);
        auto model = [&](std::uint64_t seed) {
            LiblinearTrainer t = trainer(false, {{"solver", "l2r_l1loss_svc_dual"}});
            TestRunContext ctx(seed);
            fitIn(t, s.view(), ctx, kThreads);
            return t.decisionFunctions();
        };
        const Eigen::MatrixXd first = model(7);
        QVERIFY(first == model(7)); // bit for bit
        for (std::uint64_t seed : {8, 9})
            QVERIFY2(first != model(seed), qPrintable(QString("seed %1 gave seed 7's model").arg(seed)));
    }

    void factsAndLog()
    {
        const Set s = separable(200, 2, 51);
        LiblinearTrainer t = trainer(false, {});
        TestRunContext ctx;
        fitIn(t, s.view(), ctx, kThreads);
        QCOMPARE(ctx.records.value("solver").toString(), QString("l2r_l2loss_svc_dual (-s 1)"));
        QCOMPARE(ctx.records.value("command_line").toString(),
                 QString("liblinear-train -s 1 -c 1 -e 0.1 -B 1"));
        QCOMPARE(ctx.records.value("tolerance").toDouble(), 0.1); // 0 = liblinear-train's default for -s 1
        QCOMPARE(ctx.records.value("nonzeros").toDouble(), double(s.x.size()));
        // 16-byte nodes: 2 inputs + bias + terminator per row, and a pointer per row.
        QCOMPARE(ctx.records.value("problem_bytes").toDouble(), double(200 * (4 * 16 + 8)));
        const QJsonObject cost = t.predictCost(ProblemShape{200, 2, 2, Task::Classification});
        const QString failure = checkLibraryFacts(ctx, cost, LIBLINEAR_VERSION, liblinear_version);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        const QString log = ctx.logs.join('\n');
        QVERIFY2(log.contains("optimization finished"), qPrintable(log));
        QVERIFY2(!log.contains("...."), qPrintable(log)); // progress dots are not logged
    }

    void libraryNeverWritesToStdout()
    {
        const Set s = separable(300, 2, 61);
        LiblinearTrainer t = trainer(false, {{"solver", "l2r_lr_primal"}});
        TestRunContext ctx;
        QCOMPARE(stdoutDuring([&] { fitIn(t, s.view(), ctx, kThreads); }), QByteArray());
        // TRON's iteration lines are counted, not kept.
        QVERIFY2(ctx.logs.join('\n').contains("Newton iterations"), qPrintable(ctx.logs.join('\n')));
    }

    void stopAbandonsTheCallWhichThenUnwinds_data()
    {
        QTest::addColumn<bool>("sparse");
        QTest::newRow("dense") << false;
        QTest::newRow("sparse") << true; // the same data as a tb::SparseMatrix: the same library call
    }
    void stopAbandonsTheCallWhichThenUnwinds()
    {
        // Crammer–Singer with a huge C, a tolerance it cannot reach and a large bias feature runs
        // to its 100000-iteration cap: about two minutes on 20000 × 20 when left alone.
        QFETCH(bool, sparse);
        QVERIFY(waitUntil([] { return wrap::DetachedCall::liveThreads() == 0; }));
        const Set s = separable(20000, 20, 71);
        const SparseLabelledSet sparseSet = toSparse(s);
        LiblinearTrainer t =
            trainer(false, {{"solver", "mcsvm_cs"}, {"c", 1e6}, {"tolerance", 1e-15}, {"bias", 1000.0}});
        TestRunContext ctx;
        int live = -1;
        // Half a second of CPU time: the library call is running, however busy the machine.
        const StoppedFit stopped = fitThenStop(t, sparse ? sparseSet.view() : s.view(), ctx, kThreads, 500,
                                               [&] { live = wrap::DetachedCall::liveThreads(); });
        QVERIFY2(!stopped.endedBeforeStop, "fit() ended before Stop");
        QCOMPARE(live, 1);
        // fit() waits for the library's thread polling Stop every 10 ms, and returns at the
        // poll after Stop: its thread's work after Stop is that poll, its sleep at most 10 ms.
        const WorkAfterStop& after = stopped.after;
        QVERIFY2(after.withinPromise(), qPrintable("fit(): " + after.describe()));
        QVERIFY(ctx.checkpoints.empty());
        QVERIFY(!t.isTrained());
        QVERIFY(t.predict(s.x.topRows(5)).isZero()); // no model: the library's starting point w = 0
        QVERIFY(t.predictSparse(sparseSet.x.topRows(5)).isZero());
        QVERIFY(ctx.logs.join('\n').contains("stopped"));
        // The abandoned call unwinds at its next progress dot (every 10 iterations, about 15 ms
        // here). The limit only guards against a call that never ends.
        const auto t0 = std::chrono::steady_clock::now();
        QVERIFY2(waitUntil([] { return wrap::DetachedCall::liveThreads() == 0; }),
                 "the abandoned train() is still running");
        qInfo("fit(): %s; the abandoned train() ended %.1f ms after that", qPrintable(after.describe()),
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }

    void stopLeavesAnL1SolverToFinish()
    {
        // The L1 solvers copy the problem column-wise inside train() with raw new[]; unwinding
        // would lose that copy, so an abandoned L1 call runs to its end (its 1000-pass cap here:
        // about 2 s on 40000 × 20) and frees everything then. Stop still returns at once.
        QVERIFY(waitUntil([] { return wrap::DetachedCall::liveThreads() == 0; }));
        const Set s = separable(40000, 20, 72);
        LiblinearTrainer t = trainer(
            false, {{"solver", "l1r_l2loss_svc"}, {"c", 1e10}, {"tolerance", 1e-15}, {"bias", 1000.0}});
        TestRunContext ctx;
        const StoppedFit stopped = fitThenStop(t, s.view(), ctx, kThreads, 300);
        QVERIFY2(!stopped.endedBeforeStop, "fit() ended before Stop");
        const WorkAfterStop& after = stopped.after;
        QVERIFY2(after.withinPromise(), qPrintable("fit(): " + after.describe()));
        QVERIFY(ctx.checkpoints.empty());
        QVERIFY2(ctx.logs.join('\n').contains("left to finish"), qPrintable(ctx.logs.join('\n')));
        const int live = wrap::DetachedCall::liveThreads();
        const auto t0 = std::chrono::steady_clock::now();
        QVERIFY2(waitUntil([] { return wrap::DetachedCall::liveThreads() == 0; }, std::chrono::minutes(5)),
                 "the abandoned L1 train() never ended");
        qInfo("fit(): %s; %d call still running then, ended %.0f ms later", qPrintable(after.describe()),
              live, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }

    void badInputFailsClearly()
    {
        LiblinearTrainer classify = trainer(false, {});
        LiblinearTrainer regress = trainer(true, {});

        Set nan = separable(50, 2, 81);
        nan.x(5, 1) = std::numeric_limits<double>::quiet_NaN();
        QString err = fitError(classify, nan.view(), kThreads);
        QVERIFY2(err.contains("training input [row 5, column 1] is nan"), qPrintable(err));

        Set inf = linearTargets(50, 82);
        inf.y(7, 1) = std::numeric_limits<double>::infinity();
        err = fitError(regress, inf.view(), kThreads);
        QVERIFY2(err.contains("training target [row 7, column 1] is inf"), qPrintable(err));

        Set oneClass = separable(50, 2, 83);
        oneClass.y.col(0).setZero();
        oneClass.y.col(1).setOnes();
        err = fitError(classify, oneClass.view(), kThreads);
        QVERIFY2(err.contains("one class") && err.contains("50"), qPrintable(err));

        err = fitError(regress, separable(50, 2, 84).view(), kThreads);
        QVERIFY2(err.contains("liblinear.regress got a classification set"), qPrintable(err));

        Set empty;
        empty.x.resize(0, 2);
        empty.y.resize(0, 2);
        err = fitError(classify, empty.view(), kThreads);
        QVERIFY2(err.contains("empty"), qPrintable(err));

        // Every classification solver handles any number of classes (one-vs-rest or
        // Crammer–Singer): there is no binary-only solver to refuse a multi-class set.
        const Set ok = separable(50, 2, 85);
        LiblinearTrainer t = trainer(false, {});
        TestRunContext ctx;
        fitIn(t, ok.view(), ctx, kThreads);
        try {
            t.predict(Eigen::MatrixXd::Zero(3, 5));
            QFAIL("predict() accepted 5 inputs for a 2-input model");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("5 inputs, the model has 2"), e.what());
        }
    }

    void sparseAndDenseGiveTheSameModel_data()
    {
        QTest::addColumn<bool>("regression");
        QTest::addColumn<QString>("solver");
        for (const auto& s : LiblinearConfig::solvers())
            QTest::newRow(s.name) << s.regression << QString::fromLatin1(s.name);
    }
    void sparseAndDenseGiveTheSameModel()
    {
        // 300 × 50, about 20 % non-zero, three classes (or two regression outputs) from planted
        // weights; the same data as a dense matrix and as a tb::SparseMatrix. Why the models must
        // agree: the plugin builds the very same feature_node rows from either form (one node
        // rule, tb::wrap::SparseRows: same indices, same doubles, same order, the same bias node),
        // and LIBLINEAR's train() is a deterministic function of those rows, the labels, the
        // parameters and — for the randomised solvers — the rand() stream, which the run's seed
        // fixes. So the weights are expected bit for bit equal; the 1e-12 (relative) allows only
        // for BLAS, whose summation may follow the alignment of the arrays train() allocates (as
        // in sameModelAsTheCommandLineTool). The test prints the difference reached.
        QFETCH(bool, regression);
        QFETCH(QString, solver);
        const DenseSparsePair s = denseSparsePair(regression, 91);
        QVERIFY(s.sparse.x.nonZeros() > 2400 && s.sparse.x.nonZeros() < 3600); // ≈ 20 % of 15000
        const QVariantMap params{{"solver", solver}};
        LiblinearTrainer a = trainer(regression, params), b = trainer(regression, params);
        TestRunContext ca(7), cb(7);
        const FormsCompared c = compareForms(a, b, s, ca, cb, kThreads);
        QVERIFY2(c.failure.isEmpty(), qPrintable(c.failure));
        const double weights = relativeDifference(a.decisionFunctions(), b.decisionFunctions());
        qInfo("%s: dense vs sparse, largest relative difference of weights %.3g, of predictions %.3g",
              qPrintable(solver), weights, c.predictions);
        QVERIFY2(weights <= 1e-12, qPrintable(QString::number(weights)));
        if (!regression)
            QCOMPARE(accuracy(c.sparse, s.probe.y), accuracy(c.dense, s.probe.y));
    }

    void trainsOnAProblemFarTooWideToDensify()
    {
        // 2000 × 1,000,000 with 20 non-zeros a row (40,000 in all): a dense copy would take 16 GB,
        // the plugin's rows 0.7 MB. -s 2 (the L2-loss SVC primal, TRON) keeps a few vectors of
        // size d (8 MB each). Labels are the sign of planted weights on the 500 "common" columns;
        // every row has 10 of those and 10 "rare" ones of the other 999,500.
        const WideSparseProblem p = wideSparseProblem();
        const Eigen::Index n = p.rows, d = p.columns;
        LiblinearTrainer t = trainer(false, {{"solver", "l2r_l2loss_svc_primal"}});
        const QJsonObject cost = t.predictCost(ProblemShape{n, d, 2, Task::Classification, p.train.x.nonZeros()});
        const double nodes = double(n * 20 + 2 * n) * 16 + double(n) * 8; // + bias and terminator a row
        QCOMPARE(cost.value("problem_bytes_upper_bound").toDouble(), nodes);
        QCOMPARE(cost.value("pass_flops").toDouble(), 2.0 * double(n * 20 + n));
        const QString failure = checkTrainsWideSparse(t, p, nodes, "-s 2", kThreads);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        QCOMPARE(t.decisionFunctions().rows(), d + 1);
    }

    void pluginDeclaresSparseInput()
    {
        const QString failure =
            checkDeclaresSparseInput(QDir(TB_PLUGIN_BUILD_DIR).filePath("trainbench-liblinear.so"),
                                     {"liblinear.classify", "liblinear.regress"},
                                     [] { set_print_string_function(&wrap::DetachedCall::print); });
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
    }

    void badSparseInputFailsClearly()
    {
        const SparseLabelledSet ok = toSparse(plantedDense(60, 8, 0.5, 2, 93));
        LiblinearTrainer t = trainer(false, {});
        const QString failure = checkRefusesBadSparseInput(t, ok, kThreads);
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
    }
};

QTEST_GUILESS_MAIN(TestLiblinear)
#include "tst_liblinear.moc"
