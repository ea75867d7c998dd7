// The minibatch objective's gradient (BatchGradient over the shared network) against finite
// differences for every activation and loss, and its determinism across chunkings and threads.
#include <training/BatchGradient.h>
#include <training/Sampling.h>

#include <QtTest>
#include <random>
#include <tbb/task_arena.h>
#include <OneHot.h>
#include <RandomMatrix.h>

using namespace tb::train;
using tb::num::Activation;
using tb::num::Mlp;
using tb::num::MlpLoss;

Q_DECLARE_METATYPE(tb::num::Activation)
Q_DECLARE_METATYPE(tb::num::MlpLoss)

namespace {

using tb::testsupport::randomMatrix;
using tb::testsupport::randomOneHot;

// The trainers' objective on the rows `rows`: mean loss + λ/2‖w‖², from the loss-only path.
double objective(Mlp& net, BatchGradient& bg, const std::vector<Eigen::Index>& rows, double lambda)
{
    const double l = bg.loss(net, rows.data(), 0, Eigen::Index(rows.size()), {}).loss / double(rows.size());
    return l + 0.5 * lambda * net.flatten().squaredNorm();
}

} // namespace

class TestBatchGradient : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void gradientMatchesFiniteDifferences_data()
    {
        QTest::addColumn<Activation>("hidden");
        QTest::addColumn<Activation>("output");
        QTest::addColumn<MlpLoss>("loss");
        const std::pair<const char*, Activation> acts[] = {{"identity", Activation::Identity},
                                                           {"sigmoid", Activation::Sigmoid},
                                                           {"tanh", Activation::Tanh},
                                                           {"softplus", Activation::Softplus},
                                                           {"elu", Activation::Elu}};
        for (const auto& [name, a] : acts) {
            QTest::newRow(qPrintable(QString("cross-entropy, hidden %1").arg(name)))
                << a << Activation::Softmax << MlpLoss::SoftmaxCrossEntropy;
            QTest::newRow(qPrintable(QString("squared error, hidden and output %1").arg(name)))
                << a << a << MlpLoss::SquaredError;
        }
        QTest::newRow("squared error on a softmax output") << Activation::Tanh << Activation::Softmax
                                                           << MlpLoss::SquaredError;
    }
    void gradientMatchesFiniteDifferences()
    {
        QFETCH(Activation, hidden);
        QFETCH(Activation, output);
        QFETCH(MlpLoss, loss);
        const double lambda = 0.05;
        Mlp net({3, 4, 3, 2}, {hidden, hidden, output});
        net.initUniform(3, -0.8, 0.8);
        const Eigen::Index n = 40;
        const Eigen::MatrixXd x = randomMatrix(n, 3, 1);
        const Eigen::MatrixXd y = loss == MlpLoss::SoftmaxCrossEntropy ? randomOneHot(n, 2, 2) : randomMatrix(n, 2, 2, 0.5);
        const Eigen::MatrixXd xt = transposedCopy(x);
        BatchGradient bg(net, loss, xt, y, n);
        // A shuffled batch of 9 rows with a repeat: the gather path, as in training.
        const std::vector<Eigen::Index> rows{5, 17, 3, 39, 0, 22, 17, 8, 30};
        std::vector<Eigen::MatrixXd> g = net.zeroGradients();
        bg.gradient(net, rows.data(), 0, Eigen::Index(rows.size()), g, {});
        // The trainers' gradient: the sum scaled to a mean plus the decay term.
        Eigen::VectorXd analytic(net.parameterCount());
        Mlp::flattenInto(g, analytic);
        analytic = analytic / double(rows.size()) + lambda * net.flatten();

        const Eigen::VectorXd p0 = net.flatten();
        const double h = 1e-6;
        double worst = 0;
        for (Eigen::Index i = 0; i < p0.size(); ++i) {
            Eigen::VectorXd p = p0;
            p(i) += h;
            net.unflatten(p);
            const double fp = objective(net, bg, rows, lambda);
            p(i) -= 2 * h;
            net.unflatten(p);
            const double fm = objective(net, bg, rows, lambda);
            const double fd = (fp - fm) / (2 * h);
            worst = std::max(worst, std::abs(fd - analytic(i)) / std::max(1.0, std::abs(analytic(i))));
        }
        net.unflatten(p0);
        // Central differences: truncation h²·|f‴|/6 ≈ 1e-12·O(1); rounding ε·|f|/h ≈ 2e-10·|f|
        // with |f| ≲ 5 here. 1e-6 is far above both and far below a wrong term (≥ 1e-3: the
        // decay term alone is 0.05·|w| ≈ 0.02).
        QVERIFY2(worst < 1e-6, qPrintable(QString("worst relative error %1").arg(worst)));
    }

    void chunksAndThreadsDoNotChangeTheResult()
    {
        Mlp net = Mlp::withHidden(6, {8}, 3, Activation::Sigmoid, Activation::Softmax);
        net.initGlorot(9);
        const Eigen::Index n = 1500;
        const Eigen::MatrixXd x = randomMatrix(n, 6, 4);
        const Eigen::MatrixXd y = randomOneHot(n, 3, 5);
        const Eigen::MatrixXd xt = transposedCopy(x);
        std::vector<Eigen::Index> rows(n);
        std::iota(rows.begin(), rows.end(), Eigen::Index(0));
        std::mt19937_64 gen(6);
        shuffle(rows, gen);
        QCOMPARE(BatchGradient::chunkCount(1), 1);
        QCOMPARE(BatchGradient::chunkCount(127), 1);
        QCOMPARE(BatchGradient::chunkCount(128), 2);
        QCOMPARE(BatchGradient::chunkCount(n), 16);  // capped; each chunk runs 94 rows in one block

        auto run = [&](int threads, const Eigen::Index* r, Eigen::Index first) {
            std::vector<Eigen::MatrixXd> g = net.zeroGradients();
            double l = 0;
            tbb::task_arena(threads).execute([&] {
                BatchGradient bg(net, MlpLoss::SoftmaxCrossEntropy, xt, y, n);
                l = bg.gradient(net, r, first, n, g, {}).loss;
            });
            return std::make_pair(l, g);
        };
        const auto one = run(1, rows.data(), 0);
        const auto two = run(2, rows.data(), 0);
        // Fixed chunks summed in a fixed order: bit-identical for any thread count.
        QCOMPARE(one.first, two.first);
        for (std::size_t l = 0; l < one.second.size(); ++l)
            QCOMPARE(one.second[l], two.second[l]);
        // The whole set in data order (contiguous, no gathering) sums the same terms in other
        // chunks: equal up to rounding.
        const auto contiguous = run(2, nullptr, 0);
        QVERIFY(std::abs(contiguous.first - one.first) < 1e-12 * one.first);
        for (std::size_t l = 0; l < one.second.size(); ++l)
            QVERIFY((contiguous.second[l] - one.second[l]).norm() < 1e-12 * one.second[l].norm());
    }

    void stopIsSeenBetweenBlocks()
    {
        tb::StopSource stopNow;
        stopNow.requestStop();
        const tb::StopToken ctx = stopNow.token();
        Mlp net = Mlp::withHidden(2, {3}, 1, Activation::Tanh, Activation::Identity);
        const Eigen::MatrixXd xt = randomMatrix(2, 9000, 1), y = randomMatrix(9000, 1, 2);
        BatchGradient bg(net, MlpLoss::SquaredError, xt, y, 9000);
        std::vector<Eigen::MatrixXd> g = net.zeroGradients();
        // 100 rows are one chunk of one block: nothing to poll between, the result is complete
        // (the trainers poll before every minibatch themselves).
        QVERIFY(!bg.gradient(net, nullptr, 0, 100, g, ctx).stopped);
        // 9000 rows: 16 chunks of 562 rows in blocks of 256, polled between blocks.
        QVERIFY(bg.gradient(net, nullptr, 0, 9000, g, ctx).stopped);
        QVERIFY(bg.loss(net, nullptr, 0, 9000, ctx).stopped);
    }

    void misuseThrows()
    {
        Mlp net = Mlp::withHidden(2, {3}, 1, Activation::Tanh, Activation::Identity);
        const Eigen::MatrixXd xt = randomMatrix(2, 10, 1), y = randomMatrix(10, 1, 2);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 BatchGradient(net, MlpLoss::SquaredError, xt, randomMatrix(9, 1, 2), 5));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 BatchGradient(net, MlpLoss::SquaredError, randomMatrix(3, 10, 1), y, 5));
        BatchGradient bg(net, MlpLoss::SquaredError, xt, y, 5);
        std::vector<Eigen::MatrixXd> g = net.zeroGradients();
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, bg.gradient(net, nullptr, 8, 5, g, {}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, bg.gradient(net, nullptr, 0, 0, g, {}));
    }

    void portableShuffle()
    {
        // Lemire's draw and Fisher–Yates are fully specified: these values hold on every platform.
        std::mt19937_64 gen(42);
        std::vector<Eigen::Index> v{0, 1, 2, 3, 4, 5, 6, 7};
        shuffle(v, gen);
        std::vector<Eigen::Index> sorted = v;
        std::sort(sorted.begin(), sorted.end());
        QCOMPARE(sorted, (std::vector<Eigen::Index>{0, 1, 2, 3, 4, 5, 6, 7}));  // a permutation
        QVERIFY(v != sorted);
        std::mt19937_64 g2(42);
        std::vector<Eigen::Index> w{0, 1, 2, 3, 4, 5, 6, 7};
        shuffle(w, g2);
        QCOMPARE(v, w);
        // Uniformity of the bounded draw: 60000 draws in [0, 6), each count 10000 ± 5σ (σ ≈ 91).
        std::mt19937_64 g3(7);
        int counts[6] = {};
        for (int i = 0; i < 60000; ++i)
            counts[boundedDraw(g3, 6)]++;
        for (int c : counts)
            QVERIFY2(std::abs(c - 10000) < 460, qPrintable(QString::number(c)));
    }

    void transposedCopyIsExact()
    {
        for (Eigen::Index rows : {7, 300}) {
            const Eigen::MatrixXd x = randomMatrix(rows, 257, 3);  // 300×257 takes the tiled path
            Eigen::MatrixXd xt;
            tbb::task_arena(2).execute([&] { xt = transposedCopy(x); });
            QCOMPARE(xt, Eigen::MatrixXd(x.transpose()));
        }
    }
};

QTEST_APPLESS_MAIN(TestBatchGradient)
#include "tst_batchgradient.moc"
