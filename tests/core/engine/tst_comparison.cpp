// Comparison: stored runs grouped by configuration and data set, compared over seeds.
#include <engine/Comparison.h>
#include <engine/ComparisonTables.h>

#include <QtTest>
#include <cmath>

using namespace tb;

namespace {
// Student's sleep data, the reference of tst_pairedttest (R: t = -4.0621, p = 0.002833).
const QList<double> kDrug1{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
const QList<double> kDrug2{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};

// A configuration whose run i (seed 100 + i) ends at accuracy values[i] after a curve of
// three checkpoints at 1, 2, 3 s·scale reaching 0.5, (0.5 + v)/2 and v.
AlgorithmCurves curves(const QString& configuration, const QString& dataset, const QList<double>& values,
                       double timeScale = 1.0)
{
    AlgorithmCurves c;
    c.algorithmId = "alg." + configuration.toLower();
    c.label = c.configuration = configuration;
    c.dataset = dataset;
    for (int i = 0; i < values.size(); ++i) {
        QVector<MetricPoint> run;
        for (int k = 1; k <= 3; ++k) {
            MetricPoint p;
            p.seq = k - 1;
            p.trainTime = k * timeScale;
            p.testAccuracy = k == 1 ? 0.5 : k == 2 ? (0.5 + values[i]) / 2 : values[i];
            run << p;
        }
        c.repeats << run;
        c.statuses << RunStatus::Finished;
        c.infos << QJsonObject{{"peak_memory_bytes", 1048576.0 * (i + 1)}};
        c.repeatNumbers << i;
        c.runIds << i;
        c.seeds << std::uint64_t(100 + i);
    }
    return c;
}

QList<double> accuracy(const QList<double>& hours)
{
    QList<double> out;
    for (double h : hours)
        out << 0.8 + h / 100; // an affine map keeps the paired t statistic
    return out;
}

// As curves(), with a validation accuracy at each checkpoint: validation[i] at the end, reached
// along the same path.
AlgorithmCurves withValidation(AlgorithmCurves c, const QList<double>& validation)
{
    for (int i = 0; i < c.repeats.size(); ++i)
        for (int k = 0; k < c.repeats[i].size(); ++k)
            c.repeats[i][k].validationAccuracy = k == 0 ? 0.5 : k == 1 ? (0.5 + validation[i]) / 2 : validation[i];
    return c;
}
} // namespace

class TestComparison : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void samplesKeepFinishedRunsPairedBySeed()
    {
        AlgorithmCurves a = curves("A", "d1", {0.9, 0.8, 0.7});
        a.statuses[1] = RunStatus::Diverged;
        const auto s = Comparison::samples({a, curves("B", "d1", {0.5, 0.6})}, MetricId::TestAccuracy);
        QCOMPARE(s.size(), 2);
        QCOMPARE(s[0].excluded, 1);
        QCOMPARE(s[0].values, (QList<double>{0.9, 0.7}));
        QCOMPARE(s[0].seeds, (QList<std::uint64_t>{100, 102}));
        std::vector<double> va, vb;
        Comparison::paired(s[0], s[1], &va, &vb);
        QCOMPARE(va, std::vector<double>{0.9}); // only seed 100 is in both
        QCOMPARE(vb, std::vector<double>{0.5});
        const auto mem = Comparison::samples({a}, MetricId::PeakMemory);
        QCOMPARE(mem[0].values, (QList<double>{1048576.0, 3145728.0}));
    }

    void matrixMarksSignificantDifferences()
    {
        // d1: B − A is the sleep data's drug2 − drug1 (p = 0.002833 < 0.05): B better (▲).
        // d2: C differs from A by ±0.001 alternating: no significant difference.
        QList<double> close;
        for (int i = 0; i < 10; ++i)
            close << accuracy(kDrug1)[i] + (i % 2 ? 0.001 : -0.001);
        const auto s = Comparison::samples({curves("A", "d1", accuracy(kDrug1)), curves("B", "d1", accuracy(kDrug2)),
                                            curves("A", "d2", accuracy(kDrug1)), curves("C", "d2", close),
                                            curves("W", "d1", accuracy(kDrug1).mid(0, 9) << 0.0)},
                                           MetricId::TestAccuracy);
        const ResultMatrix m = Comparison::matrix(s, MetricId::TestAccuracy);
        QCOMPARE(m.baseline, QStringLiteral("A"));
        QCOMPARE(m.rows, (QStringList{"A", "B", "C", "W"}));
        QCOMPARE(m.columns, (QStringList{"d1", "d2"}));
        QVERIFY(m.cells[0][0].isBaseline);
        const MatrixCell& b = m.cells[1][0];
        QCOMPARE(b.pairs, 10);
        QVERIFY(std::fabs(b.pValue - 0.002833) < 0.5e-6);
        QCOMPARE(b.marker, 1);
        QVERIFY(!m.cells[1][1].present);
        QCOMPARE(m.cells[2][1].marker, 0);
        QVERIFY(m.cells[2][1].pValue > 0.5);
        // W: equal to A on 9 seeds, far worse on the tenth — the paired t-test is not fooled
        // into significance by one outlier (p ≈ 0.34), the mean is.
        QCOMPARE(m.cells[3][0].marker, 0);
        // Lower is better: the same data as RMSE flips the marker.
        auto asRmse = [](AlgorithmCurves c) {
            for (auto& run : c.repeats)
                for (auto& p : run)
                    std::swap(p.testAccuracy, p.testRmse);
            return c;
        };
        const auto r = Comparison::samples({asRmse(curves("A", "d1", accuracy(kDrug1))),
                                            asRmse(curves("B", "d1", accuracy(kDrug2)))},
                                           MetricId::TestRmse);
        QCOMPARE(Comparison::matrix(r, MetricId::TestRmse).cells[1][0].marker, -1);
        // Wilcoxon on the same pairs: zero-free, tied |d|, normal approximation p = 0.0076.
        const ResultMatrix w = Comparison::matrix(s, MetricId::TestAccuracy, "A", 0.05, SignificanceTest::Wilcoxon);
        QVERIFY2(std::fabs(w.cells[1][0].pValue - 0.0076324) < 1e-6, qPrintable(QString::number(w.cells[1][0].pValue)));

        const TextTable t = ComparisonTables::matrix(m, s);
        const QString text = t.render(TextTable::Format::Text);
        QVERIFY2(text.contains("A (baseline)") && text.contains("▲"), qPrintable(text));
        QVERIFY2(text.contains("paired t-test"), qPrintable(text));
    }

    void pairwiseAgainstTheBaseline()
    {
        const auto s = Comparison::samples({curves("A", "d1", accuracy(kDrug1)), curves("B", "d1", accuracy(kDrug2))},
                                           MetricId::TestAccuracy);
        const auto rows = Comparison::pairwise(s, MetricId::TestAccuracy, "B");
        QCOMPARE(rows.size(), 1);
        const PairwiseComparison& p = rows[0];
        QCOMPARE(p.configuration, QStringLiteral("A"));
        QCOMPARE(p.pairs, 10);
        // A − B = (drug1 − drug2)/100: mean −0.0158, CI (−2.4598858, −0.7001142)/100.
        QVERIFY(std::fabs(p.tTest.meanDifference - -0.0158) < 1e-12);
        QVERIFY(std::fabs(p.tTest.ciLow - -0.024598858) < 1e-9);
        QVERIFY(std::fabs(p.tTest.ciHigh - -0.007001142) < 1e-9);
        // Win/tie/loss with a 5 % band of values near 0.8: only |Δ| > ~0.04 counts; the
        // differences are 0.012..0.046, so seed 9 (Δ = −0.046) is the one loss, the rest ties.
        QCOMPARE(p.winTieLoss.losses, 1);
        QCOMPARE(p.winTieLoss.ties, 9);
        QCOMPARE(p.winTieLoss.wins, 0);
        const QString md = ComparisonTables::pairwise(rows, MetricId::TestAccuracy, 0.05, 0.95).render(TextTable::Format::Markdown);
        QVERIFY2(md.contains("| A | d1 | 10 |") && md.contains("-1.58 [-2.46, -0.70] pp") && md.contains("0/9/1"), qPrintable(md));
    }

    void timeToTargetAndSpeedRatio()
    {
        // A reaches its final value at 3 s, B (time scale 0.25) at 0.75 s; the default target
        // is the worst best value, 0.8 here, which each reaches on its last checkpoint...
        const auto s = Comparison::samples({curves("A", "d1", {0.9, 0.85}), curves("B", "d1", {0.8, 0.95}, 0.25)},
                                           MetricId::TestAccuracy);
        TimeToTargetTable t = Comparison::timeToTarget(s, MetricId::TestAccuracy);
        QCOMPARE(t.rows[0].target, 0.8);
        // A: run 0 reaches 0.8 at 3 s? Its checkpoints are 0.5, 0.7, 0.9: first ≥ 0.8 at 3 s.
        // Run 1: 0.5, 0.675, 0.85 → 3 s. B: run 0: 0.5, 0.65, 0.8 → 0.75 s; run 1: 0.5, 0.725, 0.95 → 0.75 s.
        QCOMPARE(t.rows[0].seconds, (QList<double>{3.0, 3.0}));
        QCOMPARE(t.rows[0].lastMissSeconds, (QList<double>{2.0, 2.0}));
        QCOMPARE(t.rows[1].seconds, (QList<double>{0.75, 0.75}));
        QCOMPARE(t.rows[1].reached, 2);
        // B is 4× faster than the baseline A on both seeds.
        QVERIFY(std::fabs(t.rows[1].speedupOverBaseline.geometricMean - 4) < 1e-12);
        QCOMPARE(t.rows[1].speedupOverBaseline.n, 2);
        // A target only some runs reach: the others count as missed, not as slow.
        t = Comparison::timeToTarget(s, MetricId::TestAccuracy, 0.9);
        QCOMPARE(t.rows[0].reached, 1);
        QVERIFY(std::isnan(t.rows[0].seconds[1]));
        QCOMPARE(t.rows[1].speedupOverBaseline.n, 0);
        QCOMPARE(t.rows[1].speedupOverBaseline.aMissed + t.rows[1].speedupOverBaseline.bMissed, 2);
        const QString text = ComparisonTables::timeToTarget(Comparison::timeToTarget(s, MetricId::TestAccuracy)).render(TextTable::Format::Text);
        QVERIFY2(text.contains("4×") && text.contains("(baseline)"), qPrintable(text));
    }

    void frontierAndGrid()
    {
        AlgorithmCurves slowGood = curves("S", "d1", {0.95}, 10);
        AlgorithmCurves fastPoor = curves("F", "d1", {0.7}, 0.1);
        AlgorithmCurves dominated = curves("D", "d1", {0.69}, 1);
        dominated.setting = {{"lr", 0.01}};
        const auto s = Comparison::samples({slowGood, fastPoor, dominated}, MetricId::TestAccuracy);
        const auto f = Comparison::frontier(s, MetricId::TestAccuracy);
        QCOMPARE(f.size(), 3);
        QVERIFY(f[0].onFront && f[1].onFront && !f[2].onFront);
        QCOMPARE(f[0].seconds, 30.0);
        const auto g = Comparison::grid(s);
        QCOMPARE(g[2].setting.value("lr").toDouble(), 0.01);
        QCOMPARE(g[0].memory.max, 1048576.0);
        const QString csv = ComparisonTables::grid(g, MetricId::TestAccuracy).render(TextTable::Format::Csv);
        QVERIFY2(csv.contains("algorithm,lr,test accuracy,runs,training time,peak memory"), qPrintable(csv));
        QVERIFY2(csv.contains("alg.d,0.01,69.00 ± 0.00 %,1,3 s,1 MiB"), qPrintable(csv));
    }

    void selectionIsMadeOnValidationAndReportedOnTest()
    {
        // B is better on test, A on validation: the comparison selects A and reports A's test
        // accuracy; without validation it selects B and says it used the test data.
        const auto a = withValidation(curves("A", "d", {0.80, 0.82, 0.81}), {0.90, 0.91, 0.92});
        const auto b = withValidation(curves("B", "d", {0.85, 0.86, 0.87}), {0.70, 0.71, 0.72});
        const auto samples = Comparison::samples({a, b}, MetricId::TestAccuracy);
        QCOMPARE(Comparison::selectionMetric(samples, MetricId::TestAccuracy), MetricId::ValidationAccuracy);
        const QList<Selection> sel = Comparison::select(samples, MetricId::TestAccuracy);
        QCOMPARE(sel.size(), 1);
        QCOMPARE(sel[0].configuration, QStringLiteral("A"));
        QVERIFY(!sel[0].selectedOnTest());
        QVERIFY(std::abs(sel[0].reported.mean - 0.81) < 1e-12);
        QVERIFY(std::abs(sel[0].selected.mean - 0.91) < 1e-12);
        // A 95 % t interval over three seeds: mean ± t(0.975, 2)·sd/√3 = 0.81 ± 4.303·0.01/1.732.
        QVERIFY(std::abs(sel[0].reported.ciHigh - (0.81 + 4.302652729911275 * 0.01 / std::sqrt(3.0))) < 1e-9);
        const QList<Selection> plain =
            Comparison::select(Comparison::samples({curves("A", "d", {0.80, 0.82, 0.81}), curves("B", "d", {0.85, 0.86, 0.87})},
                                                   MetricId::TestAccuracy),
                               MetricId::TestAccuracy);
        QCOMPARE(plain[0].configuration, QStringLiteral("B"));
        QVERIFY(plain[0].selectedOnTest());
        const QString text = ComparisonTables::selection(plain, 0.95).render(TextTable::Format::Text);
        QVERIFY2(text.contains("selected on test data"), qPrintable(text));
    }

    void timeToTargetOnValidationReportsTestThere()
    {
        // The common target is the worst best validation value (0.70 of B's first run); A reaches
        // it at its second checkpoint ((0.5 + 0.9)/2 = 0.70 ≥ 0.70), B only at its last.
        const auto a = withValidation(curves("A", "d", {0.80, 0.82}), {0.90, 0.91});
        const auto b = withValidation(curves("B", "d", {0.85, 0.86}), {0.70, 0.71});
        const TimeToTargetTable t = Comparison::timeToTarget(Comparison::samples({a, b}, MetricId::TestAccuracy),
                                                             MetricId::TestAccuracy);
        QCOMPARE(t.selection, MetricId::ValidationAccuracy);
        QCOMPARE(t.rows[0].target, 0.70);
        QCOMPARE(t.rows[0].seconds, (QList<double>{2.0, 2.0}));
        QCOMPARE(t.rows[0].lastMissSeconds, (QList<double>{1.0, 1.0}));
        QCOMPARE(t.rows[0].reportedAtTarget[0], (0.5 + 0.80) / 2); // A's test accuracy at that checkpoint
        QCOMPARE(t.rows[1].seconds, (QList<double>{3.0, 3.0}));
        const QString text = ComparisonTables::timeToTarget(t).render(TextTable::Format::Text);
        QVERIFY2(text.contains("validation accuracy target (test accuracy reported)") && text.contains("(1 s, 2 s]"),
                 qPrintable(text));
    }

    void matchedTimesCompareCurveAgainstCurve()
    {
        // A is slow (checkpoints at 10, 20, 30 s), B fast (1, 2, 3 s): at 5 s only B has a model;
        // at 30 s both are at their final values.
        const auto samples = Comparison::samples({curves("A", "d", {0.9, 0.9}, 10.0), curves("B", "d", {0.8, 0.8})},
                                                 MetricId::TestAccuracy);
        const MatchedTimeTable t = Comparison::atTimes(samples, MetricId::TestAccuracy, {5, 30});
        QCOMPARE(t.rows[0].runs, (QList<int>{0, 2}));
        QCOMPARE(t.rows[1].runs, (QList<int>{2, 2}));
        QCOMPARE(t.rows[1].at[0].mean, 0.8);
        QCOMPARE(t.rows[0].at[1].mean, 0.9);
        QVERIFY(ComparisonTables::atTimes(t, 0.95).render(TextTable::Format::Text).contains("- (0)"));
        QVERIFY(ComparisonTables::atTimes(t, 0.95).render(TextTable::Format::Text).contains("at common training times"));

        // Runs with a cpu budget are timed in CPU seconds: the tables say so (both clocks: which).
        QList<AlgorithmCurves> onCpu{curves("A", "d", {0.9, 0.9}, 10.0), curves("B", "d", {0.8, 0.8})};
        onCpu[1].clock = ClockKind::Cpu;
        const auto mixed = Comparison::samples(onCpu, MetricId::TestAccuracy);
        QCOMPARE(timeClocksOf(mixed), TimeClocks::Mixed);
        QVERIFY2(ComparisonTables::atTimes(Comparison::atTimes(mixed, MetricId::TestAccuracy, {5}), 0.95)
                     .render(TextTable::Format::Text)
                     .contains("at common training times (CPU times for the runs with a cpu budget)"),
                 qPrintable(ComparisonTables::atTimes(Comparison::atTimes(mixed, MetricId::TestAccuracy, {5}), 0.95)
                                .render(TextTable::Format::Text)));
        onCpu[0].clock = ClockKind::Cpu;
        const auto cpu = Comparison::samples(onCpu, MetricId::TestAccuracy);
        QCOMPARE(timeClocksOf(cpu), TimeClocks::Cpu);
        const QString toTarget =
            ComparisonTables::timeToTarget(Comparison::timeToTarget(cpu, MetricId::TestAccuracy, 0.8)).render(TextTable::Format::Text);
        QVERIFY2(toTarget.contains("Training CPU time to reach a test accuracy target") &&
                     toTarget.contains("time: training CPU seconds (evaluation excluded)"),
                 qPrintable(toTarget));
    }

    void frontierIsDecidedOnValidation()
    {
        // Same times; A better on validation, B on test: the front holds A's runs.
        const auto a = withValidation(curves("A", "d", {0.80}), {0.95});
        const auto b = withValidation(curves("B", "d", {0.90}), {0.60});
        const auto f = Comparison::frontier(Comparison::samples({a, b}, MetricId::TestAccuracy), MetricId::TestAccuracy);
        QCOMPARE(f.size(), 2);
        QVERIFY(f[0].onFront);
        QVERIFY(!f[1].onFront);
        QCOMPARE(f[0].selectionValue, 0.95);
    }
};

QTEST_APPLESS_MAIN(TestComparison)
#include "tst_comparison.moc"
