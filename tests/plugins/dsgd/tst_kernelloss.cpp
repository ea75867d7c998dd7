// The losses of the kernel machines: values and derivatives against finite differences, the
// ±1 targets of the binary losses, the host's scores, and the task checks' messages.
#include <dsgd/KernelLoss.h>
#include <OneHot.h>

#include <QtTest>
#include <random>

using namespace tb::dsgd;
using tb::Task;
using tb::testsupport::oneHot;

namespace {

QString messageOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class TestKernelLoss : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void derivativesMatchFiniteDifferences_data()
    {
        QTest::addColumn<int>("kind");
        QTest::newRow("squared") << int(LossKind::Squared);
        QTest::newRow("logistic") << int(LossKind::Logistic);
        QTest::newRow("multinomial") << int(LossKind::Multinomial);
        QTest::newRow("hinge") << int(LossKind::Hinge);
    }
    void derivativesMatchFiniteDifferences()
    {
        QFETCH(int, kind);
        const LossKind k = LossKind(kind);
        const bool binary = k == LossKind::Hinge || k == LossKind::Logistic;
        const int classes = binary ? 2 : 3;
        const Task task = k == LossKind::Squared ? Task::Regression : Task::Classification;
        const KernelLoss loss(k, task, classes);
        std::mt19937_64 gen(5);
        std::normal_distribution<double> nd;
        std::vector<int> labels{0, 1, 1, 0, 2 % classes, 1};
        const Eigen::MatrixXd y = task == Task::Regression ? Eigen::MatrixXd::Random(6, classes).eval()
                                                           : oneHot(labels, classes);
        const Eigen::MatrixXd t = loss.targets(y);
        QCOMPARE(t.cols(), loss.modelOutputs());
        Eigen::MatrixXd f(6, loss.modelOutputs());
        for (Eigen::Index i = 0; i < f.size(); ++i)
            f.data()[i] = 2.0 * nd(gen);
        Eigen::MatrixXd dl, scratch;
        loss.evaluate(f, t, dl);
        // Central differences with h = 1e-6 resolve smooth derivatives to ~1e-9; the hinge is
        // piecewise linear, exact away from its kink (the draws keep |1 − t·f| > 1e-6).
        for (Eigen::Index i = 0; i < f.size(); ++i) {
            Eigen::MatrixXd a = f, b = f;
            a.data()[i] += 1e-6;
            b.data()[i] -= 1e-6;
            const double fd = (loss.evaluate(a, t, scratch) - loss.evaluate(b, t, scratch)) / 2e-6;
            QVERIFY2(std::abs(fd - dl.data()[i]) < 1e-6, qPrintable(QString("entry %1: %2 vs %3").arg(i).arg(fd).arg(dl.data()[i])));
        }
    }

    void binaryTargetsAreSecondClassPositive()
    {
        const KernelLoss loss(LossKind::Hinge, Task::Classification, 2);
        const Eigen::MatrixXd t = loss.targets(oneHot({0, 1, 1}, 2));
        QCOMPARE(t(0, 0), -1.0);
        QCOMPARE(t(1, 0), 1.0);
        // Hinge scores [−f, f]: the arg-max is the second class where f > 0.
        Eigen::MatrixXd f(2, 1);
        f << -0.5, 2.0;
        const Eigen::MatrixXd s = loss.scores(f);
        QVERIFY(s(0, 0) > s(0, 1));
        QVERIFY(s(1, 1) > s(1, 0));
        // Logistic scores are probabilities, accurate in the tails (no 1 − σ cancellation).
        const KernelLoss logistic(LossKind::Logistic, Task::Classification, 2);
        Eigen::MatrixXd big(1, 1);
        big << 40.0;
        const Eigen::MatrixXd p = logistic.scores(big);
        QVERIFY(p(0, 0) > 0 && p(0, 0) < 1e-17);
        QCOMPARE(p(0, 1), 1.0);
    }

    void multinomialScoresAreProbabilities()
    {
        const KernelLoss loss(LossKind::Multinomial, Task::Classification, 3);
        Eigen::MatrixXd f(2, 3);
        f << 1000.0, 0.0, -1000.0, 0.1, 0.2, 0.3;
        const Eigen::MatrixXd s = loss.scores(f);
        QVERIFY(s.allFinite());
        QVERIFY(std::abs(s.row(0).sum() - 1.0) < 1e-15);
        QVERIFY(std::abs(s.row(1).sum() - 1.0) < 1e-15);
        Eigen::MatrixXd dl;
        const double l = loss.evaluate(f, oneHot({0, 2}, 3), dl);
        QVERIFY(std::isfinite(l));
    }

    void nonFiniteOutputsGiveANonFiniteLoss()
    {
        const KernelLoss loss(LossKind::Hinge, Task::Classification, 2);
        Eigen::MatrixXd f(2, 1), dl;
        f << 0.5, std::numeric_limits<double>::quiet_NaN();
        QVERIFY(std::isnan(loss.evaluate(f, loss.targets(oneHot({0, 1}, 2)), dl)));
    }

    void lossesThatDoNotFitTheTaskNameTheParameter()
    {
        const QStringList names{"T-shirt/top", "Trouser", "Pullover"};
        QString m = messageOf([&] { KernelLoss(LossKind::Hinge, Task::Classification, 3, names); });
        QVERIFY2(m.contains("\"loss\"") && m.contains("hinge") && m.contains("3 classes") && m.contains("Trouser"),
                 qPrintable(m));
        m = messageOf([] { KernelLoss(LossKind::Logistic, Task::Regression, 1); });
        QVERIFY2(m.contains("\"loss\"") && m.contains("regression"), qPrintable(m));
        m = messageOf([] { KernelLoss(LossKind::Multinomial, Task::Regression, 2); });
        QVERIFY2(m.contains("\"loss\"") && m.contains("classification"), qPrintable(m));
        QVERIFY(messageOf([] { KernelLoss(LossKind::Squared, Task::Classification, 10); }).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestKernelLoss)
#include "tst_kernelloss.moc"
