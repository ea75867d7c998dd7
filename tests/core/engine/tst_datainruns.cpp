// What runs see of the data options (issue 17): with standardised targets the runner reports
// RMSE in the targets' own units, and a data warning (one class) reaches the experiment's result.
// Random features (issue 16): the trainers get the mapped inputs, and the stored spec re-creates them.

#include <engine/ExperimentRunner.h>
#include <engine/PluginRegistry.h>
#include <store/RunStore.h>

#include <QTemporaryDir>

#include <QtTest>

using namespace tb;

namespace {
ExperimentSpec parse(const QByteArray& json)
{
    QString err;
    auto s = ExperimentSpec::fromJson(json, "test", &err);
    if (!s)
        qFatal("%s", qPrintable(err));
    s->baseDir = QStringLiteral(TB_FIXTURES_DIR "/data");
    return *s;
}
} // namespace

class TestDataInRuns : public QObject {
    Q_OBJECT
    PluginRegistry m_reg;

private Q_SLOTS:
    void initTestCase()
    {
        m_reg.scan({TB_TEST_PLUGIN_DIR, TB_PLUGIN_BUILD_DIR});
        QVERIFY(m_reg.algorithm("linear.ridge"));
    }

    void standardisedTargetsAreReportedInTheirOwnUnits()
    {
        // Least squares with a tiny ridge commutes with an affine map of the targets, so the
        // RMSE in original units must equal the RMSE without standardisation, up to rounding
        // (relative 1e-6 covers the λ = 1e-8 term's different weight on the scaled problem).
        const QByteArray base = R"({"kind": "learning-curve", "seed": 3, "threads": 1,
            "algorithms": [{"id": "linear.ridge", "params": {"ridge": 1e-8}}],
            "dataset": {"source": "csv", "file": "sklearn/diabetes_data_raw.csv.gz", "delimiter": "whitespace",
                        "header": false, "target_file": "sklearn/diabetes_target.csv.gz", "task": "regression",
                        "test_fraction": 0.25, "standardise": true)";
        const ExperimentResult plain = ExperimentRunner(m_reg, nullptr).run(parse(base + "}}"));
        const ExperimentResult scaled = ExperimentRunner(m_reg, nullptr).run(parse(base + R"(, "standardise_targets": true}})"));
        QVERIFY2(plain.error.isEmpty(), qPrintable(plain.error));
        QVERIFY2(scaled.error.isEmpty(), qPrintable(scaled.error));
        const MetricPoint a = plain.curves.first().repeats.first().last();
        const MetricPoint b = scaled.curves.first().repeats.first().last();
        QVERIFY(a.testRmse > 1.0); // in the targets' units (tens), not standardised ones (≈ 1)
        QVERIFY2(std::abs(a.testRmse - b.testRmse) <= 1e-6 * a.testRmse,
                 qPrintable(QStringLiteral("%1 vs %2").arg(a.testRmse, 0, 'g', 17).arg(b.testRmse, 0, 'g', 17)));
        QVERIFY(std::abs(a.trainRmse - b.trainRmse) <= 1e-6 * std::max(1.0, a.trainRmse));
    }

    void randomFeaturesReachTheTrainersAndTheStore()
    {
        // Two moons are not linearly separable: ridge regression on the raw inputs reaches about
        // 85–88 % test accuracy, on 200 Gaussian random features (the kernel's approximation)
        // over 97 %. The two data sets differ only by the option, so the gap is the features'.
        QTemporaryDir dir;
        QString err;
        auto store = RunStore::open(dir.filePath("rf.sqlite"), &err);
        QVERIFY2(store, qPrintable(err));
        const QByteArray head = R"({"kind": "learning-curve", "seed": 2, "threads": 1,
            "algorithms": [{"id": "linear.ridge", "params": {"ridge": 1e-6}}],
            "dataset": {"source": "moons", "samples": 600, "noise": 0.1)";
        const ExperimentResult plain = ExperimentRunner(m_reg, nullptr).run(parse(head + "}}"));
        const QByteArray rf = R"(, "random_features": "gaussian_cos", "rf_count": 200, "rf_bandwidth": 0.5, "rf_seed": 9)";
        const ExperimentResult mapped = ExperimentRunner(m_reg, store.get()).run(parse(head + rf + "}}"));
        QVERIFY2(plain.error.isEmpty(), qPrintable(plain.error));
        QVERIFY2(mapped.error.isEmpty(), qPrintable(mapped.error));
        const double a = plain.curves.first().repeats.first().last().testAccuracy;
        const double b = mapped.curves.first().repeats.first().last().testAccuracy;
        QVERIFY2(a < 0.92 && b > 0.97, qPrintable(QStringLiteral("raw %1, features %2").arg(a).arg(b)));
        QVERIFY2(mapped.curves.first().dataset.contains("200 gaussian_cos features"), qPrintable(mapped.curves.first().dataset));
        // The run's row keeps the option: re-running the stored spec gives the same accuracy.
        const auto exp = store->experiment(mapped.experimentId);
        QVERIFY(exp);
        const QJsonObject stored = exp->spec.value("dataset").toObject();
        QCOMPARE(stored.value("random_features").toString(), QString("gaussian_cos"));
        QCOMPARE(stored.value("rf_count").toInt(), 200);
        QString perr;
        auto again = ExperimentSpec::fromObject(exp->spec, "stored", &perr);
        QVERIFY2(again, qPrintable(perr));
        const ExperimentResult rerun = ExperimentRunner(m_reg, nullptr).run(*again);
        QVERIFY2(rerun.error.isEmpty(), qPrintable(rerun.error));
        QCOMPARE(rerun.curves.first().repeats.first().last().testAccuracy, b);
    }

    void dataWarningsReachTheResult()
    {
        QTemporaryDir dir;
        QFile f(dir.filePath("one.csv"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("x,label\n");
        for (int i = 0; i < 12; ++i)
            f.write(QByteArray::number(i) + ",only\n");
        f.close();
        ExperimentSpec spec = parse(R"({"kind": "learning-curve", "algorithms": [{"id": "linear.ridge"}],
            "dataset": {"source": "csv", "file": "one.csv", "target": "label", "task": "classification", "test_fraction": 0.25}})");
        spec.baseDir = dir.path();
        const ExperimentResult r = ExperimentRunner(m_reg, nullptr).run(spec);
        QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
        QCOMPARE(r.warnings.size(), 1);
        QVERIFY2(r.warnings.first().contains("only one class"), qPrintable(r.warnings.first()));
    }
};

QTEST_GUILESS_MAIN(TestDataInRuns)
#include "tst_datainruns.moc"
