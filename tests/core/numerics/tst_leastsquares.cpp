#include "LeastSquares.h"

#include <Eigen/Cholesky>
#include <QtTest>
#include <chrono>
#include <future>
#include <random>
#include <thread>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <RandomMatrix.h>

using namespace tb::num;

namespace {

using tb::testsupport::randomMatrix;
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
    void blockedCholeskyMatchesEigensLlt()
    {
        // d ≥ kBlockedCholeskyMin with a stop token that never fires: the stoppable blocked
        // factorisation. Against Eigen's LLT on the same system: both are backward stable, so
        // the solutions agree to cond·ε ≈ 1e3·1e-16; 1e-9 relative is generous.
        const Eigen::Index d = tb::num::kBlockedCholeskyMin + 77;
        const Eigen::MatrixXd a = randomMatrix(d + 300, d, 11), b = randomMatrix(d + 300, 3, 12);
        tb::StopSource never;
        tb::num::LeastSquaresOptions opt;
        opt.stop = never.token();
        tb::num::SolveReport rep;
        Eigen::MatrixXd w;
        tbb::task_arena(2).execute([&] { w = tb::num::solveLeastSquares(a, b, opt, &rep); });
        QVERIFY(!rep.interrupted);
        QCOMPARE(rep.method, tb::num::SolveReport::Method::Cholesky);
        const Eigen::MatrixXd g = a.transpose() * a;
        const Eigen::MatrixXd ref = g.llt().solve(a.transpose() * b);
        QVERIFY2((w - ref).norm() <= 1e-9 * ref.norm(), qPrintable(QString::number((w - ref).norm() / ref.norm())));
        // A matrix that is not positive definite is refused by the blocked path as by LLT.
        Eigen::MatrixXd singular = randomMatrix(50, d, 13);  // rank 50 < d: the eigen fallback runs
        tbb::task_arena(2).execute([&] { w = tb::num::solveLeastSquares(singular, randomMatrix(50, 1, 14), opt, &rep); });
        QVERIFY(rep.fallback);
        QCOMPARE(rep.rank, Eigen::Index(50));
    }

    void stopInterruptsGramAndFactorisation()
    {
        // A wide problem whose Gram (n·d² = 2.4e10 multiply-adds) takes well over a second on
        // two cores; Stop after 100 ms must end the call within 200 ms of the request.
        const Eigen::Index n = 12000, d = 1400;
        const Eigen::MatrixXd a = randomMatrix(n, d, 21), b = randomMatrix(n, 2, 22);
        // A shared 2-core machine delays threads now and then: the best of two attempts counts.
        auto timedStopOnce = [&](auto call) {
            tb::StopSource stop;
            auto fut = std::async(std::launch::async, [&] { return call(stop.token()); });
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            const auto t0 = std::chrono::steady_clock::now();
            stop.requestStop();
            const auto rep = fut.get();
            return std::make_pair(rep, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        };
        auto timedStop = [&](auto call) {
            auto first = timedStopOnce(call);
            if (first.second < 200)
                return first;
            auto second = timedStopOnce(call);
            return second.second < first.second ? second : first;
        };
        const auto [rep, ms] = timedStop([&](tb::StopToken t) {
            tb::num::LeastSquaresOptions opt;
            opt.stop = t;
            tb::num::SolveReport r;
            tbb::task_arena(2).execute([&] { tb::num::solveLeastSquares(a, b, opt, &r); });
            return r;
        });
        QVERIFY(rep.interrupted);
        QVERIFY2(ms < 200, qPrintable(QString("returned %1 ms after Stop").arg(ms)));
        // The factorisation alone of a large system, and the eigen fallback of a singular one.
        const Eigen::Index big = 3000;
        Eigen::MatrixXd spd = randomMatrix(big + 10, big, 23);
        const Eigen::MatrixXd gram = spd.transpose() * spd;
        Eigen::MatrixXd rankDeficient = gram;
        rankDeficient.col(0) = rankDeficient.col(1);  // symmetric, singular after the row copy too
        rankDeficient.row(0) = rankDeficient.row(1);
        for (const Eigen::MatrixXd* m : std::vector<const Eigen::MatrixXd*>{&gram, &rankDeficient}) {
            const auto [r2, ms2] = timedStop([&](tb::StopToken t) {
                tb::num::LeastSquaresOptions opt;
                opt.stop = t;
                tb::num::SolveReport r;
                tbb::task_arena(2).execute([&] { tb::num::solveNormalEquations(*m, Eigen::MatrixXd::Ones(big, 1), opt, &r); });
                return r;
            });
            qInfo("%s: %s, %.1f ms after Stop", m == &gram ? "positive definite" : "singular",
                  r2.interrupted ? "interrupted" : "finished before Stop", ms2);
            QVERIFY2(ms2 < 200, qPrintable(QString("returned %1 ms after Stop").arg(ms2)));
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
