// The update rules of the first-order methods, checked against their textbook formulas on a
// two-parameter quadratic f(w) = ½(4·w₁² + w₂²), ∇f = (4·w₁, w₂).
#include <training/Optimizer.h>

#include <numerics/FlushSubnormals.h>
#include <numerics/Mlp.h>

#include <QtTest>
#include <cfloat>
#include <cmath>

using namespace tb::train;

Q_DECLARE_METATYPE(tb::train::Method)

namespace {

Eigen::Vector2d grad(const Eigen::Vector2d& w)
{
    return {4.0 * w(0), w(1)};
}

// The rules written out independently of Optimizer, one step at a time (t from 1).
struct Reference {
    OptimizerSettings s;
    Eigen::Vector2d a = Eigen::Vector2d::Zero();  // v, s or m
    Eigen::Vector2d b = Eigen::Vector2d::Zero();  // Adam's v
    int t = 0;

    void step(double lr, Eigen::Vector2d& w, Eigen::Vector2d g)
    {
        ++t;
        g += s.weightDecay * w;
        for (int i = 0; i < 2; ++i) {
            switch (s.method) {
            case Method::Sgd:
                w(i) = w(i) - lr * g(i);
                break;
            case Method::Momentum:
                a(i) = s.momentum * a(i) + g(i);
                w(i) = w(i) - lr * a(i);
                break;
            case Method::Nag:
                a(i) = s.momentum * a(i) + g(i);
                w(i) = w(i) - lr * (g(i) + s.momentum * a(i));
                break;
            case Method::AdaGrad:
                a(i) = a(i) + g(i) * g(i);
                w(i) = w(i) - lr * g(i) / (std::sqrt(a(i)) + s.epsilon);
                break;
            case Method::RmsProp:
                a(i) = s.rho * a(i) + (1 - s.rho) * g(i) * g(i);
                w(i) = w(i) - lr * g(i) / (std::sqrt(a(i)) + s.epsilon);
                break;
            case Method::Adam: {
                a(i) = s.beta1 * a(i) + (1 - s.beta1) * g(i);
                b(i) = s.beta2 * b(i) + (1 - s.beta2) * g(i) * g(i);
                const double mHat = a(i) / (1 - std::pow(s.beta1, t));
                const double vHat = b(i) / (1 - std::pow(s.beta2, t));
                w(i) = w(i) - lr * mHat / (std::sqrt(vHat) + s.epsilon);
                break;
            }
            }
        }
    }
};

OptimizerSettings settings(Method m, double weightDecay = 0.0)
{
    OptimizerSettings s;
    s.method = m;
    s.momentum = 0.8;
    s.rho = 0.7;
    s.beta1 = 0.85;
    s.beta2 = 0.95;
    s.epsilon = 1e-3;  // large enough to matter in the comparison
    s.weightDecay = weightDecay;
    return s;
}

} // namespace

class TestOptimizer : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void firstStepByHand()
    {
        // w₀ = (1, −2), g₀ = (4, −2), η = 0.1; the numbers below are worked out by hand.
        const Eigen::Vector2d w0(1.0, -2.0);
        auto after = [&](Method m) {
            Optimizer opt(settings(m), 2);
            Eigen::Vector2d w = w0;
            opt.beginStep();
            opt.apply(0.1, 0, w, grad(w));
            return w;
        };
        // SGD: w − ηg = (1 − 0.4, −2 + 0.2).
        QVERIFY((after(Method::Sgd) - Eigen::Vector2d(0.6, -1.8)).norm() < 1e-15);
        // Momentum: v = g, w − ηv: the same first step.
        QVERIFY((after(Method::Momentum) - Eigen::Vector2d(0.6, -1.8)).norm() < 1e-15);
        // NAG: v = g, w − η(g + μv) = w − 0.1·1.8·g = (1 − 0.72, −2 + 0.36).
        QVERIFY((after(Method::Nag) - Eigen::Vector2d(0.28, -1.64)).norm() < 1e-15);
        // AdaGrad: s = g², w − ηg/(|g| + ε) = w − 0.1·sign(g)·|g|/(|g| + 0.001).
        const Eigen::Vector2d ada(1.0 - 0.1 * 4.0 / 4.001, -2.0 + 0.1 * 2.0 / 2.001);
        QVERIFY((after(Method::AdaGrad) - ada).norm() < 1e-15);
        // RMSProp (ρ = 0.7): s = 0.3·g², w − ηg/(√0.3·|g| + ε).
        const double r = std::sqrt(0.3);
        const Eigen::Vector2d rms(1.0 - 0.4 / (r * 4.0 + 1e-3), -2.0 + 0.2 / (r * 2.0 + 1e-3));
        QVERIFY((after(Method::RmsProp) - rms).norm() < 1e-15);
        // Adam: m̂ = g, v̂ = g², w − ηg/(|g| + ε): the same first step as AdaGrad.
        QVERIFY((after(Method::Adam) - ada).norm() < 1e-15);
    }

    void rulesMatchFormulas_data()
    {
        QTest::addColumn<Method>("method");
        QTest::addColumn<double>("weightDecay");
        QTest::newRow("sgd") << Method::Sgd << 0.0;
        QTest::newRow("momentum") << Method::Momentum << 0.0;
        QTest::newRow("nag") << Method::Nag << 0.0;
        QTest::newRow("adagrad") << Method::AdaGrad << 0.0;
        QTest::newRow("rmsprop") << Method::RmsProp << 0.0;
        QTest::newRow("adam") << Method::Adam << 0.0;
        QTest::newRow("sgd decay") << Method::Sgd << 0.3;
        QTest::newRow("nag decay") << Method::Nag << 0.3;
        QTest::newRow("adam decay") << Method::Adam << 0.3;
    }
    void rulesMatchFormulas()
    {
        QFETCH(Method, method);
        QFETCH(double, weightDecay);
        Optimizer opt(settings(method, weightDecay), 2);
        Reference ref{settings(method, weightDecay)};
        Eigen::Vector2d w(1.0, -2.0), wr = w;
        for (int t = 0; t < 25; ++t) {
            const double lr = 0.05 / (1 + 0.1 * t);  // a changing rate, as a schedule gives
            opt.beginStep();
            opt.apply(lr, 0, w, grad(w));
            ref.step(lr, wr, grad(wr));
            // Same formulas; Adam folds its bias corrections into η and ε, which moves the
            // last bits: 1e-14 relative is rounding, any wrong term is orders larger.
            QVERIFY2((w - wr).norm() <= 1e-14 * std::max(1.0, wr.norm()),
                     qPrintable(QString("step %1: %2 %3 vs %4 %5").arg(t + 1).arg(w(0)).arg(w(1)).arg(wr(0)).arg(wr(1))));
        }
        QCOMPARE(opt.steps(), 25LL);
        // The quadratic's minimum is 0: every method (with these settings) moved towards it.
        QVERIFY(w.norm() < Eigen::Vector2d(1.0, -2.0).norm());
    }

    void stateIsPerParameterAndPersists()
    {
        // Two blocks updated separately (as layers are) equal one update of the whole vector,
        // and the state carried from step to step is what makes step 2 differ from a fresh start.
        Optimizer whole(settings(Method::Adam), 4), split(settings(Method::Adam), 4);
        Eigen::Vector4d w(1, -2, 0.5, 3), ws = w;
        const Eigen::Vector4d g1(0.1, -0.2, 0.3, 0.4), g2(-0.5, 0.1, 0.2, -0.3);
        for (const Eigen::Vector4d& g : {g1, g2}) {
            whole.beginStep();
            whole.apply(0.01, 0, w, g);
            split.beginStep();
            split.apply(0.01, 0, ws.head(2), g.head(2));
            split.apply(0.01, 2, ws.tail(2), g.tail(2));
        }
        QCOMPARE(w, ws);
        QVERIFY(whole.state1().norm() > 0 && whole.state2().norm() > 0);
        Optimizer fresh(settings(Method::Adam), 4);
        Eigen::Vector4d wf(1, -2, 0.5, 3);
        fresh.beginStep();
        fresh.apply(0.01, 0, wf, g1);
        Optimizer restarted(settings(Method::Adam), 4);
        restarted.beginStep();
        restarted.apply(0.01, 0, wf, g2);
        QVERIFY((wf - w).norm() > 1e-6);
    }

    void gradientScaleAndOuterProduct()
    {
        for (Method m : {Method::Sgd, Method::Nag, Method::AdaGrad, Method::RmsProp, Method::Adam}) {
            // applyOuter on 3×2 weights (2 inputs + bias) = apply on the formed gradient.
            const Eigen::Vector2d a(0.3, -1.2);
            Eigen::MatrixXd delta(1, 2);
            delta << 0.7, -0.4;
            Eigen::MatrixXd g(3, 2);
            g.topRows(2) = a * delta;
            g.row(2) = delta;
            Eigen::MatrixXd w1 = Eigen::MatrixXd::Constant(3, 2, 0.5), w2 = w1;
            Optimizer o1(settings(m, 0.1), 6), o2(settings(m, 0.1), 6);
            for (int t = 0; t < 3; ++t) {
                o1.beginStep();
                o1.applyOuter(0.05, 0, w1, a, delta, true, 0.5);
                o2.beginStep();
                o2.apply(0.05, 0, Eigen::Map<Eigen::VectorXd>(w2.data(), 6), 0.5 * Eigen::Map<const Eigen::VectorXd>(g.data(), 6));
            }
            // The same products; forming δ·aᵢ + λw in one fused multiply-add instead of rounding
            // δ·aᵢ first moves the last bit at most.
            QVERIFY((w1 - w2).cwiseAbs().maxCoeff() <= 1e-15 * w2.cwiseAbs().maxCoeff());
        }
    }

    void stepUpdatesEveryLayer()
    {
        tb::num::Mlp net = tb::num::Mlp::withHidden(2, {3}, 1, tb::num::Activation::Tanh, tb::num::Activation::Identity);
        net.initUniform(4);
        const Eigen::VectorXd before = net.flatten();
        std::vector<Eigen::MatrixXd> g = net.zeroGradients();
        for (auto& m : g)
            m.setConstant(2.0);
        Optimizer opt(settings(Method::Sgd), net.parameterCount());
        opt.step(0.1, net, g, 0.5);
        // SGD with the gradient scaled by 0.5: every weight moves by −0.1·0.5·2.
        QVERIFY(((before - net.flatten()).array() - 0.1).abs().maxCoeff() < 1e-15);
    }

    void floatStateFlushesSubnormals()
    {
        // Adam's m after one gradient of 10⁻³ and then only zero gradients shrinks by β₁ = 0.9 per
        // step: 10⁻⁴·0.9ᵗ leaves float's normal range (1.18·10⁻³⁸) at t ≈ 790. The float state
        // must go from normal numbers straight to 0 (a subnormal costs ~100 normal operations on
        // x86: the batch-1 update ran at half speed), through both update paths; the double
        // state keeps gradual underflow, as in every earlier version; and the thread's own mode
        // is unchanged after each update.
        if (!tb::num::FlushSubnormals::active())
            QSKIP("this build cannot flush subnormals (not x86 with SSE)");
        OptimizerSettings adam;  // β₁ = 0.9, β₂ = 0.999, ε = 10⁻⁸
        adam.method = Method::Adam;
        for (const bool outer : {false, true}) {
            OptimizerF opt(adam, 2);
            Eigen::VectorXf w = Eigen::VectorXf::Constant(2, 0.5f);
            Eigen::MatrixXf wOuter = Eigen::MatrixXf::Constant(2, 1, 0.5f), delta(1, 1);
            const Eigen::VectorXf a = Eigen::VectorXf::Constant(1, 1.0f);
            int firstZero = -1;
            for (int t = 0; t < 1000; ++t) {
                const float g = t == 0 ? 1e-3f : 0.0f;
                opt.beginStep();
                if (outer) {
                    delta(0, 0) = g;
                    opt.applyOuter(1e-3, 0, wOuter, a, delta, true);
                } else {
                    opt.apply(1e-3, 0, w, Eigen::VectorXf::Constant(2, g));
                }
                for (const Eigen::VectorXf* s : {&opt.state1(), &opt.state2()})
                    for (const float v : *s)
                        QVERIFY2(std::fpclassify(v) != FP_SUBNORMAL,
                                 qPrintable(QString("step %1: subnormal state %2").arg(t + 1).arg(double(v))));
                if (firstZero < 0 && opt.state1()(0) == 0.0f)
                    firstZero = t + 1;
            }
            QVERIFY2(firstZero > 700 && firstZero < 800, qPrintable(QString("m reached 0 at step %1").arg(firstZero)));
            // The thread's mode is the caller's again: float arithmetic underflows gradually.
            volatile float tiny = 1e-30f, scale = 1e-10f;
            QCOMPARE(std::fpclassify(tiny * scale), FP_SUBNORMAL);
        }
        Optimizer opt(adam, 1);
        Eigen::VectorXd w = Eigen::VectorXd::Constant(1, 0.5);
        bool subnormal = false;
        for (int t = 0; t < 7000 && !subnormal; ++t) {
            opt.beginStep();
            opt.apply(1e-3, 0, w, Eigen::VectorXd::Constant(1, t == 0 ? 1e-3 : 0.0));
            subnormal = std::fpclassify(opt.state1()(0)) == FP_SUBNORMAL;
        }
        QVERIFY2(subnormal, "double Adam state should underflow gradually (10⁻⁴·0.9ᵗ is subnormal from t ≈ 6720)");
    }

    void misuseThrows()
    {
        Optimizer opt(settings(Method::Adam), 4);
        Eigen::VectorXd w = Eigen::VectorXd::Zero(3), g = Eigen::VectorXd::Zero(2);
        opt.beginStep();
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, opt.apply(0.1, 0, w, g));  // sizes differ
        g.resize(3);
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, opt.apply(0.1, 2, w, g));  // 2 + 3 > 4
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, opt.apply(0.1, -1, w, g));
        Eigen::MatrixXd w2(3, 2), d(1, 3);
        QVERIFY_THROWS_EXCEPTION(std::out_of_range, opt.applyOuter(0.1, 0, w2, Eigen::Vector2d(1, 1), d, true));
    }
};

QTEST_APPLESS_MAIN(TestOptimizer)
#include "tst_optimizer.moc"
