// One ridge, one minimiser (issue 44, item 3): one small linear least-squares problem trained by
// every plugin algorithm that takes "ridge" and can express a linear model, each given the same
// value of "ridge" (parameter format 2, docs/parameters.md "Regularisation"), must reach the
// closed-form minimiser of the glossary's objective
//     F(w) = (1/n)·Σᵢ ½(xᵢᵀw − yᵢ)² + r·‖w‖²,   i.e.   (XᵀX + 2n·r·I)·w = Xᵀy,
// computed here with Eigen. The problem has no intercept ("bias": false everywhere), so the
// plugins' different treatment of a bias (lsq leaves its bias feature out of the penalty, the
// others penalise it) does not enter. If a plugin's ridge changes meaning, its predictions move
// off the minimiser by far more than the tolerances. The Gram-diagonal solvers' second name,
// "gram_ridge" (λ = 2n·r), is checked the same way, and a format-1 file's "ridge" (each plugin's
// former meaning) is converted to the same minimiser by the upgrade (sameMinimiserFromFormat1).
//
// Algorithms that take "ridge" but cannot express this model, and why:
//  - gradient.adagrad, gradient.rmsprop, gradient.adam: per-coordinate adaptive steps with a
//    constant rate end within a rate-sized neighbourhood of the minimiser, not at it;
//  - bld.bling, bld.ig: incremental minibatch steps with a diminishing step (a stochastic
//    approximation, no convergence to 1e-6 in a test's time);
//  - lsq.calibrated: adds a calibration basis of powers of the predictions (not linear);
//  - lsq.stagewise: fits blocks of features one after the other against the residual, which is
//    not the joint ridge minimiser over all features;
//  - dsgd.* (doubly_stochastic, preconditioned, random_features_sgd, kernel_ridge): kernels
//    (Gaussian, Laplace) and their random features only; no linear kernel.
// bld.b2ld with no hidden layer is one block solved by L-BFGS, like bld.lbfgs: covered by it.
#include <engine/PluginRegistry.h>

#include <Eigen/Cholesky>
#include <Eigen/QR>

#include <LabelledSets.h>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <random>
#include <trainbench/testing/TestRunContext.h>

using namespace tb;

namespace {

constexpr Eigen::Index kRows = 200;
constexpr Eigen::Index kInputs = 5;
constexpr double kRidge = 0.1;  // r of the glossary's F

struct Problem {
    Eigen::MatrixXd x, y, probe;  // training inputs and targets; a fixed set of inputs to compare predictions on
};

// y = x·β + N(0, 0.1²)-ish noise, x ~ U[−1, 1]⁵, seeded.
Problem makeProblem()
{
    std::mt19937_64 gen(20261201);
    Problem p;
    Eigen::VectorXd beta(kInputs);
    beta << 1.0, -2.0, 0.5, 3.0, -1.5;
    p.x.resize(kRows, kInputs);
    for (Eigen::Index i = 0; i < p.x.size(); ++i)
        p.x.data()[i] = testsupport::uniformPm1(gen);
    p.y = p.x * beta;
    for (Eigen::Index i = 0; i < p.y.size(); ++i)
        p.y.data()[i] += 0.1 * std::sqrt(3.0) * testsupport::uniformPm1(gen);
    p.probe.resize(50, kInputs);
    for (Eigen::Index i = 0; i < p.probe.size(); ++i)
        p.probe.data()[i] = 2.0 * testsupport::uniformPm1(gen);
    return p;
}

// One algorithm's run: its parameters for the common ridge r (by the glossary's factor) and the
// relative tolerance on the predictions its solver reaches.
struct Case {
    QString id;
    QVariantMap params;
    double tolerance;
};

QList<Case> cases()
{
    const double n = double(kRows);
    const QVariantList none;  // no hidden layer: a linear model
    const auto bpls = [&](const char* key, double value) {
        return QVariantMap{{key, value},          {"relative_ridge", 0.0},           {"bias", false},
                           {"hidden", none},      {"output_activation", "identity"}, {"precision", "double"}};
    };
    // Closed forms (a Cholesky solve of a well-conditioned 5×5 system) agree with Eigen's to
    // rounding: 1e-9 relative leaves room for another order of summation in the Gram. The
    // iterative solvers are run to a gradient norm of 1e-10 (L-BFGS) or for enough full-batch
    // steps to contract the error far below it (gradient descent on F, whose Hessian
    // XᵀX/n + 2r·I has eigenvalues in about [0.4, 0.8] here); they converge to ~1e-6 relative
    // or better, so 1e-6.
    return {
        {"linear.ridge", {{"ridge", kRidge}, {"relative_ridge", 0.0}, {"bias", false}}, 1e-9},
        // Its second name: λ on the Gram diagonal of ½‖Xw − y‖², λ = 2n·r.
        {"linear.ridge", {{"gram_ridge", 2 * n * kRidge}, {"relative_ridge", 0.0}, {"bias", false}}, 1e-9},
        // lsq.gls, identity link with L = 1: its first iteration is the ridge solution.
        {"lsq.gls",
         {{"ridge", kRidge},
          {"relative_ridge", 0.0},
          {"bias", false},
          {"random_features", "raw"},
          {"link", "identity"},
          {"precision", "double"},
          {"iterations", 1}},
         1e-9},
        // bpls.regress with no hidden layer: the output layer's least-squares solve.
        {"bpls.regress", bpls("ridge", kRidge), 1e-9},
        {"bpls.regress", bpls("gram_ridge", 2 * n * kRidge), 1e-9},
        {"gradient.lbfgs",
         {{"ridge", kRidge},
          {"bias", false},
          {"hidden", none},
          {"output_activation", "identity"},
          {"loss", "squared"},
          {"iterations", 1000},
          {"gradient_tolerance", 1e-10},
          {"gradient_test", "absolute"}},
         1e-6},
        {"gradient.sgd",
         {{"ridge", kRidge},
          {"bias", false},
          {"hidden", none},
          {"output_activation", "identity"},
          {"loss", "squared"},
          {"batch_size", qlonglong(kRows)},
          {"shuffle", false},
          {"lr", 1.0},
          {"epochs", 300}},
         1e-6},
        {"gradient.momentum",
         {{"ridge", kRidge},
          {"bias", false},
          {"hidden", none},
          {"output_activation", "identity"},
          {"loss", "squared"},
          {"batch_size", qlonglong(kRows)},
          {"shuffle", false},
          {"lr", 0.5},
          {"momentum", 0.5},
          {"epochs", 300}},
         1e-6},
        {"gradient.nag",
         {{"ridge", kRidge},
          {"bias", false},
          {"hidden", none},
          {"output_activation", "identity"},
          {"loss", "squared"},
          {"batch_size", qlonglong(kRows)},
          {"shuffle", false},
          {"lr", 0.5},
          {"momentum", 0.5},
          {"epochs", 300}},
         1e-6},
        {"bld.lbfgs",
         {{"ridge", kRidge},
          {"mean_square_ridge", 0.0},
          {"bias", false},
          {"hidden", none},
          {"output_activation", "identity"},
          {"iterations", 1000},
          {"gradient_tolerance", 1e-10},
          {"gradient_test", "absolute"},
          {"relative_decrease", 0.0}},
         1e-6},
    };
}

} // namespace

class TestOneRidge : public QObject {
    Q_OBJECT
    PluginRegistry m_reg;
    Problem m_problem;
    Eigen::MatrixXd m_expected;  // the minimiser's predictions on the probe inputs

private Q_SLOTS:
    void initTestCase()
    {
        m_reg.scan({TB_PLUGIN_BUILD_DIR});
        m_problem = makeProblem();
        const Eigen::MatrixXd& x = m_problem.x;
        Eigen::MatrixXd g = x.transpose() * x;
        g.diagonal().array() += 2.0 * double(kRows) * kRidge;
        const Eigen::MatrixXd w = g.llt().solve(x.transpose() * m_problem.y);
        m_expected = m_problem.probe * w;
        // The penalty must matter, or any least-squares solver would pass: the unregularised
        // minimiser predicts visibly differently.
        const Eigen::MatrixXd plain = x.colPivHouseholderQr().solve(m_problem.y);
        QVERIFY((m_problem.probe * plain - m_expected).norm() > 1e-2 * m_expected.norm());
    }

    void sameMinimiser_data()
    {
        QTest::addColumn<int>("index");
        const QList<Case> all = cases();
        for (int i = 0; i < all.size(); ++i)
            QTest::newRow(qPrintable(all[i].id + (all[i].params.contains("gram_ridge") ? " gram_ridge" : " ridge")))
                << i;
    }

    void sameMinimiser()
    {
        QFETCH(int, index);
        const Case c = cases()[index];
        fitAndCompare(c.id, c.params, c.tolerance);
    }

    // A file of parameter format 1 gave each plugin its former meaning of "ridge" (the glossary's
    // factors, written here independently of the plugins' declared conversions): 2r for gradient,
    // bld and lsq, the Gram-diagonal 2n·r for linear.ridge and bpls. Upgraded from format 1 it
    // is the same penalty: the same minimiser, with one note saying what changed.
    void sameMinimiserFromFormat1_data()
    {
        QTest::addColumn<int>("index");
        const QList<Case> all = cases();
        for (int i = 0; i < all.size(); ++i)
            if (all[i].params.contains("ridge"))
                QTest::newRow(qPrintable(all[i].id)) << i;
    }

    void sameMinimiserFromFormat1()
    {
        QFETCH(int, index);
        const Case c = cases()[index];
        const bool gram = c.id.startsWith("linear.") || c.id.startsWith("bpls.");
        QVariantMap written = c.params;
        written.insert("ridge", gram ? 2.0 * double(kRows) * kRidge : 2.0 * kRidge);
        QStringList notes;
        const QVariantMap now = m_reg.algorithm(c.id)->info.schema.upgrade(written, &notes, 1);
        QCOMPARE(notes.size(), 1);
        QVERIFY2(notes.first().contains("parameter format 1") && notes.first().contains(gram ? "gram_ridge" : "ridge"),
                 qPrintable(notes.first()));
        QCOMPARE(now.contains("gram_ridge"), gram);
        fitAndCompare(c.id, now, c.tolerance);
    }

    // The Gram-diagonal solvers take the penalty once: "ridge" and "gram_ridge" together are refused,
    // naming both keys and their values.
    void twoRidgesAreRefused_data()
    {
        QTest::addColumn<QString>("id");
        QTest::newRow("linear.ridge") << QStringLiteral("linear.ridge");
        QTest::newRow("bpls.regress") << QStringLiteral("bpls.regress");
    }

    void twoRidgesAreRefused()
    {
        QFETCH(QString, id);
        try {
            m_reg.create(id, {{"ridge", 0.1}, {"gram_ridge", 2.0}});
            QFAIL("both ridges were taken");
        } catch (const std::exception& e) {
            QVERIFY2(QString(e.what()).contains("parameters \"ridge\" and \"gram_ridge\": two ridges given (0.1 and 2)"),
                     e.what());
        }
    }

private:
    void fitAndCompare(const QString& id, const QVariantMap& params, double tolerance)
    {
        QVERIFY2(m_reg.algorithm(id), qPrintable(id + " is not built"));
        std::unique_ptr<Trainer> t;
        try {
            t = m_reg.create(id, params);
        } catch (const std::exception& ex) {
            QFAIL(qPrintable(id + ": " + ex.what()));
        }
        testing::TestRunContext ctx(7, 1);
        t->fit(DatasetView(m_problem.x, m_problem.y, Task::Regression), ctx);
        const Eigen::MatrixXd got = t->predict(m_problem.probe);
        QCOMPARE(got.rows(), m_expected.rows());
        const double relative = (got - m_expected).norm() / m_expected.norm();
        qInfo("%s: relative distance to the ridge minimiser %.2e (tolerance %.0e)", qPrintable(id), relative, tolerance);
        QVERIFY2(relative <= tolerance,
                 qPrintable(QStringLiteral("%1 with %2 (common ridge %3): predictions %4 relative from the "
                                           "minimiser, more than %5")
                                .arg(id, QString::fromUtf8(QJsonDocument(QJsonObject::fromVariantMap(params)).toJson(
                                             QJsonDocument::Compact)))
                                .arg(kRidge)
                                .arg(relative)
                                .arg(tolerance)));
    }
};

QTEST_GUILESS_MAIN(TestOneRidge)
#include "tst_oneridge.moc"
