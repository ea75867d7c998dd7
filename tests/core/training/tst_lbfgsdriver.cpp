// The L-BFGS driver and the Armijo search on objectives with known minima: convergence,
// determinism, a line search that cannot succeed reported as an outcome (never an exception),
// non-finite values, Stop mid-search, the iteration callback.
#include <training/ArmijoSearch.h>
#include <training/LbfgsDriver.h>

#include <QtTest>
#include <cmath>
#include <limits>

using namespace tb::train;

namespace {

// The Rosenbrock function in p dimensions (minimum 0 at (1, …, 1)).
class Rosenbrock final : public Objective {
public:
    explicit Rosenbrock(Eigen::Index p) : m_p(p) {}
    Eigen::Index dimension() const override { return m_p; }
    double evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& g) override
    {
        ++calls;
        g.setZero(m_p);
        double f = 0;
        for (Eigen::Index i = 0; i + 1 < m_p; ++i) {
            const double a = w(i + 1) - w(i) * w(i), b = 1 - w(i);
            f += 100 * a * a + b * b;
            g(i) += -400 * w(i) * a - 2 * b;
            g(i + 1) += 200 * a;
        }
        return f;
    }
    int calls = 0;

private:
    Eigen::Index m_p;
};

// f(w) = ½‖w − c‖²: converges in one strong-Wolfe step.
class Quadratic final : public Objective {
public:
    explicit Quadratic(Eigen::VectorXd c) : m_c(std::move(c)) {}
    Eigen::Index dimension() const override { return m_c.size(); }
    double evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& g) override
    {
        g = w - m_c;
        return 0.5 * g.squaredNorm();
    }

private:
    Eigen::VectorXd m_c;
};

// A gradient that lies: it claims the opposite of the true slope of f(w) = w², so no step along
// −g decreases f and every line search must fail.
class LyingGradient final : public Objective {
public:
    Eigen::Index dimension() const override { return 1; }
    double evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& g) override
    {
        g.resize(1);
        g(0) = -2 * w(0);
        return w(0) * w(0);
    }
};

// Finite until |w| exceeds 2, NaN beyond: a line search that overshoots meets NaN.
class Cliff final : public Objective {
public:
    Eigen::Index dimension() const override { return 1; }
    double evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& g) override
    {
        g.resize(1);
        if (std::abs(w(0)) > 2) {
            g(0) = std::numeric_limits<double>::quiet_NaN();
            return std::numeric_limits<double>::quiet_NaN();
        }
        g(0) = -1;  // keeps pointing right, towards the cliff
        return -w(0);
    }
};

// Requests a stop from inside its n-th evaluation (as a user pressing Stop mid-search).
class StopsAt final : public Objective {
public:
    StopsAt(tb::StopSource& s, int at) : m_source(s), m_at(at) {}
    Eigen::Index dimension() const override { return 3; }
    double evaluate(const Eigen::VectorXd& w, Eigen::VectorXd& g) override
    {
        if (++calls == m_at)
            m_source.requestStop();
        return m_inner.evaluate(w, g);
    }
    int calls = 0;

private:
    tb::StopSource& m_source;
    int m_at;
    Rosenbrock m_inner{3};
};

} // namespace

class TestLbfgsDriver : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rosenbrockConverges()
    {
        Rosenbrock f(10);
        Eigen::VectorXd w = Eigen::VectorXd::Constant(10, -1.2);
        LbfgsSettings s;
        s.maxIterations = 1000;
        s.epsilon = 1e-8;
        int reported = 0;
        const LbfgsReport r = LbfgsDriver(s).minimise(f, w, [&](const LbfgsIterate& it) {
            ++reported;
            return it.iteration == reported;  // iterations are reported 1, 2, 3 … in order
        });
        QCOMPARE(r.outcome, LbfgsOutcome::Converged);
        QCOMPARE(r.iterations, reported);
        QCOMPARE(r.evaluations, (long long)f.calls);
        // ‖∇f‖ ≤ 1e-8 near the minimum, where f's Hessian has eigenvalues ≤ ~1000: the error in w
        // is then ≲ 1e-8 / λ_min·… — 1e-6 leaves room.
        QVERIFY2((w - Eigen::VectorXd::Ones(10)).norm() < 1e-6, qPrintable(QString::number((w.array() - 1).abs().maxCoeff())));
        QVERIFY(r.value < 1e-12);
        // Armijo backtracking gets there too, in more iterations.
        Eigen::VectorXd w2 = Eigen::VectorXd::Constant(10, -1.2);
        s.lineSearch = LbfgsSettings::LineSearch::Armijo;
        const LbfgsReport r2 = LbfgsDriver(s).minimise(f, w2);
        QCOMPARE(r2.outcome, LbfgsOutcome::Converged);
        QVERIFY((w2 - Eigen::VectorXd::Ones(10)).norm() < 1e-6);
    }

    void sameStartSameIterates()
    {
        Rosenbrock f(6), g(6);
        Eigen::VectorXd a = Eigen::VectorXd::LinSpaced(6, -1, 1), b = a;
        std::vector<double> va, vb;
        LbfgsDriver d(LbfgsSettings{});
        d.minimise(f, a, [&](const LbfgsIterate& it) { va.push_back(it.value); return true; });
        d.minimise(g, b, [&](const LbfgsIterate& it) { vb.push_back(it.value); return true; });
        QCOMPARE(va, vb);
        QCOMPARE(a, b);
    }

    void convergedAtTheStart()
    {
        Quadratic f(Eigen::Vector3d(1, 2, 3));
        Eigen::VectorXd w = Eigen::Vector3d(1, 2, 3);
        const LbfgsReport r = LbfgsDriver(LbfgsSettings{}).minimise(f, w);
        QCOMPARE(r.outcome, LbfgsOutcome::Converged);
        QCOMPARE(r.iterations, 0);
        QCOMPARE(r.evaluations, 1LL);
    }

    void failedLineSearchIsAnOutcomeNotAnException()
    {
        LyingGradient f;
        Eigen::VectorXd w(1);
        w << 1.0;
        LbfgsReport r;
        try {
            r = LbfgsDriver(LbfgsSettings{}).minimise(f, w);
        } catch (const std::exception& e) {
            QFAIL(qPrintable(QString("threw: ") + e.what()));
        }
        QCOMPARE(r.outcome, LbfgsOutcome::LineSearchFailed);
        QCOMPARE(r.failedAt, 1);
        QVERIFY(!r.lineSearchError.empty());
        QCOMPARE(w(0), 1.0);  // the last accepted point: the start
        QCOMPARE(r.value, 1.0);
        // The caller's fallback: an Armijo step along the (lying) gradient finds no decrease
        // either and leaves w alone; on an honest objective it decreases f.
        Eigen::VectorXd g(1);
        const double f0 = f.evaluate(w, g);
        const ArmijoResult a = armijoStep(f, w, f0, g);
        QVERIFY(!a.accepted);
        QCOMPARE(w(0), 1.0);
        Quadratic q(Eigen::Vector2d(0, 0));
        Eigen::VectorXd v = Eigen::Vector2d(3, -4), gv;
        const double q0 = q.evaluate(v, gv);
        const ArmijoResult b = armijoStep(q, v, q0, gv, ArmijoSettings{}, /*updateGradient=*/true);
        QVERIFY(b.accepted);
        // α = 1 on ½‖w‖² lands exactly on the minimum: f = 0 ≤ 12.5 − 1e-4·25.
        QCOMPARE(b.step, 1.0);
        QCOMPARE(b.value, 0.0);
        QCOMPARE(gv.norm(), 0.0);
    }

    void nonFiniteValuesAreReported()
    {
        Cliff f;
        Eigen::VectorXd w(1);
        w << 0.0;
        LbfgsSettings s;
        s.lineSearch = LbfgsSettings::LineSearch::Armijo;  // grows nothing: the first step overshoots
        const LbfgsReport r = LbfgsDriver(s).minimise(f, w);
        // Either the search backs off below the cliff and keeps going, or it ends cleanly; it
        // never returns a non-finite point.
        QVERIFY(std::isfinite(w(0)) && std::abs(w(0)) <= 2);
        QVERIFY(r.outcome != LbfgsOutcome::Converged);
        // A non-finite start is reported as such at iteration 0.
        Eigen::VectorXd far(1);
        far << 5.0;
        const LbfgsReport r2 = LbfgsDriver(s).minimise(f, far);
        QCOMPARE(r2.outcome, LbfgsOutcome::NonFinite);
        QCOMPARE(r2.failedAt, 0);
    }

    void stopMidSearchKeepsTheAcceptedPoint()
    {
        tb::StopSource stop;
        StopsAt f(stop, 7);
        Eigen::VectorXd w = Eigen::Vector3d(-1.2, 1, -1.2);
        std::vector<Eigen::VectorXd> accepted{w};
        const LbfgsReport r = LbfgsDriver(LbfgsSettings{}, stop.token()).minimise(f, w, [&](const LbfgsIterate& it) {
            accepted.push_back(it.w);
            return true;
        });
        QCOMPARE(r.outcome, LbfgsOutcome::Stopped);
        QCOMPARE(f.calls, 7);             // nothing evaluated after the stop
        QCOMPARE(w, accepted.back());     // the last accepted iterate, not a trial point
        // A stop requested before the start evaluates nothing.
        StopsAt g(stop, 1);
        Eigen::VectorXd v = Eigen::Vector3d(0, 0, 0);
        QCOMPARE(LbfgsDriver(LbfgsSettings{}, stop.token()).minimise(g, v).outcome, LbfgsOutcome::Stopped);
        QCOMPARE(g.calls, 0);
    }

    void callbackHaltsAndSmallDecreaseStops()
    {
        Rosenbrock f(4);
        Eigen::VectorXd w = Eigen::VectorXd::Constant(4, -1.0);
        const LbfgsReport r = LbfgsDriver(LbfgsSettings{}).minimise(f, w, [](const LbfgsIterate& it) {
            return it.iteration < 3;
        });
        QCOMPARE(r.outcome, LbfgsOutcome::Halted);
        QCOMPARE(r.iterations, 3);
        LbfgsSettings s;
        s.relativeDecrease = 0.5;  // any step that does not halve f ends the run
        s.maxIterations = 1000;
        Eigen::VectorXd v = Eigen::VectorXd::Constant(4, -1.0);
        const LbfgsReport r2 = LbfgsDriver(s).minimise(f, v);
        QCOMPARE(r2.outcome, LbfgsOutcome::SmallDecrease);
        QVERIFY(r2.iterations < 1000);
    }

    void settingsAreChecked()
    {
        LbfgsSettings s;
        s.memory = 0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LbfgsDriver{s});
        s = LbfgsSettings{};
        s.wolfe = s.ftol / 2;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LbfgsDriver{s});
        ArmijoSettings a;
        a.shrink = 1.0;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, a.check());
        Rosenbrock f(3);
        Eigen::VectorXd wrong(2);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, LbfgsDriver(LbfgsSettings{}).minimise(f, wrong));
    }
};

QTEST_GUILESS_MAIN(TestLbfgsDriver)
#include "tst_lbfgsdriver.moc"
