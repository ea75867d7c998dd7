#include <numerics/Mlp.h>

#include <QtTest>
#include <cmath>
#include <random>
#include <tbb/task_arena.h>
#include <RandomMatrix.h>

using namespace tb::num;

Q_DECLARE_METATYPE(tb::num::Activation)
Q_DECLARE_METATYPE(tb::num::MlpLoss)

namespace {

using tb::testsupport::randomMatrix;

// Row-stochastic targets: one-hot-like rows smoothed, so cross-entropy's p − y is exact.
Eigen::MatrixXd probabilityTargets(Eigen::Index r, Eigen::Index k, unsigned seed)
{
    Eigen::MatrixXd y = randomMatrix(r, k, seed).array().abs() + 0.1;
    for (Eigen::Index i = 0; i < r; ++i)
        y.row(i) /= y.row(i).sum();
    return y;
}

double totalLoss(const Mlp& net, const Eigen::MatrixXd& x, const Eigen::MatrixXd& y, MlpLoss loss)
{
    MlpWorkspace ws;
    net.forward(x, ws);
    return net.loss(y, loss, ws);
}

// Reference forward pass written directly from the definition Z = [N 1]·W, N' = f(Z).
Eigen::MatrixXd referenceForward(const Mlp& net, const Eigen::MatrixXd& x)
{
    Eigen::MatrixXd n = x;
    for (int l = 0; l < net.layerCount(); ++l) {
        Eigen::MatrixXd a = n;
        if (net.bias(l)) {
            a.conservativeResize(Eigen::NoChange, n.cols() + 1);
            a.col(n.cols()).setOnes();
        }
        const Eigen::MatrixXd z = a * net.weights(l);
        n.resize(z.rows(), z.cols());
        activationApply(net.activation(l), z, n);
    }
    return n;
}

} // namespace

class TestMlp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shapesAndParameterCount()
    {
        const Mlp net = Mlp::withHidden(784, {50}, 10, Activation::Sigmoid, Activation::Softmax);
        QCOMPARE(net.layerCount(), 2);
        QCOMPARE(net.weights(0).rows(), Eigen::Index(785));
        QCOMPARE(net.weights(0).cols(), Eigen::Index(50));
        QCOMPARE(net.weights(1).rows(), Eigen::Index(51));
        QCOMPARE(net.parameterCount(), Eigen::Index(785 * 50 + 51 * 10));
        QCOMPARE(QString::fromStdString(net.describe()), QString("784-50-10, sigmoid/softmax, bias"));
        const Mlp nb({3, 4, 5, 2}, {Activation::Tanh, Activation::Elu, Activation::Identity}, false);
        QCOMPARE(nb.weights(1).rows(), Eigen::Index(4));
        QCOMPARE(nb.parameterCount(), Eigen::Index(3 * 4 + 4 * 5 + 5 * 2));
        const Mlp linear = Mlp::withHidden(3, {}, 2, Activation::Sigmoid, Activation::Identity);
        QCOMPARE(linear.layerCount(), 1);
    }

    void invalidConstructionThrows()
    {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Mlp({3}, {}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Mlp({3, 0, 2}, {Activation::Tanh, Activation::Identity}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Mlp({3, 4, 2}, {Activation::Tanh}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 Mlp({3, 4, 2}, {Activation::Softmax, Activation::Identity}));
        Mlp net({2, 3, 1}, {Activation::Sigmoid, Activation::Identity});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, net.setWeights(0, Eigen::MatrixXd::Zero(2, 3)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, net.setWeights(2, Eigen::MatrixXd::Zero(4, 1)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, net.initUniform(1, 1.0, -1.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, net.predict(Eigen::MatrixXd::Zero(4, 3)));
    }

    void forwardMatchesDefinition()
    {
        for (bool bias : {true, false}) {
            Mlp net({4, 6, 3, 5}, {Activation::Tanh, Activation::Softplus, Activation::Softmax}, bias);
            net.initUniform(7);
            const Eigen::MatrixXd x = randomMatrix(9, 4, 1);
            MlpWorkspace ws;
            net.forward(x, ws);
            const Eigen::MatrixXd ref = referenceForward(net, x);
            // Same operations in a different association order: rounding-level differences only.
            QVERIFY((ws.output() - ref).cwiseAbs().maxCoeff() < 1e-14);
            QVERIFY((net.predict(x) - ref).cwiseAbs().maxCoeff() < 1e-14);
        }
    }

    void predictOverManyBlocksEqualsRowByRow()
    {
        Mlp net = Mlp::withHidden(5, {7}, 3, Activation::Sigmoid, Activation::Identity);
        net.initGlorot(3);
        const Eigen::MatrixXd x = randomMatrix(5000, 5, 2); // > 2 blocks of 2048 rows
        Eigen::MatrixXd p1, p2;
        tbb::task_arena(1).execute([&] { p1 = net.predict(x); });
        tbb::task_arena(2).execute([&] { p2 = net.predict(x); });
        QCOMPARE(p1, p2); // rows are independent: thread count cannot matter
        MlpWorkspace ws;
        net.forward(x.middleRows(4321, 1), ws);
        // A single row takes Eigen's matrix-vector path: same sums, other rounding order.
        QVERIFY((ws.output() - p1.middleRows(4321, 1)).cwiseAbs().maxCoeff() < 1e-14);
    }

    void gradientMatchesFiniteDifferences_data()
    {
        QTest::addColumn<Activation>("hidden");
        QTest::addColumn<Activation>("output");
        QTest::addColumn<MlpLoss>("loss");
        QTest::addColumn<bool>("bias");
        const std::pair<const char*, Activation> acts[] = {
            {"identity", Activation::Identity}, {"sigmoid", Activation::Sigmoid}, {"tanh", Activation::Tanh},
            {"softplus", Activation::Softplus}, {"elu", Activation::Elu}};
        for (const auto& [name, a] : acts) {
            QTest::newRow(qPrintable(QString("se hidden=%1 out=%1").arg(name))) << a << a << MlpLoss::SquaredError << true;
            QTest::newRow(qPrintable(QString("ce hidden=%1").arg(name)))
                << a << Activation::Softmax << MlpLoss::SoftmaxCrossEntropy << true;
        }
        QTest::newRow("se softmax output") << Activation::Tanh << Activation::Softmax << MlpLoss::SquaredError << true;
        QTest::newRow("se sigmoid no bias") << Activation::Sigmoid << Activation::Identity << MlpLoss::SquaredError
                                            << false;
        QTest::newRow("ce elu no bias") << Activation::Elu << Activation::Softmax << MlpLoss::SoftmaxCrossEntropy
                                        << false;
    }
    void gradientMatchesFiniteDifferences()
    {
        QFETCH(Activation, hidden);
        QFETCH(Activation, output);
        QFETCH(MlpLoss, loss);
        QFETCH(bool, bias);
        // Two hidden layers so that the gradient passes through a hidden activation twice.
        Mlp net({3, 5, 4, 3}, {hidden, hidden, output}, bias);
        net.initUniform(11, -0.8, 0.8);
        const Eigen::MatrixXd x = randomMatrix(7, 3, 4);
        const Eigen::MatrixXd y = loss == MlpLoss::SoftmaxCrossEntropy ? probabilityTargets(7, 3, 5)
                                                                       : randomMatrix(7, 3, 5, 0.5);
        MlpWorkspace ws(net, 7);
        auto grads = net.zeroGradients();
        net.forward(x, ws);
        const double l0 = net.backward(x, y, loss, ws, grads);
        QVERIFY(std::abs(l0 - totalLoss(net, x, y, loss)) < 1e-12 * std::max(1.0, l0));
        Eigen::VectorXd g(net.parameterCount());
        Mlp::flattenInto(grads, g);
        const Eigen::VectorXd p0 = net.flatten();
        const double h = 1e-6;
        double worst = 0;
        for (Eigen::Index i = 0; i < p0.size(); ++i) {
            Eigen::VectorXd p = p0;
            p(i) += h;
            net.unflatten(p);
            const double lp = totalLoss(net, x, y, loss);
            p(i) -= 2 * h;
            net.unflatten(p);
            const double lm = totalLoss(net, x, y, loss);
            const double fd = (lp - lm) / (2 * h);
            worst = std::max(worst, std::abs(fd - g(i)) / std::max(1.0, std::abs(g(i))));
        }
        net.unflatten(p0);
        // Central differences: truncation h²·|∂³L| ~ 1e-12·O(10), rounding ε·|L|/h ~ 1e-10·|L|
        // with |L| ≲ 20 here. 1e-6 is far above both and far below any real gradient bug
        // (a wrong term changes entries by O(0.01–1)).
        QVERIFY2(worst < 1e-6, qPrintable(QString("worst relative error %1").arg(worst)));
        // ELU's kink at 0 is a measure-zero event for random data; the check above would catch it.
    }

    void rowBlocksAccumulateToWholeBatch()
    {
        Mlp net({4, 6, 3}, {Activation::Tanh, Activation::Softmax});
        net.initGlorot(5);
        const Eigen::MatrixXd x = randomMatrix(40, 4, 8);
        const Eigen::MatrixXd y = probabilityTargets(40, 3, 9);
        MlpWorkspace ws(net, 40);
        auto whole = net.zeroGradients(), parts = net.zeroGradients();
        net.forward(x, ws);
        const double lw = net.backward(x, y, MlpLoss::SoftmaxCrossEntropy, ws, whole);
        double lp = 0;
        for (Eigen::Index r0 : {0, 13, 29}) {
            const Eigen::Index m = (r0 == 0 ? 13 : r0 == 13 ? 16 : 11);
            net.forward(x.middleRows(r0, m), ws);
            lp += net.backward(x.middleRows(r0, m), y.middleRows(r0, m), MlpLoss::SoftmaxCrossEntropy, ws, parts,
                               /*accumulate=*/true);
        }
        // Sums of the same 40 terms in another order: rounding differences only.
        QVERIFY(std::abs(lw - lp) < 1e-12 * lw);
        for (int l = 0; l < net.layerCount(); ++l)
            QVERIFY((whole[std::size_t(l)] - parts[std::size_t(l)]).norm() < 1e-12 * whole[std::size_t(l)].norm());
    }

    void workspaceDoesNotReallocateWithinCapacity()
    {
        Mlp net = Mlp::withHidden(3, {4}, 2, Activation::Sigmoid, Activation::Identity);
        net.initUniform(1);
        MlpWorkspace ws(net, 32);
        const double* p0 = ws.values[0].data();
        const double* d0 = ws.deltas[1].data();
        auto grads = net.zeroGradients();
        const double* g0 = grads[0].data();
        const Eigen::MatrixXd x = randomMatrix(32, 3, 1), y = randomMatrix(32, 2, 2);
        for (Eigen::Index m : {32, 5, 17}) {
            net.forward(x.topRows(m), ws);
            net.backward(x.topRows(m), y.topRows(m), MlpLoss::SquaredError, ws, grads);
            QCOMPARE(ws.rows, m);
        }
        QCOMPARE(ws.values[0].data(), p0);
        QCOMPARE(ws.deltas[1].data(), d0);
        QCOMPARE(grads[0].data(), g0);
        QCOMPARE(ws.capacity(), Eigen::Index(32));
        // A larger batch grows the workspace instead of failing.
        net.forward(randomMatrix(50, 3, 3), ws);
        QCOMPARE(ws.capacity(), Eigen::Index(50));
    }

    void backwardMisuseThrows()
    {
        Mlp net = Mlp::withHidden(3, {4}, 2, Activation::Sigmoid, Activation::Identity);
        net.initUniform(1);
        const Eigen::MatrixXd x = randomMatrix(6, 3, 1), y = randomMatrix(6, 2, 2);
        MlpWorkspace ws;
        auto grads = net.zeroGradients();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, net.backward(x, y, MlpLoss::SquaredError, ws, grads));
        net.forward(x, ws);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 net.backward(x, y, MlpLoss::SoftmaxCrossEntropy, ws, grads)); // no softmax
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 net.backward(x.topRows(5), y.topRows(5), MlpLoss::SquaredError, ws, grads));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 net.backward(x, Eigen::MatrixXd::Zero(6, 3), MlpLoss::SquaredError, ws, grads));
        std::vector<Eigen::MatrixXd> wrong(2, Eigen::MatrixXd::Zero(2, 2));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, net.backward(x, y, MlpLoss::SquaredError, ws, wrong));
    }

    void crossEntropyStaysFiniteForSaturatedOutputs()
    {
        Mlp net({1, 2}, {Activation::Softmax}, false);
        Eigen::MatrixXd w(1, 2);
        w << 1000.0, -1000.0;
        net.setWeights(0, w);
        Eigen::MatrixXd x(1, 1), y(1, 2);
        x << 1.0;
        y << 0.0, 1.0; // the class with p = e^{-2000} ≈ 0
        // log p = −2000 exactly from z − logsumexp(z); log(0) would be −inf.
        QVERIFY(std::abs(totalLoss(net, x, y, MlpLoss::SoftmaxCrossEntropy) - 2000.0) < 1e-9);
    }

    void seededInitIsDeterministic()
    {
        Mlp a = Mlp::withHidden(6, {5, 4}, 3, Activation::Tanh, Activation::Softmax);
        Mlp b = a, c = a;
        a.initUniform(123, -0.5, 2.0);
        b.initUniform(123, -0.5, 2.0);
        c.initUniform(124, -0.5, 2.0);
        QCOMPARE(a.flatten(), b.flatten());
        QVERIFY(a.flatten() != c.flatten());
        QVERIFY(a.flatten().minCoeff() >= -0.5 && a.flatten().maxCoeff() < 2.0);
        // The first weight is the documented transform of the first mt19937_64 draw.
        std::mt19937_64 gen(123);
        QCOMPARE(a.weights(0)(0, 0), -0.5 + 2.5 * Mlp::uniform01(gen()));
        // Mean of 6·5+… ≈ 90 draws from U[−0.5, 2]: 0.75 ± 4σ (σ = 0.72/√90 ≈ 0.076).
        QVERIFY(std::abs(a.flatten().mean() - 0.75) < 0.31);

        a.initGlorot(9);
        b.initGlorot(9);
        QCOMPARE(a.flatten(), b.flatten());
        const double r0 = std::sqrt(6.0 / (6 + 5));
        QVERIFY(a.weights(0).topRows(6).cwiseAbs().maxCoeff() <= r0);
        QVERIFY(a.weights(0).row(6).isZero(0.0)); // bias row
        QVERIFY(a.weights(2).row(4).isZero(0.0));
        QCOMPARE(Mlp::uniform01(0), 0.0);
        QVERIFY(Mlp::uniform01(~0ULL) < 1.0);
    }

    void columnInputsMatchRowInputs_data()
    {
        QTest::addColumn<int>("rows");
        QTest::newRow("one sample (matrix-vector path)") << 1;
        QTest::newRow("minibatch") << 13;
    }
    void columnInputsMatchRowInputs()
    {
        QFETCH(int, rows);
        for (MlpLoss loss : {MlpLoss::SquaredError, MlpLoss::SoftmaxCrossEntropy}) {
            Mlp net({6, 5, 4}, {Activation::Tanh, Activation::Softmax});
            net.initUniform(21);
            const Eigen::MatrixXd x = randomMatrix(rows, 6, 22);
            const Eigen::MatrixXd xt = x.transpose();
            const Eigen::MatrixXd y = probabilityTargets(rows, 4, 23);
            MlpWorkspace wr(net, rows), wc(net, rows);
            auto gr = net.zeroGradients(), gc = net.zeroGradients();
            net.forward(x, wr);
            net.forwardColumns(xt, wc);
            // The same products with the operand read transposed: rounding-level differences only.
            QVERIFY((wr.output() - wc.output()).cwiseAbs().maxCoeff() < 1e-14);
            const double lr = net.backward(x, y, loss, wr, gr);
            const double lc = net.backwardColumns(xt, y, loss, wc, gc);
            QVERIFY(std::abs(lr - lc) < 1e-13 * std::max(1.0, lr));
            for (int l = 0; l < net.layerCount(); ++l)
                QVERIFY((gr[std::size_t(l)] - gc[std::size_t(l)]).cwiseAbs().maxCoeff() < 1e-13);
            // accumulate adds a second copy.
            net.backwardColumns(xt, y, loss, wc, gc, /*accumulate=*/true);
            QVERIFY((2.0 * gr[0] - gc[0]).cwiseAbs().maxCoeff() < 1e-13);
        }
    }

    void firstGradientLayerLeavesDeltasForTheCaller()
    {
        Mlp net({5, 4, 3, 2}, {Activation::Sigmoid, Activation::Tanh, Activation::Softmax});
        net.initUniform(31);
        const Eigen::MatrixXd xt = randomMatrix(5, 1, 32);
        const Eigen::MatrixXd y = probabilityTargets(1, 2, 33);
        MlpWorkspace ws(net, 1);
        auto full = net.zeroGradients();
        net.forwardColumns(xt, ws);
        const double l0 = net.backwardColumns(xt, y, MlpLoss::SoftmaxCrossEntropy, ws, full);
        std::vector<Eigen::MatrixXd> part = net.zeroGradients();
        part[0].setConstant(7.0); // must stay untouched
        net.forwardColumns(xt, ws);
        const double l1 = net.backwardColumns(xt, y, MlpLoss::SoftmaxCrossEntropy, ws, part, false, 1);
        QCOMPARE(l1, l0);
        QVERIFY(part[0].isConstant(7.0));
        QCOMPARE(part[1], full[1]); // identical operations for the layers still formed
        QCOMPARE(part[2], full[2]);
        // The caller's outer product [x 1]ᵀ·δ₀ is the first layer's gradient (same products,
        // possibly another summation path: rounding only).
        Eigen::MatrixXd g0(6, 4);
        g0.topRows(5) = xt * ws.deltas[0].topRows(1);
        g0.row(5) = ws.deltas[0].topRows(1);
        QVERIFY((g0 - full[0]).cwiseAbs().maxCoeff() < 1e-15);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 net.backwardColumns(xt, y, MlpLoss::SoftmaxCrossEntropy, ws, part, false, 4));
    }

    void columnInputMisuseThrows()
    {
        Mlp net = Mlp::withHidden(3, {4}, 2, Activation::Sigmoid, Activation::Identity);
        const Eigen::MatrixXd xt = randomMatrix(3, 6, 1), y = randomMatrix(6, 2, 2);
        MlpWorkspace ws;
        auto grads = net.zeroGradients();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, net.forwardColumns(randomMatrix(6, 3, 1), ws));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, net.backwardColumns(xt, y, MlpLoss::SquaredError, ws, grads));
        net.forwardColumns(xt, ws);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 net.backwardColumns(xt.leftCols(5), y.topRows(5), MlpLoss::SquaredError, ws, grads));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Mlp().forwardColumns(xt, ws));
    }

    void mutableWeightsWriteThrough()
    {
        Mlp net = Mlp::withHidden(3, {4}, 2, Activation::Sigmoid, Activation::Identity);
        net.initUniform(5);
        const double* storage = net.weights(1).data();
        auto w = net.mutableWeights(1);
        QCOMPARE(w.data(), storage); // a view, not a copy
        QCOMPARE(w.rows(), Eigen::Index(5));
        w(2, 1) = 42.0;
        QCOMPARE(net.weights(1)(2, 1), 42.0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, net.mutableWeights(2));
    }

    void flattenRoundTrip()
    {
        Mlp net({3, 4, 2}, {Activation::Elu, Activation::Identity});
        net.initUniform(77);
        const Eigen::VectorXd p = net.flatten();
        QCOMPARE(p.size(), net.parameterCount());
        QCOMPARE(p(0), net.weights(0)(0, 0));
        QCOMPARE(p(1), net.weights(0)(1, 0)); // column-major
        QCOMPARE(p(net.weights(0).size()), net.weights(1)(0, 0));
        Mlp other({3, 4, 2}, {Activation::Elu, Activation::Identity});
        other.unflatten(p);
        QCOMPARE(other.flatten(), p);
        QCOMPARE(other.weights(1), net.weights(1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, other.unflatten(Eigen::VectorXd::Zero(p.size() - 1)));
        Eigen::VectorXd small(3);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, net.flattenInto(small));
    }
};

QTEST_APPLESS_MAIN(TestMlp)
#include "tst_mlp.moc"
