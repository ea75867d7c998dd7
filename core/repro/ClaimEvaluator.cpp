#include "ClaimEvaluator.h"

#include "ClaimMetric.h"
#include "FactPath.h"

#include <algorithm>
#include <Comparison.h>
#include <Descriptive.h>
#include <Distributions.h>

#include <cmath>

namespace tb::repro {
namespace {

constexpr double kConfidence = 0.95;

struct Interval {
    double mean = NaN, low = NaN, high = NaN;
    bool point = false;  // two or more identical values: no spread (ClaimEvaluator::decide)
};

// The interval of a summary, scaled by @p scale.
Interval intervalOf(const stats::Summary& s, double scale = 1.0)
{
    return {s.mean * scale, s.ciLow * scale, s.ciHigh * scale, s.identical};
}

// A summary of stored values as the claim reads them: complemented (error = 1 − accuracy) and
// scaled (accuracy in percent).
Interval transformed(double mean, double low, double high, bool complement, double scale)
{
    if (complement) {
        mean = 1 - mean;
        std::swap(low, high);
        low = 1 - low;
        high = 1 - high;
    }
    return {mean * scale, low * scale, high * scale, false};
}

bool isAccuracy(MetricId m)
{
    return m == MetricId::TestAccuracy || m == MetricId::TrainAccuracy || m == MetricId::ValidationAccuracy;
}

QString quoted(const QString& s)
{
    return QStringLiteral("“%1”").arg(s);
}

QString targetText(const ClaimStatistic& s)
{
    const auto m = ClaimMetric::fromKey(s.metric);
    if (m && isAccuracy(m->stored))
        return QString::number(100 * s.target, 'g', 4) + QStringLiteral(" %");
    return QString::number(s.target, 'g', 4);
}

// @p cpu: the configurations' runs are timed on the CPU clock (a cpu budget), so their times
// are CPU seconds, and the words say so.
QString describeStatistic(const ClaimStatistic& s, bool cpu)
{
    const QString training = cpu ? QStringLiteral("training CPU") : QStringLiteral("training");
    const QString metric = ClaimMetric::label(s.metric);
    const QString a = quoted(s.algorithm), b = quoted(s.against);
    if (s.kind == QLatin1String("final"))
        return QStringLiteral("%1 at the final checkpoint of %2").arg(metric, a);
    if (s.kind == QLatin1String("at_time"))
        return QStringLiteral("%1 of %2 after %3 s of %4 time (each run's last checkpoint by then)")
            .arg(metric, a, QString::number(s.seconds, 'g', 4), training);
    if (s.kind == QLatin1String("time_to_target"))
        return QStringLiteral("%1 seconds of %2 to reach %3 %4").arg(training, a, metric, targetText(s));
    if (s.kind == QLatin1String("time_ratio"))
        return QStringLiteral(
                   "%1's %5 time to reach %2 %3 over %4's, paired by seed (> 1: %4 is faster)")
            .arg(b, metric, targetText(s), a, training);
    if (s.kind == QLatin1String("win_tie_loss"))
        return QStringLiteral("wins of %1 against %2 on %3 over paired seeds (tie band %4 %)")
            .arg(a, b, metric, QString::number(100 * s.tieBand, 'g', 3));
    if (s.kind == QLatin1String("difference"))
        return QStringLiteral("%1 of %2 minus that of %3, paired by seed").arg(metric, a, b);
    if (s.kind == QLatin1String("slope"))
        return QStringLiteral("slope of log %1 against log %2 of %3 (checkpoints with %2 ≥ %4), per run")
            .arg(metric,
                 s.x == QLatin1String("time") ? training + QStringLiteral(" time") : QStringLiteral("epoch"), a,
                 QString::number(s.from, 'g', 4));
    const QString fact = quoted(s.fact), over = quoted(s.over.isEmpty() ? s.fact : s.over);
    if (s.kind == QLatin1String("fact"))
        return QStringLiteral("the run fact %1 of %2, per run").arg(fact, a);
    if (s.kind == QLatin1String("fact_ratio"))
        return s.against.isEmpty()
                   ? QStringLiteral("the run fact %1 over %2 of the same run of %3; geometric mean over runs")
                         .arg(fact, over, a)
                   : QStringLiteral("the run fact %1 of %2 over %3 of %4, paired by seed; geometric mean")
                         .arg(fact, a, over, b);
    if (s.kind == QLatin1String("fact_difference"))
        return s.against.isEmpty() ? QStringLiteral("the run fact %1 minus %2 of the same run of %3, per run")
                                         .arg(fact, over, a)
                                   : QStringLiteral("the run fact %1 of %2 minus %3 of %4, paired by seed")
                                         .arg(fact, a, over, b);
    if (s.kind == QLatin1String("sweep"))
        return QStringLiteral("%1 of %2 at σ = %3 over the noise sweep's Monte-Carlo cells")
            .arg(s.metric == QLatin1String("train_rmse") ? QStringLiteral("train RMSE")
                                                         : QStringLiteral("test RMSE"),
                 a, QString::number(s.sigma, 'g', 4));
    return s.kind;
}

// The samples of configuration @p name, on the claim's data set.
const ConfigurationSample* findSample(const QList<ConfigurationSample>& samples, const QString& name,
                                      const QString& dataset, QString* error)
{
    QList<const ConfigurationSample*> matches;
    QStringList names, datasets;
    for (const ConfigurationSample& s : samples) {
        if (!names.contains(s.configuration))
            names << s.configuration;
        if (!datasets.contains(s.dataset))
            datasets << s.dataset;
        if (s.configuration == name &&
            (dataset.isEmpty() || s.dataset.contains(dataset, Qt::CaseInsensitive)))
            matches << &s;
    }
    if (matches.size() == 1)
        return matches.first();
    if (matches.isEmpty())
        *error =
            names.contains(name)
                ? QStringLiteral(
                      "configuration \"%1\" did not run on a data set matching \"%2\" (data sets: %3)")
                      .arg(name, dataset, datasets.join(QStringLiteral("; ")))
                : QStringLiteral("no configuration \"%1\" in the experiment's results (configurations: %2)")
                      .arg(name, names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", ")));
    else
        *error = QStringLiteral(
                     "configuration \"%1\" ran on several data sets (%2): name one in statistic.dataset")
                     .arg(name, datasets.join(QStringLiteral("; ")));
    return nullptr;
}

// Least-squares slope of log y against log x; NaN for fewer than three usable points.
double logLogSlope(const std::vector<double>& x, const std::vector<double>& y)
{
    std::vector<double> lx, ly;
    for (size_t i = 0; i < x.size(); ++i)
        if (x[i] > 0 && y[i] > 0 && std::isfinite(x[i]) && std::isfinite(y[i])) {
            lx.push_back(std::log(x[i]));
            ly.push_back(std::log(y[i]));
        }
    if (lx.size() < 3)
        return NaN;
    double mx = 0, my = 0;
    for (size_t i = 0; i < lx.size(); ++i) {
        mx += lx[i];
        my += ly[i];
    }
    mx /= double(lx.size());
    my /= double(ly.size());
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < lx.size(); ++i) {
        sxy += (lx[i] - mx) * (ly[i] - my);
        sxx += (lx[i] - mx) * (lx[i] - mx);
    }
    return sxx > 0 ? sxy / sxx : NaN;
}

bool lowerIsClaimed(const QString& rule)
{
    return rule == QLatin1String("mean_ci_contains_or_below") || rule == QLatin1String("mean_ci_below");
}

} // namespace

QString ClaimEvaluator::formatValue(double v, const QString& unit)
{
    if (!std::isfinite(v))
        return QStringLiteral("–");
    // Large figures in full ("1000×", not "1e+03×").
    if (unit != QLatin1String("%") && std::abs(v) >= 1000 && std::abs(v) < 1e9)
        return QString::number(v, 'f', 0) +
               (unit == QLatin1String("x") ? QStringLiteral("×") : QLatin1Char(' ') + unit);
    if (unit == QLatin1String("%"))
        return QString::number(v, 'f', 2) + QStringLiteral(" %");
    if (unit == QLatin1String("x"))
        return QString::number(v, 'g', 3) + QStringLiteral("×");
    if (unit == QLatin1String("s"))
        return QString::number(v, 'g', 3) + QStringLiteral(" s");
    if (unit == QLatin1String("points"))
        return QString::number(v, 'f', 2) + QStringLiteral(" points");
    if (unit == QLatin1String("wins"))
        return QString::number(v, 'g', 4) + QStringLiteral(" wins");
    if (unit.isEmpty() || unit == QLatin1String("slope"))
        return QString::number(v, 'g', 4);
    return QString::number(v, 'g', 4) + QLatin1Char(' ') + unit;
}

QString ClaimEvaluator::describeRule(const VerdictRule& rule, const Figure& figure)
{
    const QString f = formatValue(figure.value, figure.unit);
    const QString& r = rule.rule;
    if (r == QLatin1String("mean_ci_contains_or_exceeds"))
        return QStringLiteral("holds if the 95 % interval of the mean contains or exceeds %1").arg(f);
    if (r == QLatin1String("mean_ci_contains_or_below"))
        return QStringLiteral("holds if the 95 % interval of the mean contains %1 or lies below it").arg(f);
    if (r == QLatin1String("mean_ci_contains"))
        return QStringLiteral("holds if the 95 % interval of the mean contains %1").arg(f);
    if (r == QLatin1String("mean_ci_above"))
        return QStringLiteral(
                   "holds if the 95 % interval of the mean lies above %1, does not if it lies at or below "
                   "it, inconclusive if it straddles it")
            .arg(f);
    if (r == QLatin1String("mean_ci_below"))
        return QStringLiteral(
                   "holds if the 95 % interval of the mean lies below %1, does not if it lies at or above "
                   "it, inconclusive if it straddles it")
            .arg(f);
    if (r == QLatin1String("ratio_at_least"))
        return QStringLiteral(
                   "holds if the 95 % interval of the geometric-mean ratio lies at or above %1, does not if "
                   "it lies below it, inconclusive if it straddles it")
            .arg(f);
    if (r == QLatin1String("wins_at_least"))
        return QStringLiteral("holds if the wins are at least %1 % of the paired seeds")
            .arg(QString::number(100 * rule.fraction, 'g', 3));
    if (r == QLatin1String("wins_at_most"))
        return QStringLiteral("holds if the wins are at most %1 % of the paired seeds")
            .arg(QString::number(100 * rule.fraction, 'g', 3));
    return r;
}

Verdict ClaimEvaluator::decide(const QString& rule, double low, double high, double figure, QString* reason,
                               const QString& unit, bool point)
{
    if (!std::isfinite(low) || !std::isfinite(high)) {
        *reason = QStringLiteral("no interval (fewer than two values)");
        return Verdict::Inconclusive;
    }
    const QString f = formatValue(figure, unit);
    QString interval = QStringLiteral("[%1, %2]").arg(formatValue(low, unit), formatValue(high, unit));
    if (point) {
        // One computed number, not a spread: equal to the figure within its rounding counts as
        // the figure (the rules below then say "contains", or "at or below" for a strict one).
        const double v = 0.5 * (low + high);
        const bool equal = std::abs(v - figure) <= kPointTolerance * std::max(std::abs(v), std::abs(figure));
        interval = QStringLiteral("[%1, %2] (identical values, no spread%3)")
                       .arg(formatValue(low, unit), formatValue(high, unit),
                            equal && v != figure
                                ? QStringLiteral("; %1 equals the figure within rounding").arg(v, 0, 'g', 17)
                                : QString());
        if (equal)
            low = high = figure;
    }
    auto say = [&](Verdict v, const QString& why) {
        *reason = QStringLiteral("interval %1 %2 %3").arg(interval, why, f);
        return v;
    };
    if (rule == QLatin1String("mean_ci_contains_or_exceeds"))
        return high >= figure ? say(Verdict::Holds,
                                    low <= figure ? QStringLiteral("contains") : QStringLiteral("lies above"))
                              : say(Verdict::DoesNotHold, QStringLiteral("lies below"));
    if (rule == QLatin1String("mean_ci_contains_or_below"))
        return low <= figure ? say(Verdict::Holds,
                                   high >= figure ? QStringLiteral("contains") : QStringLiteral("lies below"))
                             : say(Verdict::DoesNotHold, QStringLiteral("lies above"));
    if (rule == QLatin1String("mean_ci_contains")) {
        if (low <= figure && figure <= high)
            return say(Verdict::Holds, QStringLiteral("contains"));
        return say(Verdict::DoesNotHold,
                   high < figure ? QStringLiteral("lies below") : QStringLiteral("lies above"));
    }
    if (rule == QLatin1String("mean_ci_above")) {
        if (low > figure)
            return say(Verdict::Holds, QStringLiteral("lies above"));
        if (high <= figure)
            return say(Verdict::DoesNotHold, QStringLiteral("lies at or below"));
        return say(Verdict::Inconclusive, QStringLiteral("straddles"));
    }
    if (rule == QLatin1String("mean_ci_below")) {
        if (high < figure)
            return say(Verdict::Holds, QStringLiteral("lies below"));
        if (low >= figure)
            return say(Verdict::DoesNotHold, QStringLiteral("lies at or above"));
        return say(Verdict::Inconclusive, QStringLiteral("straddles"));
    }
    if (rule == QLatin1String("ratio_at_least")) {
        if (low >= figure)
            return say(Verdict::Holds, QStringLiteral("lies at or above"));
        if (high < figure)
            return say(Verdict::DoesNotHold, QStringLiteral("lies below"));
        return say(Verdict::Inconclusive, QStringLiteral("straddles"));
    }
    *reason = QStringLiteral("unknown rule \"%1\"").arg(rule);
    return Verdict::Inconclusive;
}

ClaimOutcome ClaimEvaluator::evaluate(const Claim& claim, const ExperimentResult& result, int planned)
{
    const ClaimStatistic& s = claim.statistic;
    ClaimOutcome o;
    o.claimId = claim.id;
    o.planned = planned;
    const bool cpu = std::any_of(result.curves.begin(), result.curves.end(), [&](const AlgorithmCurves& c) {
        const QString name = c.configuration.isEmpty() ? c.label : c.configuration;
        return c.clock == ClockKind::Cpu && (name == s.algorithm || (!s.against.isEmpty() && name == s.against));
    });
    o.statisticText = describeStatistic(s, cpu);
    o.ruleText = describeRule(claim.verdict, claim.figure);
    auto decideInterval = [&](const Interval& iv) {
        o.measured = std::isfinite(iv.mean);
        o.mean = iv.mean;
        o.ciLow = iv.low;
        o.ciHigh = iv.high;
        o.verdict = decide(claim.verdict.rule, iv.low, iv.high, claim.figure.value, &o.reason, claim.figure.unit,
                           iv.point);
    };

    if (s.kind == QLatin1String("sweep")) {
        QStringList seen;
        for (const SummaryPoint& p : result.summary) {
            seen << QStringLiteral("%1 at σ %2").arg(p.algorithmName).arg(p.x);
            if (p.algorithmName != s.algorithm || std::abs(p.x - s.sigma) > 1e-9)
                continue;
            const bool train = s.metric == QLatin1String("train_rmse");
            const double mean = train ? p.trainRmseMean : p.testRmseMean;
            const double sd = train ? p.trainRmseStd : p.testRmseStd;
            o.n = p.count;
            o.failedRuns = std::max(0, planned - p.count);
            Interval iv{mean, NaN, NaN};
            if (p.count >= 2 && std::isfinite(sd)) {
                const double t =
                    stats::Distributions::studentTQuantile(0.5 + kConfidence / 2, p.count - 1);
                const double half = t * sd / std::sqrt(double(p.count));
                iv = {mean, mean - half, mean + half, sd == 0};
            }
            o.detail = QStringLiteral("%1 Monte-Carlo cells, standard deviation %2")
                           .arg(p.count)
                           .arg(sd, 0, 'g', 4);
            decideInterval(iv);
            return o;
        }
        o.error = QStringLiteral("the noise sweep has no point of \"%1\" at σ %2 (points: %3)")
                      .arg(s.algorithm)
                      .arg(s.sigma)
                      .arg(seen.isEmpty() ? QStringLiteral("none") : seen.join(QStringLiteral(", ")));
        o.reason = o.error;
        return o;
    }

    if (s.kind == QLatin1String("fact") || s.kind == QLatin1String("fact_ratio") ||
        s.kind == QLatin1String("fact_difference")) {
        // The metric does not matter: the samples are read for their seeds and facts.
        const QList<ConfigurationSample> all = Comparison::samples(result.curves, MetricId::Loss);
        const ConfigurationSample* a = findSample(all, s.algorithm, s.dataset, &o.error);
        const ConfigurationSample* b =
            a && !s.against.isEmpty() ? findSample(all, s.against, s.dataset, &o.error) : nullptr;
        if (!a || (!s.against.isEmpty() && !b)) {
            o.reason = o.error;
            return o;
        }
        o.failedRuns = a->excluded + (b ? b->excluded : 0);
        const bool single = s.kind == QLatin1String("fact");
        const bool ratio = s.kind == QLatin1String("fact_ratio");
        const QString second = s.over.isEmpty() ? s.fact : s.over;
        std::vector<double> values; // per run or pair: the fact, log of the ratio, or the difference
        int runs = 0, found = 0, unpaired = 0, notPositive = 0;
        QString firstWhy;
        auto read = [&](const QJsonObject& facts, const QString& path, const QString& configuration) {
            QString why;
            const std::optional<double> v = FactPath::number(facts, path, &why);
            if (!v && firstWhy.isEmpty())
                firstWhy = QStringLiteral("%1 (a run of %2)").arg(why, quoted(configuration));
            return v;
        };
        for (int i = 0; i < a->seeds.size(); ++i) {
            ++runs;
            const std::optional<double> x = read(a->infos.value(i), s.fact, a->configuration);
            if (x)
                ++found;
            if (single) {
                if (x)
                    values.push_back(*x);
                continue;
            }
            std::optional<double> y;
            if (b) {
                const qsizetype j = b->seeds.indexOf(a->seeds[i]);
                if (j < 0) {
                    ++unpaired;
                    continue;
                }
                y = read(b->infos.value(j), second, b->configuration);
            } else {
                y = read(a->infos.value(i), second, a->configuration);
            }
            if (!x || !y)
                continue;
            if (!ratio)
                values.push_back(*x - *y);
            else if (*x > 0 && *y > 0)
                values.push_back(std::log(*x / *y));
            else
                ++notPositive;
        }
        if (runs > 0 && found == 0 && !firstWhy.isEmpty()) {
            // No run has the fact: the claims file names it wrongly (or the plugin never records it).
            o.error = o.reason = QStringLiteral("fact \"%1\": %2").arg(s.fact, firstWhy);
            return o;
        }
        const stats::Summary sum = stats::Descriptive::summarise(values, kConfidence);
        o.n = sum.count;
        const int expected = runs - unpaired;
        const QString unit = claim.figure.unit;
        if (ratio) {
            o.detail = QStringLiteral("%1 %2; geometric standard deviation ×%3")
                           .arg(sum.count)
                           .arg(b ? QStringLiteral("pair(s) by seed") : QStringLiteral("run(s)"))
                           .arg(std::exp(sum.std), 0, 'g', 3);
            decideInterval({std::exp(sum.mean), std::exp(sum.ciLow), std::exp(sum.ciHigh), sum.identical});
        } else {
            o.detail = QStringLiteral("%1 %2; standard deviation %3")
                           .arg(sum.count)
                           .arg(b ? QStringLiteral("pair(s) by seed") : QStringLiteral("run(s)"))
                           .arg(formatValue(sum.std, unit));
            decideInterval(intervalOf(sum));
        }
        if (unpaired > 0)
            o.detail += QStringLiteral("; %1 run(s) of %2 had no run of %3 with their seed")
                            .arg(unpaired)
                            .arg(quoted(s.algorithm), quoted(s.against));
        if (notPositive > 0) {
            o.verdict = Verdict::Inconclusive;
            o.reason = QStringLiteral("%1 of %2 ratio(s) had a fact ≤ 0 (no ratio on the log scale); the "
                                      "geometric mean of the others says nothing of them")
                           .arg(notPositive)
                           .arg(expected);
        } else if (sum.count < expected) {
            o.verdict = Verdict::Inconclusive;
            o.reason = QStringLiteral("%1 of %2 run(s) or pair(s) lack the fact: %3")
                           .arg(expected - sum.count)
                           .arg(expected)
                           .arg(firstWhy);
        } else if (sum.count == 0) {
            o.reason =
                b ? QStringLiteral("no seeds shared by %1 and %2").arg(quoted(s.algorithm), quoted(s.against))
                  : QStringLiteral("no finished run of %1").arg(quoted(s.algorithm));
        }
        return o;
    }

    const auto metric = ClaimMetric::fromKey(s.metric);
    if (!metric) {
        o.error = o.reason = QStringLiteral("unknown metric \"%1\"").arg(s.metric);
        return o;
    }
    // Accuracies and errors in percent ("%") or, for differences, in percentage points.
    const bool percent =
        (claim.figure.unit == QLatin1String("%") || claim.figure.unit == QLatin1String("points")) &&
        (isAccuracy(metric->stored) || metric->complement);
    const QList<ConfigurationSample> all = Comparison::samples(result.curves, metric->stored);
    const ConfigurationSample* a = findSample(all, s.algorithm, s.dataset, &o.error);
    if (!a) {
        o.reason = o.error;
        return o;
    }
    const ConfigurationSample* b = nullptr;
    if (!s.against.isEmpty()) {
        b = findSample(all, s.against, s.dataset, &o.error);
        if (!b) {
            o.reason = o.error;
            return o;
        }
    }
    o.failedRuns = a->excluded + (b ? b->excluded : 0);
    const double scale = percent ? 100.0 : 1.0;

    if (s.kind == QLatin1String("final")) {
        std::vector<double> values;
        for (double v : a->values)
            values.push_back(metric->complement ? 1 - v : v);
        const stats::Summary sum = stats::Descriptive::summarise(values, kConfidence);
        o.n = sum.count;
        o.detail = QStringLiteral("%1 finished run(s); standard deviation %2")
                       .arg(sum.count)
                       .arg(formatValue(sum.std * scale, percent ? QStringLiteral("%") : claim.figure.unit));
        decideInterval(intervalOf(sum, scale));
        return o;
    }
    if (s.kind == QLatin1String("at_time")) {
        const MatchedTimeTable t = Comparison::atTimes({*a}, metric->stored, {s.seconds}, kConfidence);
        const stats::Summary sum = t.rows.value(0).at.value(0);
        o.n = sum.count;
        o.detail = QStringLiteral("%1 of %2 finished run(s) had a checkpoint by %3 s")
                       .arg(sum.count)
                       .arg(a->values.size())
                       .arg(s.seconds);
        Interval at = transformed(sum.mean, sum.ciLow, sum.ciHigh, metric->complement, scale);
        at.point = sum.identical;
        decideInterval(at);
        return o;
    }
    if (s.kind == QLatin1String("time_to_target") || s.kind == QLatin1String("time_ratio")) {
        const double target = metric->complement ? 1 - s.target : s.target;
        QList<ConfigurationSample> both{*a};
        if (b)
            both << *b;
        const TimeToTargetTable t = Comparison::timeToTarget(both, metric->stored, target,
                                                             b ? b->configuration : QString(), kConfidence);
        const TimeToTargetRow* row = nullptr;
        for (const TimeToTargetRow& r : t.rows)
            if (r.configuration == a->configuration && r.dataset == a->dataset)
                row = &r;
        if (!row) {
            o.error = o.reason = QStringLiteral("no time-to-target row for \"%1\"").arg(s.algorithm);
            return o;
        }
        const QString on =
            t.selection != t.metric
                ? QStringLiteral("; the target is reached on %1").arg(RunMetric::label(t.selection))
                : QString();
        if (s.kind == QLatin1String("time_to_target")) {
            const int runs = int(row->seconds.size());
            o.n = row->reached;
            double missMean = 0;
            int misses = 0;
            for (int i = 0; i < row->seconds.size(); ++i)
                if (std::isfinite(row->seconds[i])) {
                    missMean += row->lastMissSeconds.value(i);
                    ++misses;
                }
            o.detail = QStringLiteral("reached by %1 of %2 run(s)%3").arg(row->reached).arg(runs).arg(on);
            if (misses > 0)
                o.detail +=
                    QStringLiteral("; each run's time is the first checkpoint at the target, the target was "
                                   "crossed after its previous checkpoint (mean %1 s)")
                        .arg(missMean / misses, 0, 'g', 3);
            decideInterval(intervalOf(row->summary));
            if (row->reached < runs && lowerIsClaimed(claim.verdict.rule)) {
                o.verdict = Verdict::DoesNotHold;
                o.reason = QStringLiteral("%1 of %2 run(s) never reached the target")
                               .arg(runs - row->reached)
                               .arg(runs);
            } else if (row->reached < runs) {
                o.verdict = Verdict::Inconclusive;
                o.reason =
                    QStringLiteral("%1 of %2 run(s) never reached the target: the mean of the others says "
                                   "nothing of them")
                        .arg(runs - row->reached)
                        .arg(runs);
            }
            return o;
        }
        const stats::SpeedRatioResult& ratio = row->speedupOverBaseline;
        o.n = ratio.n;
        o.detail = QStringLiteral("%1 pair(s) where both reached the target; %2 missed by %3, %4 by %5%6")
                       .arg(ratio.n)
                       .arg(ratio.aMissed)
                       .arg(quoted(s.algorithm))
                       .arg(ratio.bMissed)
                       .arg(quoted(s.against))
                       .arg(on);
        if (!ratio.valid) {
            o.reason = QStringLiteral("no pair of runs where both reached the target");
            o.verdict = Verdict::Inconclusive;
            return o;
        }
        decideInterval({ratio.geometricMean, ratio.ciLow, ratio.ciHigh, ratio.n >= 2 && ratio.min == ratio.max});
        return o;
    }
    if (s.kind == QLatin1String("win_tie_loss") || s.kind == QLatin1String("difference")) {
        const QList<PairwiseComparison> pairs =
            Comparison::pairwise({*a, *b}, metric->stored, b->configuration, s.tieBand, kConfidence);
        const PairwiseComparison* pc = nullptr;
        for (const PairwiseComparison& p : pairs)
            if (p.configuration == a->configuration && p.dataset == a->dataset)
                pc = &p;
        if (!pc || pc->pairs == 0) {
            o.reason =
                QStringLiteral("no seeds shared by %1 and %2").arg(quoted(s.algorithm), quoted(s.against));
            o.verdict = Verdict::Inconclusive;
            return o;
        }
        o.n = pc->pairs;
        if (s.kind == QLatin1String("win_tie_loss")) {
            const auto& w = pc->winTieLoss;
            o.measured = true;
            o.mean = w.wins;
            o.detail = QStringLiteral("wins %1, ties %2, losses %3 of %4 paired seed(s)")
                           .arg(w.wins)
                           .arg(w.ties)
                           .arg(w.losses)
                           .arg(pc->pairs);
            // The paper's count scaled to the pairs there are: fraction × pairs, rounded towards
            // the stricter side (a quick variant's 3 seeds need 3 wins for "10 of 10").
            const double bound = claim.verdict.fraction * pc->pairs;
            if (claim.verdict.rule == QLatin1String("wins_at_most")) {
                o.countBound = int(std::floor(bound + 1e-9));
                o.verdict = w.wins <= o.countBound ? Verdict::Holds : Verdict::DoesNotHold;
                o.reason = QStringLiteral("%1 wins of %2 pairs, at most %3 allowed")
                               .arg(w.wins)
                               .arg(pc->pairs)
                               .arg(o.countBound);
            } else {
                o.countBound = int(std::ceil(bound - 1e-9));
                o.verdict = w.wins >= o.countBound ? Verdict::Holds : Verdict::DoesNotHold;
                o.reason = QStringLiteral("%1 wins of %2 pairs, %3 needed")
                               .arg(w.wins)
                               .arg(pc->pairs)
                               .arg(o.countBound);
            }
            return o;
        }
        const auto& t = pc->tTest;
        o.detail = QStringLiteral("paired t-test over %1 seed(s): p = %2").arg(t.n).arg(t.pValue, 0, 'g', 3);
        const bool point = t.valid && t.sdDifference == 0;  // every pair differs by the same amount
        Interval iv{t.meanDifference, t.ciLow, t.ciHigh, point};
        if (metric->complement)
            iv = {-t.meanDifference, -t.ciHigh, -t.ciLow, point};
        decideInterval({iv.mean * scale, iv.low * scale, iv.high * scale, point});
        if (!t.valid && o.verdict == Verdict::Inconclusive)
            o.reason = t.note.empty() ? o.reason : QString::fromStdString(t.note);
        return o;
    }
    if (s.kind == QLatin1String("slope")) {
        std::vector<double> slopes;
        const bool time = s.x == QLatin1String("time");
        for (const QVector<MetricPoint>& curve : a->curves) {
            std::vector<double> x, y;
            for (const MetricPoint& p : curve) {
                const double xv = time ? p.trainTime : p.epoch;
                if (xv < s.from)
                    continue;
                double v = RunMetric::atPoint(metric->stored, p);
                if (metric->complement)
                    v = 1 - v;
                x.push_back(xv);
                y.push_back(v);
            }
            const double slope = logLogSlope(x, y);
            if (std::isfinite(slope))
                slopes.push_back(slope);
        }
        const stats::Summary sum = stats::Descriptive::summarise(slopes, kConfidence);
        o.n = sum.count;
        o.detail =
            QStringLiteral("%1 of %2 run(s) had three or more checkpoints to fit; standard deviation %3")
                .arg(sum.count)
                .arg(a->curves.size())
                .arg(sum.std, 0, 'g', 3);
        decideInterval(intervalOf(sum));
        return o;
    }
    o.error = o.reason = QStringLiteral("unknown statistic \"%1\"").arg(s.kind);
    return o;
}

} // namespace tb::repro
