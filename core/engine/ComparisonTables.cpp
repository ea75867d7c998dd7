#include "ComparisonTables.h"

#include "CostPrediction.h"

#include <QSet>
#include <cmath>

namespace tb {
namespace {

QString settingValue(const QVariant& v)
{
    if (v.typeId() == QMetaType::QVariantList) {
        QStringList parts;
        for (const auto& e : v.toList())
            parts << settingValue(e);
        return parts.join(QLatin1Char(' '));
    }
    if (v.typeId() == QMetaType::Double)
        return QString::number(v.toDouble(), 'g', 6);
    return v.toString();
}

QString ratio(double r)
{
    if (!std::isfinite(r))
        return QStringLiteral("-");
    return QString::number(r, 'g', 3) + QStringLiteral("×");
}

} // namespace

QString ComparisonTables::formatP(double p)
{
    if (std::isnan(p))
        return QStringLiteral("-");
    if (p == 0)
        return QStringLiteral("0");
    if (p < 1e-4)
        return QStringLiteral("<0.0001");
    return QString::number(p, 'g', 2);
}

TextTable ComparisonTables::matrix(const ResultMatrix& m, const QList<ConfigurationSample>& samples)
{
    QStringList header{QStringLiteral("configuration")};
    header << m.columns;
    TextTable t(header);
    t.setTitle(QStringLiteral("%1, mean ± std over seeds").arg(RunMetric::label(m.metric)));
    for (int c = 0; c < m.columns.size(); ++c)
        t.setAlign(c + 1, TextTable::Align::Right);
    QSet<int> counts;
    for (const auto& row : m.cells)
        for (const auto& cell : row)
            if (cell.present)
                counts.insert(cell.summary.count);
    const bool sameCount = counts.size() <= 1;
    bool anyMarker = false;
    for (int r = 0; r < m.rows.size(); ++r) {
        QStringList line{m.rows[r] + (m.rows[r] == m.baseline ? QStringLiteral(" (baseline)") : QString())};
        for (const MatrixCell& cell : m.cells[r]) {
            if (!cell.present) {
                line << QString();
                continue;
            }
            QString text = RunMetric::formatMeanStd(m.metric, cell.summary.mean, cell.summary.std);
            if (!sameCount)
                text += QStringLiteral(" (%1)").arg(cell.summary.count);
            text += cell.marker > 0 ? QStringLiteral(" ▲") : cell.marker < 0 ? QStringLiteral(" ▼") : QStringLiteral("  ");
            anyMarker = anyMarker || cell.marker != 0;
            line << text;
        }
        t.addRow(line);
    }
    const QString test = m.test == SignificanceTest::PairedT ? QStringLiteral("paired t-test")
                                                              : QStringLiteral("Wilcoxon signed-rank test");
    t.addNote(QStringLiteral("▲ / ▼: significantly better / worse than %1 (%2 over the seeds both ran, p < %3)%4.")
                  .arg(m.baseline, test)
                  .arg(m.alpha)
                  .arg(anyMarker ? QString() : QStringLiteral("; no difference is significant")));
    if (sameCount && !counts.isEmpty())
        t.addNote(QStringLiteral("Each cell: %1 finished run(s).").arg(*counts.begin()));
    else if (!sameCount)
        t.addNote(QStringLiteral("(n): finished runs in the cell."));
    for (const auto& s : samples)
        if (s.excluded > 0)
            t.addNote(QStringLiteral("%1 on %2: %3 run(s) did not finish and are left out.")
                          .arg(s.configuration, s.dataset).arg(s.excluded));
    return t;
}

TextTable ComparisonTables::pairwise(const QList<PairwiseComparison>& rows, MetricId metric, double tieBand,
                                     double confidence)
{
    const QString ci = QStringLiteral("%1 % CI").arg(100 * confidence);
    TextTable t({QStringLiteral("configuration"), QStringLiteral("data set"), QStringLiteral("seeds"),
                 QStringLiteral("mean"), QStringLiteral("baseline"), QStringLiteral("difference [%1]").arg(ci),
                 QStringLiteral("t-test p"), QStringLiteral("Wilcoxon p"), QStringLiteral("win/tie/loss")});
    t.setTitle(QStringLiteral("%1 against %2, paired by seed")
                   .arg(RunMetric::label(metric), rows.isEmpty() ? QStringLiteral("the baseline") : rows.first().baseline));
    for (int c : {2, 3, 4, 5, 6, 7, 8})
        t.setAlign(c, TextTable::Align::Right);
    const bool percent = metric == MetricId::TestAccuracy || metric == MetricId::TrainAccuracy;
    auto diff = [&](double v) {
        if (!std::isfinite(v))
            return QStringLiteral("-");
        return percent ? QString::number(100 * v, 'f', 2) : QString::number(v, 'g', 3);
    };
    for (const PairwiseComparison& p : rows) {
        QString d = QStringLiteral("-");
        if (std::isfinite(p.tTest.meanDifference))
            d = QStringLiteral("%1 [%2, %3]%4")
                    .arg(diff(p.tTest.meanDifference), diff(p.tTest.ciLow), diff(p.tTest.ciHigh),
                         percent ? QStringLiteral(" pp") : QString());
        t.addRow({p.configuration, p.dataset, QString::number(p.pairs), RunMetric::format(metric, p.mean),
                  RunMetric::format(metric, p.baselineMean), d, formatP(p.tTest.pValue), formatP(p.wilcoxon.pValue),
                  QStringLiteral("%1/%2/%3").arg(p.winTieLoss.wins).arg(p.winTieLoss.ties).arg(p.winTieLoss.losses)});
    }
    t.addNote(QStringLiteral("difference: configuration − baseline%1. Wilcoxon: zeros dropped, exact for ≤ 50 pairs without "
                             "ties, else normal approximation (SciPy's defaults). Win/tie/loss: a tie is within %2 % of "
                             "the larger value.")
                  .arg(percent ? QStringLiteral(" in percentage points") : QString())
                  .arg(100 * tieBand));
    return t;
}

TextTable ComparisonTables::grid(const QList<GridRow>& rows, MetricId metric)
{
    QStringList keys;
    QStringList sets;
    for (const GridRow& g : rows) {
        for (auto it = g.setting.begin(); it != g.setting.end(); ++it)
            if (!keys.contains(it.key()))
                keys << it.key();
        if (!sets.contains(g.dataset))
            sets << g.dataset;
    }
    QStringList header{QStringLiteral("algorithm")};
    header << keys;
    if (sets.size() > 1)
        header << QStringLiteral("data set");
    const int first = int(header.size());
    header << RunMetric::label(metric) << QStringLiteral("runs") << QStringLiteral("training time")
           << QStringLiteral("peak memory");
    TextTable t(header);
    t.setTitle(QStringLiteral("%1 by parameter, mean ± std over seeds").arg(RunMetric::label(metric)));
    for (int c = 1; c < header.size(); ++c)
        if (c >= first || c <= keys.size())
            t.setAlign(c, TextTable::Align::Right);
    for (const GridRow& g : rows) {
        QStringList line{g.algorithmId};
        for (const QString& k : keys)
            line << (g.setting.contains(k) ? settingValue(g.setting.value(k)) : QString());
        if (sets.size() > 1)
            line << g.dataset;
        line << RunMetric::formatMeanStd(metric, g.metric.mean, g.metric.std)
             << (g.excluded ? QStringLiteral("%1 (+%2 not finished)").arg(g.metric.count).arg(g.excluded)
                            : QString::number(g.metric.count))
             << RunMetric::format(MetricId::TrainSeconds, g.seconds.mean)
             << (g.memory.count ? CostPrediction::formatBytes(g.memory.max) : QStringLiteral("-"));
        t.addRow(line);
    }
    t.addNote(QStringLiteral("training time: mean over runs; peak memory: largest measured growth during training."));
    return t;
}

namespace {
// "training <noun>" for runs on @p clocks ("time", "seconds", "times"): CPU ones with a cpu budget.
QString training(TimeClocks clocks, const QString& noun)
{
    switch (clocks) {
    case TimeClocks::Wall:
        break;
    case TimeClocks::Cpu:
        return QStringLiteral("training CPU %1").arg(noun);
    case TimeClocks::Mixed:
        return QStringLiteral("training %1 (CPU %1 for the runs with a cpu budget)").arg(noun);
    }
    return QStringLiteral("training %1").arg(noun);
}
QString capitalised(QString s)
{
    if (!s.isEmpty())
        s[0] = s[0].toUpper();
    return s;
}
} // namespace

TextTable ComparisonTables::timeToTarget(const TimeToTargetTable& tt)
{
    const bool reports = tt.selection != tt.metric;
    QStringList header{QStringLiteral("configuration"), QStringLiteral("data set"), QStringLiteral("target"),
                       QStringLiteral("reached"), QStringLiteral("median time"), QStringLiteral("crossed in (median)"),
                       QStringLiteral("mean ± std"), QStringLiteral("speed-up vs baseline [95 % CI]"), QStringLiteral("range")};
    if (reports)
        header << QStringLiteral("%1 there").arg(RunMetric::label(tt.metric));
    TextTable t(header);
    const QString time = capitalised(training(tt.clocks, QStringLiteral("time")));
    t.setTitle(reports ? QStringLiteral("%1 to reach a %2 target (%3 reported)")
                             .arg(time, RunMetric::label(tt.selection), RunMetric::label(tt.metric))
                       : QStringLiteral("%1 to reach a %2 target").arg(time, RunMetric::label(tt.metric)));
    for (int c = 2; c < header.size(); ++c)
        t.setAlign(c, TextTable::Align::Right);
    for (const TimeToTargetRow& r : tt.rows) {
        const auto& s = r.speedupOverBaseline;
        QString speed = QStringLiteral("-"), range = QStringLiteral("-");
        if (r.configuration == tt.baseline)
            speed = QStringLiteral("(baseline)");
        else if (s.valid) {
            speed = ratio(s.geometricMean);
            if (std::isfinite(s.ciLow))
                speed += QStringLiteral(" [%1, %2]").arg(ratio(s.ciLow), ratio(s.ciHigh));
            range = QStringLiteral("%1–%2").arg(ratio(s.min), ratio(s.max));
            if (s.aMissed || s.bMissed)
                range += QStringLiteral(" (%1 seed(s) unpaired)").arg(s.aMissed + s.bMissed);
        }
        // The bracket the target was crossed in: (checkpoint before, first checkpoint at or beyond it].
        std::vector<double> before, at;
        for (int i = 0; i < r.seconds.size(); ++i)
            if (std::isfinite(r.seconds[i])) {
                before.push_back(r.lastMissSeconds.value(i, NaN));
                at.push_back(r.seconds[i]);
            }
        const auto b = stats::Descriptive::summarise(before), a = stats::Descriptive::summarise(at);
        const QString bracket = a.count ? QStringLiteral("(%1, %2]").arg(RunMetric::format(MetricId::TrainSeconds, b.median),
                                                                         RunMetric::format(MetricId::TrainSeconds, a.median))
                                        : QStringLiteral("-");
        QStringList row{r.configuration, r.dataset, RunMetric::format(tt.selection, r.target),
                        QStringLiteral("%1/%2").arg(r.reached).arg(r.seeds.size()),
                        RunMetric::format(MetricId::TrainSeconds, r.summary.median), bracket,
                        r.summary.count ? RunMetric::formatMeanStd(MetricId::TrainSeconds, r.summary.mean, r.summary.std)
                                        : QStringLiteral("-"),
                        speed, range};
        if (reports)
            row << (r.reportedSummary.count
                        ? RunMetric::formatMeanStd(tt.metric, r.reportedSummary.mean, r.reportedSummary.std)
                        : QStringLiteral("-"));
        t.addRow(row);
    }
    t.addNote(QStringLiteral("time: %1 (evaluation excluded) of the first checkpoint at or beyond the target; "
                             "the target was crossed since the checkpoint before: the time lies in the bracket "
                             "\"crossed in\" (median over runs), and the times given are its upper ends.")
                  .arg(training(tt.clocks, QStringLiteral("seconds"))));
    if (reports)
        t.addNote(QStringLiteral("selected on validation: the target is set and reached on %1; %2 is reported at the "
                                 "checkpoint that reached it.")
                      .arg(RunMetric::label(tt.selection), RunMetric::label(tt.metric)));
    else if (tt.selectedOnTest())
        t.addNote(QStringLiteral("selected on test data: the runs have no validation split, so the target was set and "
                                 "reached on %1 itself (give the data set \"validation_fraction\").")
                      .arg(RunMetric::label(tt.metric)));
    t.addNote(QStringLiteral("speed-up: baseline time / this time on the same seed (> 1: faster than %1); geometric mean "
                             "over seeds where both reached the target, t interval on the log ratios.")
                  .arg(tt.baseline));
    return t;
}

namespace {
QString meanInterval(MetricId m, const stats::Summary& s)
{
    if (s.count == 0)
        return QStringLiteral("-");
    QString out = RunMetric::format(m, s.mean);
    if (std::isfinite(s.ciLow))
        out += QStringLiteral(" [%1, %2]").arg(RunMetric::format(m, s.ciLow), RunMetric::format(m, s.ciHigh));
    return out;
}
} // namespace

TextTable ComparisonTables::selection(const QList<Selection>& rows, double confidence)
{
    const QString level = QString::number(100 * confidence, 'g', 3);
    TextTable t({QStringLiteral("data set"), QStringLiteral("selected configuration"), QStringLiteral("selected on"),
                 QStringLiteral("mean there"), QStringLiteral("reported"), QStringLiteral("mean [%1 % CI]").arg(level),
                 QStringLiteral("runs"), QStringLiteral("of")});
    t.setTitle(QStringLiteral("Selected on validation, reported on test"));
    for (int c : {3, 5, 6, 7})
        t.setAlign(c, TextTable::Align::Right);
    bool onTest = false;
    for (const Selection& s : rows) {
        onTest = onTest || s.selectedOnTest();
        t.addRow({s.dataset, s.configuration, RunMetric::label(s.selection), RunMetric::format(s.selection, s.selected.mean),
                  RunMetric::label(s.metric), meanInterval(s.metric, s.reported), QString::number(s.reported.count),
                  QString::number(s.candidates)});
    }
    t.addNote(QStringLiteral("the configuration with the best mean of the selection metric over its finished runs; "
                             "the reported metric is that configuration's, with a t interval over its seeds."));
    if (onTest)
        t.addNote(QStringLiteral("selected on test data: the runs have no validation split, so the selection and the "
                                 "reported value come from the same test set and the value is optimistic (give the data "
                                 "set \"validation_fraction\")."));
    return t;
}

TextTable ComparisonTables::atTimes(const MatchedTimeTable& mt, double confidence)
{
    const QString level = QString::number(100 * confidence, 'g', 3);
    QStringList header{QStringLiteral("configuration"), QStringLiteral("data set")};
    for (double s : mt.seconds)
        header << QStringLiteral("at %1").arg(RunMetric::format(MetricId::TrainSeconds, s));
    TextTable t(header);
    t.setTitle(QStringLiteral("%1 at common %2 (mean [%3 % CI], runs with a model by then)")
                   .arg(RunMetric::label(mt.metric), training(mt.clocks, QStringLiteral("times")), level));
    for (int c = 2; c < header.size(); ++c)
        t.setAlign(c, TextTable::Align::Right);
    for (const MatchedTimeRow& r : mt.rows) {
        QStringList row{r.configuration, r.dataset};
        for (int i = 0; i < r.at.size(); ++i)
            row << (r.runs[i] ? QStringLiteral("%1 (%2)").arg(meanInterval(mt.metric, r.at[i])).arg(r.runs[i])
                              : QStringLiteral("- (0)"));
        t.addRow(row);
    }
    t.addNote(QStringLiteral("a run's value at t is its last checkpoint at or before t %1 (a run that "
                             "stopped earlier keeps its final value); a run whose first checkpoint comes later has no "
                             "value yet: \"A beats B\" compared at the same times, not each at its own stop.")
                  .arg(training(mt.clocks, QStringLiteral("seconds"))));
    return t;
}

} // namespace tb
