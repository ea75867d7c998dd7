// LayerwisePass against the shared network's own backward pass and against finite differences.
#include <bld/LayerwisePass.h>

#include <QtTest>
#include <random>

using namespace tb::bld;
using tb::num::Activation;
using tb::num::Mlp;

namespace {

Eigen::MatrixXd uniform(Eigen::Index r, Eigen::Index c, unsigned seed)
{
    std::mt19937_64 gen(seed);
    Eigen::MatrixXd m(r, c);
    for (Eigen::Index i = 0; i < m.size(); ++i)
        m.data()[i] = 2.0 * double(gen() >> 11) * 0x1.0p-53 - 1.0;
    return m;
}

// Sigmoid hidden layers, identity output, a bias on the input layer only (the paper's net) —
// or biases everywhere, so that both code paths are covered.
Mlp network(bool hiddenBias)
{
    Mlp net = Mlp::withHidden(4, {6, 5, 3}, 2, Activation::Sigmoid, Activation::Identity, true, hiddenBias);
    net.initUniform(9);
    return net;
}

} // namespace

class TestLayerwisePass : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fullPassEqualsMlpBackward_data()
    {
        QTest::addColumn<bool>("hiddenBias");
        QTest::newRow("input bias only") << false;
        QTest::newRow("every bias") << true;
    }
    void fullPassEqualsMlpBackward()
    {
        QFETCH(bool, hiddenBias);
        const Mlp net = network(hiddenBias);
        const Eigen::MatrixXd x = uniform(17, 4, 1), y = uniform(17, 2, 2);
        const Eigen::MatrixXd xt = x.transpose();
        LayerwisePass pass(net, 20);
        pass.forward(net, xt, 0);
        std::vector<Eigen::MatrixXd> g = net.zeroGradients(), ref = net.zeroGradients();
        const double e = pass.backward(net, xt, y, 0, g, true);
        tb::num::MlpWorkspace ws;
        net.forward(x, ws);
        const double half = net.backward(x, y, tb::num::MlpLoss::SquaredError, ws, ref);
        // E = Σ‖ŷ − y‖² is twice Mlp's ½‖ŷ − y‖²: so are its gradients. 1e-12 relative: the same
        // products in a different association order.
        QVERIFY(std::abs(e - 2 * half) <= 1e-12 * e);
        for (int l = 0; l < net.layerCount(); ++l)
            QVERIFY2((g[std::size_t(l)] - 2 * ref[std::size_t(l)]).norm() <= 1e-12 * (1 + ref[std::size_t(l)].norm()),
                     qPrintable(QString("layer %1").arg(l)));
        QVERIFY((pass.output(net.layerCount() - 1) - ws.output()).norm() < 1e-13);
    }

    void partialPassesAfterALayerChanges()
    {
        Mlp net = network(false);
        const Eigen::MatrixXd x = uniform(9, 4, 3), y = uniform(9, 2, 4);
        const Eigen::MatrixXd xt = x.transpose();
        LayerwisePass pass(net, 9), fresh(net, 9);
        pass.forward(net, xt, 0);
        // Change layer 2, recompute from 2 on only: the same outputs as a full pass.
        net.mutableWeights(2) += uniform(net.weights(2).rows(), net.weights(2).cols(), 5) * 0.3;
        pass.forward(net, xt, 2);
        fresh.forward(net, xt, 0);
        for (int l = 0; l < net.layerCount(); ++l)
            QCOMPARE(pass.output(l), fresh.output(l)); // bit for bit: the same products
        // The gradient of one layer from a backward pass that stops there equals the full one.
        std::vector<Eigen::MatrixXd> one = net.zeroGradients(), all = net.zeroGradients();
        pass.backward(net, xt, y, 1, one, false);
        fresh.backward(net, xt, y, 0, all, true);
        QCOMPARE(one[1], all[1]);
        QCOMPARE(one[0], net.zeroGradients()[0]); // untouched
        QCOMPARE(one[2], net.zeroGradients()[2]);
    }

    void gradientMatchesFiniteDifferences()
    {
        Mlp net = network(false);
        const Eigen::MatrixXd x = uniform(7, 4, 6), y = uniform(7, 2, 7);
        const Eigen::MatrixXd xt = x.transpose();
        LayerwisePass pass(net, 7);
        pass.forward(net, xt, 0);
        std::vector<Eigen::MatrixXd> g = net.zeroGradients();
        pass.backward(net, xt, y, 0, g, true);
        auto loss = [&](const Mlp& m) { return (m.predict(x) - y).squaredNorm(); };
        const double h = 1e-6;
        for (int l = 0; l < net.layerCount(); ++l)
            for (Eigen::Index i = 0; i < net.weights(l).size(); ++i) {
                Mlp p = net, m = net;
                p.mutableWeights(l).data()[i] += h;
                m.mutableWeights(l).data()[i] -= h;
                const double fd = (loss(p) - loss(m)) / (2 * h);
                // Central differences: truncation O(h²) ≈ 1e-12, rounding ≈ 1e-16·E/h ≈ 1e-9.
                QVERIFY2(std::abs(fd - g[std::size_t(l)].data()[i]) <= 1e-7 * (1 + std::abs(fd)),
                         qPrintable(QString("layer %1 weight %2: %3 vs %4").arg(l).arg(i).arg(fd).arg(
                             g[std::size_t(l)].data()[i])));
            }
    }

    void flopCounts()
    {
        const Mlp net = network(false); // |W| = 5·6, 6·5, 5·3, 3·2 = 30, 30, 15, 6
        QCOMPARE(LayerwisePass::forwardFlops(net, 10, 0), 2.0 * 10 * 81);
        QCOMPARE(LayerwisePass::forwardFlops(net, 10, 2), 2.0 * 10 * 21);
        QCOMPARE(LayerwisePass::backwardFlops(net, 10, 0, true), 2.0 * 10 * (81 + 51));
        QCOMPARE(LayerwisePass::backwardFlops(net, 10, 1, false), 2.0 * 10 * (30 + 21)); // W_1 only, deltas of 2, 3
    }

    void wrongShapesThrow()
    {
        const Mlp net = network(false);
        LayerwisePass pass(net, 5);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, pass.forward(net, Eigen::MatrixXd::Zero(4, 6), 0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, pass.forward(net, Eigen::MatrixXd::Zero(3, 2), 0));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, pass.forward(net, Eigen::MatrixXd::Zero(4, 2), 1));
    }
};

QTEST_GUILESS_MAIN(TestLayerwisePass)
#include "tst_layerwisepass.moc"
