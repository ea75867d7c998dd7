// The report's figures for count rules: a quick variant with 3 seeds is judged against the paper's
// "10 of 10" scaled to 3 pairs, and the report says so ("10 of 10 → 3 of 3 at n = 3"), in the
// summary table and in the claim's section; a full run shows the paper's count alone.

#include <repro/ClaimEvaluator.h>
#include <repro/ReproductionReport.h>

#include <QtTest>

using namespace tb;
using namespace tb::repro;

namespace {

// @p label's runs with final loss @p losses[i], seeds 100 + i.
AlgorithmCurves lossCurves(const QString& label, const QList<double>& losses)
{
    AlgorithmCurves c;
    c.algorithmId = QStringLiteral("test.algo");
    c.label = label;
    c.dataset = QStringLiteral("mv");
    for (int r = 0; r < losses.size(); ++r) {
        MetricPoint p;
        p.epoch = 1;
        p.trainTime = 1;
        p.loss = losses[r];
        c.repeats << QVector<MetricPoint>{p};
        c.statuses << RunStatus::Finished;
        c.infos << QJsonObject{};
        c.errors << QString();
        c.repeatNumbers << r;
        c.seeds << std::uint64_t(100 + r);
        c.runIds << -1;
    }
    return c;
}

Claim countClaim(const QString& id, const QString& rule, double figure, double fraction)
{
    Claim c;
    c.id = id;
    c.quote = QStringLiteral("[#wins ; #defs]");
    c.where = QStringLiteral("Table 3");
    c.figure = {figure, QStringLiteral("wins")};
    c.statistic.kind = QStringLiteral("win_tie_loss");
    c.statistic.algorithm = QStringLiteral("B2LD");
    c.statistic.against = QStringLiteral("L-BFGS");
    c.statistic.metric = QStringLiteral("loss");
    c.n = 10;
    c.verdict = {rule, fraction};
    c.quick.included = true;
    c.quick.n = 3;
    return c;
}

ClaimReport evaluated(const Claim& claim, const ExperimentResult& result, int seeds)
{
    ClaimReport r;
    r.claim = claim;
    r.seeds = seeds;
    r.outcome = ClaimEvaluator::evaluate(claim, result, seeds);
    r.experimentName = r.experimentFile = QStringLiteral("bld.json");
    return r;
}

} // namespace

class TestReproductionReport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void quickCountShowsTheCountItUsed()
    {
        // 3 seeds; B2LD's loss is lower (better) than L-BFGS's by far more than the band in every pair.
        ExperimentResult quick;
        quick.curves << lossCurves("B2LD", {1, 1, 1}) << lossCurves("L-BFGS", {2, 2, 2});
        ClaimsFile file;
        file.paper = QStringLiteral("bld");
        file.title = QStringLiteral("Block layer decomposition");
        const ClaimReport all = evaluated(countClaim("deep", "wins_at_least", 10, 1.0), quick, 3);
        QCOMPARE(all.outcome.verdict, Verdict::Holds);
        QCOMPARE(all.outcome.countBound, 3);
        QCOMPARE(ReproductionReport::figureText(all), QStringLiteral("10 of 10 → 3 of 3 at n = 3"));
        // wins_at_most: the paper's 3 of 10 allows none of 3 (0.3 × 3 = 0.9).
        const ClaimReport shallow = evaluated(countClaim("shallow", "wins_at_most", 3, 0.3), quick, 3);
        QCOMPARE(shallow.outcome.verdict, Verdict::DoesNotHold);
        QCOMPARE(ReproductionReport::figureText(shallow),
                 QStringLiteral("at most 3 of 10 → at most 0 of 3 at n = 3"));

        ReportHeader h;
        h.quick = true;
        h.command = QStringLiteral("trainbench-cli reproduce bld.json --quick");
        const QString md = ReproductionReport::markdown(file, h, {all, shallow});
        QVERIFY2(md.contains("| [deep](#deep) | Table 3 | 10 of 10 → 3 of 3 at n = 3 | 3 of 3 | 3 | holds |"),
                 qPrintable(md));
        QVERIFY2(md.contains("- Paper's figure: 10 of 10 → 3 of 3 at n = 3\n"), qPrintable(md));
        QVERIFY2(md.contains("- Paper's figure: at most 3 of 10 → at most 0 of 3 at n = 3\n"),
                 qPrintable(md));
        QVERIFY2(md.contains("**Verdict: does not hold** — 3 wins of 3 pairs, at most 0 allowed"),
                 qPrintable(md));
    }

    void fullCountShowsThePapersCount()
    {
        QList<double> b2ld, lbfgs;
        for (int i = 0; i < 10; ++i) {
            b2ld << 1;
            lbfgs << (i < 9 ? 2 : 1); // the last pair is a tie
        }
        ExperimentResult full;
        full.curves << lossCurves("B2LD", b2ld) << lossCurves("L-BFGS", lbfgs);
        const ClaimReport r = evaluated(countClaim("deep", "wins_at_least", 10, 1.0), full, 10);
        QCOMPARE(r.outcome.verdict, Verdict::DoesNotHold);
        QCOMPARE(ReproductionReport::figureText(r), QStringLiteral("10 of 10"));
        // Not run: the paper's count alone; an interval claim: its figure as before.
        ClaimReport notRun = r;
        notRun.notRun = QStringLiteral("not in the --quick subset");
        notRun.outcome = ClaimOutcome{};
        QCOMPARE(ReproductionReport::figureText(notRun), QStringLiteral("10 of 10"));
        ClaimReport interval = r;
        interval.claim.verdict = {QStringLiteral("mean_ci_contains_or_exceeds"), NaN};
        interval.claim.figure = {82.57, QStringLiteral("%")};
        QCOMPARE(ReproductionReport::figureText(interval), QStringLiteral("82.57 %"));
    }
};

QTEST_GUILESS_MAIN(TestReproductionReport)
#include "tst_reproductionreport.moc"
