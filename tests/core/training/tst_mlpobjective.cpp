// The network objective over layer blocks: gradients against central finite differences for
// every block, agreement of a block's value with the whole network's, the penalty over fixed
// layers, L-BFGS on the output layer alone reaching the closed-form ridge solution, Stop while
// the forward cache is built.
#include <training/LbfgsDriver.h>
#include <numerics/LeastSquares.h>
#include <training/MlpObjective.h>
#include <training/Sampling.h>

#include <Eigen/Cholesky>
#include <QtTest>
#include <random>
#include <tbb/task_arena.h>
#include <RandomMatrix.h>

using namespace tb::train;
using tb::num::Activation;
using tb::num::Mlp;
using tb::num::MlpLoss;

namespace {

using tb::testsupport::randomMatrix;

// A 3-input, [5, 4]-hidden, 2-output network with small random weights.
Mlp smallNet(Activation out, bool bias = true)
{
    Mlp net = Mlp::withHidden(3, {5, 4}, 2, Activation::Sigmoid, out, bias);
    net.initUniform(7, -0.8, 0.8);
    return net;
}

} // namespace

class TestMlpObjective : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void blockGradientsMatchFiniteDifferences_data()
    {
        QTest::addColumn<int>("first");
        QTest::addColumn<int>("last");
        QTest::addColumn<bool>("softmax");
        for (bool sm : {false, true})
            for (auto [f, l] : {std::pair{0, 2}, {0, 0}, {1, 1}, {2, 2}, {1, 2}})
                QTest::newRow(qPrintable(QString("%1 [%2,%3]").arg(sm ? "cross-entropy" : "squared").arg(f).arg(l)))
                    << f << l << sm;
    }
    void blockGradientsMatchFiniteDifferences()
    {
        QFETCH(int, first);
        QFETCH(int, last);
        QFETCH(bool, softmax);
        Mlp net = smallNet(softmax ? Activation::Softmax : Activation::Identity);
        const Eigen::MatrixXd x = randomMatrix(150, 3, 1);  // 150 rows: two parallel chunks
        Eigen::MatrixXd y = randomMatrix(150, 2, 2);
        if (softmax) {
            for (Eigen::Index i = 0; i < y.rows(); ++i) {
                const int c = y(i, 0) > y(i, 1) ? 0 : 1;
                y.row(i).setZero();
                y(i, c) = 1;
            }
        }
        const Eigen::MatrixXd xt = x.transpose();
        MlpObjective f(net, softmax ? MlpLoss::SoftmaxCrossEntropy : MlpLoss::SquaredError, xt, y, 150.0, 0.01);
        QVERIFY(f.selectLayers(first, last));
        Eigen::VectorXd w = f.blockWeights(), g;
        f.evaluate(w, g);
        QCOMPARE(g.size(), f.dimension());
        // Central differences: truncation error O(h²·f''') ≈ 1e-10 and rounding ≈ 1e-16/h ≈ 1e-11
        // for h = 1e-5 on a smooth objective of order 1: 1e-7 relative is safe and still tight.
        const double h = 1e-5;
        double worst = 0;
        for (Eigen::Index i = 0; i < w.size(); ++i) {
            Eigen::VectorXd wp = w, wm = w;
            wp(i) += h;
            wm(i) -= h;
            const double fd = (f.value(wp) - f.value(wm)) / (2 * h);
            worst = std::max(worst, std::abs(fd - g(i)) / std::max(1.0, std::abs(fd)));
        }
        QVERIFY2(worst < 1e-7, qPrintable(QString("worst relative error %1").arg(worst)));
        // The network holds the last point evaluated; put the original weights back and compare
        // the block's value with the whole network's: the same function.
        f.setBlockWeights(w);
        MlpObjective whole(net, softmax ? MlpLoss::SoftmaxCrossEntropy : MlpLoss::SquaredError, xt, y, 150.0, 0.01);
        const double all = whole.value(whole.blockWeights());
        QVERIFY2(std::abs(all - f.value(w)) <= 1e-12 * std::abs(all), qPrintable(QString("%1 vs %2").arg(all).arg(f.value(w))));
    }

    void lbfgsOnTheOutputLayerIsRidge()
    {
        // Identity output, squared error: with the hidden layers fixed, f over the output layer
        // is a ridge regression on [H 1], whose minimiser solves (AᵀA + nλI)W = AᵀY (the 1/n
        // of the loss and the λ/2 of the penalty: ∇ = Aᵀ(AW − Y)/n + λW).
        Mlp net = smallNet(Activation::Identity);
        const Eigen::Index n = 400;
        const Eigen::MatrixXd x = randomMatrix(n, 3, 3), y = randomMatrix(n, 2, 4);
        const Eigen::MatrixXd xt = x.transpose();
        const double lambda = 1e-3;
        MlpObjective f(net, MlpLoss::SquaredError, xt, y, double(n), lambda);
        QVERIFY(f.selectLayers(2, 2));
        Eigen::VectorXd w = f.blockWeights();
        LbfgsSettings s;
        s.epsilon = 1e-12;
        s.maxIterations = 500;
        const LbfgsReport r = LbfgsDriver(s).minimise(f, w);
        // A gradient tolerance of 1e-12 is below what f's rounding allows: the run ends when a
        // step changes nothing (or the search cannot improve), at the numerical minimum.
        QVERIFY2(r.outcome == LbfgsOutcome::Converged || r.outcome == LbfgsOutcome::NoProgress ||
                     r.outcome == LbfgsOutcome::LineSearchFailed,
                 lbfgsOutcomeName(r.outcome));
        f.setBlockWeights(w);
        // The closed form on the second hidden layer's output.
        const Mlp head = net.slice(0, 1);
        Eigen::MatrixXd a(n, head.outputs() + 1);
        a.leftCols(head.outputs()) = head.predict(x);
        a.col(head.outputs()).setOnes();
        Eigen::MatrixXd g = a.transpose() * a;
        g.diagonal().array() += double(n) * lambda;
        const Eigen::MatrixXd exact = g.llt().solve(a.transpose() * y);
        const Eigen::MatrixXd got = net.weights(2);
        // Conditioning of AᵀA + nλI is ~1e3 here: a gradient tolerance of 1e-12 bounds the
        // weight error by ~1e-9.
        QVERIFY2((got - exact).cwiseAbs().maxCoeff() < 1e-7,
                 qPrintable(QString("max |Δw| = %1").arg((got - exact).cwiseAbs().maxCoeff())));
    }

    void penaltyCoversFixedLayers()
    {
        Mlp net = smallNet(Activation::Identity);
        const Eigen::MatrixXd x = randomMatrix(20, 3, 5), y = randomMatrix(20, 2, 6);
        const Eigen::MatrixXd xt = x.transpose();
        MlpObjective without(net, MlpLoss::SquaredError, xt, y, 20.0, 0.0);
        MlpObjective with(net, MlpLoss::SquaredError, xt, y, 20.0, 0.5);
        QVERIFY(without.selectLayers(1, 1) && with.selectLayers(1, 1));
        const Eigen::VectorXd w = with.blockWeights();
        double all = 0;
        for (const auto& m : net.allWeights())
            all += m.squaredNorm();
        QVERIFY(std::abs(with.value(w) - without.value(w) - 0.25 * all) < 1e-12 * all);
    }

    void stopWhileBuildingTheCache()
    {
        Mlp net = smallNet(Activation::Identity);
        const Eigen::MatrixXd x = randomMatrix(5000, 3, 7), y = randomMatrix(5000, 2, 8);
        const Eigen::MatrixXd xt = x.transpose();
        tb::StopSource stop;
        MlpObjective f(net, MlpLoss::SquaredError, xt, y, 5000.0, 0.0, stop.token());
        stop.requestStop();
        QVERIFY(!f.selectLayers(1, 2));
        QVERIFY(f.interrupted());
        Eigen::VectorXd g;
        QVERIFY_THROWS_EXCEPTION(std::logic_error, f.evaluate(Eigen::VectorXd::Zero(f.dimension()), g));
    }

    void shapesAreChecked()
    {
        Mlp net = smallNet(Activation::Identity);
        const Eigen::MatrixXd xt = randomMatrix(4, 10, 1), y = randomMatrix(10, 2, 2);  // 4 inputs, net has 3
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, MlpObjective(net, MlpLoss::SquaredError, xt, y, 10.0));
        const Eigen::MatrixXd ok = randomMatrix(3, 10, 1);
        MlpObjective f(net, MlpLoss::SquaredError, ok, y, 10.0);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, f.selectLayers(2, 1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, f.selectLayers(0, 3));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, MlpObjective(net, MlpLoss::SquaredError, ok, y, 0.0));
    }
};

QTEST_GUILESS_MAIN(TestMlpObjective)
#include "tst_mlpobjective.moc"
