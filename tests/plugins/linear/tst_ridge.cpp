// Ridge least squares (plugins/linear) on sparse inputs (issue 28): the same model as on the same
// data made dense (normal equations from the sparse rows; CGLS with a ladder), the iterative path
// on 2,000 × 1,000,000 (a dense copy would be 16 GB), Stop mid-CG with a usable model, singular
// Gram matrices, bad input and the cost prediction of sparse shapes.
#include <linear/RidgeTrainer.h>

#include <trainbench/testing/TestRunContext.h>

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <QtTest>

#include <FitIn.h>
#include <RandomMatrix.h>

#include <random>

using namespace tb;
using tb::linear::RidgeTrainer;
using tb::testsupport::fitError;
using tb::testsupport::fitIn;
using tb::testsupport::randomSparse;

namespace {

// @p ridge is the Gram-diagonal λ these tests were written in ("gram_ridge"; tst_oneridge checks "ridge").
QVariantMap params(double ridge, bool bias, QVariantList ladder = {}, double relative = 0.0)
{
    return QVariantMap{{"gram_ridge", ridge}, {"relative_ridge", relative}, {"bias", bias},
                       {"iteration_ladder", ladder}, {"cg_tolerance", 1e-8},       {"iterations", 2000}};
}

Eigen::MatrixXd targets(const SparseMatrix& x, Eigen::Index k, double noise, std::uint64_t seed,
                        Eigen::Index support)
{
    std::mt19937_64 g(seed);
    std::normal_distribution<double> normal;
    const Eigen::Index s = support > 0 ? support : x.cols();
    Eigen::MatrixXd w = Eigen::MatrixXd::Zero(x.cols(), k);
    for (Eigen::Index j = 0; j < k; ++j)
        for (Eigen::Index i = 0; i < s; ++i)
            w(i, j) = normal(g);
    Eigen::MatrixXd y = x * w;
    for (Eigen::Index i = 0; i < y.size(); ++i)
        y.data()[i] += 0.5 + noise * normal(g);
    return y;
}

double relativeDifference(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b)
{
    return (a - b).norm() / std::max(b.norm(), 1e-300);
}

} // namespace

class TestRidge : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Closed form: the Gram matrix from the sparse rows against the dense one. Both solve the
    // same well-conditioned normal equations (cond ≲ 10³ here) by Cholesky; they differ only in
    // summation order, ~1e-16·cond relative: 1e-9 leaves a wide margin and still catches any
    // wrong entry (a missed bias term or triangle is O(1)).
    void denseAndSparseAgree_data()
    {
        QTest::addColumn<double>("ridge");
        QTest::addColumn<double>("relative");
        QTest::addColumn<bool>("bias");
        QTest::addColumn<QVariantList>("ladder");
        QTest::newRow("closed form, bias") << 0.1 << 0.0 << true << QVariantList{};
        QTest::newRow("closed form, no bias") << 0.0 << 0.0 << false << QVariantList{};
        QTest::newRow("closed form, relative ridge") << 0.0 << 1e-3 << true << QVariantList{};
        QTest::newRow("cg ladder") << 0.5 << 0.0 << true << QVariantList{2, 5, 60};
    }
    void denseAndSparseAgree()
    {
        QFETCH(double, ridge);
        QFETCH(double, relative);
        QFETCH(bool, bias);
        QFETCH(QVariantList, ladder);
        const SparseMatrix x = randomSparse(400, 40, 8, 11);
        const Eigen::MatrixXd y = targets(x, 3, 0.1, 12, 0);
        const Eigen::MatrixXd dense = Eigen::MatrixXd(x);
        RidgeTrainer onDense(params(ridge, bias, ladder, relative)),
            onSparse(params(ridge, bias, ladder, relative));
        testing::TestRunContext c1(1, 2), c2(1, 2);
        fitIn(onDense, DatasetView(dense, y), c1);
        Eigen::MatrixXd none(x.rows(), 0);
        DatasetView view(none, y);
        view.xSparse = &x;
        fitIn(onSparse, view, c2);
        QCOMPARE(c2.checkpoints.size(), c1.checkpoints.size());
        for (std::size_t i = 0; i < c1.checkpoints.size(); ++i)
            QCOMPARE(c2.checkpoints[i].epoch, c1.checkpoints[i].epoch);
        const SparseMatrix test = randomSparse(100, 40, 8, 13);
        const Eigen::MatrixXd pd = onDense.predict(Eigen::MatrixXd(test)), ps = onSparse.predictSparse(test);
        // CGLS: the same recurrences on the same products; after 60 iterations on 41 unknowns
        // both are at the solution, so rounding differences do not grow along the way.
        QVERIFY2(relativeDifference(ps, pd) < 1e-9, qPrintable(QString::number(relativeDifference(ps, pd))));
        // predict() of the sparse model on dense rows is the same model.
        QVERIFY(relativeDifference(onSparse.predict(Eigen::MatrixXd(test)), ps) < 1e-12);
        QVERIFY(c2.records.contains("solver"));
    }

    // The iterative path (wider than kNormalEquationsMaxWidth) reaches the closed form's
    // solution, checked against the dual form W = Aᵀ(AAᵀ + λI)⁻¹Y (n × n, exact for λ > 0).
    // cond(AᵀA + λI) ≤ (‖A‖² + λ)/λ ≈ 60 here, so a normal-equation residual of 1e-12 puts the
    // weights within ~1e-10 relative: 1e-8 on the predictions.
    void iterativePathMatchesTheDualSolution()
    {
        const Eigen::Index n = 300, d = 6000;
        const SparseMatrix x = randomSparse(n, d, 10, 21);
        const Eigen::MatrixXd y = targets(x, 2, 0.1, 22, 0);
        const double lambda = 1.0;
        QVariantMap p = params(lambda, true);
        p["cg_tolerance"] = 1e-12;
        RidgeTrainer t(p);
        testing::TestRunContext ctx(1, 2);
        Eigen::MatrixXd none(n, 0);
        DatasetView view(none, y);
        view.xSparse = &x;
        fitIn(t, view, ctx);
        QVERIFY(ctx.records.value("cg_converged").toBool());
        QVERIFY(ctx.records.value("cg_iterations").toInt() > 0);
        QVERIFY(ctx.records.value("solver").toString().contains("CGLS"));
        QVERIFY(!ctx.checkpoints.empty());
        Eigen::MatrixXd a(n, d + 1);
        a.leftCols(d) = Eigen::MatrixXd(x);
        a.col(d).setOnes();
        Eigen::MatrixXd k = a * a.transpose();
        k.diagonal().array() += lambda;
        const Eigen::MatrixXd w = a.transpose() * k.llt().solve(y);
        const SparseMatrix test = randomSparse(50, d, 10, 23);
        Eigen::MatrixXd expected = test * w.topRows(d);
        expected.rowwise() += w.row(d);
        const Eigen::MatrixXd got = t.predictSparse(test);
        QVERIFY2(relativeDifference(got, expected) < 1e-8,
                 qPrintable(QString::number(relativeDifference(got, expected))));
    }

    // Far fewer rows than columns (n² ≤ d + 1): the dual normal equations, checked against the
    // dense dual W = Aᵀ(AAᵀ + λI)⁻¹Y (the same equations, summed in another order: cond(AAᵀ + λI)
    // ≲ 10³ here, so 1e-9 relative is rounding with a wide margin, while a missed bias term or
    // pair of rows is O(1)); λ from relative_ridge means what it means on the primal paths (the CG
    // ladder's ridge_used, and within CG's own 1e-6 of its predictions after 300 iterations of a
    // 60-dimensional Krylov space); λ = 0 gives the minimum-norm solution, A⁺Y.
    void fewRowsTakeTheDualForm_data()
    {
        QTest::addColumn<double>("ridge");
        QTest::addColumn<double>("relative");
        QTest::addColumn<bool>("bias");
        QTest::newRow("ridge, bias") << 0.5 << 0.0 << true;
        QTest::newRow("relative ridge, no bias") << 0.0 << 1e-3 << false;
        QTest::newRow("no ridge: minimum norm") << 0.0 << 0.0 << true;
    }
    void fewRowsTakeTheDualForm()
    {
        QFETCH(double, ridge);
        QFETCH(double, relative);
        QFETCH(bool, bias);
        const Eigen::Index n = 60, d = 20000;
        QVERIFY(RidgeTrainer::usesDualForm(n, d + (bias ? 1 : 0)));
        QVERIFY(!RidgeTrainer::usesDualForm(300, 6001)); // the CG test above stays on CG
        const SparseMatrix x = randomSparse(n, d, 12, 81);
        const Eigen::MatrixXd y = targets(x, 2, 0.1, 82, 0);
        Eigen::MatrixXd none(n, 0);
        DatasetView view(none, y);
        view.xSparse = &x;
        RidgeTrainer dual(params(ridge, bias, {}, relative));
        testing::TestRunContext ctx(1, 2);
        fitIn(dual, view, ctx);
        QCOMPARE(ctx.checkpoints.size(), std::size_t(1));
        QVERIFY2(ctx.records.value("solver").toString().contains("dual"),
                 qPrintable(ctx.records.value("solver").toString()));
        QCOMPARE(dual.weights().rows(), d + (bias ? 1 : 0));
        const double lambda = ctx.records.value("ridge_used").toDouble();

        const Eigen::Index db = d + (bias ? 1 : 0);
        Eigen::MatrixXd a(n, db);
        a.leftCols(d) = Eigen::MatrixXd(x);
        if (bias)
            a.col(d).setOnes();
        Eigen::MatrixXd k = a * a.transpose();
        Eigen::MatrixXd expected;
        if (lambda > 0) {
            k.diagonal().array() += lambda;
            expected = a.transpose() * k.llt().solve(y);
        } else {
            expected = a.completeOrthogonalDecomposition().pseudoInverse() * y;
        }
        QVERIFY2(relativeDifference(dual.weights(), expected) < 1e-9,
                 qPrintable(QString::number(relativeDifference(dual.weights(), expected))));

        const SparseMatrix test = randomSparse(40, d, 12, 83);
        if (relative > 0) {
            RidgeTrainer cg(params(ridge, bias, {300}, relative));
            testing::TestRunContext c2(1, 2);
            fitIn(cg, view, c2);
            QCOMPARE(lambda, c2.records.value("ridge_used").toDouble());
            const Eigen::MatrixXd pd = dual.predictSparse(test), pc = cg.predictSparse(test);
            QVERIFY2(relativeDifference(pc, pd) < 1e-6, qPrintable(QString::number(relativeDifference(pc, pd))));
        }
    }

    // The dual form's prediction is the weights and an n×n matrix, not CGLS's vectors of the
    // width: 40 rows × 67,108,864 columns (a 520-byte LIBSVM file) needs the 512 MiB of W and
    // little more, where CGLS held ≈ 2.75 GiB. Trained at 4,000,000 columns (32 MB of weights).
    void theDualFormNeedsOneVectorOfTheWidth()
    {
        RidgeTrainer t(params(1.0, true));
        const double width = 67108864.0;
        const double dual = t.predictCost(ProblemShape{40, 67108864, 1, Task::Regression, 30}).value("memory_bytes").toDouble();
        QVERIFY2(dual >= 8.0 * (width + 1) && dual < 8.0 * (width + 1) + 1e6, qPrintable(QString::number(dual)));
        RidgeTrainer ladder(params(1.0, true, {10}));
        const double cg = ladder.predictCost(ProblemShape{40, 67108864, 1, Task::Regression, 30}).value("memory_bytes").toDouble();
        QVERIFY2(cg > 4 * dual, qPrintable(QString::number(cg)));

        const Eigen::Index n = 40, d = 4000000;
        const SparseMatrix x = randomSparse(n, d, 3, 91);
        const Eigen::MatrixXd y = targets(x, 1, 0.1, 92, 0);
        Eigen::MatrixXd none(n, 0);
        DatasetView view(none, y);
        view.xSparse = &x;
        testing::TestRunContext ctx(1, 2);
        fitIn(t, view, ctx);
        QVERIFY(ctx.records.value("solver").toString().contains("dual"));
        // W = Aᵀα lives on the columns the rows use: the same solution as the dense dual of those
        // columns alone (the tolerance as in fewRowsTakeTheDualForm), and exactly 0 elsewhere.
        std::vector<int> used;
        for (Eigen::Index i = 0; i < x.outerSize(); ++i)
            for (SparseMatrix::InnerIterator it(x, i); it; ++it)
                used.push_back(int(it.col()));
        std::sort(used.begin(), used.end());
        used.erase(std::unique(used.begin(), used.end()), used.end());
        const Eigen::Index u = Eigen::Index(used.size());
        Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, u + 1);
        for (Eigen::Index i = 0; i < x.outerSize(); ++i)
            for (SparseMatrix::InnerIterator it(x, i); it; ++it)
                a(i, std::lower_bound(used.begin(), used.end(), int(it.col())) - used.begin()) = it.value();
        a.col(u).setOnes();
        Eigen::MatrixXd k = a * a.transpose();
        k.diagonal().array() += 1.0;
        const Eigen::MatrixXd expected = a.transpose() * k.llt().solve(y);
        Eigen::MatrixXd got(u + 1, 1);
        for (Eigen::Index j = 0; j < u; ++j)
            got(j) = t.weights()(used[std::size_t(j)], 0);
        got(u) = t.weights()(d, 0);
        QVERIFY2(relativeDifference(got, expected) < 1e-9, qPrintable(QString::number(relativeDifference(got, expected))));
        QCOMPARE(Eigen::Index((t.weights().array() != 0.0).count()), Eigen::Index((expected.array() != 0.0).count()));
    }

    // 2,000 rows × 1,000,000 columns × 20 non-zeros: a dense copy would be 16 GB, so training
    // proves there is none. Half of each row's non-zeros fall in 200 informative columns that
    // carry the planted weights; the rest are spread over the million columns (noise words).
    void wideProblemTrainsAndPredicts()
    {
        const Eigen::Index n = 2000, d = 1000000, informative = 200;
        const SparseMatrix x = randomSparse(n, d, 20, 31, informative, 10);
        const Eigen::MatrixXd y = targets(x, 2, 0.05, 32, informative);
        RidgeTrainer t(params(1.0, true));
        const QJsonObject cost = t.predictCost(ProblemShape{n, d, 2, Task::Regression, x.nonZeros()});
        QVERIFY2(cost.value("memory_bytes").toDouble() < 2e8,
                 qPrintable(QString::number(cost.value("memory_bytes").toDouble())));
        testing::TestRunContext ctx(1, 2);
        Eigen::MatrixXd none(n, 0);
        DatasetView view(none, y);
        view.xSparse = &x;
        fitIn(t, view, ctx);
        QVERIFY(ctx.records.value("cg_converged").toBool());
        QCOMPARE(t.weights().rows(), d + 1);
        // The prediction covers the first checkpoint's iterations, whose seconds fit() records.
        QCOMPARE(cost.value("scope_measured_key").toString(), QStringLiteral("cg_first_checkpoint_seconds"));
        QVERIFY(ctx.records.value("cg_first_checkpoint_seconds").toDouble() > 0);
        QVERIFY(cost.value("flops_at_cap").toDouble() > cost.value("flops").toDouble());
        // Fresh rows drawn the same way: the informative half carries the signal, the other half
        // mostly hits columns never seen in training (weight 0).
        const SparseMatrix test = randomSparse(500, d, 20, 33, informative, 10);
        const Eigen::MatrixXd yt = targets(test, 2, 0.0, 32, informative);
        const Eigen::MatrixXd pred = t.predictSparse(test);
        const double r2 =
            1.0 - (pred - yt).squaredNorm() / (yt.rowwise() - yt.colwise().mean()).squaredNorm();
        QVERIFY2(r2 > 0.8, qPrintable(QString("test R² %1").arg(r2)));
    }

    // Stop answered at the third checkpoint of the iterative path: fit() returns right there
    // (no further checkpoint), and the model of that checkpoint predicts.
    void stopMidCgLeavesAUsableModel()
    {
        const Eigen::Index n = 1500, d = 200000;
        const SparseMatrix x = randomSparse(n, d, 20, 41);
        const Eigen::MatrixXd y = targets(x, 1, 0.1, 42, 0);
        QVariantMap p = params(0.0, true); // λ = 0 on n < d: CG needs many iterations
        p["cg_tolerance"] = 1e-15;
        RidgeTrainer t(p);
        testing::TestRunContext ctx(1, 2);
        ctx.onCheckpoint = [&](const Checkpoint&) {
            if (ctx.checkpoints.size() == 3)
                ctx.requestStop();
        };
        Eigen::MatrixXd none(n, 0);
        DatasetView view(none, y);
        view.xSparse = &x;
        fitIn(t, view, ctx);
        QCOMPARE(ctx.checkpoints.size(), std::size_t(3));
        QCOMPARE(ctx.checkpoints.back().epoch, double(3 * RidgeTrainer::kCgCheckpointEvery));
        QCOMPARE(ctx.records.value("cg_iterations").toInt(), 3 * RidgeTrainer::kCgCheckpointEvery);
        QVERIFY(!ctx.records.value("cg_converged").toBool());
        // The losses never increase (CG's iterates minimise over growing Krylov spaces).
        QVERIFY(ctx.checkpoints[2].loss <= ctx.checkpoints[0].loss);
        const Eigen::MatrixXd pred = t.predictSparse(randomSparse(10, d, 20, 43));
        QVERIFY(pred.allFinite());
        QCOMPARE(pred.rows(), Eigen::Index(10));

        // The same with the host's answer alone (stopAfter), the token never fired.
        RidgeTrainer t2(p);
        testing::TestRunContext ctx2(1, 2);
        ctx2.stopAfter = 2;
        fitIn(t2, view, ctx2);
        QCOMPARE(ctx2.checkpoints.size(), std::size_t(2));
        QVERIFY(t2.predictSparse(x.topRows(5)).allFinite());
    }

    // Duplicate columns make XᵀX singular: with λ = 0 the closed form falls back to the
    // pseudo-inverse (the minimum-norm solution, as on dense data) and CG converges to the same
    // minimum-norm solution; nothing crashes and both paths agree with the dense model.
    void duplicateColumnsDoNotCrash()
    {
        SparseMatrix base = randomSparse(300, 20, 6, 51);
        // Columns 20..39 repeat columns 0..19.
        std::vector<Eigen::Triplet<double, int>> t;
        for (int i = 0; i < base.outerSize(); ++i)
            for (SparseMatrix::InnerIterator it(base, i); it; ++it) {
                t.emplace_back(i, int(it.col()), it.value());
                t.emplace_back(i, int(it.col()) + 20, it.value());
            }
        SparseMatrix x(300, 40);
        x.setFromTriplets(t.begin(), t.end());
        x.makeCompressed();
        const Eigen::MatrixXd y = targets(base, 2, 0.1, 52, 0);
        Eigen::MatrixXd none(x.rows(), 0);
        DatasetView view(none, y);
        view.xSparse = &x;
        RidgeTrainer closed(params(0.0, true)), dense(params(0.0, true)), cg(params(0.0, true, {200}));
        testing::TestRunContext c1, c2, c3;
        fitIn(closed, view, c1);
        QVERIFY(c1.records.value("solver").toString().contains("pseudo-inverse"));
        fitIn(dense, DatasetView(Eigen::MatrixXd(x), y), c2);
        fitIn(cg, view, c3);
        const SparseMatrix test = randomSparse(50, 20, 6, 53);
        SparseMatrix testWide(50, 40);
        std::vector<Eigen::Triplet<double, int>> tt;
        for (int i = 0; i < test.outerSize(); ++i)
            for (SparseMatrix::InnerIterator it(test, i); it; ++it) {
                tt.emplace_back(i, int(it.col()), it.value());
                tt.emplace_back(i, int(it.col()) + 20, it.value());
            }
        testWide.setFromTriplets(tt.begin(), tt.end());
        const Eigen::MatrixXd pc = closed.predictSparse(testWide),
                              pd = dense.predict(Eigen::MatrixXd(testWide));
        const Eigen::MatrixXd pg = cg.predictSparse(testWide);
        QVERIFY(pc.allFinite() && pg.allFinite());
        QVERIFY2(relativeDifference(pc, pd) < 1e-8, qPrintable(QString::number(relativeDifference(pc, pd))));
        QVERIFY2(relativeDifference(pg, pd) < 1e-6, qPrintable(QString::number(relativeDifference(pg, pd))));
    }

    // CG that reaches iterations before cg_tolerance ends there with its model, says so in
    // the log (naming both parameters) and records that it did not converge.
    void iterationCapIsReported()
    {
        const Eigen::Index n = 500, d = 50000;
        const SparseMatrix x = randomSparse(n, d, 20, 71);
        const Eigen::MatrixXd y = targets(x, 1, 0.1, 72, 0);
        QVariantMap p = params(0.0, true);
        p["cg_tolerance"] = 1e-15;
        p["iterations"] = 15;
        RidgeTrainer t(p);
        testing::TestRunContext ctx(1, 2);
        Eigen::MatrixXd none(n, 0);
        DatasetView view(none, y);
        view.xSparse = &x;
        fitIn(t, view, ctx);
        QCOMPARE(ctx.checkpoints.size(), std::size_t(2)); // at 10 and at the cap, 15
        QCOMPARE(ctx.checkpoints.back().epoch, 15.0);
        QVERIFY(!ctx.records.value("cg_converged").toBool());
        const QString log = ctx.logs.join("\n");
        QVERIFY2(log.contains("iterations") && log.contains("cg_tolerance"), qPrintable(log));
        QVERIFY(t.predictSparse(x.topRows(3)).allFinite());
    }

    void badInputIsReportedClearly()
    {
        SparseMatrix x = randomSparse(50, 10, 3, 61);
        const Eigen::MatrixXd y = targets(x, 1, 0.1, 62, 0);
        Eigen::MatrixXd none(50, 0);
        {
            SparseMatrix bad = x;
            bad.valuePtr()[7] = std::numeric_limits<double>::quiet_NaN();
            DatasetView view(none, y);
            view.xSparse = &bad;
            RidgeTrainer t(params(0.1, true));
            QVERIFY(fitError(t, view, 1).contains("NaN or Inf"));
            QVERIFY_THROWS_EXCEPTION(std::logic_error, t.predictSparse(x));
        }
        {
            Eigen::MatrixXd shortY = y.topRows(40), none40(40, 0);
            DatasetView view(none40, shortY);
            view.xSparse = &x;
            RidgeTrainer t(params(0.1, true));
            QVERIFY(fitError(t, view, 1).contains("50 rows"));
        }
        DatasetView view(none, y);
        view.xSparse = &x;
        RidgeTrainer t(params(0.1, true));
        testing::TestRunContext ctx;
        fitIn(t, view, ctx);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, t.predictSparse(SparseMatrix(3, 11)));
        QVariantMap p = params(0.1, true);
        p["cg_tolerance"] = 0.0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RidgeTrainer{p});
        p = params(0.1, true);
        p["iterations"] = 0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, RidgeTrainer{p});
    }

    // Sparse shapes are costed from the non-zeros: never n·d, and d² only on the closed-form
    // path that allocates it.
    void costOfSparseShapes()
    {
        RidgeTrainer t(params(1.0, true));
        const QJsonObject wide =
            t.predictCost(ProblemShape{50000, 1000000, 2, Task::Classification, 5000000});
        QVERIFY(wide.value("memory_bytes").toDouble() < 4e8);
        QVERIFY(wide.value("flops_at_cap").toDouble() < 1e12);
        QCOMPARE(wide.value("iterations").toDouble(), 2000.0);
        QVERIFY(wide.value("scope").toString().contains("first 10"));
        const QJsonObject narrow = t.predictCost(ProblemShape{50000, 1000, 2, Task::Classification, 500000});
        QVERIFY(narrow.value("memory_bytes").toDouble() > 8.0 * 1001 * 1001);
        QVERIFY(narrow.value("memory_bytes").toDouble() < 1e8);
        QVERIFY(narrow.contains("factorisation_flops"));
        // Dense shapes as before.
        const QJsonObject dense = t.predictCost(ProblemShape{50000, 1000, 2, Task::Classification, 0});
        QVERIFY(dense.value("memory_bytes").toDouble() > 8.0 * 50000 * 1000);
    }
};

QTEST_GUILESS_MAIN(TestRidge)
#include "tst_ridge.moc"
