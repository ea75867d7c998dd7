// What runs see of the data options (issue 17): with standardised targets the runner reports
// RMSE in the targets' own units, and a data warning (one class) reaches the experiment's result.

#include <ExperimentRunner.h>
#include <PluginRegistry.h>

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
