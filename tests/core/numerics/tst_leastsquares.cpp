#include <numerics/LeastSquares.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <QtTest>
#include <chrono>
#include <future>
#include <random>
#include <thread>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <RandomMatrix.h>
#include <StopMeter.h>

using namespace tb::num;

namespace {

using tb::testsupport::randomMatrix;
using tb::testsupport::runAndStop;
using tb::testsupport::StopWhen;
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
        // A wide problem whose Gram (n·d² = 2.4e10 multiply-adds) takes seconds on two cores.
        // Stop once 200 ms of CPU time went into it: the call must say it was interrupted, and
        // the work after Stop stay within the promise (the Gram polls between blocks of
        // stopPollRows(d) rows; StopMeter.h says why CPU time, not wall time).
        const Eigen::Index n = 12000, d = 1400;
        const Eigen::MatrixXd a = randomMatrix(n, d, 21), b = randomMatrix(n, 2, 22);
        // The eigen route (a singular system) runs on a thread of its own that the call abandons
        // on Stop: there only the calling thread's work counts.
        auto stopped = [](auto call, bool callingThread = false) {
            tb::StopSource stop;
            return runAndStop(stop, StopWhen{.cpuMs = 200, .callingThread = callingThread}, [&] {
                tb::num::LeastSquaresOptions opt;
                opt.stop = stop.token();
                tb::num::SolveReport r;
                tbb::task_arena(2).execute([&] { call(opt, r); });
                return r;
            });
        };
        const auto gram = stopped([&](const LeastSquaresOptions& opt, SolveReport& r) { solveLeastSquares(a, b, opt, &r); });
        QVERIFY2(!gram.endedBeforeStop, "the Gram of 12000 × 1400 ended before Stop");
        QVERIFY(gram.value.interrupted);
        qInfo("Gram: %s", qPrintable(gram.after.describe()));
        QVERIFY2(gram.after.withinPromise(), qPrintable(gram.after.describe()));
        // The factorisation alone of a large system, and the eigen fallback of a singular one.
        const Eigen::Index big = 3000;
        Eigen::MatrixXd spd = randomMatrix(big + 10, big, 23);
        const Eigen::MatrixXd g = spd.transpose() * spd;
        Eigen::MatrixXd rankDeficient = g;
        rankDeficient.col(0) = rankDeficient.col(1);  // symmetric, singular after the row copy too
        rankDeficient.row(0) = rankDeficient.row(1);
        for (const Eigen::MatrixXd* m : std::vector<const Eigen::MatrixXd*>{&g, &rankDeficient}) {
            const auto f = stopped([&](const LeastSquaresOptions& opt, SolveReport& r) {
                solveNormalEquations(*m, Eigen::MatrixXd::Ones(big, 1), opt, &r);
            }, m == &rankDeficient);
            const char* what = m == &g ? "positive definite" : "singular";
            qInfo("%s: %s, %s", what, f.value.interrupted ? "interrupted" : "finished before Stop",
                  qPrintable(f.after.describe()));
            QVERIFY2(f.endedBeforeStop || f.value.interrupted, what);
            QVERIFY2(f.after.withinPromise(), qPrintable(QString(what) + ": " + f.after.describe()));
        }
    }

    void factorServesManyRightHandSides()
    {
        // One factorisation, several right-hand sides: each solve equals the one-shot solve
        // bit for bit (solveNormalEquations() is factorise() then solve()), and solves the
        // ridge system to rounding (cond(G + λI) ≈ 10: 1e-12 relative is generous).
        const Eigen::MatrixXd a = randomMatrix(300, 12, 31);
        const Eigen::MatrixXd g = a.transpose() * a;
        LeastSquaresOptions opt;
        opt.ridge = 0.5;
        NormalEquationsFactor f;
        SolveReport rep;
        QVERIFY(f.factorise(g, opt, &rep));
        QVERIFY(f.isFactorised());
        QCOMPARE(f.dimension(), Eigen::Index(12));
        QCOMPARE(rep.method, SolveReport::Method::Cholesky);
        QCOMPARE(f.report().ridgeUsed, 0.5);
        Eigen::MatrixXd m = g;
        m.diagonal().array() += 0.5;
        for (unsigned seed = 40; seed < 43; ++seed) {
            const Eigen::MatrixXd c = randomMatrix(12, 1 + seed % 3, seed);
            const Eigen::MatrixXd w = f.solve(c);
            QVERIFY(w == solveNormalEquations(g, c, opt));
            QVERIFY((m * w - c).norm() <= 1e-12 * m.norm() * w.norm());
        }
        // Misuse is an error, not a crash.
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, f.solve(randomMatrix(11, 1, 1)));
        QVERIFY_THROWS_EXCEPTION(std::logic_error, NormalEquationsFactor().solve(randomMatrix(12, 1, 1)));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, NormalEquationsFactor().factorise(randomMatrix(3, 4, 1)));
    }
    void singularFactorGivesMinimumNormSolutions()
    {
        // A duplicated column makes G singular: the factor falls back to the pseudo-inverse, and
        // each solve is the minimum-norm solution — it solves the consistent system and has no
        // component along the null vector e₀ − e₁.
        Eigen::MatrixXd a = randomMatrix(100, 6, 51);
        a.col(1) = a.col(0);
        const Eigen::MatrixXd g = a.transpose() * a;
        NormalEquationsFactor f;
        QVERIFY(f.factorise(g));
        QVERIFY(f.report().fallback);
        QCOMPARE(f.report().rank, Eigen::Index(5));
        const Eigen::MatrixXd c = a.transpose() * randomMatrix(100, 2, 52);
        const Eigen::MatrixXd w = f.solve(c);
        // Rounding of the eigen route: ≈ cond·ε of the kept space (≈ 10·1e-16); 1e-10 is generous.
        QVERIFY((g * w - c).norm() <= 1e-10 * c.norm());
        QVERIFY(std::abs((w.row(0) - w.row(1)).norm()) <= 1e-10 * w.norm());
    }
    void symmetricEigenMatchesEigen()
    {
        const Eigen::MatrixXd a = randomMatrix(80, 30, 61);
        const Eigen::MatrixXd g = a.transpose() * a;
        const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> ref(g);
        tb::StopSource never;
        for (const tb::StopToken t : {tb::StopToken(), never.token()}) {
            const auto e = symmetricEigen(g, true, t);
            QVERIFY(e.has_value());
            QVERIFY(e->values == ref.eigenvalues()); // the same solver on the same matrix
            QVERIFY(e->vectors == ref.eigenvectors());
            const auto v = symmetricEigen(g, false, t);
            QVERIFY(v && v->vectors.size() == 0);
            QVERIFY((v->values - ref.eigenvalues()).norm() <= 1e-12 * ref.eigenvalues().norm());
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, symmetricEigen(randomMatrix(3, 4, 1), false));
        Eigen::MatrixXd bad = g;
        bad(3, 2) = std::numeric_limits<double>::infinity();
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, symmetricEigen(bad, false));
        // Stop: an eigendecomposition of order 1500 takes seconds; the call returns at once.
        const Eigen::MatrixXd big = [&] {
            const Eigen::MatrixXd b = randomMatrix(1600, 1500, 62);
            return Eigen::MatrixXd(b.transpose() * b);
        }();
        tb::StopSource stop;
        // The solver runs on a thread of its own that the call abandons: the calling thread's work counts.
        const auto r = runAndStop(stop, StopWhen{.cpuMs = 50, .callingThread = true},
                                  [&] { return symmetricEigen(big, true, stop.token()); });
        QVERIFY2(!r.endedBeforeStop, "the eigendecomposition of order 1500 ended before Stop");
        QVERIFY(!r.value.has_value());
        QVERIFY2(r.after.withinPromise(), qPrintable(r.after.describe()));
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
