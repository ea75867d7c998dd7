#include <numerics/Activation.h>

#include <QtTest>
#include <cmath>
#include <limits>

using namespace tb::num;

Q_DECLARE_METATYPE(tb::num::Activation)

namespace {

// A grid of pre-activations that avoids ELU's kink at 0 (its derivative jumps there).
Eigen::MatrixXd grid()
{
    Eigen::MatrixXd z(4, 5);
    z << -6.0, -2.5, -0.7, -0.11, 0.13,
          0.4,  0.9,  1.7,  3.3,  5.9,
         -3.1, 2.2, -1.3,  0.6, -0.35,
         -0.05, 0.05, 4.4, -4.4, 1.05;
    return z;
}

Eigen::MatrixXd applied(Activation a, const Eigen::MatrixXd& z)
{
    Eigen::MatrixXd y(z.rows(), z.cols());
    activationApply(a, z, y);
    return y;
}

void addElementwise()
{
    QTest::addColumn<Activation>("act");
    QTest::newRow("identity") << Activation::Identity;
    QTest::newRow("sigmoid") << Activation::Sigmoid;
    QTest::newRow("tanh") << Activation::Tanh;
    QTest::newRow("softplus") << Activation::Softplus;
    QTest::newRow("elu") << Activation::Elu;
}

} // namespace

class TestActivation : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void namesRoundTrip()
    {
        for (Activation a : {Activation::Identity, Activation::Sigmoid, Activation::Tanh, Activation::Softplus,
                             Activation::Elu, Activation::Softmax}) {
            const auto back = activationFromName(activationName(a));
            QVERIFY(back.has_value());
            QVERIFY(*back == a);
        }
        QVERIFY(!activationFromName("relu").has_value());
        QVERIFY(!activationFromName("Sigmoid").has_value());
        QCOMPARE(QString::fromStdString(activationNames()), QString("identity, sigmoid, tanh, softplus, elu, softmax"));
    }

    void knownValues()
    {
        Eigen::MatrixXd z(1, 3);
        z << 0.0, std::log(3.0), -800.0;
        const Eigen::MatrixXd s = applied(Activation::Sigmoid, z);
        QCOMPARE(s(0, 0), 0.5);
        QVERIFY(std::abs(s(0, 1) - 0.75) < 1e-15);
        QCOMPARE(s(0, 2), 0.0); // e^{800} overflows: must give 0, not NaN
        const Eigen::MatrixXd sp = applied(Activation::Softplus, z);
        QVERIFY(std::abs(sp(0, 0) - std::log(2.0)) < 1e-15);
        QVERIFY(std::abs(sp(0, 1) - std::log(4.0)) < 1e-15);
        Eigen::MatrixXd big(1, 1);
        big << 800.0;
        QCOMPARE(applied(Activation::Softplus, big)(0, 0), 800.0); // no overflow
        const Eigen::MatrixXd e = applied(Activation::Elu, z);
        QCOMPARE(e(0, 2), -1.0);
        QVERIFY(std::abs(e(0, 1) - std::log(3.0)) < 1e-15);
    }

    void softmaxRowsSumToOne()
    {
        Eigen::MatrixXd z = grid();
        z(1, 2) = 900.0; // would overflow without the max shift
        z(2, 0) = -900.0;
        const Eigen::MatrixXd p = applied(Activation::Softmax, z);
        QVERIFY(p.allFinite());
        QVERIFY((p.array() >= 0.0).all());
        for (Eigen::Index i = 0; i < p.rows(); ++i)
            QVERIFY(std::abs(p.row(i).sum() - 1.0) < 1e-15 * double(p.cols())); // one rounding per term
        QVERIFY(std::abs(p(1, 2) - 1.0) < 1e-15);
        // Shift invariance: adding a constant to a row changes nothing.
        Eigen::MatrixXd shifted = grid();
        shifted.row(0).array() += 37.0;
        const Eigen::MatrixXd a = applied(Activation::Softmax, grid()), b = applied(Activation::Softmax, shifted);
        QVERIFY((a.row(0) - b.row(0)).cwiseAbs().maxCoeff() < 1e-14);
    }

    void inPlaceApplyMatchesOutOfPlace()
    {
        for (Activation a : {Activation::Sigmoid, Activation::Softmax, Activation::Elu}) {
            Eigen::MatrixXd z = grid();
            const Eigen::MatrixXd ref = applied(a, z);
            activationApply(a, z, z);
            QCOMPARE(z, ref);
        }
    }

    void derivativeMatchesFiniteDifferences_data() { addElementwise(); }
    void derivativeMatchesFiniteDifferences()
    {
        QFETCH(Activation, act);
        const Eigen::MatrixXd z = grid();
        const double h = 1e-5;
        const Eigen::MatrixXd fd = (applied(act, z.array() + h) - applied(act, z.array() - h)) / (2 * h);
        Eigen::MatrixXd d(z.rows(), z.cols());
        activationDerivative(act, applied(act, z), d);
        // Central differences: truncation h²·|f‴|/6 < 1e-10, rounding ε·|f|/h < 1e-10 for |f| ≤ 6.
        QVERIFY2((d - fd).cwiseAbs().maxCoeff() < 1e-8, qPrintable(QString::number((d - fd).cwiseAbs().maxCoeff())));
    }

    void softmaxHasNoElementwiseDerivative()
    {
        Eigen::MatrixXd y = applied(Activation::Softmax, grid()), d(y.rows(), y.cols());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, activationDerivative(Activation::Softmax, y, d));
    }

    void softmaxBackpropMatchesFiniteDifferences()
    {
        // L = Σ g ⊙ softmax(z); ∂L/∂z from the Jacobian-vector product vs central differences.
        const Eigen::MatrixXd z = grid();
        Eigen::MatrixXd g(z.rows(), z.cols());
        for (Eigen::Index i = 0; i < g.size(); ++i)
            g.data()[i] = std::sin(1.0 + double(i));
        Eigen::MatrixXd got(z.rows(), z.cols());
        activationBackprop(Activation::Softmax, applied(Activation::Softmax, z), g, got);
        const double h = 1e-6;
        for (Eigen::Index i = 0; i < z.rows(); ++i)
            for (Eigen::Index j = 0; j < z.cols(); ++j) {
                Eigen::MatrixXd zp = z, zm = z;
                zp(i, j) += h;
                zm(i, j) -= h;
                const double fd = ((applied(Activation::Softmax, zp) - applied(Activation::Softmax, zm))
                                       .cwiseProduct(g)
                                       .sum()) /
                                  (2 * h);
                // Truncation ~h² and rounding ~ε/h ≈ 2e-10 for an O(1) sum.
                QVERIFY(std::abs(fd - got(i, j)) < 1e-8);
            }
    }

    void elementwiseBackpropIsDerivativeTimesGradient_data() { addElementwise(); }
    void elementwiseBackpropIsDerivativeTimesGradient()
    {
        QFETCH(Activation, act);
        const Eigen::MatrixXd y = applied(act, grid());
        Eigen::MatrixXd g = grid().array().cos(), d(y.rows(), y.cols()), got(y.rows(), y.cols());
        activationDerivative(act, y, d);
        activationBackprop(act, y, g, got);
        QVERIFY((got - d.cwiseProduct(g)).cwiseAbs().maxCoeff() < 1e-15);
    }

    void inverseRecoversPreActivation_data() { addElementwise(); }
    void inverseRecoversPreActivation()
    {
        QFETCH(Activation, act);
        const double eps = 1e-3;
        const Eigen::MatrixXd z = grid();
        const Eigen::MatrixXd y = applied(act, z);
        Eigen::MatrixXd back(z.rows(), z.cols());
        activationInverse(act, y, back, eps);
        const ClipRange r = activationClipRange(act, eps);
        for (Eigen::Index i = 0; i < z.size(); ++i) {
            const double yi = y.data()[i];
            if (yi >= r.lo && yi <= r.hi) {
                // Inside the clip range the inverse is exact up to its conditioning:
                // |dz/dy| ≤ 1/ε = 1e3 for sigmoid/tanh/ELU, so rounding of y (1e-16) gives ≤ 1e-12.
                QVERIFY2(std::abs(back.data()[i] - z.data()[i]) < 1e-11,
                         qPrintable(QString("z=%1 back=%2").arg(z.data()[i]).arg(back.data()[i])));
            } else {
                // Outside it, the value is the inverse of the nearest bound: finite and monotone.
                const double bound = yi < r.lo ? r.lo : r.hi;
                Eigen::MatrixXd b(1, 1), zb(1, 1);
                b << bound;
                activationInverse(act, b, zb, eps);
                QCOMPARE(back.data()[i], zb(0, 0));
                QVERIFY(std::isfinite(zb(0, 0)));
            }
        }
    }

    void inverseClipsToDocumentedRanges()
    {
        const double eps = 1e-2;
        Eigen::MatrixXd y(1, 4);
        y << -5.0, 0.0, 1.0, 7.0;
        Eigen::MatrixXd z(1, 4), back(1, 4);
        activationInverse(Activation::Sigmoid, y, z, eps);
        activationApply(Activation::Sigmoid, z, back);
        QVERIFY(std::abs(back(0, 0) - eps) < 1e-14 && std::abs(back(0, 1) - eps) < 1e-14);
        QVERIFY(std::abs(back(0, 2) - (1 - eps)) < 1e-14 && std::abs(back(0, 3) - (1 - eps)) < 1e-14);
        activationInverse(Activation::Tanh, y, z, eps);
        activationApply(Activation::Tanh, z, back);
        QVERIFY(std::abs(back(0, 0) - (-1 + eps)) < 1e-14 && std::abs(back(0, 3) - (1 - eps)) < 1e-14);
        QVERIFY(std::abs(back(0, 1)) < 1e-15);
        activationInverse(Activation::Softplus, y, z, eps);
        activationApply(Activation::Softplus, z, back);
        QVERIFY(std::abs(back(0, 0) - eps) < 1e-14 && std::abs(back(0, 3) - 7.0) < 1e-13);
        activationInverse(Activation::Elu, y, z, eps);
        activationApply(Activation::Elu, z, back);
        QVERIFY(std::abs(back(0, 0) - (-1 + eps)) < 1e-14 && back(0, 1) == 0.0 && back(0, 3) == 7.0);
        QVERIFY(z.allFinite());
    }

    void softmaxInverseIsLogUpToConstant()
    {
        const double eps = 1e-6;
        const Eigen::MatrixXd z = grid();
        const Eigen::MatrixXd p = applied(Activation::Softmax, z);
        Eigen::MatrixXd back(z.rows(), z.cols());
        activationInverse(Activation::Softmax, p, back, eps);
        for (Eigen::Index i = 0; i < z.rows(); ++i) {
            // Entries with p ≥ ε are recovered up to one constant per row.
            Eigen::Index ref = 0;
            p.row(i).maxCoeff(&ref);
            const double c = back(i, ref) - z(i, ref);
            for (Eigen::Index j = 0; j < z.cols(); ++j)
                if (p(i, j) >= eps)
                    QVERIFY(std::abs(back(i, j) - z(i, j) - c) < 1e-12);
                else
                    QCOMPARE(back(i, j), std::log(eps));
        }
        // A one-hot target becomes finite log-probabilities (0 and log ε).
        Eigen::MatrixXd onehot(1, 3), t(1, 3);
        onehot << 0, 1, 0;
        activationInverse(Activation::Softmax, onehot, t, 1e-3);
        QCOMPARE(t(0, 1), 0.0);
        QCOMPARE(t(0, 0), std::log(1e-3));
    }

    void inverseKeepsNaN()
    {
        Eigen::MatrixXd y(1, 2), z(1, 2);
        y << std::numeric_limits<double>::quiet_NaN(), 0.5;
        for (Activation a : {Activation::Sigmoid, Activation::Tanh, Activation::Softplus, Activation::Elu,
                             Activation::Softmax}) {
            activationInverse(a, y, z, 1e-3);
            QVERIFY2(std::isnan(z(0, 0)), activationName(a).data());
            QVERIFY(std::isfinite(z(0, 1)));
        }
    }

    void badEpsilonAndShapesThrow()
    {
        Eigen::MatrixXd y(2, 2), z(2, 2), wrong(2, 3);
        y.setConstant(0.5);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, activationInverse(Activation::Sigmoid, y, z, 0.0));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, activationInverse(Activation::Sigmoid, y, z, 0.5));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, activationInverse(Activation::Sigmoid, y, wrong, 1e-3));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, activationApply(Activation::Tanh, y, wrong));
    }
};

QTEST_APPLESS_MAIN(TestActivation)
#include "tst_activation.moc"
