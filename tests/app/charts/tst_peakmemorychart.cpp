// The peak-memory chart, found through the registry alone: one bar per configuration with the
// mean of its finished runs' measured peaks (failed runs and runs without a measurement left
// out), the trainer's predictions beside them when stated, which results it applies to and is
// exported for, and its picture.
#include <charts/ChartRegistry.h>
#include <charts/ChartRenderer.h>

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QHorizontalBarSeries>
#include <QTemporaryDir>
#include <QtTest>

using namespace tb;
using namespace tb::charts;

namespace {

constexpr double MiB = 1024.0 * 1024.0;

/// A configuration whose runs measured @p peaks MiB (NaN: not measured), all finished unless
/// @p failed says otherwise; @p predicted MiB is the trainer's prediction (NaN: none).
AlgorithmCurves configuration(const QString& label, const QList<double>& peaks, double predicted = NAN,
                              const QList<bool>& failed = {})
{
    AlgorithmCurves c;
    c.algorithmId = "gradient.adam";
    c.label = c.configuration = label;
    c.dataset = "moons";
    for (int r = 0; r < peaks.size(); ++r) {
        MetricPoint p;
        p.trainTime = 1;
        p.testAccuracy = 0.9;
        c.repeats << QVector<MetricPoint>{p};
        c.statuses << (failed.value(r) ? RunStatus::Failed : RunStatus::Finished);
        QJsonObject info;
        if (std::isfinite(peaks[r]))
            info.insert("peak_memory_bytes", peaks[r] * MiB);
        if (std::isfinite(predicted))
            info.insert("predicted_cost", QJsonObject{{"memory_bytes", predicted * MiB}});
        c.infos << info;
        c.seeds << std::uint64_t(r);
        c.repeatNumbers << r;
        c.runIds << -1;
    }
    return c;
}

ExperimentResult resultOf(QList<AlgorithmCurves> curves, const QString& kind = QStringLiteral("learning-curve"))
{
    ExperimentResult r;
    r.kind = kind;
    r.curves = std::move(curves);
    return r;
}

QHorizontalBarSeries* barsOf(QChart* chart)
{
    return chart->series().isEmpty() ? nullptr : qobject_cast<QHorizontalBarSeries*>(chart->series().first());
}

QStringList categoriesOf(QChart* chart)
{
    for (QAbstractAxis* a : chart->axes(Qt::Vertical))
        if (auto* c = qobject_cast<QBarCategoryAxis*>(a))
            return c->categories();
    return {};
}

} // namespace

class TestPeakMemoryChart : public QObject {
    Q_OBJECT
    const ChartEntry* m_entry = nullptr;

private Q_SLOTS:
    void initTestCase()
    {
        m_entry = ChartRegistry::find("peak-memory");
        QVERIFY(m_entry);
        QCOMPARE(m_entry->place, ChartPlace::Comparison);
        QCOMPARE(m_entry->title(ChartOptions()), QStringLiteral("Peak memory"));
    }

    void oneBarPerConfigurationWithItsMeanPeak()
    {
        // Adam: 100 and 200 MiB; SGD: 50 MiB, its failed run (1 GiB) and its unmeasured one left out.
        const ExperimentResult r = resultOf({configuration("Adam", {100, 200}),
                                             configuration("SGD", {50, 1024, NAN}, NAN, {false, true, false})});
        auto plot = m_entry->build(ChartOptions());
        plot->show(r, ChartOptions());
        QHorizontalBarSeries* series = barsOf(plot->chart());
        QVERIFY(series);
        QCOMPARE(series->count(), 1); // no predictions: measured only
        QBarSet* measured = series->barSets().first();
        // Bottom-up: the first configuration is drawn last, on top.
        QCOMPARE(categoriesOf(plot->chart()), (QStringList{"SGD (1 run)", "Adam (2 runs)"}));
        QCOMPARE(measured->count(), 2);
        QCOMPARE(measured->at(0), 50.0);
        QCOMPARE(measured->at(1), 150.0);
        QVERIFY(!plot->chart()->legend()->isVisible());
        QCOMPARE(plot->chart()->title(), QStringLiteral("Peak working memory per configuration"));
    }

    void predictionsBesideTheMeasurement()
    {
        const ExperimentResult r = resultOf({configuration("GLS", {40, 44}, 30), configuration("Ridge", {10})});
        auto plot = m_entry->build(ChartOptions());
        plot->show(r, ChartOptions());
        QHorizontalBarSeries* series = barsOf(plot->chart());
        QCOMPARE(series->count(), 2);
        QBarSet* predicted = series->barSets().at(0);
        QBarSet* measured = series->barSets().at(1);
        QVERIFY(predicted->label().contains("predicted"));
        QCOMPARE(measured->at(1), 42.0);  // GLS, on top
        QCOMPARE(predicted->at(1), 30.0);
        QCOMPARE(predicted->at(0), 0.0);  // Ridge states none
        QVERIFY(plot->chart()->legend()->isVisible());
        // Shown again with other runs: the chart holds only the new bars.
        plot->show(resultOf({configuration("Adam", {8})}), ChartOptions());
        QCOMPARE(barsOf(plot->chart())->count(), 1);
        QCOMPARE(categoriesOf(plot->chart()), QStringList{"Adam (1 run)"});
        QCOMPARE(plot->chart()->axes().size(), 2);
    }

    void appliesWhereAPeakWasMeasured()
    {
        QVERIFY(m_entry->applies(resultOf({configuration("Adam", {100})})));
        // Runs that overlapped in one process store no number: nothing to draw.
        QVERIFY(!m_entry->applies(resultOf({configuration("Adam", {NAN, NAN})})));
        QVERIFY(!m_entry->applies(resultOf({})));
        // Exported with every kind of curves that measured it.
        QVERIFY(m_entry->isExportedFor(resultOf({configuration("Adam", {100})})));
        QVERIFY(m_entry->isExportedFor(resultOf({configuration("Adam", {100})}, QStringLiteral("param-sweep"))));
        ExperimentResult sweep;
        sweep.kind = QStringLiteral("noise-sweep");
        QVERIFY(!m_entry->isExportedFor(sweep));
        QCOMPARE(m_entry->fileSuffix, QStringLiteral("memory"));
    }

    void exportTitleAndPicture()
    {
        QTemporaryDir dir;
        ChartOptions o;
        o.title = "Toy";
        auto plot = m_entry->build(o);
        plot->show(resultOf({configuration("Adam", {100}), configuration("SGD", {50})}), o);
        QCOMPARE(plot->chart()->title(), QStringLiteral("Toy — Peak working memory per configuration"));
        QString error;
        QVERIFY2(plot->savePng(dir.filePath("memory.png"), ChartRenderer::defaultSize(), &error), qPrintable(error));
        QCOMPARE(QImage(dir.filePath("memory.png")).size(), ChartRenderer::defaultSize());
        // Nothing measured: an empty chart, never a crash.
        plot->show(resultOf({configuration("Adam", {NAN})}), o);
        QCOMPARE(barsOf(plot->chart())->barSets().first()->count(), 0);
        QVERIFY(!plot->render(ChartRenderer::defaultSize()).isNull());
    }
};

QTEST_MAIN(TestPeakMemoryChart)
#include "tst_peakmemorychart.moc"
