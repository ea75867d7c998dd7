#include "LeastSquares.h"

#include <Eigen/Cholesky>
#include <QtTest>
#include <random>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>

using namespace tb::num;

namespace {
Eigen::MatrixXd randomMatrix(Eigen::Index r, Eigen::Index c, unsigned seed)
{
    std::mt19937_64 gen(seed);
    std::normal_distribution<double> nd;
    Eigen::MatrixXd m(r, c);
    for (Eigen::Index j = 0; j < c; ++j)
        for (Eigen::Index i = 0; i < r; ++i)
            m(i, j) = nd(gen);
    return m;
}
} // namespace

class TestLeastSquares : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void gramMatchesProductForAnyChunking_data()
    {
        QTest::addColumn<int>("chunkRows");
        QTest::newRow("per-thread") << 0;
        QTest::newRow("7 rows") << 7;
        QTest::newRow("1000 rows") << 1000;
    }
    void gramMatchesProductForAnyChunking()
    {
        QFETCH(int, chunkRows);
        const Eigen::MatrixXd a = randomMatrix(1003, 17, 1);
        const Eigen::MatrixXd ref = a.transpose() * a;
        const Eigen::MatrixXd g = gram(a, chunkRows);
        // Sums of 1003 products of O(1) numbers: rounding differences stay near 1e-12 relative.
        QVERIFY((g - ref).norm() <= 1e-12 * ref.norm());
        QVERIFY((g - g.transpose()).norm() == 0.0);
    }
    void exactSolutionRecovered()
    {
        const Eigen::MatrixXd a = randomMatrix(200, 10, 2);
        const Eigen::MatrixXd w = randomMatrix(10, 4, 3);
        const Eigen::MatrixXd b = a * w;
        SolveReport rep;
        const Eigen::MatrixXd got = solveLeastSquares(a, b, {}, &rep);
        // Well-conditioned Gaussian A (cond(AᵀA) ~ 10): normal equations lose ~cond·ε.
        QVERIFY2((got - w).norm() < 1e-10 * w.norm(), rep.summary().c_str());
        QVERIFY(rep.method == SolveReport::Method::Cholesky);
        QCOMPARE(rep.rank, Eigen::Index(10));
        QVERIFY(!rep.fallback);
    }
    void ridgeMatchesClosedForm()
    {
        const Eigen::MatrixXd a = randomMatrix(50, 5, 4);
        const Eigen::MatrixXd b = randomMatrix(50, 2, 5);
        LeastSquaresOptions o;
        o.ridge = 3.0;
        SolveReport rep;
        const Eigen::MatrixXd got = solveLeastSquares(a, b, o, &rep);
        const Eigen::MatrixXd ref =
            (a.transpose() * a + 3.0 * Eigen::MatrixXd::Identity(5, 5)).ldlt().solve(a.transpose() * b);
        QVERIFY((got - ref).norm() < 1e-12 * ref.norm());
        QCOMPARE(rep.ridgeUsed, 3.0);
    }
    void singularSystemFallsBackToMinimumNorm()
    {
        // Duplicate a column: AᵀA is exactly singular. The minimum-norm solution splits the
        // weight of the duplicated column evenly, and the fit stays exact.
        Eigen::MatrixXd a = randomMatrix(100, 4, 6);
        a.col(3) = a.col(2);
        Eigen::MatrixXd w(4, 1);
        w << 1, -2, 3, 0;
        const Eigen::MatrixXd b = a * w;
        SolveReport rep;
        const Eigen::MatrixXd got = solveLeastSquares(a, b, {}, &rep);
        QVERIFY(rep.fallback);
        QVERIFY(rep.method == SolveReport::Method::EigenPseudoInverse);
        QCOMPARE(rep.rank, Eigen::Index(3));
        QVERIFY(!rep.reason.empty());
        QVERIFY((a * got - b).norm() < 1e-8 * b.norm());
        QVERIFY(std::abs(got(2, 0) - 1.5) < 1e-8 && std::abs(got(3, 0) - 1.5) < 1e-8);
    }
    void zeroMatrixGivesZeroWeights()
    {
        const Eigen::MatrixXd a = Eigen::MatrixXd::Zero(10, 3);
        const Eigen::MatrixXd b = Eigen::MatrixXd::Ones(10, 2);
        SolveReport rep;
        const Eigen::MatrixXd got = solveLeastSquares(a, b, {}, &rep);
        QCOMPARE(rep.rank, Eigen::Index(0));
        QVERIFY(got.isZero(0));
    }
    void nanAndShapeErrorsThrowWithMessage()
    {
        Eigen::MatrixXd a = randomMatrix(10, 3, 7);
        const Eigen::MatrixXd b = randomMatrix(10, 1, 8);
        a(4, 1) = std::numeric_limits<double>::quiet_NaN();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, solveLeastSquares(a, b));
        try {
            solveLeastSquares(randomMatrix(10, 3, 1), randomMatrix(9, 1, 1));
            QFAIL("no exception");
        } catch (const std::invalid_argument& e) {
            QVERIFY(QString(e.what()).contains("10 rows but B has 9"));
        }
    }
    void sameThreadCountSameBits()
    {
        const Eigen::MatrixXd a = randomMatrix(5000, 40, 9);
        const Eigen::MatrixXd b = randomMatrix(5000, 3, 10);
        tbb::task_arena arena(2);
        Eigen::MatrixXd w1, w2;
        arena.execute([&] { w1 = solveLeastSquares(a, b); });
        arena.execute([&] { w2 = solveLeastSquares(a, b); });
        QVERIFY(w1 == w2);
    }
};

QTEST_APPLESS_MAIN(TestLeastSquares)
#include "tst_leastsquares.moc"
