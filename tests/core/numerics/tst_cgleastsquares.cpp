// CgLeastSquares: CGLS against the closed form (known answers), the properties its anytime curve
// rests on (the objective never increases, iterate m does not depend on what follows, the same
// bits for any thread count), Stop, and bad input.
#include <numerics/CgLeastSquares.h>
#include <numerics/LeastSquares.h>

#include <StopMeter.h>

#include <QtTest>
#include <RandomMatrix.h>
#include <chrono>
#include <tbb/task_arena.h>
#include <thread>

using namespace tb::num;
using tb::testsupport::randomMatrix;

namespace {

// A with columns of very different scales: cond(AᵀA) ≈ 10⁴, so CG needs many iterations and the
// early iterates are far from the solution — an anytime curve with something to show.
Eigen::MatrixXd illConditioned(Eigen::Index n, Eigen::Index d, std::uint64_t seed)
{
    Eigen::MatrixXd a = randomMatrix(n, d, seed);
    for (Eigen::Index j = 0; j < d; ++j)
        a.col(j) *= std::pow(100.0, double(j) / double(d - 1));
    return a;
}

} // namespace

class TestCgLeastSquares : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void reachesTheClosedForm_data()
    {
        QTest::addColumn<double>("ridge");
        QTest::newRow("plain least squares") << 0.0;
        QTest::newRow("ridge 5") << 5.0;
    }
    void reachesTheClosedForm()
    {
        QFETCH(double, ridge);
        const Eigen::MatrixXd a = randomMatrix(300, 12, 1);
        const Eigen::MatrixXd b = randomMatrix(300, 3, 2);
        LeastSquaresOptions o;
        o.ridge = ridge;
        const Eigen::MatrixXd exact = solveLeastSquares(a, b, o);
        CgLeastSquares cg(a, b, ridge);
        // In exact arithmetic CG solves a d×d system in d iterations; a well-conditioned Gaussian
        // A (cond(AᵀA) ≈ 4) leaves rounding far below 1e-10 after 2d.
        QVERIFY(cg.iterateTo(24));
        QCOMPARE(cg.iterations(), 24);
        QVERIFY2((cg.solution() - exact).norm() <= 1e-10 * exact.norm(),
                 qPrintable(QString::number((cg.solution() - exact).norm() / exact.norm())));
        QVERIFY(cg.relativeNormalResidual() < 1e-10);
        QCOMPARE(cg.ridge(), ridge);
        const double objective = (a * exact - b).squaredNorm() + ridge * exact.squaredNorm();
        QVERIFY(std::abs(cg.objective() - objective) <= 1e-10 * objective);
    }

    void rankDeficientGivesTheMinimumNormSolution()
    {
        // Two copies of each column: AᵀA is singular; from W = 0, CG stays in the row space of A
        // and converges to the pseudo-inverse's solution, as the closed form's fallback does.
        const Eigen::MatrixXd half = randomMatrix(200, 5, 3);
        Eigen::MatrixXd a(200, 10);
        a << half, half;
        const Eigen::MatrixXd b = randomMatrix(200, 2, 4);
        const Eigen::MatrixXd exact = solveLeastSquares(a, b);
        CgLeastSquares cg(a, b, 0.0);
        QVERIFY(cg.iterateTo(20));
        QVERIFY2((cg.solution() - exact).norm() <= 1e-9 * exact.norm(),
                 qPrintable(QString::number((cg.solution() - exact).norm() / exact.norm())));
    }

    void objectiveNeverIncreases()
    {
        // Iterate m minimises the objective over the m-th Krylov space, and the spaces are nested:
        // in exact arithmetic the objective is non-increasing. The recurrence loses orthogonality
        // in floating point, so a rise of a few ulps relative to the value is allowed (1e-12).
        const Eigen::MatrixXd a = illConditioned(400, 30, 5);
        const Eigen::MatrixXd b = randomMatrix(400, 4, 6);
        CgLeastSquares cg(a, b, 0.0);
        double previous = cg.objective();
        QCOMPARE(previous, b.squaredNorm()); // W = 0
        for (int m = 1; m <= 60; ++m) {
            QVERIFY(cg.iterateTo(m));
            QVERIFY2(cg.objective() <= previous * (1 + 1e-12),
                     qPrintable(QString("iteration %1: %2 > %3").arg(m).arg(cg.objective()).arg(previous)));
            previous = cg.objective();
        }
        // The ill-conditioned problem is not solved in 5 iterations: the curve has a shape.
        CgLeastSquares early(a, b, 0.0);
        QVERIFY(early.iterateTo(5));
        QVERIFY(early.relativeNormalResidual() > 1e-3);
    }

    void iterateDoesNotDependOnWhatFollows()
    {
        // One run stopped at 3, 7 and 15 has, at each, exactly the iterate of a run of that many.
        const Eigen::MatrixXd a = illConditioned(500, 20, 7);
        const Eigen::MatrixXd b = randomMatrix(500, 3, 8);
        CgLeastSquares ladder(a, b, 0.5);
        for (int m : {3, 7, 15}) {
            QVERIFY(ladder.iterateTo(m));
            CgLeastSquares alone(a, b, 0.5);
            QVERIFY(alone.iterateTo(m));
            QVERIFY(ladder.solution() == alone.solution()); // bit for bit
            QCOMPARE(ladder.objective(), alone.objective());
        }
        QVERIFY(ladder.iterateTo(15)); // already there: nothing happens
        QCOMPARE(ladder.iterations(), 15);
    }

    void sameBitsForAnyThreadCount()
    {
        // Rows enough for many product blocks (d·k = 2000: 2000 rows a block, 15 blocks): the
        // partials of AᵀR are joined in a tree fixed by the block count, never by the scheduling.
        const Eigen::MatrixXd a = randomMatrix(30000, 100, 9);
        const Eigen::MatrixXd b = randomMatrix(30000, 20, 10);
        Eigen::MatrixXd one, two;
        tbb::task_arena(1).execute([&] {
            CgLeastSquares cg(a, b, 0.0);
            QVERIFY(cg.iterateTo(4));
            one = cg.solution();
        });
        tbb::task_arena(2).execute([&] {
            CgLeastSquares cg(a, b, 0.0);
            QVERIFY(cg.iterateTo(4));
            two = cg.solution();
        });
        QVERIFY(one == two);
    }

    void zeroRightHandSideStaysAtZero()
    {
        // AᵀB = 0: every step would be 0/0; the columns stay at W = 0 instead of becoming NaN.
        const Eigen::MatrixXd a = randomMatrix(50, 4, 11);
        const Eigen::MatrixXd b = Eigen::MatrixXd::Zero(50, 2);
        CgLeastSquares cg(a, b, 0.0);
        QVERIFY(cg.iterateTo(5));
        QVERIFY(cg.solution().isZero(0));
        QCOMPARE(cg.relativeNormalResidual(), 0.0);
        QCOMPARE(cg.objective(), 0.0);
    }

    void stopEndsAnIterationWithin200ms()
    {
        // 50000 × 200, 2 outputs: 8·10⁷ flops an iteration, so 1000 iterations take far longer
        // than the test waits; Stop must end iterateTo() between product blocks (10000 rows).
        // Checked by the work after Stop (CPU time, StopMeter), never by the wall clock.
        const Eigen::MatrixXd a = randomMatrix(50000, 200, 12);
        const Eigen::MatrixXd b = randomMatrix(50000, 2, 13);
        tb::StopSource stop;
        CgLeastSquares cg(a, b, 0.0, stop.token());
        QVERIFY(!cg.stopped());
        const auto call = tb::testsupport::runAndStop(stop, tb::testsupport::StopWhen{}, [&] { return cg.iterateTo(1000); });
        QVERIFY2(!call.endedBeforeStop, "1000 iterations ended before Stop: the test proves nothing");
        QVERIFY(!call.value);
        QVERIFY(cg.stopped());
        QVERIFY2(call.after.withinPromise(), qPrintable(call.after.describe()));
        QVERIFY(!cg.iterateTo(1001)); // spent
    }

    void badInputIsRefused()
    {
        const Eigen::MatrixXd a = randomMatrix(10, 3, 14);
        auto message = [](auto&& make) -> QString {
            try {
                make();
            } catch (const std::invalid_argument& e) {
                return QString::fromUtf8(e.what());
            }
            return {};
        };
        QVERIFY(message([&] { CgLeastSquares(a, randomMatrix(9, 1, 15), 0.0); }).contains("A has 10 rows, B has 9"));
        QVERIFY(message([&] { CgLeastSquares(a, randomMatrix(10, 1, 15), -1.0); }).contains("ridge"));
        Eigen::MatrixXd nan = a;
        nan(2, 1) = std::numeric_limits<double>::quiet_NaN();
        QVERIFY(message([&] { CgLeastSquares(nan, randomMatrix(10, 1, 15), 0.0); }).contains("NaN or Inf"));
        CgLeastSquares cg(a, randomMatrix(10, 1, 15), 0.0);
        QVERIFY(message([&] { cg.iterateTo(-1); }).contains("-1 iterations"));
    }
};

QTEST_GUILESS_MAIN(TestCgLeastSquares)
#include "tst_cgleastsquares.moc"
