// DesignMatrix: designs generated block by block, and the fused product–link–cross pass of
// generalized linear models, against plain Eigen on the same numbers.
#include <training/DesignMatrix.h>

#include <CpuTime.h>
#include <QtTest>
#include <RandomMatrix.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <future>
#include <random>
#include <thread>

using namespace tb::train;

namespace {

using tb::testsupport::randomMatrix;

// A fill that copies rows of @p src: generate() then holds src (rounded to float when mixed).
DesignMatrix::BlockFill copyOf(const Eigen::MatrixXd& src)
{
    return [&src](Eigen::Index r0, Eigen::Ref<Eigen::MatrixXd> block) { block = src.middleRows(r0, block.rows()); };
}

} // namespace

class TestDesignMatrix : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void generatedEqualsCopied_data()
    {
        QTest::addColumn<bool>("mixed");
        QTest::newRow("double") << false;
        QTest::newRow("mixed") << true;
    }
    void generatedEqualsCopied()
    {
        // 1300 rows: three generate() blocks, the last one partial. A design generated from the
        // rows of X holds the same numbers as one built from X, so every operation agrees bit
        // for bit on the same thread count.
        QFETCH(bool, mixed);
        const Precision prec = mixed ? Precision::Mixed : Precision::Double;
        const Eigen::MatrixXd x = randomMatrix(1300, 9, 1), y = randomMatrix(1300, 3, 2);
        tbb::task_arena arena(2);
        arena.execute([&] {
            const DesignMatrix copied(x, prec, false, false);
            const DesignMatrix generated = DesignMatrix::generate(x.rows(), x.cols(), prec, copyOf(x));
            QCOMPARE(generated.rows(), x.rows());
            QCOMPARE(generated.cols(), x.cols());
            QVERIFY(generated.allFinite());
            QVERIFY(!generated.stopped());
            QCOMPARE(generated.storedBytes(), (mixed ? 4.0 : 8.0) * double(x.size()));
            QVERIFY(generated.gram(true) == copied.gram(true));
            QVERIFY(generated.cross(y, true) == copied.cross(y, true));
            Eigen::MatrixXd z1, z2;
            const Eigen::MatrixXd w = randomMatrix(10, 3, 3);
            generated.product(w, true, z1);
            copied.product(w, true, z2);
            QVERIFY(z1 == z2);
        });
    }
    void generateFlagsNonFiniteBlocks()
    {
        Eigen::MatrixXd x = randomMatrix(700, 4, 4);
        x(650, 2) = std::numeric_limits<double>::quiet_NaN();
        for (const Precision p : {Precision::Double, Precision::Mixed})
            QVERIFY(!DesignMatrix::generate(x.rows(), x.cols(), p, copyOf(x)).allFinite());
    }
    void generateStops()
    {
        // A fill of 100 blocks of 20 ms each, on two threads. Stop after five blocks: the call
        // says it stopped, and after the flag at most the block under way on each thread and
        // one each began as the count was read are filled — counted, not timed, so a busy
        // machine cannot fail it.
        tb::StopSource stop;
        std::atomic<int> calls{0};
        const DesignMatrix::BlockFill slow = [&](Eigen::Index, Eigen::Ref<Eigen::MatrixXd> block) {
            ++calls;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            block.setZero();
        };
        auto fut = std::async(std::launch::async, [&] {
            DesignMatrix dm;
            tbb::task_arena(2).execute(
                [&] { dm = DesignMatrix::generate(100 * DesignMatrix::kGenerateBlock, 3, Precision::Mixed, slow, stop.token()); });
            return dm.stopped();
        });
        const bool started = tb::testsupport::waitUntil([&] { return calls >= 5; });
        const int atStop = calls;
        stop.requestStop();
        QVERIFY(fut.get());
        QVERIFY(started);
        QVERIFY2(calls - atStop <= 2 * 2, qPrintable(QString("%1 blocks after Stop").arg(calls - atStop)));
    }

    void wideMixedGramMatchesDouble()
    {
        // 1200 columns: the mixed Gram is accumulated in float blocks of ~1400 rows (so that Stop
        // is polled every ~10⁹ multiply-adds), three blocks here, the last one partial. Against
        // the double Gram of the same float-rounded numbers: float sums of ≤ 1400 products of
        // N(0,1) entries err by ~√1400·6e-8 ≈ 2e-6 relative, so 2e-5 in Frobenius norm leaves
        // margin while a dropped or doubled block (≥ 1/3 of the sum) fails by far.
        const Eigen::MatrixXd x = randomMatrix(3000, 1200, 21).cast<float>().cast<double>();
        const DesignMatrix mixed(x, Precision::Mixed, false, false), exact(x, Precision::Double, false, false);
        Eigen::MatrixXd gm, ge;
        tbb::task_arena(2).execute([&] {
            gm = mixed.gram(true);
            ge = exact.gram(true);
        });
        QCOMPARE(gm.rows(), Eigen::Index(1201));
        QVERIFY2((gm - ge).norm() <= 2e-5 * ge.norm(), qPrintable(QString::number((gm - ge).norm() / ge.norm())));
        QVERIFY(gm.isApprox(gm.transpose(), 0.0)); // both triangles filled
    }

    void productCrossMatchesProductThenCross_data()
    {
        QTest::addColumn<bool>("mixed");
        QTest::addColumn<bool>("bias");
        QTest::newRow("double, bias") << false << true;
        QTest::newRow("double") << false << false;
        QTest::newRow("mixed, bias") << true << true;
    }
    void productCrossMatchesProductThenCross()
    {
        // The link of a multinomial logistic model: R = softmax(Z) − Y, returning the block's
        // cross-entropy. The fused pass must give Xᵀ(softmax(XW) − Y) and the total loss.
        QFETCH(bool, mixed);
        QFETCH(bool, bias);
        const Eigen::Index n = 5000, d = 30, k = 4;
        const Eigen::MatrixXd x = randomMatrix(n, d, 5);
        Eigen::MatrixXd y = Eigen::MatrixXd::Zero(n, k);
        for (Eigen::Index i = 0; i < n; ++i)
            y(i, i % k) = 1.0;
        const Eigen::MatrixXd w = 0.1 * randomMatrix(d + (bias ? 1 : 0), k, 6);
        const auto link = [&](Eigen::Index r0, Eigen::Ref<Eigen::MatrixXd> z) {
            double loss = 0;
            for (Eigen::Index i = 0; i < z.rows(); ++i) {
                const double mx = z.row(i).maxCoeff();
                const Eigen::RowVectorXd e = (z.row(i).array() - mx).exp();
                const double s = e.sum();
                loss += -(z.row(i).dot(y.row(r0 + i)) - mx - std::log(s));
                z.row(i) = e / s - y.row(r0 + i);
            }
            return loss;
        };
        // Reference in double with plain Eigen.
        Eigen::MatrixXd a = x;
        if (bias) {
            a.conservativeResize(n, d + 1);
            a.col(d).setOnes();
        }
        Eigen::MatrixXd z = a * w;
        const double refLoss = link(0, z);
        const Eigen::MatrixXd ref = a.transpose() * z;
        tbb::task_arena arena(2);
        arena.execute([&] {
            const DesignMatrix dm(x, mixed ? Precision::Mixed : Precision::Double, false, false);
            double loss = 0;
            const Eigen::MatrixXd c = dm.productCross(w, bias, link, &loss);
            QCOMPARE(c.rows(), a.cols());
            QCOMPARE(c.cols(), k);
            // Double: the same sums in another order, ≈ 1e-15 relative. Mixed: inputs, products
            // and R in float (≈ 6e-8 each), summed over ≤ 4096 rows per block in float: 1e-5
            // relative bounds the rounding with room to spare; the loss is summed in double
            // from float products: 1e-6.
            const double tolC = mixed ? 1e-5 : 1e-12, tolL = mixed ? 1e-6 : 1e-13;
            QVERIFY2((c - ref).norm() <= tolC * ref.norm(), qPrintable(QString::number((c - ref).norm() / ref.norm())));
            QVERIFY2(std::abs(loss - refLoss) <= tolL * refLoss, qPrintable(QString::number(loss - refLoss)));
            // Same thread count, same bits.
            double loss2 = 0;
            QVERIFY(dm.productCross(w, bias, link, &loss2) == c);
            QCOMPARE(loss2, loss);
        });
    }
    void productCrossRefusesWrongWeights()
    {
        const DesignMatrix dm(randomMatrix(10, 3, 7), Precision::Double, false, false);
        const auto identity = [](Eigen::Index, Eigen::Ref<Eigen::MatrixXd>) { return 0.0; };
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, dm.productCross(randomMatrix(3, 2, 8), true, identity));
    }
    void fusedBlockKeepsABlockInCache()
    {
        QCOMPARE(DesignMatrix(randomMatrix(10, 1024, 9), Precision::Mixed, false, false).fusedBlockRows(), Eigen::Index(128));
        QCOMPARE(DesignMatrix(randomMatrix(10, 1024, 9), Precision::Double, false, false).fusedBlockRows(), Eigen::Index(64));
        QCOMPARE(DesignMatrix(randomMatrix(10, 2, 9), Precision::Double, false, false).fusedBlockRows(), Eigen::Index(4096));
    }
};

QTEST_APPLESS_MAIN(TestDesignMatrix)
#include "tst_designmatrix.moc"
